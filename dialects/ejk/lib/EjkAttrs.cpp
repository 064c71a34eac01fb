//===- EjkAttrs.cpp - #ejk.config -----------------------------------------===//

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Dialect/Ejk/EjkDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ejk;

#define GET_ATTRDEF_CLASSES
#include "ejk/Dialect/Ejk/EjkAttrs.cpp.inc"

void EjkDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ejk/Dialect/Ejk/EjkAttrs.cpp.inc"
      >();
}

ConfigAttr ConfigAttr::get(MLIRContext *context,
                           ArrayRef<std::pair<StringRef, int64_t>> values) {
  Builder builder(context);
  SmallVector<NamedAttribute> entries;
  for (auto [name, value] : values)
    entries.push_back(
        builder.getNamedAttr(name, builder.getI64IntegerAttr(value)));
  // DictionaryAttr::get sorts the entries, which makes configs canonical.
  return Base::get(context, DictionaryAttr::get(context, entries));
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 DictionaryAttr entries) {
  for (NamedAttribute entry : entries) {
    auto value = dyn_cast<IntegerAttr>(entry.getValue());
    if (!value || !value.getType().isSignlessInteger(64))
      return emitError() << "#ejk.config entry '" << entry.getName().strref()
                         << "' must be a 64-bit integer";
    if (value.getInt() < 1)
      return emitError() << "#ejk.config entry '" << entry.getName().strref()
                         << "' must be positive, got " << value.getInt();
  }
  return success();
}

std::optional<int64_t> ConfigAttr::lookup(StringRef name) const {
  if (auto value = dyn_cast_or_null<IntegerAttr>(getEntries().get(name)))
    return value.getInt();
  return std::nullopt;
}

int64_t ConfigAttr::lookupOr(StringRef name, int64_t defaultValue) const {
  return lookup(name).value_or(defaultValue);
}

ConfigAttr ConfigAttr::with(StringRef name, int64_t value) const {
  SmallVector<std::pair<StringRef, int64_t>> values;
  for (NamedAttribute entry : getEntries())
    if (entry.getName() != name)
      values.emplace_back(entry.getName().strref(),
                          cast<IntegerAttr>(entry.getValue()).getInt());
  values.emplace_back(name, value);
  return ConfigAttr::get(getContext(), values);
}

// #ejk.config<name = 64, other = 128>
Attribute ConfigAttr::parse(AsmParser &parser, Type) {
  SmallVector<std::pair<std::string, int64_t>> parsed;
  auto parseEntry = [&]() -> ParseResult {
    std::string name;
    int64_t value = 0;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&name) || parser.parseEqual() ||
        parser.parseInteger(value))
      return failure();
    if (llvm::any_of(parsed, [&](auto &entry) { return entry.first == name; }))
      return parser.emitError(loc, "duplicate #ejk.config entry '")
             << name << "'";
    parsed.emplace_back(std::move(name), value);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseEntry))
    return {};
  SmallVector<std::pair<StringRef, int64_t>> values;
  for (auto &[name, value] : parsed)
    values.emplace_back(name, value);
  Builder builder(parser.getContext());
  SmallVector<NamedAttribute> entries;
  for (auto [name, value] : values)
    entries.push_back(
        builder.getNamedAttr(name, builder.getI64IntegerAttr(value)));
  return parser.getChecked<ConfigAttr>(
      parser.getContext(), DictionaryAttr::get(parser.getContext(), entries));
}

void ConfigAttr::print(AsmPrinter &printer) const {
  printer << '<';
  llvm::interleaveComma(getEntries(), printer, [&](NamedAttribute entry) {
    printer.printKeywordOrString(entry.getName().strref());
    printer << " = " << cast<IntegerAttr>(entry.getValue()).getInt();
  });
  printer << '>';
}

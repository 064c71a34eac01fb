//===- ShapeVerifier.cpp - Named shape checks for op verifiers ------------===//

#include "ShapeVerifier.h"

#include "ejk/Dialect/Ejk/EjkAttrs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

std::string mlir::ejk::formatDiagnosticFloat(double value) {
  // printf spells non-finite values differently across C libraries ("-nan",
  // "INF"), so they are named here.
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

std::string ShapeVerifier::describeDim(const NamedTensor &t, unsigned i) const {
  return llvm::formatv("'{0}' dim {1} ({2})", t.name, i, t.dimNames[i]).str();
}

FailureOr<NamedTensor> ShapeVerifier::tensor(TypedValue<RankedTensorType> value,
                                             StringRef name,
                                             ArrayRef<StringRef> dimNames) {
  // ODS constrains every ejk operand to a ranked tensor already.
  RankedTensorType type = value.getType();
  if (type.getRank() != static_cast<int64_t>(dimNames.size()))
    return op->emitOpError("expects '")
           << name << "' to have rank " << dimNames.size() << " ["
           << llvm::join(dimNames, ", ") << "], got rank " << type.getRank();
  if (!type.hasStaticShape())
    return op->emitOpError("expects '")
           << name << "' to have a static shape, got " << type;
  return NamedTensor{name, type, SmallVector<StringRef, 4>(dimNames)};
}

LogicalResult ShapeVerifier::dimMatches(const NamedTensor &t, unsigned i,
                                        const NamedTensor &source, unsigned j) {
  if (t.dim(i) == source.dim(j))
    return success();
  return op->emitOpError("expects ")
         << describeDim(t, i) << " to be " << source.dim(j) << " to match "
         << describeDim(source, j) << ", got " << t.dim(i);
}

LogicalResult ShapeVerifier::dimEquals(const NamedTensor &t, unsigned i,
                                       int64_t expected, StringRef why) {
  if (t.dim(i) == expected)
    return success();
  return op->emitOpError("expects ")
         << describeDim(t, i) << " to be " << expected << " (" << why
         << "), got " << t.dim(i);
}

LogicalResult ShapeVerifier::dimBroadcasts(const NamedTensor &t, unsigned i,
                                           const NamedTensor &source,
                                           unsigned j) {
  if (t.dim(i) == 1 || t.dim(i) == source.dim(j))
    return success();
  return op->emitOpError("expects ")
         << describeDim(t, i) << " to be 1 or " << source.dim(j) << " to match "
         << describeDim(source, j) << ", got " << t.dim(i);
}

LogicalResult ShapeVerifier::dimNotZero(const NamedTensor &t, unsigned i,
                                        StringRef why) {
  if (t.dim(i) > 0)
    return success();
  return op->emitOpError("expects ")
         << describeDim(t, i) << " to be at least 1 (" << why << "), got "
         << t.dim(i);
}

LogicalResult ShapeVerifier::dimDivides(const NamedTensor &den, unsigned i,
                                        const NamedTensor &num, unsigned j) {
  if (den.dim(i) > 0 && num.dim(j) % den.dim(i) == 0)
    return success();
  return op->emitOpError("expects ")
         << describeDim(den, i) << " to divide " << describeDim(num, j)
         << ", got " << den.dim(i) << " and " << num.dim(j);
}

LogicalResult ShapeVerifier::isFloat(const NamedTensor &t) {
  Type type = t.elementType();
  if (type.isF32() || type.isF16() || type.isBF16())
    return success();
  return op->emitOpError("expects '")
         << t.name << "' element type to be f32, f16 or bf16, got " << type;
}

LogicalResult ShapeVerifier::isFloatOrInt8(const NamedTensor &t) {
  Type type = t.elementType();
  if (type.isF32() || type.isF16() || type.isBF16() ||
      type.isSignlessInteger(8))
    return success();
  return op->emitOpError("expects '")
         << t.name << "' element type to be f32, f16, bf16 or i8, got " << type;
}

LogicalResult ShapeVerifier::elementIs(const NamedTensor &t, Type expected) {
  if (t.elementType() == expected)
    return success();
  return op->emitOpError("expects '")
         << t.name << "' element type to be " << expected << ", got "
         << t.elementType();
}

LogicalResult ShapeVerifier::sameElement(const NamedTensor &t,
                                         const NamedTensor &source) {
  if (t.elementType() == source.elementType())
    return success();
  return op->emitOpError("expects '")
         << t.name << "' element type to match '" << source.name << "' ("
         << source.elementType() << "), got " << t.elementType();
}

LogicalResult ShapeVerifier::positiveFinite(FloatAttr attr,
                                            StringRef attrName) {
  if (!attr)
    return success();
  double value = attr.getValueAsDouble();
  if (std::isfinite(value) && value > 0.0)
    return success();
  return op->emitOpError("expects '")
         << attrName << "' to be positive and finite, got "
         << formatDiagnosticFloat(value);
}

LogicalResult ShapeVerifier::atLeast(IntegerAttr attr, StringRef attrName,
                                     int64_t minValue) {
  if (!attr || attr.getInt() >= minValue)
    return success();
  return op->emitOpError("expects '") << attrName << "' to be at least "
                                      << minValue << ", got " << attr.getInt();
}

LogicalResult ShapeVerifier::configNames(Attribute config,
                                         ArrayRef<StringRef> names) {
  auto entries =
      config
          ? dyn_cast<DictionaryAttr>(cast<ejk::ConfigAttr>(config).getEntries())
          : DictionaryAttr();
  if (!entries)
    return success();
  for (NamedAttribute entry : entries)
    if (!llvm::is_contained(names, entry.getName().strref()))
      return op->emitOpError("does not accept config entry '")
             << entry.getName().strref()
             << "', expected one of: " << llvm::join(names, ", ");
  return success();
}

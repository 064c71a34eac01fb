//===- ProblemKey.h - writing an op's problem key ---------------*- C++ -*-===//
//
// A problem key is the op name followed by `;name=value` fields: operand
// shapes and element types, and the attributes that change the code. The
// tuning database is keyed by it, so its format must stay stable.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_PROBLEMKEY_H
#define EJK_OPS_COMMON_PROBLEMKEY_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::ejk {

class ProblemKey {
public:
  explicit ProblemKey(StringRef opName) : os(key) { os << opName; }

  /// Appends `;name=<shape>x<element type>`, or `;name=none` for null.
  ProblemKey &type(StringRef name, Value value) {
    os << ';' << name << '=';
    if (!value) {
      os << "none";
      return *this;
    }
    auto type = cast<RankedTensorType>(value.getType());
    llvm::interleave(type.getShape(), os, "x");
    os << 'x' << type.getElementType();
    return *this;
  }
  /// Appends `;name=1` or `;name=0`.
  ProblemKey &flag(StringRef name, bool value) {
    os << ';' << name << '=' << (value ? 1 : 0);
    return *this;
  }
  /// Appends `;name=` and lets the caller write the value.
  llvm::raw_ostream &field(StringRef name) { return os << ';' << name << '='; }

  std::string str() { return key; }

private:
  std::string key;
  llvm::raw_string_ostream os;
};

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_PROBLEMKEY_H

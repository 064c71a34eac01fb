//===- ConfigNames.h - checking the entries of a config ---------*- C++ -*-===//

#ifndef EJK_OPS_CONFIGNAMES_H
#define EJK_OPS_CONFIGNAMES_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::ejk {

/// Fails with `reason` when `config` has an entry outside `names`.
inline LogicalResult checkConfigNames(ConfigAttr config,
                                      llvm::ArrayRef<llvm::StringRef> names,
                                      llvm::raw_ostream &reason) {
  for (NamedAttribute entry : config.getEntries())
    if (!llvm::is_contained(names, entry.getName().strref())) {
      reason << "unknown config entry '" << entry.getName().strref() << "'";
      return failure();
    }
  return success();
}

} // namespace mlir::ejk

#endif // EJK_OPS_CONFIGNAMES_H

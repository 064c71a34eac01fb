//===- CpuWorkingSet.h - the L2 rule of the CPU configs ---------*- C++ -*-===//
//
// Every CPU kernel's config is valid only when the scratch it streams
// through stays in L2: one check and one message for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_CPUWORKINGSET_H
#define EJK_OPS_COMMON_CPUWORKINGSET_H

#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

namespace mlir::ejk {

/// Succeeds when `bytes` fits the target's L2 cache; otherwise writes why
/// to `reason`. `bytes` is empty when the size overflowed 2^63; `what`
/// names the set ("working set", "working set of the dQ pass").
inline LogicalResult checkL2WorkingSet(std::optional<int64_t> bytes,
                                       const TargetInfo &target,
                                       llvm::raw_ostream &reason,
                                       llvm::StringRef what = "working set") {
  if (bytes && *bytes <= target.l2Bytes)
    return success();
  reason << what << " of ";
  if (bytes)
    reason << *bytes;
  else
    reason << "more than 2^63";
  reason << " bytes exceeds the " << target.l2Bytes << "-byte L2 cache";
  return failure();
}

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_CPUWORKINGSET_H

//===- StateTiles.h - tiles of d_state both targets try ---------*- C++ -*-===//

#ifndef EJK_OPS_STATESPACE_STATETILES_H
#define EJK_OPS_STATESPACE_STATETILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::ejk {

/// Divisors of `n` among `candidates`, plus `n` itself.
inline llvm::SmallVector<int64_t>
stateTiles(int64_t n, llvm::ArrayRef<int64_t> candidates) {
  llvm::SmallVector<int64_t> tiles;
  for (int64_t c : candidates)
    if (c < n && n % c == 0)
      tiles.push_back(c);
  tiles.push_back(n);
  return tiles;
}

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_STATETILES_H

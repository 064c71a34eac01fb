//===- Emit.h - small IR helpers of the paged Vulkan kernels ----*- C++ -*-===//
//
// Index arithmetic, widening loads, guards and workgroup loops that the
// paged-attention split kernel and its combine (Kernel.cpp, Combine.cpp)
// both write their bodies with.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_VULKAN_EMIT_H
#define EJK_OPS_PAGED_VULKAN_EMIT_H

#include "Common/CpuEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::ejk::paged {

inline Value cmpI(Emitter &e, arith::CmpIPredicate pred, Value x, Value y) {
  return arith::CmpIOp::create(e.b, pred, x, y);
}
inline Value divU(Emitter &e, Value x, int64_t y) {
  return arith::DivUIOp::create(e.b, x, e.index(y));
}
inline Value remU(Emitter &e, Value x, int64_t y) {
  return arith::RemUIOp::create(e.b, x, e.index(y));
}
inline Value fma(Emitter &e, Value x, Value y, Value acc) {
  return math::FmaOp::create(e.b, x, y, acc);
}
inline Value loadIndex(Emitter &e, Value memref, ValueRange indices) {
  Value v = memref::LoadOp::create(e.b, memref, indices);
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), v);
}
/// Loads a float as f32 (widened) or an integer of a quantized cache as f32
/// (signed conversion).
inline Value loadF32(Emitter &e, Value memref, ValueRange indices) {
  Value v = memref::LoadOp::create(e.b, memref, indices);
  if (isa<IntegerType>(v.getType()))
    return arith::SIToFPOp::create(e.b, e.f32, v);
  return e.toF32(v);
}
/// The `elt` elements (f16, bf16 or f32) packed in the four i32 words of a
/// 16-byte load, widened to f32 in memory order (SPIR-V vectors of 2 to 4
/// components: f16 through two vector<2xi32> -> vector<4xf16> bitcasts; bf16
/// by moving each half into the high bits of an f32).
inline SmallVector<Value> unpackWords(Emitter &e, Value words, Type elt) {
  SmallVector<Value> out;
  if (elt.isF16()) {
    auto halves = VectorType::get({4}, elt);
    for (int64_t m = 0; m < 2; ++m) {
      Value pair = vector::ExtractStridedSliceOp::create(
          e.b, words, ArrayRef<int64_t>{2 * m}, ArrayRef<int64_t>{2},
          ArrayRef<int64_t>{1});
      Value h = vector::BitCastOp::create(e.b, halves, pair);
      for (int64_t i = 0; i < 4; ++i)
        out.push_back(e.toF32(vector::ExtractOp::create(e.b, h, i)));
    }
    return out;
  }
  for (int64_t k = 0; k < 4; ++k) {
    Value word = vector::ExtractOp::create(e.b, words, k);
    if (elt.isF32()) {
      out.push_back(arith::BitcastOp::create(e.b, e.f32, word));
      continue;
    }
    assert(elt.isBF16() && "16-byte loads of f16, bf16 or f32");
    Value low = arith::ShLIOp::create(e.b, word, e.constI32(16));
    Value high = arith::AndIOp::create(
        e.b, word, e.constI32(static_cast<int32_t>(0xFFFF0000u)));
    out.push_back(arith::BitcastOp::create(e.b, e.f32, low));
    out.push_back(arith::BitcastOp::create(e.b, e.f32, high));
  }
  return out;
}
inline void storeF32(Emitter &e, Value value, Value memref,
                     ValueRange indices) {
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  memref::StoreOp::create(e.b, e.fromF32(value, elt), memref, indices);
}

/// `m`, or 0 where it is -inf: the shift of an exponent that stays finite
/// for a row that has seen no token yet.
inline Value finiteOrZero(Emitter &e, Value m) {
  Value empty =
      arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, m, e.negInf());
  return e.select(empty, e.constF32(0.0f), m);
}

/// Combines `value` over the lanes whose subgroup ids differ only in the
/// bits of [from, to) (powers of two) with XOR shuffles; every lane of such
/// a group ends with the same bits.
inline Value xorReduce(Emitter &e, Value value, bool isMax, int64_t from,
                       int64_t to, int64_t subgroupSize) {
  for (int64_t offset = from; offset < to; offset *= 2) {
    Value width = e.constI32(subgroupSize);
    Value other = gpu::ShuffleOp::create(e.b, value, e.constI32(offset), width,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    value = isMax ? e.fmaxNoNaN(value, other) : e.fadd(value, other);
  }
  return value;
}

inline void emitIf(Emitter &e, Value cond, function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(e.b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then();
}

/// `body(i)` for i in [0, total) over the `threads` threads of the
/// workgroup: whole rounds in a loop, the rest under a guard.
inline void forEachShared(Emitter &e, int64_t threads, Value thread,
                          int64_t total, function_ref<void(Value)> body) {
  int64_t full = total / threads * threads;
  if (full == threads)
    body(thread);
  else if (full > 0) {
    Value step = e.index(threads);
    Value end = e.index(full);
    e.forLoop(e.index(0), end, step,
              [&](Value base) { body(e.add(base, thread)); });
  }
  if (full == total)
    return;
  Value i = e.add(thread, e.index(full));
  emitIf(e, cmpI(e, arith::CmpIPredicate::slt, i, e.index(total)),
         [&] { body(i); });
}

inline Value allocWorkgroup(Emitter &e, int64_t elements) {
  auto space = gpu::AddressSpaceAttr::get(e.b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  return memref::AllocOp::create(
      e.b,
      MemRefType::get({elements}, e.f32, MemRefLayoutAttrInterface(), space));
}

} // namespace mlir::ejk::paged

#endif // EJK_OPS_PAGED_VULKAN_EMIT_H

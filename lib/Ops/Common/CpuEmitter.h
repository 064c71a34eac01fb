//===- CpuEmitter.h - arithmetic for CPU kernel bodies ----------*- C++ -*-===//
//
// A thin layer over ImplicitLocOpBuilder that the CPU kernel builders
// (attention, state-space scans) write their bodies in: index and f32
// arithmetic, splats, widening loads and narrowing stores, loops.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_CPUEMITTER_H
#define EJK_OPS_COMMON_CPUEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

namespace mlir::ejk {

/// Thin layer over ImplicitLocOpBuilder for the scalar/vector arithmetic the
/// kernels are written in.
class Emitter {
public:
  Emitter(OpBuilder &builder, Location loc, int64_t lanes)
      : b(loc, builder), f32(b.getF32Type()), i32(b.getI32Type()), lanes(lanes),
        vf32(VectorType::get({lanes}, f32)),
        vi32(VectorType::get({lanes}, i32)) {}

  ImplicitLocOpBuilder b;
  Type f32, i32;
  int64_t lanes;
  VectorType vf32, vi32;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value constF32(float v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value constI32(int64_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
  }
  Value splatF32(float v) {
    return arith::ConstantOp::create(b, DenseElementsAttr::get(vf32, v));
  }
  Value splatI32(int32_t v) {
    return arith::ConstantOp::create(b, DenseElementsAttr::get(vi32, v));
  }
  Value negInf() { return constF32(-std::numeric_limits<float>::infinity()); }
  /// The i32 vector key0, key0 + 1, ..., key0 + lanes - 1.
  Value laneIndices(Value key0) {
    SmallVector<int32_t> steps(lanes);
    for (int64_t i = 0; i < lanes; ++i)
      steps[i] = static_cast<int32_t>(i);
    Value iota = arith::ConstantOp::create(
        b, DenseElementsAttr::get(vi32, ArrayRef<int32_t>(steps)));
    return arith::AddIOp::create(b, broadcast(toI32(key0)), iota);
  }

  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value div(Value x, Value y) { return arith::DivSIOp::create(b, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value toI32(Value index) { return arith::IndexCastOp::create(b, i32, index); }

  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value fdiv(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  // maxnumf: scores are never NaN unless the inputs are, and it needs no
  // NaN-propagation fixups in the reductions.
  Value fmax(Value x, Value y) { return arith::MaxNumFOp::create(b, x, y); }
  /// fmax for values that are never NaN (scores of finite inputs, -inf for
  /// masked keys): `nnan` lets the SPIR-V lowering drop the IsNan/Select
  /// pairs it otherwise adds around GL.FMax.
  Value fmaxNoNaN(Value x, Value y) {
    return arith::MaxNumFOp::create(b, x, y, arith::FastMathFlags::nnan);
  }
  Value exp(Value x) { return math::ExpOp::create(b, x); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value broadcast(Value scalar) {
    auto type = isa<FloatType>(scalar.getType()) ? vf32 : vi32;
    return vector::BroadcastOp::create(b, type, scalar);
  }
  Value fma(Value x, Value y, Value acc) {
    return vector::FMAOp::create(b, x, y, acc);
  }

  /// Widens `value` (scalar or vector) to f32 when it is f16/bf16.
  Value toF32(Value value) {
    Type elt = getElementTypeOrSelf(value.getType());
    if (elt.isF32())
      return value;
    Type target = isa<VectorType>(value.getType()) ? Type(vf32) : f32;
    return arith::ExtFOp::create(b, target, value);
  }
  /// Narrows an f32 value to `elt`.
  Value fromF32(Value value, Type elt) {
    if (elt.isF32())
      return value;
    Type target = isa<VectorType>(value.getType())
                      ? Type(VectorType::get({lanes}, elt))
                      : elt;
    return arith::TruncFOp::create(b, target, value);
  }

  /// Reads `lanes` consecutive elements along the last dim of `memref`,
  /// widened to f32 for floats. Out-of-bounds lanes read `padding` unless
  /// the caller knows the read is in bounds.
  Value readVector(Value memref, ValueRange indices, bool inBounds,
                   Attribute padding = {}) {
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    auto type = VectorType::get({lanes}, elt);
    Value raw;
    if (inBounds) {
      raw = vector::LoadOp::create(b, type, memref, indices);
    } else {
      Value pad = arith::ConstantOp::create(
          b, padding ? cast<TypedAttr>(padding) : b.getZeroAttr(elt));
      raw = vector::TransferReadOp::create(b, type, memref, indices, pad,
                                           ArrayRef<bool>{false});
    }
    return isa<FloatType>(elt) ? toF32(raw) : raw;
  }
  /// Writes `value` (f32 lanes) to the last dim of `memref`, narrowing it.
  void writeVector(Value value, Value memref, ValueRange indices,
                   bool inBounds) {
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    Value narrow = fromF32(value, elt);
    if (inBounds)
      vector::StoreOp::create(b, narrow, memref, indices);
    else
      vector::TransferWriteOp::create(b, narrow, memref, indices,
                                      ArrayRef<bool>{false});
  }

  /// Emits `for iv = lb to ub step step` carrying `inits`; `body` returns
  /// the values to yield. Returns the loop results.
  SmallVector<Value>
  forLoop(Value lb, Value ub, Value step, ValueRange inits,
          function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto loop = scf::ForOp::create(b, lb, ub, step, inits);
    OpBuilder::InsertionGuard guard(b);
    Block *block = loop.getBody();
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      block->back().erase();
    b.setInsertionPointToEnd(block);
    SmallVector<Value> yields =
        body(loop.getInductionVar(), loop.getRegionIterArgs());
    scf::YieldOp::create(b, yields);
    return loop.getResults();
  }
  /// Emits `if cond then thenBody else elseBody`, each returning values of
  /// `types`; returns the results.
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            function_ref<SmallVector<Value>()> thenBody,
                            function_ref<SmallVector<Value>()> elseBody) {
    auto ifOp = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    auto fill = [&](Block *block, function_ref<SmallVector<Value>()> body) {
      if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
        block->back().erase();
      b.setInsertionPointToEnd(block);
      scf::YieldOp::create(b, body());
    };
    fill(ifOp.thenBlock(), thenBody);
    fill(ifOp.elseBlock(), elseBody);
    return ifOp.getResults();
  }
  void forLoop(Value lb, Value ub, Value step, function_ref<void(Value)> body) {
    forLoop(lb, ub, step, {}, [&](Value iv, ValueRange) {
      body(iv);
      return SmallVector<Value>();
    });
  }

  Value scratch(ArrayRef<int64_t> shape) {
    return memref::AllocaOp::create(b, MemRefType::get(shape, f32),
                                    b.getI64IntegerAttr(64));
  }
};

/// murmur3's finalizer on i32 scalars or vectors (see DropoutHash.h).
inline Value emitMix32(Emitter &e, Value h) {
  bool isVector = isa<VectorType>(h.getType());
  auto constant = [&](uint32_t v) -> Value {
    return isVector ? e.splatI32(static_cast<int32_t>(v))
                    : e.constI32(static_cast<int32_t>(v));
  };
  auto shiftXor = [&](Value x, uint32_t shift) -> Value {
    return arith::XOrIOp::create(
        e.b, x, arith::ShRUIOp::create(e.b, x, constant(shift)));
  };
  h = shiftXor(h, 16);
  h = arith::MulIOp::create(e.b, h, constant(0x85ebca6bu));
  h = shiftXor(h, 13);
  h = arith::MulIOp::create(e.b, h, constant(0xc2b2ae35u));
  return shiftXor(h, 16);
}

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_CPUEMITTER_H

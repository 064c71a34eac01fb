//===- MlaCoopCommon.h - the cooperative MLA kernels' base ------*- C++ -*-===//
//
// What the two cooperative-matrix MLA kernels (CoopKernel.cpp, `cooperative
// = 1`, and RegisterKernel.cpp, `cooperative = 2`) hold alike: the plan and
// buffers, the 16x16 matrix types and the 16-byte views of the queries and
// the cache. Only what both emit in the same order lives here, so each
// kernel's IR is what it was when it set these up itself.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LATENT_VULKAN_MLACOOPCOMMON_H
#define EJK_OPS_LATENT_VULKAN_MLACOOPCOMMON_H

#include "Common/VulkanMatrices.h"
#include "Latent/Rows.h"
#include "Latent/Vulkan/Mla.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::ejk::latent {

/// Rows and columns of a cooperative matrix.
constexpr int64_t kTile = 16;
/// f16 elements per 16-byte vector<4xi32>.
constexpr int64_t kPerVector = 8;

/// The state both cooperative kernels build on; each kernel derives from it
/// and adds its own steps.
class MlaCoopKernelBase {
protected:
  MlaCoopKernelBase(OpBuilder &builder, Location loc, const VulkanMlaPlan &plan,
                    const MlaBuffers &buffers, Value partialO, Value partialLse,
                    int64_t subgroupSize)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers),
        partialO(partialO), partialLse(partialLse), sg(subgroupSize) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    vecType = VectorType::get({4}, e.b.getI32Type());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    width = p.latentDim + p.ropeDim;
  }

  /// The 16-byte views of the queries and the cache (one view of a paged
  /// cache, whose rows hold latent and RoPE).
  void createWordViews() {
    qlView = wordView(e, buf.qLatent, kPerVector);
    qrView = wordView(e, buf.qRope, kPerVector);
    if (p.paged) {
      latentView = ropeView = wordView(e, buf.kvCache, kPerVector);
    } else {
      latentView = wordView(e, buf.kvLatent, kPerVector);
      ropeView = wordView(e, buf.kRope, kPerVector);
    }
  }

  Emitter e;
  const VulkanMlaPlan &p;
  const VulkanMlaLayout &l;
  const MlaBuffers &buf;
  Value partialO, partialLse;
  int64_t sg;
  /// Elements of a cache row (latent | RoPE).
  int64_t width;
  /// f16 elements between staged rows (each kernel's own staging).
  int64_t stride = 0;
  Type f16;
  VectorType vecType;
  gpu::MMAMatrixType aType, bType, cType;
  Row row;
  Value split, thread, subgroup, lane, head0;
  Value begin, stop;
  /// The subgroup's score part, token tile and head tile.
  Value part, kt, rt;
  SmallVector<Value> queryTiles;
  Value qlView, qrView, latentView, ropeView;
  Value kvStage, sStage;
};

} // namespace mlir::ejk::latent

#endif // EJK_OPS_LATENT_VULKAN_MLACOOPCOMMON_H

//===- Reference.cpp - paged attention's reference bridge -----------------===//
//
// Maps `ejk.paged_attention` onto the plain C++ oracle of lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Paged/Reference.h"

#include "ejk/Ops/Paged/Problem.h"
#include "ejk/Reference/Paged.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluatePagedAttention(PagedAttentionOp op,
                                                ReferenceValues &values) {
  PagedAttentionProblem p = readPagedAttentionProblem(op);
  ref::PagedAttentionOptions options;
  options.softmaxScale = p.softmaxScale;
  options.kScale = p.kScale;
  options.vScale = p.vScale;
  options.softCap = p.softCap;
  options.window = p.window;
  options.tokenMajor = p.tokenMajor;
  std::vector<float> out, lse;
  ref::Status status = ref::pagedAttention(
      values.ref(op.getQuery()), values.ref(op.getKeyCache()),
      values.ref(op.getValueCache()), values.ref(op.getContextLens()),
      values.ref(op.getBlockTables()), options, out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getLse())
    values.set(op.getLse(), std::move(lse));
  return success();
}

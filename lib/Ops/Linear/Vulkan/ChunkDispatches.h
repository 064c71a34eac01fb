//===- ChunkDispatches.h - the dispatches of a chunk-parallel kernel -*- C++
//-*-===//
//
// How the chunk-parallel kernels of the linear family (gla's,
// ChunkParallel.cpp; the delta rule's, DeltaChunk.cpp) split their dispatch:
// the dispatches before the main one take its arguments and its temporaries
// (appended last), their bodies build on the op's buffers remapped to
// their own arguments, and each call of the main dispatch becomes the calls
// of all of them in order.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_CHUNKDISPATCHES_H
#define EJK_OPS_LINEAR_VULKAN_CHUNKDISPATCHES_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

#include <functional>

namespace mlir::ejk {

/// `buffers` (the main dispatch's; its members `fields`) as the arguments
/// `args` of another dispatch with the same leading arguments; null
/// buffers stay null.
template <typename Buffers>
Buffers remapBuffers(const Buffers &buffers, ValueRange args,
                     ArrayRef<Value Buffers::*> fields) {
  Buffers out;
  for (Value Buffers::*field : fields)
    if (Value v = buffers.*field)
      out.*field = args[DispatchRewriter::argumentIndex(v)];
  return out;
}

/// The body of a dispatch of a chunk-parallel kernel, at `builder`'s
/// insertion point.
template <typename Problem, typename Layout, typename Buffers,
          typename Temporaries>
using ChunkBody = void (*)(OpBuilder &builder, Location loc, const Problem &p,
                           const Layout &l, const Buffers &buf,
                           const Temporaries &tmp);

/// addDispatch's build function of a dispatch whose arguments are the main
/// dispatch's and then its `numTemps` temporaries: `body` on `buf` (by
/// `remap`) and the temporaries (by `remapTemps`) as its arguments.
template <typename Problem, typename Layout, typename Buffers,
          typename Temporaries>
std::function<void(OpBuilder &, Location, ValueRange)>
remappedBody(ChunkBody<Problem, Layout, Buffers, Temporaries> body,
             const Problem &p, const Layout &l, const Buffers &buf,
             Buffers (*remap)(const Buffers &, ValueRange), size_t numTemps,
             Temporaries (*remapTemps)(ArrayRef<Value>)) {
  return [&p, &l, &buf, body, remap, numTemps,
          remapTemps](OpBuilder &b, Location loc, ValueRange args) {
    Buffers mapped = remap(buf, args);
    SmallVector<Value> tempArgs(args.take_back(numTemps));
    body(b, loc, p, l, mapped, remapTemps(tempArgs));
  };
}

/// The start of a chunk-parallel kernel's tiling: its temporaries
/// (`tempTypes`) appended to the main dispatch's arguments (`mainTemps`:
/// them by `remapTemps`), the main dispatch's argument types (those of the
/// dispatches before it), and `build`, addDispatch's build function of
/// such a dispatch.
template <typename Problem, typename Layout, typename Buffers,
          typename Temporaries>
struct ChunkTiling {
  SmallVector<MemRefType> tempTypes;
  Temporaries mainTemps;
  SmallVector<Type> argTypes;
  const Problem *p;
  const Layout *l;
  const Buffers *buf;
  Buffers (*remap)(const Buffers &, ValueRange);
  Temporaries (*remapTemps)(ArrayRef<Value>);

  std::function<void(OpBuilder &, Location, ValueRange)>
  build(ChunkBody<Problem, Layout, Buffers, Temporaries> body) const {
    return remappedBody(body, *p, *l, *buf, remap, tempTypes.size(),
                        remapTemps);
  }
};

/// Appends `tempTypes` to `rewriter`'s dispatch (failure where it cannot)
/// and returns the tiling's start.
template <typename Problem, typename Layout, typename Buffers,
          typename Temporaries>
FailureOr<ChunkTiling<Problem, Layout, Buffers, Temporaries>>
beginChunkTiling(DispatchRewriter &rewriter, SmallVector<MemRefType> tempTypes,
                 const Problem &p, const Layout &l, const Buffers &buf,
                 Buffers (*remap)(const Buffers &, ValueRange),
                 Temporaries (*remapTemps)(ArrayRef<Value>)) {
  FailureOr<SmallVector<Value>> temps = rewriter.appendArguments(tempTypes);
  if (failed(temps))
    return failure();
  ChunkTiling<Problem, Layout, Buffers, Temporaries> tiling{
      std::move(tempTypes),
      remapTemps(*temps),
      {},
      &p,
      &l,
      &buf,
      remap,
      remapTemps};
  tiling.argTypes.assign(rewriter.dispatch().getArgumentTypes().begin(),
                         rewriter.dispatch().getArgumentTypes().end());
  return tiling;
}

/// Replaces each call of the main dispatch by calls of `before` (null
/// entries skipped) and then of the main dispatch, all bound to the call's
/// buffers and its temporaries of `tempTypes`.
inline void dispatchInOrder(DispatchRewriter &rewriter,
                            ArrayRef<MemRefType> tempTypes,
                            ArrayRef<func::FuncOp> before) {
  rewriter.rewriteCallers(
      tempTypes,
      [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange callTemps) {
        SmallVector<Value> bindings(call.getBuffers());
        bindings.append(callTemps.begin(), callTemps.end());
        for (func::FuncOp dispatch : before)
          if (dispatch)
            DispatchOp::create(b, loc, dispatch.getSymName(), bindings);
        DispatchOp::create(b, loc, call.getCallee(), bindings);
      });
}

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_CHUNKDISPATCHES_H

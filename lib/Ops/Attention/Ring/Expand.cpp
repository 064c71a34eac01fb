//===- Expand.cpp - ejk.ring_attention to the entries of its ring ---------===//
//
// Ring attention is a program the runtime drives (docs/ops/ring.md): at
// each ring step the runtime runs one flash-attention block of the local
// queries against the key/value shard that is visiting, merges its output
// and lse into the running result, and moves the shard to the next rank
// while the block computes. This expander replaces the entry holding the
// op by the block entries the runtime calls, each an ordinary
// `ejk.flash_attention` that selection, tiling and both targets compile
// like any other:
//
//   <entry>__ring__n<N>__c<0|1>__w<L>_<R>|wn__<role>
//
// The name carries what the runtime needs to choose a block per step (the
// ring size, causal, the window); the roles are
//   full   queries against a whole shard, no mask       (q S, kv S)
//   diag   the op's causal/window mask at offset 0      (q S, kv S)
//   masked a [1, 1, S, S] i1 mask the runtime fills     (only with a window)
//   zzkv   queries against the first half of a shard    (q S, kv S/2)
//   zzq    the second half of the queries, whole shard  (q S/2, kv S)
// (zzkv/zzq: causal without a window and S even, for the zigzag layout).
// With segment ids every block takes the segment ids of its rows last,
// (q_segment_ids [B, q rows], kv_segment_ids [B, kv rows], i32), and masks
// with them as flash_attention does; the runtime moves each shard's
// kv_segment_ids with its key/value.
//
// Each role also gets a backward block `<prefix>__grad_<role>`: the
// `ejk.flash_attention_grad` of the same block, taking (query, key, value,
// output, d_output, lse[, mask]) and returning (d_query, d_key, d_value).
// Given the ring's gathered output and lse (the forward's merged ones, for
// the block's query rows), its probabilities exp(t - lse) are the global
// softmax's, so the blocks' gradients add up to the whole sequence's: the
// runtime sums d_query locally and lets d_key/d_value travel with their
// key/value shard.
//
//===----------------------------------------------------------------------===//

#include "Attention/Ring/Ring.h"
#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ejk/Ops/EntryExpansion.h"

#include "mlir/IR/Builders.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
/// What every block entry shares.
struct RingBlocks {
  RingAttentionOp op;
  std::string prefix;
  RankedTensorType q, k, v;
  /// Whether the blocks take (q_segment_ids, kv_segment_ids), last.
  bool segments = false;
};
} // namespace

static RankedTensorType withSeq(RankedTensorType type, int64_t seq) {
  SmallVector<int64_t> shape(type.getShape());
  shape[1] = seq;
  return RankedTensorType::get(shape, type.getElementType());
}

/// Appends the block's segment id types ([B, seqQ], [B, seqK], i32) to
/// `inputs` when the ring has segments.
static void addSegmentTypes(const RingBlocks &ring, int64_t seqQ, int64_t seqK,
                            SmallVectorImpl<Type> &inputs) {
  if (!ring.segments)
    return;
  auto i32 = IntegerType::get(ring.q.getContext(), 32);
  int64_t batch = ring.q.getDimSize(0);
  inputs.push_back(RankedTensorType::get({batch, seqQ}, i32));
  inputs.push_back(RankedTensorType::get({batch, seqK}, i32));
}

/// Adds the public function `<prefix>__<role>`: flash attention of a query
/// block of `seqQ` rows against a key/value block of `seqK` keys, with
/// the op's scale and soft cap, `causal`/`window` as given and a mask
/// input when `withMask`, the causal diagonal bottom-right aligned when
/// `bottomRight`; results output and lse.
static void addAlignedBlock(OpBuilder &b, const RingBlocks &ring,
                            StringRef role, int64_t seqQ, int64_t seqK,
                            bool causal, DenseI64ArrayAttr window,
                            bool withMask, bool bottomRight) {
  RingAttentionOp op = ring.op;
  Location loc = op.getLoc();
  MLIRContext *context = b.getContext();
  RankedTensorType q = withSeq(ring.q, seqQ), k = withSeq(ring.k, seqK),
                   v = withSeq(ring.v, seqK);
  SmallVector<Type> inputs = {q, k, v};
  if (withMask)
    inputs.push_back(RankedTensorType::get({1, 1, seqQ, seqK},
                                           IntegerType::get(context, 1)));
  addSegmentTypes(ring, seqQ, seqK, inputs);
  int64_t batch = q.getDimSize(0), heads = q.getDimSize(2);
  auto output = RankedTensorType::get({batch, seqQ, heads, v.getDimSize(3)},
                                      q.getElementType());
  auto lse =
      RankedTensorType::get({batch, heads, seqQ}, Float32Type::get(context));
  auto type = FunctionType::get(context, inputs, {output, lse});
  auto func =
      func::FuncOp::create(b, loc, (ring.prefix + "__" + role).str(), type);
  Block *body = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Value mask = withMask ? body->getArgument(3) : Value();
  unsigned numInputs = body->getNumArguments();
  Value qSegments = ring.segments ? body->getArgument(numInputs - 2) : Value();
  Value kvSegments = ring.segments ? body->getArgument(numInputs - 1) : Value();
  // The scale is written out: the default 1/sqrt(head_dim) of the block is
  // the op's, but spelling it keeps the entries self-describing.
  auto attention = FlashAttentionOp::create(
      b, loc, output, lse, body->getArgument(0), body->getArgument(1),
      body->getArgument(2), /*bias=*/Value(), mask, qSegments, kvSegments,
      /*softmax_aux=*/Value(), /*padding_mask=*/Value(),
      /*cum_seqlens_q=*/Value(), /*cum_seqlens_k=*/Value(),
      b.getF32FloatAttr(op.getEffectiveSoftmaxScale()),
      causal ? b.getUnitAttr() : UnitAttr(), window,
      bottomRight ? b.getStringAttr("bottom_right") : StringAttr(),
      op.getLogitsSoftCapAttr(), FloatAttr(), IntegerAttr(),
      /*normalize_output=*/BoolAttr(), ConfigAttr());
  func::ReturnOp::create(b, loc, attention.getResults());
}

/// addAlignedBlock with the causal diagonal top-left (the default).
static void addBlock(OpBuilder &b, const RingBlocks &ring, StringRef role,
                     int64_t seqQ, int64_t seqK, bool causal,
                     DenseI64ArrayAttr window, bool withMask) {
  addAlignedBlock(b, ring, role, seqQ, seqK, causal, window, withMask, false);
}

/// Adds the public function `<prefix>__grad_<role>`: the backward of the
/// block `addBlock` writes for `role`, with the same options.
static void addGradBlock(OpBuilder &b, const RingBlocks &ring, StringRef role,
                         int64_t seqQ, int64_t seqK, bool causal,
                         DenseI64ArrayAttr window, bool withMask) {
  RingAttentionOp op = ring.op;
  Location loc = op.getLoc();
  MLIRContext *context = b.getContext();
  RankedTensorType q = withSeq(ring.q, seqQ), k = withSeq(ring.k, seqK),
                   v = withSeq(ring.v, seqK);
  int64_t batch = q.getDimSize(0), heads = q.getDimSize(2);
  auto output = RankedTensorType::get({batch, seqQ, heads, v.getDimSize(3)},
                                      q.getElementType());
  auto lse =
      RankedTensorType::get({batch, heads, seqQ}, Float32Type::get(context));
  SmallVector<Type> inputs = {q, k, v, output, output, lse};
  if (withMask)
    inputs.push_back(RankedTensorType::get({1, 1, seqQ, seqK},
                                           IntegerType::get(context, 1)));
  addSegmentTypes(ring, seqQ, seqK, inputs);
  auto type = FunctionType::get(context, inputs, {q, k, v});
  auto func = func::FuncOp::create(
      b, loc, (ring.prefix + "__grad_" + role).str(), type);
  Block *body = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Value mask = withMask ? body->getArgument(6) : Value();
  unsigned numInputs = body->getNumArguments();
  Value qSegments = ring.segments ? body->getArgument(numInputs - 2) : Value();
  Value kvSegments = ring.segments ? body->getArgument(numInputs - 1) : Value();
  auto grad = FlashAttentionGradOp::create(
      b, loc, TypeRange{q, k, v}, body->getArgument(0), body->getArgument(1),
      body->getArgument(2), body->getArgument(3), body->getArgument(4),
      body->getArgument(5), /*bias=*/Value(), mask, qSegments, kvSegments,
      /*softmax_aux=*/Value(), /*padding_mask=*/Value(),
      /*cum_seqlens_q=*/Value(), /*cum_seqlens_k=*/Value(),
      b.getF32FloatAttr(op.getEffectiveSoftmaxScale()),
      causal ? b.getUnitAttr() : UnitAttr(), window,
      /*mask_alignment=*/StringAttr(), op.getLogitsSoftCapAttr(),
      /*dropout_prob=*/FloatAttr(), /*dropout_seed=*/IntegerAttr(),
      /*normalize_output=*/BoolAttr(), ConfigAttr());
  func::ReturnOp::create(b, loc, grad.getResults());
}

static LogicalResult expandRingAttention(Operation *raw, func::FuncOp entry) {
  auto op = cast<RingAttentionOp>(raw);
  // The runtime calls the blocks with the entry's buffers, so the entry
  // must be exactly the op: (query, key, value[, q_segment_ids,
  // kv_segment_ids]) -> (output[, lse]). The verifier has checked that the
  // segment ids come both or neither, with their shapes.
  bool segments = op.getQSegmentIds() != nullptr;
  SmallVector<Value> operands = {op.getQuery(), op.getKey(), op.getValue()};
  if (segments) {
    operands.push_back(op.getQSegmentIds());
    operands.push_back(op.getKvSegmentIds());
  }
  Block &block = entry.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
  if (block.getOperations().size() != 2 ||
      !llvm::equal(block.getArguments(), operands) || !ret ||
      ret.getOperands() != ValueRange(op->getResults()))
    return op.emitOpError("must be the only op of its entry '")
           << entry.getSymName() << "', taking "
           << (segments ? "(query, key, value, q_segment_ids, kv_segment_ids)"
                        : "(query, key, value)")
           << " and returning its results in order: the runtime drives it "
              "(docs/ops/ring.md)";
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  // f32, f16 and bf16 (the verifier's types) all run: the runtime merges
  // the blocks' outputs in f32.
  if (op.getConfigAttr())
    return op.emitOpError(
        "takes no 'config': each block entry selects its own");

  RingBlocks ring;
  ring.op = op;
  ring.q = q;
  ring.k = cast<RankedTensorType>(op.getKey().getType());
  ring.v = cast<RankedTensorType>(op.getValue().getType());
  ring.segments = segments;
  int64_t seq = q.getDimSize(1);
  bool causal = op.getCausal();
  DenseI64ArrayAttr window = op.getSlidingWindowAttr();
  std::string windowTag =
      window ? llvm::formatv("w{0}_{1}", window[0], window[1]).str() : "wn";
  ring.prefix = llvm::formatv("{0}__ring__n{1}__c{2}__{3}", entry.getSymName(),
                              op.getRingSize(), causal ? 1 : 0, windowTag)
                    .str();

  OpBuilder b(entry);
  // Forward blocks first, then their backward blocks in the same order.
  for (auto add : {addBlock, addGradBlock}) {
    add(b, ring, "full", seq, seq, false, nullptr, false);
    add(b, ring, "diag", seq, seq, causal, window, false);
    if (window)
      add(b, ring, "masked", seq, seq, false, nullptr, true);
    if (causal && !window && seq % 2 == 0 && seq > 0) {
      add(b, ring, "zzkv", seq, seq / 2, false, nullptr, false);
      add(b, ring, "zzq", seq / 2, seq, false, nullptr, false);
    }
  }
  // The gathered form (docs/ops/ring-gpus.md, "Gathered key/value"): where
  // every rank can read every shard (the runtime's shared window), a rank runs
  // its own shard's block and then one block of its queries against the
  // other shards' keys, gathered on its device in global order, so only
  // one merge is left. Each block reads a prefix of that gathered buffer:
  // - gfull: all queries against every other shard (non-causal); q S, kv
  //   (N-1) S;
  // - gzlo<r>: zigzag rank r's first chunk against chunks 0..r-1; q S/2,
  //   kv r S/2;
  // - gzhi<r>: its second chunk against chunks 0..2N-2-r but r; q S/2, kv
  //   (2N-2-r) S/2.
  // No window, no segment ids (those rings run step by step), forward only.
  int64_t n = op.getRingSize();
  if (!window && !segments && n > 1) {
    if (!causal)
      addBlock(b, ring, "gfull", seq, (n - 1) * seq, false, nullptr, false);
    if (causal && seq % 2 == 0 && seq > 0) {
      for (int64_t r = 1; r < n; ++r)
        addBlock(b, ring, llvm::formatv("gzlo{0}", r).str(), seq / 2,
                 r * (seq / 2), false, nullptr, false);
      for (int64_t r = 0; r < n; ++r)
        addBlock(b, ring, llvm::formatv("gzhi{0}", r).str(), seq / 2,
                 (2 * n - 2 - r) * (seq / 2), false, nullptr, false);
    }
    // The whole-sequence form (docs/ops/ring-gpus.md, "Key/value GPU to GPU"):
    // where the ranks' devices copy shards to each other, every rank holds
    // the whole sequence's keys in natural order, and a block of its
    // queries against the keys it may see is the final answer for those
    // rows: no merge at all.
    // - gall: all queries against all N S keys (non-causal);
    // - gclo<r>, gchi<r>: zigzag rank r's first chunk (chunk r) against
    //   chunks 0..r, its second (chunk 2N-1-r) against chunks 0..2N-1-r,
    //   causal with the diagonal bottom-right (the chunk's last query sees
    //   the prefix's last key).
    if (!causal)
      addBlock(b, ring, "gall", seq, n * seq, false, nullptr, false);
    if (causal && seq % 2 == 0 && seq > 0) {
      for (int64_t r = 0; r < n; ++r)
        addAlignedBlock(b, ring, llvm::formatv("gclo{0}", r).str(), seq / 2,
                        (r + 1) * (seq / 2), true, nullptr, false, true);
      for (int64_t r = 0; r < n; ++r)
        addAlignedBlock(b, ring, llvm::formatv("gchi{0}", r).str(), seq / 2,
                        (2 * n - r) * (seq / 2), true, nullptr, false, true);
    }
  }
  entry.erase();
  return success();
}

namespace mlir::ejk {
/// Called by registerAttentionFamily.
void registerRingAttentionExpander() {
  registerEntryExpander(RingAttentionOp::getOperationName(),
                        expandRingAttention);
}
} // namespace mlir::ejk

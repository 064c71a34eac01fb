//===- CoopSplitStates.cpp - simple gla's split state pass ----------------===//
//
// The state pass of CoopSplit.h (workgroup: a V block and a block of 64
// keys on 128 threads, or every key on 256; per chunk c of the row, S the
// state before it):
//   the chunk's key and value words (loaded during the previous chunk) ->
//   the key stage and the w V stage (w applied in f32); barrier
//   issue the next chunk's loads
//   S -> the temporary's slot (words)
//   S = exp(gamma C) S + K^T (w V); barrier
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopSplitKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::gla_split;

namespace {

/// The state pass: workgroup (V block, head, batch row).
class StatesKernel : public SplitKernel {
public:
  using SplitKernel::SplitKernel;

  void build() {
    beginSplit(l.stateThreads);
    Value blockV = e.index(l.blockV);
    Value block = WorkgroupIdOp::create(e.b, 0);
    if (l.keyBlocks() > 1) {
      // x = V block * key blocks + key block.
      Value keyBlocks = e.index(l.keyBlocks());
      Value keyBlock = arith::RemUIOp::create(e.b, block, keyBlocks);
      k0 = e.mul(keyBlock, e.index(l.stateKTiles * kT));
      block = arith::DivUIOp::create(e.b, block, keyBlocks);
    }
    v0 = e.mul(block, blockV);
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
    seqId = WorkgroupIdOp::create(e.b, 2);
    sequenceBounds(seqId);
    loadGamma();
    Value first = e.mul(subgroup, e.index(l.stateSlots));
    keyRow0 = arith::DivUIOp::create(e.b, first, e.index(l.stateColTiles));
    colTile0 = arith::RemUIOp::create(e.b, first, e.index(l.stateColTiles));
    if (buf.initialState || buf.finalState)
      fstage = allocWorkgroupOf(e, l.stateSubgroups() * kT * kT, e.f32);
    int64_t C = l.chunk, chunks = p.seq / C;
    kStage = allocWorkgroupOf(e, C * l.stateKeyStride() / kWord, wordType(e));
    wvStage = allocWorkgroupOf(e, C * l.valueStride() / kWord, wordType(e));
    // This thread's words of the chunk's keys [C, key block] and values
    // [C, block_v], and the values' w_s = exp(gamma (C - 1 - s)) (the same
    // for every chunk).
    keyWords = rounds(l.stateKTiles * kT / kWord);
    valueWords = rounds(l.blockV / kWord);
    SmallVector<Value> weights;
    for (const Round &r : valueWords)
      weights.push_back(decayOf(e.sub(e.index(C - 1), r.row)));
    Value chunkDecay;
    if (gamma)
      chunkDecay = gpu::SubgroupMmaConstantMatrixOp::create(
          e.b, cType, decayOf(e.index(C)));
    SmallVector<Value> inits = initialState();
    int64_t numStates = inits.size();
    // The next chunk's words are loaded while this one multiplies (carried
    // through the loop; loading each chunk's at its start took 1443 us
    // against 1169, H200, session 19).
    SmallVector<Value> firstWords = loadWords(zero);
    inits.append(firstWords.begin(), firstWords.end());
    SmallVector<Value> last = e.forLoop(
        zero, e.index(chunks), one, inits,
        [&](Value c, ValueRange args) -> SmallVector<Value> {
          SmallVector<Value> state(args.take_front(numStates));
          ValueRange loaded = args.drop_front(numStates);
          // K and w V into their stages.
          size_t at = 0;
          for (const Round &r : keyWords)
            stageWord(r, loaded[at++], kStage, l.stateKeyStride());
          for (size_t r = 0; r < valueWords.size(); ++r)
            stageWord(valueWords[r], weighted(loaded[at++], weights[r]),
                      wvStage, l.valueStride());
          gpu::BarrierOp::create(e.b);
          Value lastChunk = e.index(chunks - 1);
          Value next = e.min(e.add(c, one), lastChunk);
          SmallVector<Value> nextWords = loadWords(next);
          // S before the chunk into its slot of the temporary, transposed
          // (S^T [V, K]: the outputs read it as column-major B matrices).
          Value slot = e.add(e.mul(batchIdx, e.index(chunks)), c);
          for (int64_t m = 0; m < l.stateSlots; ++m) {
            Value a, j;
            std::tie(a, j) = stateTile(m);
            tileWords(
                state[m],
                [&](Value r, Value cc, Value word) {
                  Value col = e.add(v0, e.add(e.mul(j, e.index(kT)), r));
                  Value key = keyOf(e.add(e.mul(a, e.index(kT)), cc));
                  memref::StoreOp::create(e.b, word, sView,
                                          wordAt(sAt(slot, col, key)));
                },
                /*transpose=*/true);
          }
          // S = exp(gamma C) S + K^T (w V): K^T column-major from the key
          // stage, once per key row of the subgroup.
          SmallVector<SmallVector<Value>> keys;
          for (int64_t x = 0; x < l.keyRows(); ++x) {
            Value a = e.add(keyRow0, e.index(x));
            SmallVector<Value> tiles;
            for (int64_t d = 0; d < l.rowTiles; ++d) {
              Value rowAt = e.mul(a, e.index(kT));
              Value at = e.add(e.index(d * kT * l.stateKeyStride()), rowAt);
              tiles.push_back(loadMatrix(e, aType, kStage, at,
                                         l.stateKeyStride(),
                                         /*transpose=*/true));
            }
            keys.push_back(tiles);
          }
          for (int64_t m = 0; m < l.stateSlots; ++m) {
            Value a, j;
            std::tie(a, j) = stateTile(m);
            Value acc = state[m];
            if (chunkDecay)
              acc = gpu::SubgroupMmaElementwiseOp::create(
                  e.b, cType, ValueRange{acc, chunkDecay},
                  gpu::MMAElementwiseOp::MULF);
            for (int64_t d = 0; d < l.rowTiles; ++d) {
              Value colAt = e.mul(j, e.index(kT));
              Value wvAt = e.add(e.index(d * kT * l.valueStride()), colAt);
              Value wv = loadMatrix(e, bType, wvStage, wvAt, l.valueStride(),
                                    /*transpose=*/false);
              acc = mma(keys[m / l.stateColTiles][d], wv, acc);
            }
            state[m] = acc;
          }
          // The stages are written again by the next chunk.
          gpu::BarrierOp::create(e.b);
          state.append(nextWords.begin(), nextWords.end());
          return state;
        });
    last.resize(numStates);
    if (buf.finalState)
      writeFinalState(last);
  }

private:
  /// The key and value words of chunk `c` (keyWords, then valueWords).
  SmallVector<Value> loadWords(Value c) {
    Value t0 = e.mul(c, e.index(l.chunk));
    SmallVector<Value> words =
        loadRounds(keyWords, t0, k0, kView,
                   [&](Value row, Value col) { return kAt(row, col); });
    llvm::append_range(
        words, loadRounds(valueWords, t0, v0, vView,
                          [&](Value row, Value col) { return vAt(row, col); }));
    return words;
  }

  /// (key tile, V tile) of the subgroup's `m`-th state tile: subgroup g
  /// owns the tiles g slots.. in row-major order, so that its tiles share
  /// key rows (and their K^T matrices): rows keyRow0 + m / colTiles,
  /// columns colTile0 + m mod colTiles.
  std::pair<Value, Value> stateTile(int64_t m) {
    return {e.add(keyRow0, e.index(m / l.stateColTiles)),
            e.add(colTile0, e.index(m % l.stateColTiles))};
  }

  /// Key `key` of the workgroup's key block in head_dim_k.
  Value keyOf(Value key) { return k0 ? e.add(k0, key) : key; }

  /// The 8 values of `word` times `w`, back in the input type.
  Value weighted(Value word, Value w) {
    if (!gamma)
      return word;
    SmallVector<Value> lanes;
    for (int64_t x = 0; x < 4; ++x) {
      Value lane32 = vector::ExtractOp::create(e.b, word, ArrayRef<int64_t>{x});
      Value lo = bitsOf(e.fmul(halfOf(lane32, false), w));
      Value hi = bitsOf(e.fmul(halfOf(lane32, true), w));
      lanes.push_back(pairOf(lo, hi));
    }
    return vector::FromElementsOp::create(e.b, wordType(e), lanes);
  }

  SmallVector<Value> initialState() {
    SmallVector<Value> s;
    if (!buf.initialState) {
      for (int64_t m = 0; m < l.stateSlots; ++m)
        s.push_back(zeroMatrix());
      return s;
    }
    Value base = e.mul(subgroup, e.index(kT * kT));
    for (int64_t m = 0; m < l.stateSlots; ++m) {
      Value a, j;
      std::tie(a, j) = stateTile(m);
      for (int64_t i = 0; i < kT * kT / l.subgroupSize; ++i) {
        Value idx = e.add(lane, e.index(i * l.subgroupSize));
        Value r = arith::DivUIOp::create(e.b, idx, e.index(kT));
        Value c = arith::RemUIOp::create(e.b, idx, e.index(kT));
        Value key = keyOf(e.add(e.mul(a, e.index(kT)), r));
        Value col = e.add(v0, e.add(e.mul(j, e.index(kT)), c));
        Value v = load(buf.initialState, {seqId, head, key, col});
        memref::StoreOp::create(e.b, v, fstage, e.add(base, idx));
      }
      subgroupBarrier();
      s.push_back(loadMatrix(e, cType, fstage, base, kT, /*transpose=*/false));
      subgroupBarrier();
    }
    return s;
  }

  void writeFinalState(ArrayRef<Value> state) {
    for (int64_t m = 0; m < l.stateSlots; ++m) {
      Value a, j;
      std::tie(a, j) = stateTile(m);
      writeMatrix(
          state[m], fstage,
          [&](Value r, Value c, Value value) {
            Value key = keyOf(e.add(e.mul(a, e.index(kT)), r));
            Value col = e.add(v0, e.add(e.mul(j, e.index(kT)), c));
            memref::StoreOp::create(e.b, value, buf.finalState,
                                    ValueRange{seqId, head, key, col});
          },
          /*withinSubgroup=*/true);
    }
  }

  Value kStage, wvStage, keyRow0, colTile0, fstage;
  /// The key block's first key (null: one block).
  Value k0;
  SmallVector<Round> keyWords, valueWords;
};

} // namespace

void mlir::ejk::gla_split::buildGlaSplitStates(OpBuilder &b, Location loc,
                                               const GlaProblem &p,
                                               const VulkanGlaSplitLayout &l,
                                               const GlaBuffers &buf,
                                               const SplitTemporaries &tmp) {
  StatesKernel(b, loc, p, l, buf, tmp).build();
}

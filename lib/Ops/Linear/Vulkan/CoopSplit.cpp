//===- CoopSplit.cpp - simple gla as a state pass and parallel outputs ----===//
//
// The layout rules and the two dispatches of CoopSplit.h. Operands are the
// inputs' own bits (f16, or bf16 on bf16 matrices:
// DispatchRewriter::setBF16Matrices); accumulators f32. A matrix that
// becomes memory in 16 bits (a state, a score tile, an output tile) goes
// through the subgroup's 16x16 part of an f32 stage behind subgroup
// barriers and leaves as one 16-byte word a lane (8 neighbouring elements
// of one row): no workgroup barrier and no per-element global store.
//
// states (workgroup: a V block and a block of 64 keys on 128 threads, or
// every key on 256; per chunk c of the row, S the state before it):
//   the chunk's key and value words (loaded during the previous chunk) ->
//   the key stage and the w V stage (w applied in f32); barrier
//   issue the next chunk's loads
//   S -> the temporary's slot (words)
//   S = exp(gamma C) S + K^T (w V); barrier
//
// outputs (one chunk), with the keys staged (where shared memory allows):
//   q and K words -> their stages; F_0, F_1, D_0 (f32); barrier
//   scores (lower-triangle tiles, round-robin): Q K^T o F, kept in
//   accumulators; O = D o (Q S)  (subgroup g: V tile g mod n, rows from
//   g / n); barrier
//   the scores -> A16 over the keys (words), V over the queries; barrier
//   O += A16 V -> the output (words)
// else: q staged, K^T from global memory, the scores written to their own
// A16 stage as they finish, F and D tables per tile offset.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopSplit.h"
#include "Attention/Vulkan/Scores.h"
#include "Common/Arithmetic.h"
#include "Linear/HeadDecay.h"
#include "Linear/Vulkan/ChunkDispatches.h"
#include "Linear/Vulkan/ChunkParallel.h"
#include "Linear/Vulkan/CoopMatrices.h"
#include "Linear/Vulkan/SlotKernel.h"

#include "ejk/Ops/Linear/Config.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ejk;

std::optional<VulkanGlaSplitLayout>
VulkanGlaSplitLayout::compute(const GlaProblem &p, Type element, int64_t chunk,
                              int64_t blockV, const TargetInfo &target,
                              llvm::raw_ostream &reason) {
  const char *what = "the split cooperative kernel ('chunk_parallel' = 1, "
                     "'cooperative' = 3)";
  if (p.hasG || p.hasGk || p.hasGv) {
    reason << what
           << " takes one constant decay per head or none; per-step gates "
              "need '"
           << GlaConfig::kCooperative << "' = 0, 1 or 2";
    return std::nullopt;
  }
  if (p.packed || p.reverse) {
    reason << what
           << " reads batch rows forward only (no cu_seqlens, no reverse)";
    return std::nullopt;
  }
  if (!target.hasCooperativeMatrix ||
      (element.isBF16() &&
       !target.hasVulkanFeature("cooperative_matrix_bf16")) ||
      !target.hasVulkanFeature("int16") || target.subgroupSize != 32) {
    reason << what
           << " needs cooperative matrices (bf16 ones for bf16 inputs, "
              "'cooperative_matrix_bf16'), 'int16' and subgroups of 32";
    return std::nullopt;
  }
  constexpr int64_t t = kMatrix;
  if (chunk < t || chunk > 64 || chunk % t != 0 || p.seq < 1 ||
      p.seq % chunk != 0) {
    reason << what << " takes '" << GlaConfig::kChunkSize
           << "' a multiple of 16 in [16, 64] that divides the sequence ("
           << p.seq << ")";
    return std::nullopt;
  }
  VulkanGlaSplitLayout l;
  l.chunk = chunk;
  l.blockV = blockV;
  l.subgroupSize = target.subgroupSize;
  int64_t n = l.subgroups();
  l.kTiles = p.dimK / t;
  l.rowTiles = chunk / t;
  l.stateColTiles = blockV / t;
  // The outputs' V block: the widest of at most 128 columns dividing
  // head_dim_v whose tiles deal evenly to the subgroups (each owns one V
  // tile and every n / colTiles-th row).
  for (int64_t width = 128; width >= t; width /= 2) {
    int64_t cols = width / t;
    if (p.dimV % width == 0 && n % cols == 0 && (l.rowTiles * cols) % n == 0) {
      l.outBlockV = width;
      break;
    }
  }
  // The rules are those of every key on 256 threads (the state pass's
  // blocks of 64 keys below are chosen only where they pass too).
  l.blockK = p.dimK;
  l.stateThreads = kThreads;
  l.stateKTiles = l.kTiles;
  if (p.dimK % t != 0 || p.dimV % t != 0 || blockV < t || blockV % t != 0 ||
      p.dimV % blockV != 0 || l.stateTiles() % n != 0 || !l.outBlockV ||
      (l.stateTiles() / n % l.stateColTiles != 0 &&
       l.stateColTiles % (l.stateTiles() / n) != 0)) {
    reason << what << " takes head dims that are multiples of 16, '"
           << GlaConfig::kBlockV
           << "' a multiple of 16 that divides head_dim_v with the state's "
              "tiles a whole number per subgroup, and an output block whose "
              "tiles deal evenly to the subgroups";
    return std::nullopt;
  }
  l.outColTiles = l.outBlockV / t;
  l.stateSlots = l.stateTiles() / n;
  l.outputSlots = l.rowTiles * l.outColTiles / n;
  l.scoreSlots = ceilDiv(l.scoreTiles(), n);
  int64_t stateMatrices = l.stateSlots + l.keyRows() * l.rowTiles;
  int64_t outputMatrices = l.outputSlots + l.scoreSlots;
  std::optional<int64_t> slots = checkedProduct({p.batch, p.seq / chunk});
  std::optional<int64_t> stateElements;
  if (slots)
    stateElements = checkedProduct({*slots, p.heads, p.dimK, p.dimV});
  if (stateMatrices > kMaxMatrices || outputMatrices > kMaxMatrices || !slots ||
      *slots > 65535 || !stateElements ||
      *stateElements >= (int64_t(1) << 31)) {
    auto count = [&](std::optional<int64_t> n) -> llvm::raw_ostream & {
      return n ? reason << *n : reason << "more than 2^63";
    };
    reason << what << " would keep " << std::max(stateMatrices, outputMatrices)
           << " matrices per subgroup (at most " << kMaxMatrices << "), ";
    count(slots) << " chunk workgroups (at most 65535) and ";
    count(stateElements) << " state elements (under 2^31)";
    return std::nullopt;
  }
  int64_t tile = t * t;
  // The states: each subgroup's tile as words and (for initial or final
  // states) as floats, the key and the w V stages. The outputs: the tile
  // stage, the F and D tables, the A stage and the query stage (the values
  // later over it).
  l.stateSharedBytes =
      2 * 4 * n * tile + 2 * chunk * (l.keyStride() + l.valueStride());
  int64_t queryStage = std::max(l.keyStride(), l.outValueStride());
  l.outputSharedBytes = 4 * n * tile + 4 * 2 * l.rowTiles * tile +
                        2 * chunk * (l.scoreStride() + queryStage);
  int64_t shared = std::max(l.stateSharedBytes, l.outputSharedBytes);
  if (shared > target.sharedMemoryBytes) {
    reason << what << " stages " << shared
           << " bytes of shared memory, the device has "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  // The outputs stage the keys where they fit (the tile stage, three table
  // tiles, the key stage with A later over it, the query stage with the
  // values later over it; H200, session 19: outputs 1740 us against 2573
  // with K^T from global memory at fla's simple-gla shape).
  int64_t stagedKeys =
      4 * n * tile + 4 * 3 * tile +
      2 * chunk * (std::max(l.keyStride(), l.scoreStride()) + queryStage);
  if (stagedKeys <= target.sharedMemoryBytes) {
    l.stageKeys = true;
    l.outputSharedBytes = stagedKeys;
  }
  // The state pass takes blocks of 64 keys on 128 threads where they deal
  // evenly too (fla's state blocks; H200, session 19: 1115 us against 1169
  // with every key on 256 threads at fla's simple-gla shape).
  constexpr int64_t keyBlock = 64;
  int64_t keyTiles = keyBlock / t, ns = kKeyBlockThreads / l.subgroupSize;
  int64_t tiles = keyTiles * l.stateColTiles;
  int64_t perSubgroup = tiles / ns;
  if (p.dimK % keyBlock == 0 && tiles % ns == 0 &&
      (perSubgroup % l.stateColTiles == 0 ||
       l.stateColTiles % perSubgroup == 0) &&
      perSubgroup + std::max<int64_t>(1, perSubgroup / l.stateColTiles) *
                        l.rowTiles <=
          kMaxMatrices) {
    l.blockK = keyBlock;
    l.stateThreads = kKeyBlockThreads;
    l.stateKTiles = keyTiles;
    l.stateSlots = perSubgroup;
    l.stateSharedBytes =
        2 * 4 * ns * tile + 2 * chunk * (l.stateKeyStride() + l.valueStride());
  }
  return l;
}

namespace {

struct SplitTemporaries {
  Value states;
};

class SplitBase : public SlotKernel<GlaProblem, VulkanGlaSplitLayout,
                                    GlaBuffers, SplitTemporaries> {
public:
  using SlotKernel::SlotKernel;

protected:
  void begin() { thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x); }
  Value v0;
};

class SplitKernel : public CoopMatrices<SplitBase> {
public:
  using CoopMatrices::CoopMatrices;

protected:
  static constexpr int64_t kWord = VulkanGlaSplitLayout::kWord;

  /// The word views, the input type and the f32 stage (each subgroup's
  /// 16x16 part), at the function's top level, for workgroups of
  /// `threads`.
  void beginSplit(int64_t threads) {
    workgroupThreads = threads;
    beginCoop();
    inputType = cast<MemRefType>(buf.query.getType()).getElementType();
    qView = wordView(e, buf.query, kWord);
    kView = wordView(e, buf.key, kWord);
    vView = wordView(e, buf.value, kWord);
    oView = wordView(e, buf.output, kWord);
    sView = wordView(e, tmp.states, kWord);
    tileStage = allocWorkgroupOf(e, threads / l.subgroupSize * kT * kT / 4,
                                 wordType(e));
  }

  /// The head's log decay (null without one), after head and seqId.
  void loadGamma() {
    if (p.hasGamma())
      gamma = emitHeadDecay(e, p, buf.gGamma, head, seqId);
  }

  /// exp(gamma x) for an index x (1 without a decay).
  Value decayOf(Value x) {
    if (!gamma)
      return e.constF32(1.0f);
    Value f = arith::SIToFPOp::create(e.b, e.f32, e.toI32(x));
    return e.exp(e.fmul(gamma, f));
  }

  /// Element offsets (f16 elements) of q [B, T, H, K], k [B, T, Hk, K],
  /// v [B, T, Hk, V], the output [B, T, H, V] and the states [slots, H, K,
  /// V] at step `row` of the batch row.
  Value tokenAt(Value row, int64_t heads, Value h, int64_t width) {
    Value token = e.add(e.mul(batchIdx, e.index(p.seq)), row);
    Value tokenHead = e.add(e.mul(token, e.index(heads)), h);
    return e.mul(tokenHead, e.index(width));
  }
  Value qAt(Value row, Value key) {
    return e.add(tokenAt(row, p.heads, head, p.dimK), key);
  }
  Value kAt(Value row, Value key) {
    return e.add(tokenAt(row, p.kvHeads, kvHead, p.dimK), key);
  }
  Value vAt(Value row, Value col) {
    return e.add(tokenAt(row, p.kvHeads, kvHead, p.dimV), col);
  }
  Value oAt(Value row, Value col) {
    return e.add(tokenAt(row, p.heads, head, p.dimV), col);
  }
  Value sAt(Value slot, Value col, Value key) {
    Value slotHead = e.add(e.mul(slot, e.index(p.heads)), head);
    Value colRow = e.add(e.mul(slotHead, e.index(p.dimV)), col);
    return e.add(e.mul(colRow, e.index(p.dimK)), key);
  }
  Value wordAt(Value element) {
    return arith::DivUIOp::create(e.b, element, e.index(kWord));
  }

  /// `value` (f32) as the input type's 16 bits, zero-extended to i32.
  Value bitsOf(Value value) {
    Value bits = arith::BitcastOp::create(e.b, e.b.getI16Type(),
                                          operandBits(e, value, inputType));
    return arith::ExtUIOp::create(e.b, e.b.getI32Type(), bits);
  }

  /// The low (`high` false) or high 16 bits of `lane` (i32) as f32 of the
  /// input type.
  Value halfOf(Value lane, bool high) {
    Value x = lane;
    if (high)
      x = arith::ShRUIOp::create(
          e.b, x, arith::ConstantOp::create(e.b, e.b.getI32IntegerAttr(16)));
    if (inputType.isBF16()) {
      // bf16 is the high half of an f32.
      Value shifted = arith::ShLIOp::create(
          e.b, x, arith::ConstantOp::create(e.b, e.b.getI32IntegerAttr(16)));
      return arith::BitcastOp::create(e.b, e.f32, shifted);
    }
    Value bits = arith::TruncIOp::create(e.b, e.b.getI16Type(), x);
    Value half = arith::BitcastOp::create(e.b, e.b.getF16Type(), bits);
    return arith::ExtFOp::create(e.b, e.f32, half);
  }

  /// Two 16-bit values in one i32 lane, the first in the low half.
  Value pairOf(Value lo, Value hi) {
    Value high = arith::ShLIOp::create(
        e.b, hi, arith::ConstantOp::create(e.b, e.b.getI32IntegerAttr(16)));
    return arith::OrIOp::create(e.b, lo, high);
  }

  /// `matrix` (f32 accumulator) leaves as words: through the subgroup's
  /// part of the f32 stage (subgroup barriers only), lane l takes row l / 2,
  /// columns 8 (l mod 2).. of it and calls `store(row, col, word)` with
  /// their 16-byte word in the input type. A subgroup may call it alone.
  void tileWords(Value matrix, function_ref<void(Value, Value, Value)> store,
                 bool transpose = false) {
    // The tile's 256 floats are 64 words: row r in words 4 r.. 4 r + 3.
    constexpr int64_t perWord = 4, words = kT * kT / perWord;
    Value base = e.mul(subgroup, e.index(words));
    gpu::SubgroupMmaStoreMatrixOp::create(
        e.b, matrix, tileStage, ValueRange{base},
        e.b.getIndexAttr(kT / perWord),
        transpose ? e.b.getUnitAttr() : UnitAttr());
    subgroupBarrier();
    auto floats = VectorType::get({perWord}, e.f32);
    Value first = e.add(base, e.mul(lane, e.index(2)));
    SmallVector<Value> bits;
    for (int64_t w = 0; w < 2; ++w) {
      Value word =
          memref::LoadOp::create(e.b, tileStage, e.add(first, e.index(w)));
      Value four = vector::BitCastOp::create(e.b, floats, word);
      for (int64_t f = 0; f < perWord; ++f)
        bits.push_back(bitsOf(vector::ExtractOp::create(e.b, four, f)));
    }
    SmallVector<Value> lanes;
    for (int64_t h = 0; h < kWord; h += 2)
      lanes.push_back(pairOf(bits[h], bits[h + 1]));
    Value word = vector::FromElementsOp::create(e.b, wordType(e), lanes);
    Value row = arith::DivUIOp::create(e.b, lane, e.index(2));
    Value half = arith::RemUIOp::create(e.b, lane, e.index(2));
    store(row, e.mul(half, e.index(kWord)), word);
    subgroupBarrier();
  }

  /// A round of a chunk's [C, width words] block: this thread's word
  /// (row, word), and whether it is inside the block (null: always).
  struct Round {
    Value row, word, inside;
  };

  SmallVector<Round> rounds(int64_t width) {
    SmallVector<Round> out;
    int64_t total = l.chunk * width;
    int64_t threads = workgroupThreads;
    for (int64_t r = 0; r * threads < total; ++r) {
      Value i = e.add(thread, e.index(r * threads));
      Round x;
      if ((r + 1) * threads > total) {
        x.inside = cmp(arith::CmpIPredicate::slt, i, e.index(total));
        i = e.min(i, e.index(total - 1));
      }
      x.row = arith::DivUIOp::create(e.b, i, e.index(width));
      x.word = arith::RemUIOp::create(e.b, i, e.index(width));
      out.push_back(x);
    }
    return out;
  }

  /// `word` of round `r` into `stage` (rows `stride` f16 elements apart).
  void stageWord(const Round &r, Value word, Value stage, int64_t stride) {
    Value at = e.add(e.mul(r.row, e.index(stride / kWord)), r.word);
    auto store = [&] { memref::StoreOp::create(e.b, word, stage, at); };
    if (r.inside)
      emitIf(e, r.inside, store);
    else
      store();
  }

  /// The words of `rounds` in rows t0.. of `view`: round r's at element
  /// at(t0 + r.row, col0 + r.word kWord) (col0 null: 0).
  SmallVector<Value> loadRounds(ArrayRef<Round> rounds, Value t0, Value col0,
                                Value view,
                                function_ref<Value(Value, Value)> at) {
    SmallVector<Value> words;
    for (const Round &r : rounds) {
      Value col = e.mul(r.word, e.index(kWord));
      if (col0)
        col = e.add(col0, col);
      Value row = e.add(t0, r.row);
      words.push_back(memref::LoadOp::create(e.b, view, wordAt(at(row, col))));
    }
    return words;
  }

  Type inputType;
  int64_t workgroupThreads = 0;
  Value gamma;
  /// Each subgroup's 16x16 f32 tile as 64 words (tileWords).
  Value qView, kView, vView, oView, sView, tileStage;
};

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

/// The outputs: workgroup (chunk slot, head, V block).
class OutputsKernel : public SplitKernel {
public:
  using SplitKernel::SplitKernel;

  void build() {
    beginSplit(l.kThreads);
    int64_t C = l.chunk, R = l.rowTiles, chunks = p.seq / C;
    Value slot = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
    Value outBlockV = e.index(l.outBlockV);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 2), outBlockV);
    batchIdx = e.div(slot, e.index(chunks));
    seqId = batchIdx;
    Value chunkSteps = e.index(C);
    Value t0 =
        e.mul(arith::RemUIOp::create(e.b, slot, e.index(chunks)), chunkSteps);
    loadGamma();
    // The chunk's queries [C, K] and values [C, out block] as words, loaded
    // first: the queries are staged for the scores and q S, the values then
    // over them for A V. A matrix straight from global memory is read in
    // its fragments' pieces: every subgroup reading all of q that way
    // multiplied the chunk's L1 traffic by eight.
    SmallVector<Round> queryWords = rounds(p.dimK / kWord);
    SmallVector<Round> valueWords = rounds(l.outBlockV / kWord);
    SmallVector<Value> queries =
        loadRounds(queryWords, t0, Value(), qView,
                   [&](Value row, Value col) { return qAt(row, col); });
    SmallVector<Value> values =
        loadRounds(valueWords, t0, v0, vView,
                   [&](Value row, Value col) { return vAt(row, col); });
    if (l.stageKeys) {
      buildStagedKeys(slot, t0, queryWords, queries, valueWords, values);
      return;
    }
    constexpr int64_t tile = kT * kT;
    // F_d (rows 16 d.. against columns 0..15 of a tile d rows below the
    // diagonal) and D_i (rows of tile row i), f32.
    Value tables = allocWorkgroupOf(e, 2 * R * tile, e.f32);
    Value aStage =
        allocWorkgroupOf(e, C * l.scoreStride() / kWord, wordType(e));
    Value qvStage = allocWorkgroupOf(
        e, C * std::max(l.keyStride(), l.outValueStride()) / kWord,
        wordType(e));
    for (size_t r = 0; r < queryWords.size(); ++r)
      stageWord(queryWords[r], queries[r], qvStage, l.keyStride());
    forEachShared(e, l.kThreads, thread, 2 * R * tile, [&](Value i) {
      Value which = arith::DivUIOp::create(e.b, i, e.index(tile));
      Value inTile = arith::RemUIOp::create(e.b, i, e.index(tile));
      Value r = arith::DivUIOp::create(e.b, inTile, e.index(kT));
      Value c = arith::RemUIOp::create(e.b, inTile, e.index(kT));
      Value isF = cmp(arith::CmpIPredicate::slt, which, e.index(R));
      Value d = e.select(isF, which, e.sub(which, e.index(R)));
      Value row = e.add(e.mul(d, e.index(kT)), r);
      Value keep = cmp(arith::CmpIPredicate::sle, c, row);
      Value dGap = e.add(row, one);
      Value fGap = e.select(keep, e.sub(row, c), zero);
      Value gap = e.select(isF, fGap, dGap);
      Value scale = e.constF32(p.scale);
      Value value = e.fmul(decayOf(gap), scale);
      Value masked = arith::AndIOp::create(e.b, isF, notOf(keep));
      memref::StoreOp::create(e.b, e.select(masked, e.constF32(0.0f), value),
                              tables, i);
    });
    Value zeroWord = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(cast<ShapedType>(wordType(e)),
                                    e.b.getI32IntegerAttr(0)));
    forEachShared(
        e, l.kThreads, thread, C * l.scoreStride() / kWord,
        [&](Value i) { memref::StoreOp::create(e.b, zeroWord, aStage, i); });
    gpu::BarrierOp::create(e.b);
    int64_t kks = p.kvHeads * p.dimK;
    int64_t ss = l.scoreStride();
    // A16 = (Q K^T) o F, lower-triangle tiles round-robin.
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      emitIf(e, ownsTile(m, l.scoreTiles()), [&] {
        Value i, j;
        std::tie(i, j) = scoreTile(tileOf(m, l.scoreTiles()));
        Value acc = zeroMatrix();
        for (int64_t d = 0; d < l.kTiles; ++d) {
          Value keyAt = e.index(d * kT);
          Value qElem = e.add(e.mul(i, e.index(kT * l.keyStride())), keyAt);
          Value q = loadMatrix(e, aType, qvStage, qElem, l.keyStride(),
                               /*transpose=*/false);
          Value keyCol = e.index(d * kT);
          Value kRow = e.add(t0, e.mul(j, e.index(kT)));
          Value k = loadMatrix(e, bType, kView, kAt(kRow, keyCol), kks,
                               /*transpose=*/true);
          acc = mma(q, k, acc);
        }
        Value tileSize = e.index(tile);
        Value f = loadMatrix(e, cType, tables, e.mul(e.sub(i, j), tileSize), kT,
                             /*transpose=*/false);
        acc = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{acc, f}, gpu::MMAElementwiseOp::MULF);
        tileWords(acc, [&](Value r, Value cc, Value word) {
          Value t = e.add(e.mul(i, e.index(kT)), r);
          Value s = e.add(e.mul(j, e.index(kT)), cc);
          Value at = e.add(e.mul(t, e.index(ss)), s);
          memref::StoreOp::create(e.b, word, aStage, wordAt(at));
        });
      });
    }
    // O = D o (Q S).
    OutputTiles ot = outputTiles();
    Value col = ot.col;
    SmallVector<Value> &rowTile = ot.rowTile, &o = ot.o;
    for (int64_t d = 0; d < l.kTiles; ++d) {
      // S^T rows: the keys of a column are contiguous (column-major B).
      Value s = loadMatrix(e, bType, sView, sAt(slot, col, e.index(d * kT)),
                           p.dimK, /*transpose=*/true);
      for (int64_t m = 0; m < l.outputSlots; ++m) {
        Value stepAt = e.index(d * kT);
        Value qElem =
            e.add(e.mul(rowTile[m], e.index(kT * l.keyStride())), stepAt);
        Value q = loadMatrix(e, aType, qvStage, qElem, l.keyStride(),
                             /*transpose=*/false);
        o[m] = mma(q, s, o[m]);
      }
    }
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tileSize = e.index(tile);
      Value table = e.add(rowTile[m], e.index(R));
      Value decay = loadMatrix(e, cType, tables, e.mul(table, tileSize), kT,
                               /*transpose=*/false);
      o[m] = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{o[m], decay}, gpu::MMAElementwiseOp::MULF);
    }
    // The values over the queries, once every subgroup is past q S.
    gpu::BarrierOp::create(e.b);
    for (size_t r = 0; r < valueWords.size(); ++r)
      stageWord(valueWords[r], values[r], qvStage, l.outValueStride());
    gpu::BarrierOp::create(e.b);
    addValuesAndStore(ot, t0, aStage, qvStage);
  }

private:
  /// The subgroup's output tiles: subgroup g owns V tile j = g mod n and
  /// row tiles g / n + m (8 / n) (n V tiles), O starting at zero.
  struct OutputTiles {
    int64_t rowStep;
    Value j, col;
    SmallVector<Value> rowTile, o;
  };
  OutputTiles outputTiles() {
    int64_t n = l.outColTiles;
    OutputTiles ot;
    ot.rowStep = l.subgroups() / n;
    ot.j = arith::RemUIOp::create(e.b, subgroup, e.index(n));
    Value row0 = arith::DivUIOp::create(e.b, subgroup, e.index(n));
    ot.col = e.add(v0, e.mul(ot.j, e.index(kT)));
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      ot.rowTile.push_back(e.add(row0, e.index(m * ot.rowStep)));
      ot.o.push_back(zeroMatrix());
    }
    return ot;
  }

  /// O += A16 V over the step tiles at or left of the diagonal (the tiles
  /// above it are zero, skipped where the row is known to be above), A in
  /// `aStage` (row stride scoreStride), V in `qvStage`; then O to memory
  /// as words from step `t0`.
  void addValuesAndStore(OutputTiles &ot, Value t0, Value aStage,
                         Value qvStage) {
    int64_t ss = l.scoreStride();
    for (int64_t d = 0; d < l.rowTiles; ++d) {
      Value colAt = e.mul(ot.j, e.index(kT));
      Value vElem = e.add(e.index(d * kT * l.outValueStride()), colAt);
      Value v = loadMatrix(e, bType, qvStage, vElem, l.outValueStride(),
                           /*transpose=*/false);
      for (int64_t m = 0; m < l.outputSlots; ++m) {
        // rowTile[m] is in [m rowStep, m rowStep + rowStep - 1].
        if (d > m * ot.rowStep + ot.rowStep - 1)
          continue;
        Value stepAt = e.index(d * kT);
        Value aAt = e.add(e.mul(ot.rowTile[m], e.index(kT * ss)), stepAt);
        Value a = loadMatrix(e, aType, aStage, aAt, ss, /*transpose=*/false);
        ot.o[m] = mma(a, v, ot.o[m]);
      }
    }
    for (int64_t m = 0; m < l.outputSlots; ++m)
      tileWords(ot.o[m], [&](Value r, Value cc, Value word) {
        Value t = e.add(t0, e.add(e.mul(ot.rowTile[m], e.index(kT)), r));
        memref::StoreOp::create(e.b, word, oView,
                                wordAt(oAt(t, e.add(ot.col, cc))));
      });
  }

  /// The outputs with the keys staged beside the queries (stageKeys): K
  /// words loaded with q's, the scores from both stages kept in
  /// accumulators through q S, then written over the keys as A; F and D
  /// from three f32 tiles (F_0 masked, F_1, D_0) and a decay scalar per
  /// tile (F_d = exp(16 gamma (d - 1)) F_1, D_i = exp(16 gamma i) D_0:
  /// every exponent <= 0).
  void buildStagedKeys(Value slot, Value t0, ArrayRef<Round> queryWords,
                       ArrayRef<Value> queries, ArrayRef<Round> valueWords,
                       ArrayRef<Value> values) {
    int64_t C = l.chunk, R = l.rowTiles;
    constexpr int64_t tile = kT * kT;
    SmallVector<Value> keys =
        loadRounds(queryWords, t0, Value(), kView,
                   [&](Value row, Value col) { return kAt(row, col); });
    Value tables = allocWorkgroupOf(e, 3 * tile, e.f32);
    Value qvStage = allocWorkgroupOf(
        e, C * std::max(l.keyStride(), l.outValueStride()) / kWord,
        wordType(e));
    Value kaStage = allocWorkgroupOf(
        e, C * std::max(l.keyStride(), l.scoreStride()) / kWord, wordType(e));
    for (size_t r = 0; r < queryWords.size(); ++r)
      stageWord(queryWords[r], queries[r], qvStage, l.keyStride());
    for (size_t r = 0; r < queryWords.size(); ++r)
      stageWord(queryWords[r], keys[r], kaStage, l.keyStride());
    forEachShared(e, l.kThreads, thread, 3 * tile, [&](Value i) {
      Value which = arith::DivUIOp::create(e.b, i, e.index(tile));
      Value inTile = arith::RemUIOp::create(e.b, i, e.index(tile));
      Value r = arith::DivUIOp::create(e.b, inTile, e.index(kT));
      Value c = arith::RemUIOp::create(e.b, inTile, e.index(kT));
      // F_0 [r, c] = gap r - c (masked above the diagonal), F_1 16 + r - c,
      // D_0 r + 1.
      Value isF0 = cmp(arith::CmpIPredicate::eq, which, zero);
      Value isF1 = cmp(arith::CmpIPredicate::eq, which, one);
      Value keep = cmp(arith::CmpIPredicate::sle, c, r);
      Value diff = e.sub(r, c);
      Value f0Gap = e.select(keep, diff, zero);
      Value f1Gap = e.add(diff, e.index(kT));
      Value dGap = e.add(r, one);
      Value fGap = e.select(isF0, f0Gap, f1Gap);
      Value isF = arith::OrIOp::create(e.b, isF0, isF1);
      Value gap = e.select(isF, fGap, dGap);
      Value scale = e.constF32(p.scale);
      Value value = e.fmul(decayOf(gap), scale);
      Value masked = arith::AndIOp::create(e.b, isF0, notOf(keep));
      Value zeroF = e.constF32(0.0f);
      memref::StoreOp::create(e.b, e.select(masked, zeroF, value), tables, i);
    });
    gpu::BarrierOp::create(e.b);
    // A = (Q K^T) o F, lower-triangle tiles round-robin, in accumulators
    // until the keys' stage is free.
    int64_t ks = l.keyStride();
    SmallVector<Value> scores;
    SmallVector<std::pair<Value, Value>> scoreAt;
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value i, j;
      std::tie(i, j) = scoreTile(tileOf(m, l.scoreTiles()));
      scoreAt.push_back({i, j});
      auto product = [&]() -> SmallVector<Value> {
        Value acc = zeroMatrix();
        for (int64_t d = 0; d < l.kTiles; ++d) {
          Value keyAt = e.index(d * kT);
          Value qElem = e.add(e.mul(i, e.index(kT * ks)), keyAt);
          Value q = loadMatrix(e, aType, qvStage, qElem, ks,
                               /*transpose=*/false);
          Value kElem = e.add(e.mul(j, e.index(kT * ks)), keyAt);
          Value k = loadMatrix(e, bType, kaStage, kElem, ks,
                               /*transpose=*/true);
          acc = mma(q, k, acc);
        }
        // F_{i - j}: F_0 on the diagonal, else exp(16 gamma (i - j - 1))
        // F_1.
        Value gap = e.sub(i, j);
        Value onDiagonal = cmp(arith::CmpIPredicate::eq, gap, zero);
        Value tileSize = e.index(tile);
        Value fAt = e.select(onDiagonal, zero, tileSize);
        Value f = loadMatrix(e, cType, tables, fAt, kT, /*transpose=*/false);
        acc = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{acc, f}, gpu::MMAElementwiseOp::MULF);
        if (gamma) {
          Value below = e.sub(e.max(gap, one), one);
          Value steps = e.mul(below, e.index(kT));
          Value factor = gpu::SubgroupMmaConstantMatrixOp::create(
              e.b, cType, decayOf(steps));
          acc = gpu::SubgroupMmaElementwiseOp::create(
              e.b, cType, ValueRange{acc, factor}, gpu::MMAElementwiseOp::MULF);
        }
        return {acc};
      };
      if ((m + 1) * l.subgroups() <= l.scoreTiles()) {
        scores.push_back(product()[0]);
        continue;
      }
      Type accType = cType;
      scores.push_back(
          e.ifElse(ownsTile(m, l.scoreTiles()), TypeRange{accType}, product,
                   [&]() -> SmallVector<Value> { return {zeroMatrix()}; })[0]);
    }
    // O = D o (Q S), as in build().
    OutputTiles ot = outputTiles();
    Value col = ot.col;
    SmallVector<Value> &rowTile = ot.rowTile, &o = ot.o;
    for (int64_t d = 0; d < l.kTiles; ++d) {
      Value s = loadMatrix(e, bType, sView, sAt(slot, col, e.index(d * kT)),
                           p.dimK, /*transpose=*/true);
      for (int64_t m = 0; m < l.outputSlots; ++m) {
        Value stepAt = e.index(d * kT);
        Value qElem = e.add(e.mul(rowTile[m], e.index(kT * ks)), stepAt);
        Value q = loadMatrix(e, aType, qvStage, qElem, ks,
                             /*transpose=*/false);
        o[m] = mma(q, s, o[m]);
      }
    }
    Value tileSize = e.index(tile);
    Value d0At = e.mul(e.index(2), tileSize);
    Value decay0 = loadMatrix(e, cType, tables, d0At, kT, /*transpose=*/false);
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      o[m] = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{o[m], decay0}, gpu::MMAElementwiseOp::MULF);
      if (gamma) {
        Value steps = e.mul(rowTile[m], e.index(kT));
        Value factor = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                                decayOf(steps));
        o[m] = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{o[m], factor}, gpu::MMAElementwiseOp::MULF);
      }
    }
    // Every subgroup is past the scores and q S: A over the keys (the
    // tiles above the diagonal zeroed), the values over the queries.
    gpu::BarrierOp::create(e.b);
    int64_t ss = l.scoreStride();
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value i = scoreAt[m].first, jj = scoreAt[m].second;
      emitIf(e, ownsTile(m, l.scoreTiles()), [&] {
        tileWords(scores[m], [&](Value r, Value cc, Value word) {
          Value t = e.add(e.mul(i, e.index(kT)), r);
          Value s = e.add(e.mul(jj, e.index(kT)), cc);
          Value at = e.add(e.mul(t, e.index(ss)), s);
          memref::StoreOp::create(e.b, word, kaStage, wordAt(at));
        });
      });
    }
    // The upper tiles: R (R - 1) / 2 tiles of 16 rows of 2 words.
    int64_t upperWords = R * (R - 1) / 2 * kT * 2;
    if (upperWords) {
      Value zeroWord = arith::ConstantOp::create(
          e.b, DenseElementsAttr::get(cast<ShapedType>(wordType(e)),
                                      e.b.getI32IntegerAttr(0)));
      forEachShared(e, l.kThreads, thread, upperWords, [&](Value x) {
        // x = ((tile q) 16 + row) 2 + half; upper tile q = (i, j), i < j,
        // enumerated as the lower tile (j, i) is.
        Value half = arith::RemUIOp::create(e.b, x, e.index(2));
        Value rowOf = arith::DivUIOp::create(e.b, x, e.index(2));
        Value r = arith::RemUIOp::create(e.b, rowOf, e.index(kT));
        Value q = arith::DivUIOp::create(e.b, rowOf, e.index(kT));
        Value hi, lo;
        std::tie(hi, lo) = strictLowerTile(q);
        Value t = e.add(e.mul(lo, e.index(kT)), r);
        Value cAt = e.mul(hi, e.index(kT));
        Value s = e.add(cAt, e.mul(half, e.index(kWord)));
        Value at = e.add(e.mul(t, e.index(ss)), s);
        memref::StoreOp::create(e.b, zeroWord, kaStage, wordAt(at));
      });
    }
    for (size_t r = 0; r < valueWords.size(); ++r)
      stageWord(valueWords[r], values[r], qvStage, l.outValueStride());
    gpu::BarrierOp::create(e.b);
    addValuesAndStore(ot, t0, kaStage, qvStage);
  }

  /// (row tile, column tile) of strictly-lower tile `q`: the largest i
  /// with i (i - 1) / 2 <= q (i >= 1), then j = q - i (i - 1) / 2.
  std::pair<Value, Value> strictLowerTile(Value q) {
    Value i = one;
    for (int64_t k = 2; k < l.rowTiles; ++k) {
      Value past = cmp(arith::CmpIPredicate::sge, q, e.index(k * (k - 1) / 2));
      i = e.select(past, e.index(k), i);
    }
    Value iMinus = e.sub(i, one);
    Value two = e.index(2);
    Value tri = arith::DivUIOp::create(e.b, e.mul(i, iMinus), two);
    return {i, e.sub(q, tri)};
  }

  /// (row tile, column tile) of lower-triangle score tile `q`: the largest
  /// i with i (i + 1) / 2 <= q, then j = q - i (i + 1) / 2.
  std::pair<Value, Value> scoreTile(Value q) {
    Value i = zero;
    for (int64_t k = 1; k < l.rowTiles; ++k) {
      Value past = cmp(arith::CmpIPredicate::sge, q, e.index(k * (k + 1) / 2));
      i = e.select(past, e.index(k), i);
    }
    Value two = e.index(2);
    Value tri = arith::DivUIOp::create(e.b, e.mul(i, e.add(i, one)), two);
    return {i, e.sub(q, tri)};
  }
};

SplitTemporaries remapTemporaries(ArrayRef<Value> temps) {
  return SplitTemporaries{temps[0]};
}

void buildStates(OpBuilder &b, Location loc, const GlaProblem &p,
                 const VulkanGlaSplitLayout &l, const GlaBuffers &buf,
                 const SplitTemporaries &tmp) {
  StatesKernel(b, loc, p, l, buf, tmp).build();
}

} // namespace

LogicalResult mlir::ejk::tileVulkanGlaCoopSplit(Operation *op,
                                                const GlaProblem &p,
                                                const VulkanGlaSplitLayout &l,
                                                const GlaBuffers &buf,
                                                DispatchRewriter &rewriter) {
  MLIRContext *context = rewriter.dispatch().getContext();
  int64_t slots = p.batch * (p.seq / l.chunk);
  // The states in the input type's 16 bits (f16-typed: only word views
  // read and write them).
  SmallVector<MemRefType> tempTypes = {MemRefType::get(
      {slots, p.heads, p.dimV, p.dimK}, Float16Type::get(context))};
  auto tiling = beginChunkTiling(rewriter, tempTypes, p, l, buf,
                                 remapGlaBuffers, remapTemporaries);
  if (failed(tiling))
    return failure();
  bool bf16 = cast<MemRefType>(buf.query.getType()).getElementType().isBF16();
  func::FuncOp states =
      rewriter.addDispatch("states", tiling->argTypes,
                           {p.dimV / l.blockV * l.keyBlocks(), p.heads,
                            std::max<int64_t>(1, p.batch)},
                           tiling->build(buildStates));
  DispatchRewriter::setVulkanLaunch(states, l.stateThreads, l.stateSharedBytes);
  DispatchRewriter::setWork(
      states, p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.key, buf.value}) +
          DispatchRewriter::bytesOf(tiling->mainTemps.states));
  if (bf16)
    DispatchRewriter::setBF16Matrices(states);
  dispatchInOrder(rewriter, tiling->tempTypes, {states});

  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  OutputsKernel(b, loc, p, l, buf, tiling->mainTemps).build();
  rewriter.finish(b);
  func::FuncOp outputs = rewriter.dispatch();
  DispatchRewriter::setGrid(outputs, {slots, p.heads, p.dimV / l.outBlockV});
  DispatchRewriter::setVulkanLaunch(outputs, l.kThreads, l.outputSharedBytes);
  DispatchRewriter::setWork(
      outputs, glaFlops(p, l.chunk) - p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.query, buf.key, buf.value, buf.output}) +
          DispatchRewriter::bytesOf(tiling->mainTemps.states));
  if (bf16)
    DispatchRewriter::setBF16Matrices(outputs);
  return success();
}

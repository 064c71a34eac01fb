//===- BlockSparseGradReferenceTest.cpp - block-sparse backward oracle ----===//
//
// The reference evaluator of ejk.block_sparse_attention_grad (what `ejk-run
// --check` compares the kernels with) against central finite differences of
// the reference forward's sum(output * d_output), on tiny problems: a block
// mask with a dead query-block row and a dead key-block column, each mask
// builder (causal both alignments, window, chunked), GQA, soft cap, token
// mask and segments.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/DialectTestUtil.h"

#include "ejk/Driver/ReferenceRunner.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

struct Problem {
  int64_t sq = 8, sk = 12, hq = 2, hkv = 2, d = 4;
  int64_t qbs = 4, kbs = 4;
  /// Attributes of both ops (after the block sizes).
  std::string attrs;
  /// Live flags of the [1, 1, nq, nk] block mask; empty: no block mask.
  std::vector<int> blocks;
  /// Token mask [1, 1, sq, sk] and segment ids, drawn when set.
  bool mask = false, segments = false;
};

std::string t(std::vector<int64_t> shape, const char *element) {
  return tensorType(shape, element);
}

class BlockSparseGradReferenceTest : public ::testing::Test {
protected:
  BlockSparseGradReferenceTest() { loadTestDialects(context); }

  /// Checks the reference backward against finite differences for `p`.
  void check(const Problem &p) {
    int64_t nq = (p.sq + p.qbs - 1) / p.qbs, nk = (p.sk + p.kbs - 1) / p.kbs;
    std::string q = t({1, p.sq, p.hq, p.d}, "f32");
    std::string k = t({1, p.sk, p.hkv, p.d}, "f32");
    std::string lse = t({1, p.hq, p.sq}, "f32");
    std::string bm = t({1, 1, nq, nk}, "i1");
    std::string mask = t({1, 1, p.sq, p.sk}, "i1");
    std::string qs = t({1, p.sq}, "i32"), ks = t({1, p.sk}, "i32");
    std::string extraArgs, extraOps, blockArg, blockType;
    if (!p.blocks.empty()) {
      extraArgs += ", %bm: " + bm;
      blockArg = ", %bm";
      blockType = ", " + bm;
    }
    if (p.mask) {
      extraArgs += ", %m: " + mask;
      extraOps += " mask(%m : " + mask + ")";
    }
    if (p.segments) {
      extraArgs += ", %qs: " + qs + ", %ks: " + ks;
      extraOps +=
          " q_segment_ids(%qs : " + qs + ") kv_segment_ids(%ks : " + ks + ")";
    }
    std::string attrs = "{q_block_size = " + std::to_string(p.qbs) +
                        " : i64, kv_block_size = " + std::to_string(p.kbs) +
                        " : i64" + (p.attrs.empty() ? "" : ", " + p.attrs) +
                        "}";
    std::string ir =
        "func.func @fwd(%q: " + q + ", %k: " + k + ", %v: " + k + extraArgs +
        ") -> (" + q + ", " + lse +
        ") {\n  %o, %lse = ejk.block_sparse_attention %q, %k, %v" + blockArg +
        extraOps + " " + attrs + " : " + q + ", " + k + ", " + k + blockType +
        " -> " + q + ", " + lse + "\n  return %o, %lse : " + q + ", " + lse +
        "\n}\n" + "func.func @bwd(%q: " + q + ", %k: " + k + ", %v: " + k +
        ", %o: " + q + ", %do: " + q + ", %lse: " + lse + extraArgs + ") -> (" +
        q + ", " + k + ", " + k +
        ") {\n  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, "
        "%o, %do, %lse" +
        blockArg + extraOps + " " + attrs + " : " + q + ", " + k + ", " + k +
        ", " + q + ", " + q + ", " + lse + blockType + " -> " + q + ", " + k +
        ", " + k + "\n  return %dq, %dk, %dv : " + q + ", " + k + ", " + k +
        "\n}\n";
    OwningOpRef<ModuleOp> module = parseModule(context, ir);
    ASSERT_TRUE(module) << ir;
    auto fwd = module->lookupSymbol<func::FuncOp>("fwd");
    auto bwd = module->lookupSymbol<func::FuncOp>("bwd");

    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto draw = [&](int64_t n) {
      std::vector<float> v(n);
      for (float &x : v)
        x = normal(rng);
      return v;
    };
    std::vector<float> qv = draw(p.sq * p.hq * p.d);
    std::vector<float> kv = draw(p.sk * p.hkv * p.d);
    std::vector<float> vv = draw(p.sk * p.hkv * p.d);
    std::vector<float> dov = draw(p.sq * p.hq * p.d);
    std::vector<HostTensor> extra;
    if (!p.blocks.empty())
      extra.push_back(HostTensor::fromFloats(
          "i1", {1, 1, nq, nk},
          std::vector<float>(p.blocks.begin(), p.blocks.end())));
    if (p.mask) {
      std::vector<float> m(p.sq * p.sk);
      for (float &x : m)
        x = (rng() % 100) < 80 ? 1.0f : 0.0f;
      extra.push_back(HostTensor::fromFloats("i1", {1, 1, p.sq, p.sk}, m));
    }
    if (p.segments) {
      auto ids = [](int64_t n, int64_t cut) {
        std::vector<float> v(n);
        for (int64_t i = 0; i < n; ++i)
          v[i] = i < cut ? 0.0f : 1.0f;
        return v;
      };
      extra.push_back(HostTensor::fromFloats("i32", {1, p.sq}, ids(p.sq, 3)));
      extra.push_back(HostTensor::fromFloats("i32", {1, p.sk}, ids(p.sk, 5)));
    }
    auto f32 = [](std::vector<int64_t> shape, const std::vector<float> &v) {
      return HostTensor::fromFloats("f32", std::move(shape), v);
    };
    auto forward =
        [&](const std::vector<float> &qx, const std::vector<float> &kx,
            const std::vector<float> &vx, std::vector<HostTensor> &out) {
          std::vector<HostTensor> in = {f32({1, p.sq, p.hq, p.d}, qx),
                                        f32({1, p.sk, p.hkv, p.d}, kx),
                                        f32({1, p.sk, p.hkv, p.d}, vx)};
          in.insert(in.end(), extra.begin(), extra.end());
          return runReference(fwd, in, out);
        };
    // Objective sum(out * dO), summed in double.
    auto objective = [&](const std::vector<float> &qx,
                         const std::vector<float> &kx,
                         const std::vector<float> &vx) {
      std::vector<HostTensor> out;
      EXPECT_TRUE(succeeded(forward(qx, kx, vx, out)));
      std::vector<float> o = out[0].toFloats();
      double sum = 0.0;
      for (size_t i = 0; i < o.size(); ++i)
        sum += static_cast<double>(o[i]) * dov[i];
      return sum;
    };

    std::vector<HostTensor> fwdOut;
    ASSERT_TRUE(succeeded(forward(qv, kv, vv, fwdOut)));
    std::vector<HostTensor> in = {
        f32({1, p.sq, p.hq, p.d}, qv),  f32({1, p.sk, p.hkv, p.d}, kv),
        f32({1, p.sk, p.hkv, p.d}, vv), fwdOut[0],
        f32({1, p.sq, p.hq, p.d}, dov), fwdOut[1]};
    in.insert(in.end(), extra.begin(), extra.end());
    std::vector<HostTensor> grads;
    ASSERT_TRUE(succeeded(runReference(bwd, in, grads)));

    const float step = 1e-2f;
    std::vector<float> *inputs[] = {&qv, &kv, &vv};
    double largest = 0.0;
    std::vector<std::vector<double>> numeric(3);
    for (int which = 0; which < 3; ++which) {
      std::vector<float> &x = *inputs[which];
      for (size_t i = 0; i < x.size(); ++i) {
        float saved = x[i];
        x[i] = saved + step;
        double up = objective(qv, kv, vv);
        x[i] = saved - step;
        double down = objective(qv, kv, vv);
        x[i] = saved;
        numeric[which].push_back((up - down) / (2.0 * step));
        largest = std::max(largest, std::fabs(numeric[which].back()));
      }
    }
    ASSERT_GT(largest, 0.1) << "the problem has no gradient to compare";
    const char *names[] = {"dq", "dk", "dv"};
    for (int which = 0; which < 3; ++which) {
      std::vector<float> analytic = grads[which].toFloats();
      ASSERT_EQ(analytic.size(), numeric[which].size());
      for (size_t i = 0; i < analytic.size(); ++i)
        EXPECT_NEAR(analytic[i], numeric[which][i], 1e-3 * largest)
            << names[which] << "[" << i << "]";
    }
  }

  MLIRContext context;
};

} // namespace

// 2 x 3 blocks: query-block row 1 dead, key-block column 2 dead.
TEST_F(BlockSparseGradReferenceTest, BlockMask) {
  Problem p;
  p.attrs = "causal = false";
  p.blocks = {1, 1, 0, 0, 0, 0};
  check(p);
}

TEST_F(BlockSparseGradReferenceTest, BlockMaskCausal) {
  Problem p;
  p.sq = 12;
  p.blocks = {1, 0, 1, 1, 1, 0, 0, 1, 1};
  check(p);
}

TEST_F(BlockSparseGradReferenceTest, CausalBottomRightGqa) {
  Problem p;
  p.hq = 4;
  p.hkv = 2;
  p.attrs = "mask_alignment = \"bottom_right\"";
  p.blocks = {1, 1, 1, 0, 1, 1};
  check(p);
}

TEST_F(BlockSparseGradReferenceTest, LocalWindow) {
  Problem p;
  p.attrs = "causal = false, sliding_window = array<i64: 2, 3>";
  check(p);
}

TEST_F(BlockSparseGradReferenceTest, ChunkedCausal) {
  Problem p;
  p.sq = 12;
  p.attrs = "chunk_size = 5 : i64, logits_soft_cap = 2.0 : f32";
  p.blocks = {1, 1, 1, 1, 0, 1, 1, 1, 1};
  check(p);
}

TEST_F(BlockSparseGradReferenceTest, MaskAndSegments) {
  Problem p;
  p.attrs = "causal = false, softmax_scale = 0.7 : f32";
  p.blocks = {1, 0, 1, 1, 1, 1};
  p.mask = true;
  p.segments = true;
  check(p);
}

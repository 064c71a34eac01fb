#!/usr/bin/env python3
"""Conformance: ejk against ejKernel's XLA implementations, on the same inputs.

For every case of the table below the runner draws inputs with numpy (seeded
by the case name, so a case is reproducible on its own), writes them as .npy,
writes a one-op .mlir entry, runs it with `ejk-run`, runs the matching public
ejKernel function with `platform="xla"` under jax on the CPU, and compares.

  conformance.py --bin-dir build/bin                 # every case
  conformance.py --bin-dir build/bin --case fa_gqa   # one case (or a glob)
  conformance.py --list                              # the table

It runs in the conformance venv (scripts/setup-conformance.sh), which has the
pinned ejkernel, jax[cpu] and numpy. See docs/conformance.md.

Tolerances (per element: |ejk - ejKernel| <= atol + rtol * |ejKernel|):
  f32   1e-5 + 1e-5  both sides accumulate in f32; the orders differ, so a
                     few ulps of the largest partial sums are expected.
  f16   5e-3 + 5e-3  both round the output to f16 (half an ulp at 1 is 5e-4);
                     ejKernel keeps more in f16 than ejk (state_space_v1's
                     state is f16 for f16 inputs, ejk's is f32).
  bf16  4e-2 + 2e-2  the same with bf16's 8-bit mantissa (as `ejk-run --check`).
A family with `scaled_atol` (gradients: class FlashAttentionGrad) multiplies
atol by max(1, max |ejKernel|) of each result.

A case with `known_difference` must differ: it is reported XFAIL with the
measured max error, and the run fails (XPASS) if it agrees, so that the note
in docs/conformance.md stays true until the difference is fixed.
"""

import argparse
import concurrent.futures
import dataclasses
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

TOLERANCES = {"f32": (1e-5, 1e-5), "f16": (5e-3, 5e-3), "bf16": (4e-2, 2e-2)}

# Soft cap and bias: ejKernel adds the bias first and caps the sum,
# cap * tanh((scale * q.k + bias) / cap); ejk caps the scaled logits and then
# adds the bias, cap * tanh(scale * q.k / cap) + bias (docs/dialect.md).
BIAS_CAP = ("ejKernel applies logits_soft_cap after adding the bias, ejk before "
            "(cap(s + bias) against cap(s) + bias)")

# A query row that sees no key: ejKernel masks with finfo.min and takes the
# softmax anyway, so the row averages every value and sends dO / Sk to every
# key's dv; ejk's output is 0 with lse = -inf and the row adds no gradient
# (docs/dialect.md). dq and dk agree (measured: 1.4e-6; dv less the empty
# rows' dO / Sk: 7e-7).
EMPTY_ROW = ("a query that sees no key averages every value in ejKernel (its "
             "mask is finfo.min, not -inf), is 0 in ejk: dv differs by dO / Sk "
             "per empty row")

# Sinks over several key chunks: ejKernel's XLA path concatenates the sinks
# to every key chunk's logits, so they enter the denominator once per chunk
# of kv_blocksize keys (measured: exact against a reference that counts them
# n_chunks times); ejk counts them once (docs/dialect.md).
SINK_CHUNKS = ("ejKernel's XLA path adds the sinks to the softmax denominator "
               "once per key chunk (2 chunks of 128 here), ejk once")


@dataclasses.dataclass
class Case:
    name: str
    family: str                 # a key of FAMILIES
    dims: dict                  # sizes, by the family's names
    opts: dict = dataclasses.field(default_factory=dict)
    dtype: str = "f32"
    known_difference: str = ""  # why the case must differ from ejKernel
    # (text in ejk-run's error, why): where ejk-run fails with that text the
    # case is XFAIL; where it runs, the case is compared as any other.
    known_error: tuple = ()

    @property
    def seed(self):
        # Stable across runs and independent of the table's order.
        return zlib.crc32(self.name.encode())


def FA(name, b=1, sq=64, sk=64, hq=4, hkv=4, d=32, **opts):
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    error = opts.pop("known_error", ())
    return Case(name, "flash_attention",
                dict(b=b, sq=sq, sk=sk, hq=hq, hkv=hkv, d=d), opts, dtype, known, error)


def FAG(name, **dims_and_opts):
    """flash_attention_grad: FA's sizes and options, `config` the backward's
    #ejk.config entries."""
    c = FA(name, **dims_and_opts)
    c.family = "flash_attention_grad"
    return c


def SS(name, b=2, l=64, d=32, n=16, **opts):
    dtype = opts.pop("dtype", "f32")
    return Case(name, "selective_scan", dict(b=b, l=l, d=d, n=n), opts, dtype)


def SSD(name, b=2, l=64, h=4, p=16, g=1, n=16, **opts):
    dtype = opts.pop("dtype", "f32")
    return Case(name, "ssd", dict(b=b, l=l, h=h, p=p, g=g, n=n), opts, dtype)


def GMM(name, m=64, k=32, n=48, g=4, family="grouped_matmul", **opts):
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    return Case(name, family, dict(m=m, k=k, n=n, g=g), opts, dtype, known)


def POOL(name, b=3, s=20, h=32, family="mean_pooling", **opts):
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    return Case(name, family, dict(b=b, s=s, h=h), opts, dtype, known)


def GLA(name, b=1, t=64, h=4, hkv=None, k=32, v=None, **opts):
    """gla: batch b (or packed sequences of lengths `lens`), h query heads
    over hkv key/value heads, head dims k and v."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    return Case(name, "gla", dict(b=b, t=t, h=h, hkv=hkv or h, k=k, v=v or k),
                opts, dtype, known)


def LIGHTNING(name, b=1, t=64, h=4, hkv=None, k=32, v=None, **opts):
    """lightning_attention: as GLA; `layer` = (layer_idx, num_layers), or
    `slopes=True` for explicit decay rates."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    return Case(name, "lightning", dict(b=b, t=t, h=h, hkv=hkv or h, k=k,
                                        v=v or k), opts, dtype, known)


def RECURRENT(name, b=1, t=64, h=4, hkv=None, k=32, v=None, **opts):
    """recurrent: as GLA, with any of g, gk, gv and g_gamma ("head" or
    "seq")."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    return Case(name, "recurrent", dict(b=b, t=t, h=h, hkv=hkv or h, k=k,
                                        v=v or k), opts, dtype, known)


def DELTA(name, b=1, t=64, h=4, hkv=None, k=32, v=None, **opts):
    """delta_attention: as GLA; `decay` None, "head" or "key" (a per-key
    decay equal over key dims, so that ejKernel's per-head one can check
    it), `l2norm` False for use_qk_l2norm = false, `lens` packed (no
    state), `softmax_scale` against kernel_delta_attention."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    return Case(name, "delta", dict(b=b, t=t, h=h, hkv=hkv or h, k=k, v=v or k),
                opts, dtype, known)


def PA(name, b=2, hq=4, hkv=4, d=32, s=16, lens=(37, 64), m=None, **opts):
    """paged_attention: batch b, heads hq/hkv, head_dim d, page size s,
    context lengths lens (one per sequence, so b == len(lens)), m pages per
    table row (default: just enough for the longest sequence)."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    assert b == len(lens), name
    m = m or max(1, max(-(-n // s) for n in lens))
    return Case(name, "paged", dict(b=b, hq=hq, hkv=hkv, d=d, s=s, m=m, lens=tuple(lens)),
                opts, dtype, known)


# ragged_page_attention_v3's XLA path starts every row of a sequence at
# (kv_len - w) rounded down to a page (its kv_start, computed once per
# sequence for the decode row) and masks the tokens before it: a prefill
# row earlier in the sequence loses tokens its window holds.
V3_WINDOW = ("ejKernel v3 (XLA) masks tokens before the page of kv_len - w for "
             "every row of a sequence, not per query position: prefill rows "
             "with a window lose tokens")


def RPA(name, hq=4, hkv=2, d=32, s=16, qlens=(1, 7, 1), lens=(40, 7, 1),
        m=None, slots=None, t=None, **opts):
    """ragged_paged_attention: one sequence per entry of qlens (its query
    count) and lens (its length, the new tokens included), page size s, m
    pages per table row, `slots` sequence slots (>= len(qlens); the rest are
    padding past num_seqs), `t` packed rows (>= sum(qlens); the rest belong
    to no sequence)."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    assert len(qlens) == len(lens), name
    m = m or max(1, max(-(-n // s) for n in lens))
    slots = slots or len(qlens)
    t = t or sum(qlens)
    return Case(name, "ragged_paged", dict(hq=hq, hkv=hkv, d=d, s=s, m=m,
                                           qlens=tuple(qlens), lens=tuple(lens),
                                           slots=slots, t=t), opts, dtype, known)


def PPA(name, sq=16, hq=4, hkv=2, d=32, s=16, length=40, **opts):
    """prefill_paged_attention against ejKernel's (one sequence): sq new
    queries, the sequence `length` tokens long, page size s."""
    dtype = opts.pop("dtype", "f32")
    return Case(name, "prefill_paged", dict(sq=sq, hq=hq, hkv=hkv, d=d, s=s,
                                            length=length), opts, dtype)


def UA(name, hq=4, hkv=2, d=32, s=16, qlens=(1, 7, 1), lens=(40, 7, 1),
       m=None, t=None, **opts):
    """unified_attention: one sequence per entry of qlens (its query count)
    and lens (its length, the new tokens included), every one live, page
    size s, m pages per table row, `t` packed rows (>= sum(qlens); the rest
    belong to no sequence); opts: softmax_scale, logits_soft_cap,
    sliding_window, sinks, alibi, qq (the query-query bias's size)."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    assert len(qlens) == len(lens), name
    m = m or max(1, max(-(-n // s) for n in lens))
    t = t or sum(qlens)
    return Case(name, "unified", dict(hq=hq, hkv=hkv, d=d, s=s, m=m,
                                      qlens=tuple(qlens), lens=tuple(lens),
                                      t=t), opts, dtype, known)


def CPD(name, hq=4, hkv=2, d=32, s=16, qlens=(1, 7, 1), lens=(40, 7, 1),
        m=None, **opts):
    """chunked_prefill_paged_decode: one sequence per entry of qlens (its new
    tokens: queries, keys and values) and lens (its length, the new tokens
    included), page size s, m pages per table row; opts: softmax_scale,
    logits_soft_cap, sliding_window, sinks, alibi."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    assert len(qlens) == len(lens), name
    m = m or max(1, max(-(-n // s) for n in lens))
    return Case(name, "chunked", dict(hq=hq, hkv=hkv, d=d, s=s, m=m,
                                      qlens=tuple(qlens), lens=tuple(lens),
                                      t=sum(qlens)), opts, dtype, known)


def RGD(name, h=4, k=32, v=None, lens=(30, 0, 1, 33), slots=6, **opts):
    """ragged_gated_delta_rule: one request per entry of lens (its tokens),
    each owning a distinct slot of a pool of `slots` states; opts: decay
    (default True), l2norm (default True)."""
    dtype = opts.pop("dtype", "f32")
    assert slots >= len(lens), name
    return Case(name, "ragged_delta", dict(h=h, k=k, v=v or k,
                                           lens=tuple(lens), slots=slots),
                opts, dtype)


def RDA(name, hq=4, hkv=2, d=32, sl=64, starts=(0, 5, 0), ends=(64, 30, 1),
        **opts):
    """ragged_decode_attention: one sequence per entry of starts/ends (its
    keys [start, end) of a dense row of sl keys); opts: softmax_scale,
    logits_soft_cap, sliding_window (left, right), sinks ("shared", n),
    ("kv", n) or ("head", n), config (ejk's only)."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    assert len(starts) == len(ends), name
    return Case(name, "ragged_decode", dict(hq=hq, hkv=hkv, d=d, sl=sl,
                                            starts=tuple(starts),
                                            ends=tuple(ends)),
                opts, dtype, known)


def MLA(name, b=2, s=16, h=8, nope=32, lat=64, rope=16, **opts):
    """mla against ejKernel's flash_mla: batch b, s queries and s cached
    tokens (flash_mla's one seq_len), h heads, the un-absorbed no-RoPE head
    dim nope, the latent lat, the RoPE dim rope."""
    dtype = opts.pop("dtype", "f32")
    return Case(name, "mla", dict(b=b, s=s, h=h, nope=nope, lat=lat, rope=rope),
                opts, dtype)


def BSA(name, b=1, sq=64, sk=64, hq=4, hkv=4, d=32, qbs=16, kbs=16,
        density=0.5, **opts):
    """block_sparse_attention against ejKernel's XLA blocksparse_attention:
    a random block mask of `density` (None: no block mask) over blocks of
    qbs x kbs, one for every head."""
    dtype = opts.pop("dtype", "f32")
    return Case(name, "block_sparse",
                dict(b=b, sq=sq, sk=sk, hq=hq, hkv=hkv, d=d, qbs=qbs, kbs=kbs,
                     density=density), opts, dtype)


def BSAG(name, **dims_and_opts):
    """block_sparse_attention_grad: BSA's sizes and options; ejk's forward
    and backward against jax.vjp of ejKernel's XLA blocksparse_attention."""
    c = BSA(name, **dims_and_opts)
    c.family = "block_sparse_grad"
    return c



# ejKernel's XLA NSA computes the compressed scores, the lse and the
# selection sums in the input type: with bf16 inputs its top-k picks other
# blocks than with the same values in f32 (0.33 apart on nsa_bf16's inputs);
# ejk selects from f32 scores and agrees with ejKernel on the widened
# inputs (nsa_bf16_f32_reference; docs/ops/native-sparse.md).
NSA_BF16 = ("ejKernel selects the blocks from bf16 scores and sums, ejk from "
            "f32 ones: near-ties select different blocks")


def NSA(name, b=1, t=128, hq=4, hkv=1, d=32, bs=16, counts=4, **opts):
    """native_sparse_attention against ejKernel's XLA native_sparse_attention:
    t tokens, hq/hkv heads, blocks of bs, top-`counts`; opts: gates
    ("cmp", "slc"), indices ("token" or "block": caller-given, slot 0 the
    token's own block), window (plus the g_swa gate, composed on ejKernel's
    side from its flash_attention), softmax_scale, public (through the
    public operation with its default block size 64), upcast (ejKernel
    runs on the inputs widened to f32), ties (equal key blocks)."""
    dtype = opts.pop("dtype", "f32")
    known = opts.pop("known_difference", "")
    return Case(name, "native_sparse",
                dict(b=b, t=t, hq=hq, hkv=hkv, d=d, bs=bs, counts=counts),
                opts, dtype, known_difference=known)

def PMLA(name, h=8, lat=64, rope=16, page=16, lens=(37, 1), qlens=(1, 1),
         **opts):
    """paged_mla against ejKernel's multi_latent_ragged_page_attention:
    sequences of context lengths lens (new tokens included) with qlens new
    query tokens each, pages of `page` tokens."""
    dtype = opts.pop("dtype", "f32")
    assert len(lens) == len(qlens), name
    return Case(name, "paged_mla", dict(h=h, lat=lat, rope=rope, page=page,
                                        lens=tuple(lens), qlens=tuple(qlens)),
                opts, dtype)


# ejKernel's XLA page_attention masks the tokens past context_lens with -1e9
# and takes a plain softmax over every slot of the table row: with no token at
# all that is the mean of V over the row's max_pages * page_size slots.
PA_EMPTY = ("ejKernel's XLA page_attention averages V over every slot of the "
            "table row for an empty sequence, ejk gives 0 (decode_attention "
            "gives 0 and lse -inf, as ejk)")


# ejKernel's XLA varlen mean_pooling slices every sequence with
# dynamic_slice(x, (start, 0), (max_len, hidden)), which XLA clamps into the
# array: a sequence that starts within max_len of the end is read from an
# earlier row (cu = [0, 10, 15] pools rows 5..9 for the second sequence).
SLICE_CLAMP = ("ejKernel's XLA varlen mean_pooling reads a short sequence near "
               "the end of the packed rows from earlier rows (dynamic_slice "
               "clamps its start)")
# An empty sequence: ejKernel divides 0 by 0.
EMPTY_NAN = "ejKernel's mean of an empty sequence is NaN (0 / 0), ejk's is 0"


# The table. Options not listed exist in ejk but are not compared, because
# ejKernel's function has no counterpart or compares differently by design:
# - flash_attention: dropout (the random streams differ by design), the
#   boolean mask and segment ids (ejKernel takes them through MaskInfo; not
#   wired up yet), the lse result (ejKernel's public function returns only
#   the output).
# - selective_scan: groups > 1 (ejKernel's state_space_v1 takes B and C as
#   [batch, seq, d_state], one group); delta_bias and delta_softplus
#   (ejKernel takes dt after softplus: the runner applies bias and softplus
#   in numpy before calling it, as a Mamba block does).
# - ssd: the same for dt_bias / dt_softplus; chunk_size (ejKernel's XLA
#   state_space_v2 is a sequential scan with no chunk; ejk's result does
#   not depend on it beyond rounding, so the cases set it and compare);
#   ejKernel's use_gated_rmsnorm has no ejk counterpart.
# - paged: ejKernel has no single function with ejk's options (below, at
#   class PagedAttention): page_attention (XLA) has neither soft cap (raises)
#   nor window (ignored) nor lse, decode_attention has no window, and
#   unified_attention no lse. The window cases therefore leave ejk's lse out.
#   ejKernel's k_scale/v_scale (ragged_page_attention_v3 only) and
#   softmax_aux sinks have no ejk counterpart; sliding_window = 0 is not
#   compared (ejKernel: "no window" in unified_attention, an error in
#   ragged_page_attention_v3, no token in prefill_page_attention).
CASES = [
    # flash_attention
    FA("fa_plain"),
    FA("fa_gqa", hq=8, hkv=2),
    FA("fa_mqa_batch", b=2, hq=4, hkv=1, sq=40, sk=40),
    FA("fa_causal", causal=True),
    FA("fa_causal_gqa", hq=8, hkv=2, sq=77, sk=77, causal=True),
    FA("fa_cross_sq_ne_sk", sq=24, sk=56),
    FA("fa_window", sliding_window=(8, 4)),
    FA("fa_window_int", sliding_window=6),
    FA("fa_window_left_causal", causal=True, sliding_window=(16, 0)),
    FA("fa_softcap_scale", logits_soft_cap=5.0, softmax_scale=0.3),
    FA("fa_bias", b=2, sq=20, sk=30, bias=True),
    FA("fa_d128", d=128, sq=33, sk=33, causal=True),
    FA("fa_f16", dtype="f16", hq=8, hkv=2, causal=True),
    FA("fa_bf16", dtype="bf16", sq=48, sk=48),
    FA("fa_bias_softcap", b=2, sq=20, sk=30, bias=True, logits_soft_cap=2.0,
       known_difference=BIAS_CAP),
    # Top-left alignment (ejk's default, mask_alignment = "top_left").
    FA("fa_causal_sq_ne_sk", sq=24, sk=56, causal=True),
    FA("fa_causal_sq_gt_sk", sq=56, sk=24, causal=True, hq=8, hkv=2),
    FA("fa_window_sq_ne_sk", sq=24, sk=56, sliding_window=(8, 4)),
    # Issue 16: sinks, unnormalized outputs, [B, S] padding masks, variable
    # lengths. ejKernel's XLA path adds the sinks to the denominator once
    # per key chunk (kv_blocksize, 128 here): seq_k <= 128 keeps one chunk
    # (docs/dialect.md).
    FA("fa_sinks", sinks=1),
    FA("fa_sinks_gqa_causal", hq=8, hkv=2, sq=77, sk=77, sinks=4, causal=True),
    FA("fa_sinks_window_empty_rows", sq=60, sk=20, sliding_window=(2, 0), sinks=2),
    FA("fa_sinks_softcap_f16", dtype="f16", sq=48, sk=100, sinks=2,
       logits_soft_cap=5.0),
    FA("fa_sinks_bf16", dtype="bf16", sq=40, sk=40, sinks=3, causal=True),
    FA("fa_unnormalized", sq=40, sk=56, normalize_output=False),
    FA("fa_unnormalized_sinks_causal", hq=8, hkv=2, sinks=2, causal=True,
       normalize_output=False),
    FA("fa_padding", b=2, sq=40, sk=40, hq=4, hkv=2, padding=True),
    FA("fa_padding_causal_sinks", b=3, sq=50, sk=50, padding=True, causal=True,
       sinks=2),
    FA("fa_varlen", b=3, sq=40, sk=56, hq=4, hkv=2, lengths=((40, 17, 0), (56, 30, 9))),
    FA("fa_varlen_causal", b=3, sq=48, sk=48, lengths=((48, 20, 5), (48, 20, 5)),
       causal=True),
    FA("fa_varlen_window_sinks", b=2, sq=64, sk=64, lengths=((33, 64), (50, 64)),
       sliding_window=(8, 8), sinks=2),
    FA("fa_sinks_two_key_chunks", sq=32, sk=256, sinks=2, known_difference=SINK_CHUNKS),
    # The same op against ejKernel's plain XLA `attention` and
    # `scaled_dot_product_attention` (class FlashAttention, peer()).
    FA("attn_plain_gqa_causal", hq=8, hkv=2, causal=True, peer="attention"),
    FA("attn_dv_ne_dk", sq=40, sk=56, dv=48, peer="attention"),
    FA("attn_bias_softcap_sinks", b=2, sq=20, sk=30, bias=True,
       logits_soft_cap=4.0, sinks=2, softmax_scale=0.25, peer="attention"),
    FA("attn_window_padding", b=2, sq=48, sk=48, padding=True,
       sliding_window=(6, 3), peer="attention"),
    FA("attn_f16_causal_window", dtype="f16", hq=8, hkv=1, causal=True,
       sliding_window=(16, 0), peer="attention"),
    FA("sdpa_plain", peer="sdpa"),
    FA("sdpa_gqa_causal_sq_ne_sk", hq=8, hkv=2, sq=24, sk=56, causal=True,
       peer="sdpa"),
    FA("sdpa_bias_window", b=2, sq=20, sk=30, bias=True, sliding_window=(5, 5),
       peer="sdpa"),
    FA("sdpa_bf16_padding", dtype="bf16", b=2, sq=40, sk=40, padding=True,
       peer="sdpa"),
    # flash_attention_grad: ejk's forward + backward against jax.vjp of
    # ejKernel's flash_attention (class FlashAttentionGrad). dO ~ N(0, 1).
    FAG("fag_plain"),
    FAG("fag_causal", causal=True),
    FAG("fag_causal_sq_lt_sk", sq=24, sk=56, causal=True),
    FAG("fag_causal_sq_gt_sk", sq=56, sk=24, causal=True, hq=8, hkv=2),
    FAG("fag_causal_bottom_right", sq=24, sk=56, hq=8, hkv=2, causal=True,
        mask_alignment="bottom_right"),
    FAG("fag_cross_sq_ne_sk", sq=24, sk=56),
    FAG("fag_gqa", b=2, hq=8, hkv=2, sq=40, sk=40),
    FAG("fag_mqa_causal", hq=4, hkv=1, sq=50, sk=50, causal=True),
    FAG("fag_window", sliding_window=(8, 4)),
    FAG("fag_window_int", sliding_window=6),
    FAG("fag_window_left_causal", sq=77, sk=77, causal=True, sliding_window=(16, 0)),
    FAG("fag_window_sq_ne_sk", sq=24, sk=56, sliding_window=(8, 4)),
    FAG("fag_softcap_scale", logits_soft_cap=2.0, softmax_scale=0.3),
    FAG("fag_bias", b=2, sq=20, sk=30, bias=True),
    FAG("fag_odd_sizes", b=2, sq=77, sk=93, hq=6, hkv=2, d=80, causal=True),
    FAG("fag_d128", d=128, sq=33, sk=33, causal=True),
    # Several blocks per pass (sizes not multiples of them), both dQ forms.
    FAG("fag_blocks", sq=70, sk=90, hq=4, hkv=2, causal=True, sliding_window=(30, 2),
        logits_soft_cap=4.0,
        config="block_q = 16, block_k = 16, dq_block_q = 8, dq_block_k = 32"),
    FAG("fag_fused", sq=70, sk=90, hq=4, hkv=2, sliding_window=(20, 20),
        config="block_q = 16, block_k = 32, fuse_dq = 1"),
    FAG("fag_f16", dtype="f16", hq=8, hkv=2, causal=True),
    FAG("fag_bf16", dtype="bf16", sq=48, sk=48),
    FAG("fag_bias_softcap", b=2, sq=20, sk=30, bias=True, logits_soft_cap=2.0,
        known_difference=BIAS_CAP),
    FAG("fag_window_empty_rows", sq=40, sk=16, sliding_window=(4, 0),
        known_difference=EMPTY_ROW),
    # Sinks: the backward reads them through the forward's lse.
    FAG("fag_sinks", sinks=2),
    FAG("fag_sinks_gqa_causal", hq=8, hkv=2, sq=77, sk=77, sinks=4, causal=True),
    FAG("fag_sinks_window_empty_rows", sq=40, sk=16, sliding_window=(4, 0), sinks=1),
    FAG("fag_sinks_f16", dtype="f16", sq=48, sk=100, hq=4, hkv=2, sinks=3,
        logits_soft_cap=4.0),
    # [B, S] padding masks and variable lengths (ejKernel's padded layout;
    # its XLA path gets the attention_mask the lengths mean, as in the
    # forward's cases).
    FAG("fag_padding", b=2, sq=40, sk=40, hq=4, hkv=2, padding=True),
    FAG("fag_padding_causal_gqa", b=3, sq=50, sk=50, hq=8, hkv=2, padding=True,
        causal=True),
    FAG("fag_padding_window_sinks", b=2, sq=64, sk=64, padding=True,
        sliding_window=(8, 8), sinks=2),
    FAG("fag_varlen", b=3, sq=40, sk=56, hq=4, hkv=2,
        lengths=((40, 17, 1), (56, 31, 9))),
    FAG("fag_varlen_causal", b=3, sq=48, sk=48, lengths=((48, 21, 1), (48, 21, 1)),
        causal=True),
    FAG("fag_varlen_window_gqa", b=2, sq=64, sk=64, hq=8, hkv=2,
        lengths=((33, 64), (50, 64)), sliding_window=(8, 8)),
    FAG("fag_varlen_empty_sequence", b=3, sq=40, sk=40,
        lengths=((40, 0, 7), (40, 0, 7)), causal=True),
    FAG("fag_varlen_f16", dtype="f16", b=2, sq=48, sk=48, hq=4, hkv=2,
        lengths=((48, 13), (48, 13)), causal=True),
    FAG("fag_padding_bf16", dtype="bf16", b=2, sq=48, sk=48, padding=True),
    # selective_scan (Mamba-1)
    SS("ss_plain"),
    SS("ss_skip_gate", D=True, z=True),
    SS("ss_bias_softplus", delta_bias=True, softplus=True),
    SS("ss_all", l=100, D=True, z=True, delta_bias=True, softplus=True,
       initial_state=True),
    SS("ss_decode", l=1, D=True, z=True, softplus=True, initial_state=True),
    SS("ss_d64_n8", b=1, l=37, d=64, n=8, D=True, softplus=True),
    SS("ss_f16", dtype="f16", D=True, z=True, softplus=True),
    # ssd (Mamba-2)
    SSD("ssd_plain", chunk_size=16),
    SSD("ssd_skip_gate", D=True, z=True, chunk_size=32),
    SSD("ssd_bias_softplus", dt_bias=True, softplus=True, chunk_size=32),
    SSD("ssd_groups", h=8, g=2, D=True, softplus=True, chunk_size=16),
    SSD("ssd_all", l=100, D=True, z=True, dt_bias=True, softplus=True,
        initial_state=True, chunk_size=32),
    SSD("ssd_decode", l=1, D=True, z=True, softplus=True, initial_state=True,
        chunk_size=64),
    SSD("ssd_f16", dtype="f16", D=True, z=True, softplus=True, chunk_size=32),
    # grouped_matmul (ragged_dot_general); ejKernel's XLA path has no
    # group_offset (jax raises NotImplementedError), so offsets are not
    # compared.
    GMM("gmm_plain"),
    GMM("gmm_rows_past_groups", m=70, sizes=[10, 0, 25, 20]),
    GMM("gmm_transposed", m=77, k=13, n=19, g=5, transpose_rhs=True),
    GMM("gmm_many_groups", m=300, k=16, n=8, g=64),
    GMM("gmm_existing_out", existing_out=True),
    GMM("gmm_bf16_f32_out", m=70, k=40, n=24, g=3, dtype="bf16", out="f32"),
    GMM("gmm_f16", m=70, k=40, n=24, g=3, dtype="f16", transpose_rhs=True),
    # int8 weights with per-channel scales: ejKernel's grouped_matmulv3
    # (use_v3) with rhs_scale [g, 1, 1, n]; its rhs must be a float array
    # (jaxtyping rejects int8), so it gets the same integers as f32: it
    # multiplies the weights by the scale in rhs's type, which for an f16
    # rhs rounds w * s to f16 (max abs error 0.021 against ejk's scaled f32
    # sums on gmm_int8_f16_f32_out; docs/ops/moe.md).
    GMM("gmm_int8", int8=True),
    GMM("gmm_int8_transposed", m=77, k=13, n=19, g=5, int8=True,
        transpose_rhs=True),
    GMM("gmm_int8_f16_f32_out", m=70, k=48, n=32, g=3, dtype="f16", out="f32",
        int8=True, existing_out=True),
    # transposed_grouped_matmul: the gradient of ejKernel's grouped_matmul
    # with respect to rhs (jax.vjp), as the weight gradient of an MoE layer.
    GMM("tgmm_plain", family="transposed_grouped_matmul"),
    GMM("tgmm_odd", m=77, k=13, n=19, g=5, family="transposed_grouped_matmul"),
    GMM("tgmm_f16", m=70, k=24, n=40, g=3, dtype="f16",
        family="transposed_grouped_matmul"),
    # mean_pooling and its backward (jax.vjp of ejKernel's custom VJP).
    POOL("pool_dense"),
    POOL("pool_dense_bf16", dtype="bf16", s=50, h=64),
    POOL("pool_packed", cu=[0, 7, 20, 48]),
    POOL("pool_packed_f16", dtype="f16", cu=[0, 10, 11, 25, 60]),
    POOL("pool_packed_short_last", cu=[0, 10, 15], known_difference=SLICE_CLAMP),
    POOL("pool_packed_empty", cu=[0, 5, 5, 12], known_difference=EMPTY_NAN),
    POOL("pool_grad_dense", family="mean_pooling_grad"),
    POOL("pool_grad_packed", family="mean_pooling_grad", cu=[0, 7, 20, 48]),
    POOL("pool_grad_packed_empty", family="mean_pooling_grad",
         cu=[0, 5, 5, 12, 30]),
    # paged_attention (decode over a paged cache): page_attention where it
    # applies, decode_attention with a soft cap, f16/bf16 or an empty
    # sequence, unified_attention with a window (class PagedAttention).
    PA("pa_plain"),
    PA("pa_gqa", hq=8, hkv=2, lens=(50, 17)),
    PA("pa_mqa", b=3, hq=8, hkv=1, lens=(20, 64, 33)),
    PA("pa_shuffled_partial", b=4, hq=8, hkv=2, lens=(5, 33, 17, 48), m=5),
    PA("pa_scale", softmax_scale=0.1),
    PA("pa_len0", b=3, hq=8, hkv=2, lens=(0, 20, 9)),
    PA("pa_len0_page_attention", b=3, hq=8, hkv=2, lens=(0, 20, 9),
       ref="page_attention", known_difference=PA_EMPTY),
    PA("pa_softcap", hq=8, hkv=2, logits_soft_cap=5.0, softmax_scale=0.3),
    PA("pa_window", b=3, lens=(37, 5, 64), sliding_window=8),
    PA("pa_window_1", hq=8, hkv=2, sliding_window=1),
    PA("pa_page1", s=1, hq=8, hkv=2, lens=(13, 6)),
    PA("pa_page1_window", s=1, lens=(13, 6), sliding_window=4),
    PA("pa_d128", d=128, hq=8, hkv=2, lens=(300, 129)),
    PA("pa_token_major", hq=8, hkv=2, lens=(50, 17), kv_layout="token_major"),
    PA("pa_token_major_softcap", kv_layout="token_major", logits_soft_cap=2.0),
    PA("pa_all", b=3, hq=8, hkv=2, lens=(100, 3, 70), kv_layout="token_major",
       softmax_scale=0.1, logits_soft_cap=30.0, sliding_window=64),
    PA("pa_f16", dtype="f16", hq=8, hkv=2, lens=(50, 17)),
    PA("pa_bf16", dtype="bf16", lens=(40, 64)),
    PA("pa_f16_cache", cache_dtype="f16", hq=8, hkv=2, lens=(50, 17)),
    PA("pa_bf16_cache_token_major", cache_dtype="bf16", kv_layout="token_major",
       hq=8, hkv=1, lens=(29, 64)),
    # ragged_paged_attention against ejKernel's ragged_page_attention_v2
    # (read-only) and, with new_kv, _v3 (the fused write: output and both
    # updated pools compared); prefill_paged_attention against
    # prefill_page_attention (class RaggedPaged, PrefillPaged).
    RPA("rpa_mixed"),
    RPA("rpa_gqa4_window", hq=8, hkv=2, qlens=(5, 1, 30), lens=(50, 64, 30),
        sliding_window=8),
    RPA("rpa_softcap_sinks", qlens=(3, 1), lens=(20, 33), logits_soft_cap=5.0,
        softmax_scale=0.3, sinks=True),
    RPA("rpa_padding", qlens=(2, 0, 1), lens=(17, 5, 9), slots=5, t=6),
    RPA("rpa_v3_write", hq=8, hkv=2, qlens=(4, 1, 12), lens=(20, 37, 12),
        write=True),
    RPA("rpa_v3_write_window_sinks_cap", qlens=(9, 1), lens=(40, 18),
        write=True, sliding_window=6, sinks=True, logits_soft_cap=20.0,
        known_difference=V3_WINDOW),
    RPA("rpa_v3_decode_window_sinks_cap", qlens=(1, 1, 1), lens=(40, 18, 5),
        write=True, sliding_window=6, sinks=True, logits_soft_cap=20.0),
    RPA("rpa_v3_f16", dtype="f16", hq=8, hkv=1, qlens=(6, 1), lens=(30, 70),
        write=True),
    PPA("ppa_plain"),
    PPA("ppa_gqa_window", hq=8, hkv=2, sq=20, length=70, sliding_window=12),
    PPA("ppa_softcap_head_major", logits_soft_cap=4.0, kv_layout="head_major"),
    # unified_attention against ejKernel's XLA unified_attention (class
    # Unified): every sequence live, token-major pages, ALiBi slopes, the
    # query-query bias and sinks.
    UA("ua_mixed"),
    UA("ua_gqa5_window", hq=10, hkv=2, qlens=(5, 1, 30), lens=(50, 64, 30),
       sliding_window=8),
    UA("ua_softcap_sinks", qlens=(3, 1), lens=(20, 33), logits_soft_cap=5.0,
       softmax_scale=0.3, sinks=True),
    UA("ua_alibi", hq=8, hkv=2, qlens=(6, 1, 17), lens=(40, 25, 17),
       alibi=True),
    UA("ua_qq_bias", qlens=(12, 1, 5), lens=(30, 9, 5), qq=8),
    UA("ua_empty_one_fresh", qlens=(0, 1, 9), lens=(5, 1, 9), t=12),
    UA("ua_page1", s=1, qlens=(3, 1), lens=(11, 6)),
    UA("ua_page64", s=64, hq=8, hkv=1, qlens=(20, 1), lens=(100, 70)),
    UA("ua_everything", hq=8, hkv=1, d=64, qlens=(7, 1, 1, 14),
       lens=(60, 33, 1, 20), sliding_window=10, logits_soft_cap=20.0,
       sinks=True, alibi=True, qq=10),
    UA("ua_f16", dtype="f16", hq=8, hkv=2, qlens=(6, 1), lens=(30, 70),
       sinks=True),
    UA("ua_bf16", dtype="bf16", hq=10, hkv=2, qlens=(4, 1), lens=(24, 50),
       alibi=True, sliding_window=16),
    # ejKernel's chunked_prefill_paged_decode (the new tokens' K/V written
    # into the pools, then unified_attention over them) against
    # ragged_paged_attention with new_kv, and with ALiBi against that op's
    # updated pools read by unified_attention (class Chunked).
    CPD("cpd_mixed"),
    CPD("cpd_gqa4_window_sinks_cap", hq=8, hkv=2, qlens=(1, 9, 1),
        lens=(40, 18, 5), sliding_window=6, sinks=True, logits_soft_cap=20.0),
    CPD("cpd_fresh_prefill_page64", s=64, hq=8, hkv=1, qlens=(20, 1, 70),
        lens=(100, 70, 70)),
    CPD("cpd_alibi", hq=8, hkv=2, qlens=(6, 1, 17), lens=(40, 25, 17),
        alibi=True, sinks=True),
    CPD("cpd_f16", dtype="f16", hq=8, hkv=2, qlens=(6, 1), lens=(30, 70)),
    CPD("cpd_bf16_alibi_window", dtype="bf16", hq=10, hkv=2, qlens=(4, 1),
        lens=(24, 50), alibi=True, sliding_window=16),
    # ragged_decode_attention against ejKernel's XLA ragged_decode_attention
    # (class RaggedDecode): keys [start, end) of dense rows, [left, right]
    # windows, sinks of its three shapes.
    RDA("rda_plain"),
    RDA("rda_gqa8", hq=8, hkv=1, d=64, starts=(0, 0), ends=(64, 17)),
    RDA("rda_window", sliding_window=(10, 0), starts=(0, 5, 40),
        ends=(64, 30, 50)),
    RDA("rda_window_right", sliding_window=(6, 3)),
    RDA("rda_softcap_scale", logits_soft_cap=5.0, softmax_scale=0.3),
    RDA("rda_sinks_shared", sinks=("shared", 2)),
    RDA("rda_sinks_kv", hq=10, hkv=2, sinks=("kv", 1)),
    RDA("rda_sinks_head_splits", hq=8, hkv=2, sl=300, starts=(0, 100, 7),
        ends=(300, 260, 8), sinks=("head", 3),
        config="block_k = 16, num_splits = 4"),
    RDA("rda_empty", starts=(3, 0, 0), ends=(3, 0, 9), sinks=("shared", 1)),
    RDA("rda_f16", dtype="f16", hq=8, hkv=2, sl=128, starts=(0, 10),
        ends=(128, 90)),
    RDA("rda_bf16", dtype="bf16", hq=8, hkv=2, sl=128, starts=(0, 10),
        ends=(128, 90), sliding_window=(31, 0)),
    # gla (gated linear attention) against ejKernel's gla_attention (XLA:
    # the recurrent scan). GQA with 1 < num_kv_heads < num_heads is compared
    # on key/value heads repeated for ejKernel (its XLA path broadcasts heads
    # and fails otherwise); without an initial state ejKernel gets explicit
    # zeros (its XLA path builds a [K, K] one and fails when K != V).
    GLA("gla_plain"),
    GLA("gla_state", b=2, t=100, initial_state=True),
    GLA("gla_g_gamma", t=80, g_gamma=True, initial_state=True),
    GLA("gla_g_gamma_only", t=80, g=False, g_gamma=True),
    GLA("gla_ungated", t=50, g=False),
    GLA("gla_reverse", t=70, reverse=True, initial_state=True),
    GLA("gla_scale", t=40, softmax_scale=0.3),
    GLA("gla_k_ne_v", t=65, k=64, v=32, initial_state=True),
    GLA("gla_k_ne_v_no_state", t=65, k=16, v=48),
    GLA("gla_mqa", h=4, hkv=1, t=50),
    GLA("gla_gqa", h=8, hkv=2, t=50, initial_state=True),
    GLA("gla_decode", b=3, t=1, k=64, initial_state=True),
    GLA("gla_long", t=1000, h=2, k=64, g_gamma=True),
    GLA("gla_varlen", t=100, lens=(30, 0, 1, 69), initial_state=True),
    GLA("gla_varlen_reverse", t=90, lens=(40, 50), reverse=True,
        g_gamma=True),
    GLA("gla_f16", dtype="f16", t=60, initial_state=True),
    GLA("gla_bf16", dtype="bf16", t=60, k=64),
    GLA("gla_g_gamma_per_batch", b=3, t=40, g_gamma="seq",
        initial_state=True),
    # lightning_attention against ejKernel's lightning_attention (XLA: its
    # recurrent scan with g_gamma = -(8 / H) (1 - layer_idx / num_layers) h);
    # the explicit-slopes form (ejk's own) against ejKernel's
    # recurrent_attention with g_gamma = -slopes. Heads are repeated for
    # ejKernel under GQA (it rejects it) and a missing state is zeros.
    LIGHTNING("lightning_layer0", t=100, layer=(0, 4)),
    LIGHTNING("lightning_mid", t=65, layer=(11, 24), initial_state=True),
    LIGHTNING("lightning_last", h=8, t=64, layer=(23, 24)),
    LIGHTNING("lightning_reverse", t=70, layer=(1, 8), reverse=True,
              initial_state=True),
    LIGHTNING("lightning_gqa_k_ne_v", h=8, hkv=2, k=64, v=32, t=50,
              layer=(2, 12)),
    LIGHTNING("lightning_varlen", t=90, lens=(30, 0, 1, 59), layer=(3, 6),
              initial_state=True),
    LIGHTNING("lightning_slopes", t=80, slopes=True, initial_state=True),
    LIGHTNING("lightning_bf16", dtype="bf16", t=60, layer=(0, 2)),
    # recurrent against ejKernel's recurrent_attention (XLA).
    RECURRENT("recurrent_ungated", t=50),
    RECURRENT("recurrent_g", t=70, g=True, initial_state=True),
    RECURRENT("recurrent_gk_gv", t=70, gk=True, gv=True),
    RECURRENT("recurrent_all", t=100, g=True, gk=True, gv=True,
              g_gamma="head", initial_state=True),
    RECURRENT("recurrent_gamma_per_batch", b=2, t=40, g_gamma="seq"),
    RECURRENT("recurrent_reverse", t=60, gv=True, reverse=True,
              initial_state=True),
    RECURRENT("recurrent_gqa", h=4, hkv=2, k=64, v=32, t=50, gv=True),
    RECURRENT("recurrent_varlen", t=90, lens=(40, 0, 50), gk=True, gv=True,
              g_gamma="head", initial_state=True),
    RECURRENT("recurrent_f16", dtype="f16", t=60, gv=True),
    # delta_attention against ejKernel's gated_delta_rule (XLA: the
    # chunked triangular solve; T = 1 with a state: its single-step path),
    # and against kernel_delta_attention where a scale is given. ejKernel
    # takes a per-head decay only: ejk's per-key (KDA) path is checked with
    # a decay equal over key dims. GQA repeats key/value heads for
    # ejKernel; reverse flips time for it; packed sequences are its seg_ids
    # (outputs only: its final state is the last segment's).
    DELTA("delta_plain", decay=None),
    DELTA("delta_head_decay", t=100, decay="head", initial_state=True),
    DELTA("delta_key_decay_equal", t=100, decay="key", initial_state=True),
    DELTA("delta_no_l2norm", t=80, decay="head", l2norm=False,
          initial_state=True),
    DELTA("delta_scale", t=70, decay="head", softmax_scale=0.3),
    DELTA("delta_reverse", t=70, decay="head", reverse=True,
          initial_state=True),
    DELTA("delta_k_ne_v", t=65, k=64, v=32, decay="head", initial_state=True),
    DELTA("delta_gqa", h=8, hkv=2, t=50, decay="head"),
    DELTA("delta_decode", b=3, t=1, k=64, decay="head", initial_state=True),
    DELTA("delta_long", t=1000, h=2, k=64, decay="head"),
    DELTA("delta_varlen", t=100, lens=(30, 0, 1, 69), decay="head"),
    DELTA("delta_f16", dtype="f16", t=60, decay="head", initial_state=True),
    DELTA("delta_bf16", dtype="bf16", t=60, k=64, decay="head"),
    # delta_attention over packed requests against ejKernel's
    # ragged_gated_delta_rule (continuous batching: a state pool and a slot
    # per request; class RaggedDelta): outputs and every request's state.
    RGD("rgd_mixed"),
    RGD("rgd_decode_only", lens=(1, 1, 1), slots=5),
    RGD("rgd_long_chunks", h=2, k=64, v=32, lens=(130, 7, 65), slots=3),
    RGD("rgd_no_decay", decay=False),
    RGD("rgd_no_l2norm", l2norm=False, lens=(20, 9)),
    RGD("rgd_bf16", dtype="bf16", lens=(40, 1, 17)),
    # mla (absorbed) against flash_mla (un-absorbed), paged_mla against
    # multi_latent_ragged_page_attention
    MLA("mla_plain"),
    MLA("mla_causal", s=33, causal=True),
    MLA("mla_default_scale", h=16, nope=128, lat=128, rope=64, s=20),
    MLA("mla_scale", softmax_scale=0.05),
    MLA("mla_bf16", dtype="bf16", h=16, lat=128, rope=64, causal=True),
    PMLA("pmla_decode", lens=(37, 1, 64), qlens=(1, 1, 1)),
    PMLA("pmla_v2_mixed", lens=(40, 17, 5), qlens=(1, 17, 3), v2=True),
    PMLA("pmla_v2_deepseek_decode", h=128, lat=512, rope=64, page=64,
         lens=(130, 64), qlens=(1, 1), v2=True),
    PMLA("pmla_mixed", lens=(40, 17, 5), qlens=(1, 17, 3)),
    PMLA("pmla_deepseek", h=128, lat=512, rope=64, page=64, lens=(130, 64),
         qlens=(1, 2), softmax_scale=0.0721),
    PMLA("pmla_bf16", dtype="bf16", h=16, lat=128, rope=64, lens=(50, 33),
         qlens=(2, 1)),
    # block_sparse_attention against blocksparse_attention (causal by default
    # in both)
    BSA("bsa_plain", causal=False),
    BSA("bsa_causal_default", sq=96, sk=96, hq=4, hkv=2),
    BSA("bsa_window", causal=False, sliding_window=(24, 8), density=0.7),
    BSA("bsa_causal_window", sliding_window=(16, 16), density=0.8),
    BSA("bsa_chunked", sq=96, sk=96, chunk_size=32, density=None),
    BSA("bsa_segments_softcap", b=2, segments=True, logits_soft_cap=5.0,
        softmax_scale=0.2, causal=False),
    BSA("bsa_sparse_bf16", dtype="bf16", sq=128, sk=128, qbs=32, kbs=32,
        density=0.25, causal=False),
    # block_sparse_attention_grad: ejk's forward + backward against jax.vjp
    # of blocksparse_attention (XLA: autodiff of its dense masked attention)
    BSAG("bsag_plain", causal=False),
    BSAG("bsag_causal_default", sq=96, sk=96, hq=4, hkv=2),
    BSAG("bsag_sparse_25", sq=128, sk=128, qbs=32, kbs=32, density=0.25,
         causal=False),
    BSAG("bsag_dense_100", density=1.0, causal=False),
    BSAG("bsag_window", causal=False, sliding_window=(24, 8), density=0.7),
    BSAG("bsag_causal_window", sliding_window=(16, 16), density=0.8),
    BSAG("bsag_chunked", sq=96, sk=96, chunk_size=32, density=None),
    BSAG("bsag_gqa_odd", sq=50, sk=70, hq=6, hkv=2, qbs=16, kbs=32,
         density=0.6),
    BSAG("bsag_segments_softcap", b=2, segments=True, logits_soft_cap=5.0,
         softmax_scale=0.2, causal=False),
    BSAG("bsag_f16", dtype="f16", density=0.5, causal=False),
    BSAG("bsag_bf16", dtype="bf16", sq=128, sk=128, qbs=32, kbs=32,
         density=0.25, causal=False),
    # native_sparse_attention against ejKernel's XLA native_sparse_attention
    NSA("nsa_cmp_slc", gates=("cmp", "slc")),
    NSA("nsa_cmp_only", t=100, hq=4, hkv=2, counts=3, gates=("cmp",)),
    NSA("nsa_topk_1", counts=1, gates=("cmp", "slc")),
    NSA("nsa_topk_all", t=120, counts=16, gates=("cmp", "slc")),
    NSA("nsa_mha", hq=2, hkv=2, d=48, bs=8, counts=5, gates=("cmp", "slc")),
    NSA("nsa_gqa8", b=2, t=96, hq=8, hkv=1, counts=3, gates=("cmp", "slc"),
        softmax_scale=0.3),
    NSA("nsa_indices_token", t=90, hq=4, hkv=2, counts=3, indices="token",
        gates=("slc",)),
    NSA("nsa_indices_block", t=96, hq=4, hkv=2, counts=2, slots=4,
        indices="block", gates=()),
    NSA("nsa_window", t=128, counts=3, window=24, gates=("cmp", "slc", "swa")),
    NSA("nsa_ties", t=160, counts=3, gates=("cmp", "slc"), ties=True),
    NSA("nsa_public_default", t=256, hq=4, hkv=2, bs=64, counts=2,
        gates=("cmp", "slc"), public=True),
    NSA("nsa_f16", dtype="f16", gates=("cmp", "slc")),
    NSA("nsa_bf16", dtype="bf16", gates=("cmp", "slc"),
        known_difference=NSA_BF16),
    NSA("nsa_bf16_f32_reference", dtype="bf16", gates=("cmp", "slc"),
        upcast=True),
]


# --- dtypes -----------------------------------------------------------------

def np_dtype(name):
    if name == "bf16":
        import ml_dtypes  # comes with jax
        return ml_dtypes.bfloat16
    return {"f32": np.float32, "f16": np.float16}[name]


def to_npy(a):
    # ejk-run reads and writes bf16 as uint16 bit patterns (numpy has no bf16).
    return a.view(np.uint16) if a.dtype == np_dtype("bf16") else a


def from_npy(a, dtype):
    return a.view(np_dtype("bf16")) if dtype == "bf16" else a


def ttype(shape, dtype):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + dtype + ">"


def jx(a):
    # ejKernel's functions are type-checked (beartype): they take jax arrays.
    import jax.numpy as jnp
    return None if a is None else jnp.asarray(a)


def softplus(x):
    # ejk's softplus (docs/dialect.md): identity above 20, in f32.
    x = x.astype(np.float32)
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20)))).astype(np.float32)


# --- families -----------------------------------------------------------------
# Each family gives: inputs(case, rng) -> [(name, array, mlir dtype)] in the
# op's operand order; mlir(case, args) -> (op text, result types[, lines
# that precede the op]);
# reference(case, inputs) -> ejKernel's results in ejk's result order.

class FlashAttention:
    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        # N(0, 1), as `ejk-run --random-inputs` draws attention inputs.
        def normal(*shape, dtype=dt):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dtype))
        dv = c.opts.get("dv", d["d"])  # the value head dim (K's by default)
        args = [("q", normal(d["b"], d["sq"], d["hq"], d["d"]), dt),
                ("k", normal(d["b"], d["sk"], d["hkv"], d["d"]), dt),
                ("v", normal(d["b"], d["sk"], d["hkv"], dv), dt)]
        if c.opts.get("bias"):
            args.append(("bias", normal(d["b"], d["hq"], d["sq"], d["sk"], dtype="f32"), "f32"))
        # Issue 16's options. Sinks [num_sinks] (ejKernel's XLA wrapper
        # takes no per-head form), 2 * N(0, 1) so that they weigh as much as
        # the keys.
        if "sinks" in c.opts:
            args.append(("sinks", 2.0 * normal(c.opts["sinks"], dtype="f32"), "f32"))
        if c.opts.get("padding"):
            pad = rng.random((d["b"], d["sq"])) < 0.75
            args.append(("pad", pad, "i1"))
        if "lengths" in c.opts:
            lq, lk = c.opts["lengths"]
            for name, lens in (("cum_q", lq), ("cum_k", lk)):
                cum = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
                args.append((name, cum, "i32"))
        return args

    @staticmethod
    def attrs(c):
        """c.opts as ejk.flash_attention's attributes (the backward takes the
        same ones)."""
        o = c.opts
        attrs = []
        if o.get("causal"):
            attrs.append("causal")
        if isinstance(o.get("sliding_window"), int):
            attrs.append("sliding_window = array<i64: %d>" % o["sliding_window"])
        elif "sliding_window" in o:
            attrs.append("sliding_window = array<i64: %d, %d>" % o["sliding_window"])
        if "logits_soft_cap" in o:
            attrs.append("logits_soft_cap = %r : f32" % o["logits_soft_cap"])
        if "softmax_scale" in o:
            attrs.append("softmax_scale = %r : f32" % o["softmax_scale"])
        if "mask_alignment" in o:
            attrs.append("mask_alignment = \"%s\"" % o["mask_alignment"])
        if o.get("normalize_output") is False:
            attrs.append("normalize_output = false")
        return attrs

    @staticmethod
    def clauses(types):
        """The optional operand clauses of the inputs in `types` (the forward
        and the backward take the same ones)."""
        text = ""
        if "bias" in types:
            text += " bias(%%bias : %s)" % types["bias"]
        if "sinks" in types:
            text += " softmax_aux(%%sinks : %s)" % types["sinks"]
        if "pad" in types:
            text += " padding_mask(%%pad : %s)" % types["pad"]
        for name, clause in (("cum_q", "cum_seqlens_q"), ("cum_k", "cum_seqlens_k")):
            if name in types:
                text += " %s(%%%s : %s)" % (clause, name, types[name])
        return text

    @staticmethod
    def mlir(c, args):
        attrs = FlashAttention.attrs(c)
        types = {n: ttype(a.shape, t) for n, a, t in args}
        out = ttype(args[0][1].shape[:3] + args[2][1].shape[3:], c.dtype)
        text = "ejk.flash_attention %q, %k, %v" + FlashAttention.clauses(types)
        if attrs:
            text += " {" + ", ".join(attrs) + "}"
        text += " : %s, %s, %s -> %s" % (types["q"], types["k"], types["v"], out)
        return text, [out]

    @staticmethod
    def ejkernel(c, q, k, v, bias, ins=None):
        """ejKernel's flash_attention on jax arrays (traceable, for jax.vjp);
        `ins` holds the case's other inputs (sinks, padding, lengths)."""
        from ejkernel.modules.operations import flash_attention
        from ejkernel.types.mask import MaskInfo
        o = c.opts
        ins = ins or {}
        sinks = jx(ins.get("sinks"))
        mask_info, cum_q, cum_k = None, None, None
        if "pad" in ins:
            # ejKernel's 2-D attention_mask: padding segment ids (0 / -1),
            # padded queries and keys alike; padded rows come back as 0.
            mask_info = MaskInfo.from_attention_mask(jx(ins["pad"]))
        if "cum_q" in ins:
            # ejKernel's XLA path needs the attention_mask that the lengths
            # mean (it reads no cum_seqlens itself): query i < len_q[b] sees
            # key j < len_k[b] of batch row b.
            d = c.dims
            lq = np.diff(ins["cum_q"])
            lk = np.diff(ins["cum_k"])
            m = ((np.arange(d["sq"])[None, :, None] < lq[:, None, None]) &
                 (np.arange(d["sk"])[None, None, :] < lk[:, None, None]))
            mask_info = MaskInfo.from_attention_mask(jx(m[:, None]))
            cum_q, cum_k = jx(ins["cum_q"]), jx(ins["cum_k"])
        return flash_attention(
            q, k, v, bias, cum_q, cum_k, sinks,
            mask_info=mask_info,
            normalize_output=o.get("normalize_output", True),
            causal=bool(o.get("causal")),
            # ejKernel's (left, right) is ejk's array<i64: left, right>: key j
            # is kept when -left <= j - i <= right.
            sliding_window=o.get("sliding_window"),
            logits_soft_cap=o.get("logits_soft_cap"),
            softmax_scale=o.get("softmax_scale"),
            platform="xla")

    @staticmethod
    def peer(c, ins):
        """ejKernel's other dense attention functions on the case: `peer` =
        "attention" (its plain XLA attention: bias, padding as a boolean
        mask, sinks, soft cap, windows, a value head dim of its own) or
        "sdpa" (scaled_dot_product_attention: bias, padding mask, windows)."""
        import jax.numpy as jnp
        o = c.opts
        mask = None
        if "pad" in ins:
            pad = ins["pad"]  # query i sees key j when both are real tokens
            mask = jx((pad[:, :, None] & pad[:, None, :])[:, None])
        common = dict(attention_mask=mask, bias=jx(ins.get("bias")),
                      softmax_scale=o.get("softmax_scale"),
                      causal=bool(o.get("causal")),
                      sliding_window=o.get("sliding_window"))
        q, k, v = jx(ins["q"]), jx(ins["k"]), jx(ins["v"])
        if o["peer"] == "attention":
            from ejkernel.kernels._xla.attention import attention
            out, _ = attention(q, k, v, softmax_aux=jx(ins.get("sinks")),
                               logits_soft_cap=o.get("logits_soft_cap"),
                               dtype=q.dtype, softmax_dtype=jnp.float32,
                               **common)
        else:
            from ejkernel.kernels._xla.scaled_dot_product_attention import (
                scaled_dot_product_attention)
            out = scaled_dot_product_attention(q, k, v, **common)
        out = np.asarray(out)
        if "pad" in ins:
            # ejk's padded query rows are 0 (flash_attention's convention);
            # the plain functions leave them to whatever their mask gives.
            out = np.where(ins["pad"][:, :, None, None], out, 0).astype(out.dtype)
        return out

    @staticmethod
    def reference(c, ins):
        if "peer" in c.opts:
            return [FlashAttention.peer(c, ins)]
        return [np.asarray(FlashAttention.ejkernel(
            c, jx(ins["q"]), jx(ins["k"]), jx(ins["v"]), jx(ins.get("bias")), ins))]


class FlashAttentionGrad:
    """ejk.flash_attention_grad against jax.vjp of ejKernel's flash_attention.

    ejk's entry runs ejk.flash_attention and feeds its output and lse to the
    backward, as a training step does (ejKernel's public function returns no
    lse, and the backward needs q and k's own); the forward's output is
    compared by the flash_attention family. ejKernel's side is jax.vjp of its
    XLA flash_attention (a custom VJP that differentiates its chunked forward
    with jax's autodiff) under the same upstream gradient dO.
    """
    # A gradient element is a sum over a whole sequence of terms p * (dP - D)
    # or p * dO whose partial sums reach the size of the result's largest
    # elements and partly cancel, so rounding follows the largest |gradient|
    # (here 0.7 to 9), not each element's own size: the dtype's atol is
    # scaled by max(1, max |ejKernel|) of each result. Measured: f32 errors
    # 2e-7 to 8e-7 of that scale (a few ulps; 18x or more below the
    # tolerance), f16 and bf16 one ulp of the largest gradient.
    scaled_atol = True

    @staticmethod
    def inputs(c, rng):
        d = c.dims
        args = FlashAttention.inputs(c, rng)  # q, k, v[, bias]
        do = rng.standard_normal((d["b"], d["sq"], d["hq"], d["d"]), dtype=np.float32)
        args.insert(3, ("do", do.astype(np_dtype(c.dtype)), c.dtype))
        return args

    @staticmethod
    def mlir(c, args):
        d = c.dims
        forward, (out,) = FlashAttention.mlir(c, args)
        lse = ttype((d["b"], d["hq"], d["sq"]), "f32")
        types = {n: ttype(a.shape, t) for n, a, t in args}
        attrs = FlashAttention.attrs(c)
        if "config" in c.opts:
            attrs.append("config = #ejk.config<%s>" % c.opts["config"])
        text = ("ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse" +
                FlashAttention.clauses(types))
        if attrs:
            text += " {" + ", ".join(attrs) + "}"
        results = [types["q"], types["k"], types["v"]]
        text += " : %s, %s, %s, %s, %s, %s -> %s" % (
            types["q"], types["k"], types["v"], out, types["do"], lse, ", ".join(results))
        return text, results, ["%%o, %%lse = %s, %s" % (forward, lse)]

    @staticmethod
    def reference(c, ins):
        import jax
        if c.opts.get("mask_alignment") == "bottom_right":
            # ejKernel aligns top-left only. Bottom-right causal with Sq <= Sk
            # keeps key j when j <= i + Sk - Sq: ejKernel's window (Sk, Sk - Sq)
            # without causal.
            assert c.opts.get("causal") and "sliding_window" not in c.opts, c.name
            d = c.dims
            opts = {n: v for n, v in c.opts.items() if n not in ("causal", "mask_alignment")}
            c = dataclasses.replace(c, opts=dict(opts, sliding_window=(d["sk"], d["sk"] - d["sq"])))
        bias = jx(ins.get("bias"))
        _, vjp = jax.vjp(lambda q, k, v: FlashAttention.ejkernel(c, q, k, v, bias, ins),
                         jx(ins["q"]), jx(ins["k"]), jx(ins["v"]))
        return [np.asarray(g) for g in vjp(jx(ins["do"]))]


class SelectiveScan:
    @staticmethod
    def inputs(c, rng):
        d, o, dt = c.dims, c.opts, c.dtype
        b, l, ch, n = d["b"], d["l"], d["d"], d["n"]
        f32 = np.float32
        cast = np_dtype(dt)
        normal = lambda *s: rng.standard_normal(s, dtype=f32)
        # Mamba's ranges, as lib/Driver/RandomInputs.cpp draws them: A < 0;
        # with softplus the raw step is N(-1, 0.5) and its bias U(-1, 0.5),
        # without it the step is U(0.01, 0.2) and its bias U(0, 0.1).
        sp = o.get("softplus")
        step = (rng.normal(-1, 0.5, (b, l, ch)) if sp else rng.uniform(0.01, 0.2, (b, l, ch)))
        args = [("u", normal(b, l, ch).astype(cast), dt),
                ("delta", step.astype(f32).astype(cast), dt),
                ("A", rng.uniform(-4, -0.25, (ch, n)).astype(f32), "f32"),
                ("B", normal(b, l, 1, n).astype(cast), dt),
                ("C", normal(b, l, 1, n).astype(cast), dt)]
        if o.get("D"):
            args.append(("D", normal(ch), "f32"))
        if o.get("z"):
            args.append(("z", normal(b, l, ch).astype(cast), dt))
        if o.get("delta_bias"):
            bias = rng.uniform(-1, 0.5, ch) if sp else rng.uniform(0, 0.1, ch)
            args.append(("delta_bias", bias.astype(f32), "f32"))
        if o.get("initial_state"):
            args.append(("initial_state", normal(b, ch, n), "f32"))
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        d = c.dims
        y = ttype((d["b"], d["l"], d["d"]), c.dtype)
        state = ttype((d["b"], d["d"], d["n"]), "f32")
        text = "ejk.selective_scan %u, %delta, %A, %B, %C"
        for opt in ("D", "z", "delta_bias", "initial_state"):
            if opt in types:
                text += " %s(%%%s : %s)" % (opt, opt, types[opt])
        if c.opts.get("softplus"):
            text += " {delta_softplus}"
        text += " : %s -> %s, %s" % (", ".join(types[n] for n in ("u", "delta", "A", "B", "C")),
                                     y, state)
        return text, [y, state]

    @staticmethod
    def reference(c, ins):
        from ejkernel.modules.operations import state_space_v1
        dt = ins["delta"].astype(np.float32)
        if "delta_bias" in ins:
            dt = dt + ins["delta_bias"]
        if c.opts.get("softplus"):
            dt = softplus(dt)
        ch = c.dims["d"]
        y, state, _ = state_space_v1(
            jx(ins["u"]), jx(ins["A"]), jx(ins["B"][:, :, 0, :]), jx(ins["C"][:, :, 0, :]),
            jx(ins.get("D", np.zeros(ch, np.float32))), jx(dt.astype(ins["u"].dtype)),
            jx(ins.get("z")), jx(ins.get("initial_state")), platform="xla")
        return [np.asarray(y), np.asarray(state)]


class Ssd:
    @staticmethod
    def inputs(c, rng):
        d, o, dt = c.dims, c.opts, c.dtype
        b, l, h, p, g, n = (d[k] for k in "blhpgn")
        f32 = np.float32
        cast = np_dtype(dt)
        normal = lambda *s: rng.standard_normal(s, dtype=f32)
        sp = o.get("softplus")
        step = (rng.normal(-1, 0.5, (b, l, h)) if sp else rng.uniform(0.01, 0.2, (b, l, h)))
        args = [("x", normal(b, l, h, p).astype(cast), dt),
                ("dt", step.astype(f32).astype(cast), dt),
                ("A", rng.uniform(-4, -0.25, h).astype(f32), "f32"),
                ("B", normal(b, l, g, n).astype(cast), dt),
                ("C", normal(b, l, g, n).astype(cast), dt)]
        if o.get("D"):
            args.append(("D", normal(h), "f32"))
        if o.get("z"):
            args.append(("z", normal(b, l, h, p).astype(cast), dt))
        if o.get("dt_bias"):
            bias = rng.uniform(-1, 0.5, h) if sp else rng.uniform(0, 0.1, h)
            args.append(("dt_bias", bias.astype(f32), "f32"))
        if o.get("initial_state"):
            args.append(("initial_state", normal(b, h, p, n), "f32"))
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        d = c.dims
        y = ttype((d["b"], d["l"], d["h"], d["p"]), c.dtype)
        state = ttype((d["b"], d["h"], d["p"], d["n"]), "f32")
        text = "ejk.ssd %x, %dt, %A, %B, %C"
        for opt in ("D", "z", "dt_bias", "initial_state"):
            if opt in types:
                text += " %s(%%%s : %s)" % (opt, opt, types[opt])
        attrs = ["chunk_size = %d : i64" % c.opts.get("chunk_size", 256)]
        if c.opts.get("softplus"):
            attrs.append("dt_softplus")
        text += " {" + ", ".join(attrs) + "}"
        text += " : %s -> %s, %s" % (", ".join(types[n] for n in ("x", "dt", "A", "B", "C")),
                                     y, state)
        return text, [y, state]

    @staticmethod
    def reference(c, ins):
        from ejkernel.modules.operations import state_space_v2
        d = c.dims
        dt = ins["dt"].astype(np.float32)
        if "dt_bias" in ins:
            dt = dt + ins["dt_bias"]
        if c.opts.get("softplus"):
            dt = softplus(dt)
        z = ins.get("z")
        # ejKernel's gate and output are [batch, seq, heads * head_dim].
        gate = None if z is None else z.reshape(d["b"], d["l"], d["h"] * d["p"])
        y, state, _ = state_space_v2(
            jx(ins["x"]), jx(ins["A"]), jx(ins["B"]), jx(ins["C"]),
            jx(ins.get("D", np.zeros(d["h"], np.float32))), jx(dt.astype(ins["x"].dtype)),
            jx(gate), jx(ins.get("initial_state")), n_groups=d["g"], platform="xla")
        return [np.asarray(y).reshape(d["b"], d["l"], d["h"], d["p"]), np.asarray(state)]


def group_sizes(c, rng):
    """The case's sizes, or a random split of all m rows into g groups."""
    d = c.dims
    if "sizes" in c.opts:
        return np.array(c.opts["sizes"], np.int32)
    cuts = np.sort(rng.integers(0, d["m"] + 1, d["g"] - 1))
    return np.diff(np.concatenate([[0], cuts, [d["m"]]])).astype(np.int32)


class GroupedMatmul:
    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        sizes = group_sizes(c, rng)
        g = len(sizes)
        normal = lambda *s: rng.standard_normal(s, dtype=np.float32).astype(np_dtype(dt))
        rhs_shape = (g, d["n"], d["k"]) if c.opts.get("transpose_rhs") else (g, d["k"], d["n"])
        if c.opts.get("int8"):
            rhs = ("rhs", rng.integers(-128, 128, rhs_shape).astype(np.int8), "i8")
        else:
            rhs = ("rhs", normal(*rhs_shape), dt)
        args = [("lhs", normal(d["m"], d["k"]), dt), rhs, ("sizes", sizes, "i32")]
        if c.opts.get("existing_out"):
            out = c.opts.get("out", dt)
            args.append(("existing_out",
                         rng.standard_normal((d["m"], d["n"]), dtype=np.float32)
                         .astype(np_dtype(out)), out))
        if c.opts.get("int8"):
            args.append(("rhs_scales", rng.uniform(0.01, 0.04, (g, d["n"]))
                         .astype(np.float32), "f32"))
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        out = ttype((c.dims["m"], c.dims["n"]), c.opts.get("out", c.dtype))
        text = "ejk.grouped_matmul %lhs, %rhs, %sizes"
        if "existing_out" in types:
            text += " existing_out(%%existing_out : %s)" % types["existing_out"]
        if "rhs_scales" in types:
            text += " rhs_scales(%%rhs_scales : %s)" % types["rhs_scales"]
        if c.opts.get("transpose_rhs"):
            text += " {transpose_rhs}"
        text += " : %s, %s, %s -> %s" % (types["lhs"], types["rhs"], types["sizes"], out)
        return text, [out]

    @staticmethod
    def reference(c, ins):
        import jax.numpy as jnp
        from ejkernel.modules.operations import grouped_matmul
        out = np_dtype(c.opts.get("out", c.dtype))
        # do_padding=False: the module pads m to its 128-row tile but not
        # existing_out, which its shape check then rejects.
        quantized = {}
        rhs = ins["rhs"]
        if "rhs_scales" in ins:
            rhs = rhs.astype(np.float32)
            quantized = dict(use_v3=True,
                             rhs_scale=jx(ins["rhs_scales"][:, None, None, :]))
        y = grouped_matmul(jx(ins["lhs"]), jx(rhs), jx(ins["sizes"]), None,
                           jx(ins.get("existing_out")), preferred_element_type=out,
                           transpose_rhs=bool(c.opts.get("transpose_rhs")),
                           do_padding=False, platform="xla", **quantized)
        return [np.asarray(y.astype(out))]


class TransposedGroupedMatmul:
    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        normal = lambda *s: rng.standard_normal(s, dtype=np.float32).astype(np_dtype(dt))
        return [("lhs", normal(d["m"], d["k"]), dt), ("rhs", normal(d["m"], d["n"]), dt),
                ("sizes", group_sizes(c, rng), "i32")]

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        d = c.dims
        out = ttype((len(args[2][1]), d["k"], d["n"]), c.dtype)
        return ("ejk.transposed_grouped_matmul %%lhs, %%rhs, %%sizes : %s, %s, %s -> %s" %
                (types["lhs"], types["rhs"], types["sizes"], out)), [out]

    @staticmethod
    def reference(c, ins):
        import jax
        from ejkernel.modules.operations import grouped_matmul
        d = c.dims
        g = len(ins["sizes"])
        dt = np_dtype(c.dtype)
        weights = jx(np.zeros((g, d["k"], d["n"]), dt))
        f = lambda w: grouped_matmul(jx(ins["lhs"]), w, jx(ins["sizes"]),
                                     preferred_element_type=dt, platform="xla")
        _, vjp = jax.vjp(f, weights)
        (d_rhs,) = vjp(jx(ins["rhs"]))
        return [np.asarray(d_rhs)]


class MeanPooling:
    @staticmethod
    def tokens_shape(c):
        d = c.dims
        return (c.opts["cu"][-1], d["h"]) if "cu" in c.opts else (d["b"], d["s"], d["h"])

    @staticmethod
    def batch(c):
        return len(c.opts["cu"]) - 1 if "cu" in c.opts else c.dims["b"]

    @staticmethod
    def inputs(c, rng):
        dt = c.dtype
        x = rng.standard_normal(MeanPooling.tokens_shape(c), dtype=np.float32)
        args = [("x", x.astype(np_dtype(dt)), dt)]
        if "cu" in c.opts:
            args.append(("cu", np.array(c.opts["cu"], np.int32), "i32"))
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        out = ttype((MeanPooling.batch(c), c.dims["h"]), c.dtype)
        cu = " cu_seqlens(%%cu : %s)" % types["cu"] if "cu" in types else ""
        return "ejk.mean_pooling %%x%s : %s -> %s" % (cu, types["x"], out), [out]

    @staticmethod
    def reference(c, ins):
        from ejkernel.modules.operations import mean_pooling
        return [np.asarray(mean_pooling(jx(ins["x"]), jx(ins.get("cu")), platform="xla"))]


class MeanPoolingGrad:
    @staticmethod
    def inputs(c, rng):
        dt = c.dtype
        dy = rng.standard_normal((MeanPooling.batch(c), c.dims["h"]), dtype=np.float32)
        args = [("dy", dy.astype(np_dtype(dt)), dt)]
        if "cu" in c.opts:
            args.append(("cu", np.array(c.opts["cu"], np.int32), "i32"))
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        out = ttype(MeanPooling.tokens_shape(c), c.dtype)
        cu = " cu_seqlens(%%cu : %s)" % types["cu"] if "cu" in types else ""
        return "ejk.mean_pooling_grad %%dy%s : %s -> %s" % (cu, types["dy"], out), [out]

    @staticmethod
    def reference(c, ins):
        import jax
        from ejkernel.modules.operations import mean_pooling
        x = jx(np.zeros(MeanPooling.tokens_shape(c), np_dtype(c.dtype)))
        cu = jx(ins.get("cu"))
        _, vjp = jax.vjp(lambda t: mean_pooling(t, cu, platform="xla"), x)
        (dx,) = vjp(jx(ins["dy"]))
        return [np.asarray(dx)]


class PagedAttention:
    """ejk.paged_attention against ejKernel's paged decode functions.

    ejKernel (0.0.80.3) spreads ejk's options over three public functions,
    all with platform="xla"; each case uses the one that has its options:
    - page_attention(q, kc, vc, lens, tables, attn_scale=): head-major
      caches [pages, kv_heads, page_size, head_dim]; its XLA path raises on
      attn_logits_soft_cap, ignores sliding_window, returns no lse, computes
      in the input dtype, and averages V over the whole table row for an
      empty sequence. Used for f32 cases without cap, window or empty row.
    - decode_attention(q, kbuf, vbuf, tables, lens, page_size=,
      softmax_scale=, logits_soft_cap=): token-major caches flattened to
      [pages * page_size, kv_heads, head_dim]; f32 math; returns (out, lse)
      with lse = -inf and out = 0 for an empty sequence. The lse of every
      case without a window, and the output with a cap, f16/bf16, or an
      empty sequence.
    - unified_attention(q, kc, vc, lens, tables, arange(batch + 1),
      softmax_scale=, sliding_window=, logits_soft_cap=): token-major
      caches, one query per sequence at position len - 1 (causal); a window
      w keeps the last w tokens. No lse: the window cases leave it out.
    All three map query head h to kv head h // (num_heads / num_kv_heads)
    and cap as cap * tanh(scale * q.k / cap).
    """

    # ejk's lse is -inf for an empty sequence, as decode_attention's: equal
    # infinities compare equal (compare()).
    matching_infinities = True

    @staticmethod
    def reference_name(c):
        o = c.opts
        if "ref" in o:
            return o["ref"]
        if "sliding_window" in o:
            return "unified_attention"
        if ("logits_soft_cap" in o or c.dtype != "f32" or "cache_dtype" in o
                or 0 in c.dims["lens"]):
            return "decode_attention"
        return "page_attention"

    @staticmethod
    def has_lse(c):
        return "sliding_window" not in c.opts

    @staticmethod
    def tables(c, rng):
        """Shuffled pages, a sequence's pages distinct from the others'; the
        entries past a sequence's last page are random pages in range (ejk
        reads no entry past ceil(len / page_size), and refuses one out of
        range). Returns (tables, number of pages)."""
        d = c.dims
        s, m = d["s"], d["m"]
        used = [-(-n // s) for n in d["lens"]]
        assert max(used) <= m, c.name
        # Spare pages no sequence owns; at least num_kv_heads pages in all so
        # that page_attention's layout guess (below) sees head-major.
        pages = max(sum(used) + 3, d["hkv"])
        perm = rng.permutation(pages)
        tables = rng.integers(0, pages, (d["b"], m))
        start = 0
        for i, n in enumerate(used):
            tables[i, :n] = perm[start:start + n]
            start += n
        return tables.astype(np.int32), pages

    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        cdt = c.opts.get("cache_dtype", dt)
        tables, pages = PagedAttention.tables(c, rng)
        if c.opts.get("kv_layout", "head_major") == "head_major":
            cache = (pages, d["hkv"], d["s"], d["d"])
        else:
            cache = (pages, d["s"], d["hkv"], d["d"])
        def normal(shape, dtype):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dtype))
        return [("q", normal((d["b"], d["hq"], d["d"]), dt), dt),
                ("kc", normal(cache, cdt), cdt), ("vc", normal(cache, cdt), cdt),
                ("lens", np.array(d["lens"], np.int32), "i32"),
                ("tables", tables, "i32")]

    @staticmethod
    def mlir(c, args):
        o, d = c.opts, c.dims
        attrs = []
        if "kv_layout" in o:
            attrs.append('kv_layout = "%s"' % o["kv_layout"])
        if "softmax_scale" in o:
            attrs.append("softmax_scale = %r : f32" % o["softmax_scale"])
        if "logits_soft_cap" in o:
            attrs.append("logits_soft_cap = %r : f32" % o["logits_soft_cap"])
        if "sliding_window" in o:
            attrs.append("sliding_window = %d : i64" % o["sliding_window"])
        types = [ttype(a.shape, t) for _, a, t in args]
        results = [ttype((d["b"], d["hq"], d["d"]), c.dtype)]
        if PagedAttention.has_lse(c):
            results.append(ttype((d["b"], d["hq"]), "f32"))
        text = "ejk.paged_attention %q, %kc, %vc, %lens, %tables"
        if attrs:
            text += " {" + ", ".join(attrs) + "}"
        text += " : %s -> %s" % (", ".join(types), ", ".join(results))
        return text, results

    @staticmethod
    def reference(c, ins):
        import jax.numpy as jnp
        from ejkernel.modules.operations import (decode_attention, page_attention,
                                                 unified_attention)
        o, d = c.opts, c.dims
        q, kc, vc = ins["q"], ins["kc"], ins["vc"]
        lens, tables = jx(ins["lens"]), jx(ins["tables"])
        # ejk's caches in both of ejKernel's layouts (head-major for
        # page_attention, token-major for the others).
        if o.get("kv_layout", "head_major") == "head_major":
            khm, vhm = kc, vc
            ktm, vtm = kc.transpose(0, 2, 1, 3), vc.transpose(0, 2, 1, 3)
        else:
            ktm, vtm = kc, vc
            khm, vhm = kc.transpose(0, 2, 1, 3), vc.transpose(0, 2, 1, 3)
        ktm, vtm = np.ascontiguousarray(ktm), np.ascontiguousarray(vtm)
        khm, vhm = np.ascontiguousarray(khm), np.ascontiguousarray(vhm)
        pages, s, hkv, hd = ktm.shape
        scale = o.get("softmax_scale")
        cap = o.get("logits_soft_cap")
        lse = None
        if PagedAttention.has_lse(c):
            # decode_attention's buffers: token-major pages flattened to tokens.
            out_d, lse = decode_attention(
                jx(q), jx(ktm.reshape(pages * s, hkv, hd)), jx(vtm.reshape(pages * s, hkv, hd)),
                tables, lens, softmax_scale=scale, page_size=s, logits_soft_cap=cap,
                platform="xla")
        name = PagedAttention.reference_name(c)
        if name == "page_attention":
            # The XLA path guesses the cache layout from num_heads: with at
            # least num_kv_heads pages it takes these as head-major.
            assert pages >= hkv or d["hq"] % pages != 0, c.name
            assert cap is None and "sliding_window" not in o, c.name
            out = page_attention(jx(q), jx(khm), jx(vhm), lens, tables,
                                 attn_scale=scale, platform="xla")
        elif name == "decode_attention":
            assert lse is not None and "sliding_window" not in o, c.name
            out = out_d
        else:
            # One query per sequence: it sits at position len - 1 and
            # (causal) sees every cached token, or the last w of them.
            qsl = jx(np.arange(d["b"] + 1, dtype=np.int32))
            out = unified_attention(jx(q), jx(ktm), jx(vtm), lens, tables, qsl,
                                    softmax_scale=scale, causal=True,
                                    sliding_window=o.get("sliding_window"),
                                    logits_soft_cap=cap, platform="xla")
        res = [np.asarray(out)]
        if lse is not None:
            res.append(np.asarray(lse))
        return res


class Gla:
    """ejk.gla against ejKernel's gla_attention(platform="xla")."""

    @staticmethod
    def inputs(c, rng):
        d, o, dt = c.dims, c.opts, c.dtype
        f32, cast = np.float32, np_dtype(dt)
        b, t, h, hkv, k, v = (d[x] for x in ("b", "t", "h", "hkv", "k", "v"))
        normal = lambda *s: rng.standard_normal(s, dtype=f32)
        args = [("q", normal(b, t, h, k).astype(cast), dt),
                ("k", normal(b, t, hkv, k).astype(cast), dt),
                ("v", normal(b, t, hkv, v).astype(cast), dt)]
        if o.get("g", True):
            # fla's gates: logsigmoid(N(0, 1)) / 4, in (-inf, 0).
            x = normal(b, t, h, k)
            g = -np.logaddexp(0, -x) / 4
            args.append(("g", g.astype(f32).astype(cast), dt))
        seqs = len(o["lens"]) if "lens" in o else b
        if o.get("g_gamma"):
            shape = (seqs, h) if o["g_gamma"] == "seq" else (h,)
            args.append(("g_gamma", rng.uniform(-0.1, -0.001, shape).astype(f32),
                         "f32"))
        if o.get("initial_state"):
            args.append(("initial_state", normal(seqs, h, k, v), "f32"))
        if "lens" in o:
            cu = np.concatenate([[0], np.cumsum(o["lens"])]).astype(np.int32)
            assert cu[-1] == t, "lens must add up to t"
            args.append(("cu_seqlens", cu, "i32"))
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        d = c.dims
        seqs = len(c.opts["lens"]) if "lens" in c.opts else d["b"]
        out = ttype((d["b"], d["t"], d["h"], d["v"]), c.dtype)
        state = ttype((seqs, d["h"], d["k"], d["v"]), "f32")
        text = "ejk.gla %q, %k, %v"
        for opt in ("g", "g_gamma", "initial_state", "cu_seqlens"):
            if opt in types:
                text += " %s(%%%s : %s)" % (opt, opt, types[opt])
        attrs = []
        if c.opts.get("reverse"):
            attrs.append("reverse")
        if "softmax_scale" in c.opts:
            attrs.append("scale = %r : f32" % c.opts["softmax_scale"])
        if attrs:
            text += " {" + ", ".join(attrs) + "}"
        text += " : %s -> %s, %s" % (", ".join(types[n] for n in ("q", "k", "v")),
                                     out, state)
        return text, [out, state]

    @staticmethod
    def reference(c, ins):
        from ejkernel.modules.operations import gla_attention
        d = c.dims
        k, v = ins["k"], ins["v"]
        if 1 < d["hkv"] < d["h"]:
            k = np.repeat(k, d["h"] // d["hkv"], axis=2)
            v = np.repeat(v, d["h"] // d["hkv"], axis=2)
        seqs = len(c.opts["lens"]) if "lens" in c.opts else d["b"]
        s0 = ins.get("initial_state")
        if s0 is None:
            s0 = np.zeros((seqs, d["h"], d["k"], d["v"]), np.float32)
        o, state = gla_attention(
            jx(ins["q"]), jx(k), jx(v), jx(ins.get("g")), jx(ins.get("g_gamma")),
            jx(s0), jx(ins.get("cu_seqlens")),
            softmax_scale=c.opts.get("softmax_scale"),
            reverse=bool(c.opts.get("reverse")), return_state=True,
            platform="xla")
        return [np.asarray(o).astype(np.float32), np.asarray(state)]


def fla_gate(rng, shape):
    """fla's gates: logsigmoid(N(0, 1)) / 4, in (-inf, 0)."""
    x = rng.standard_normal(shape, dtype=np.float32)
    return (-np.logaddexp(0, -x) / 4).astype(np.float32)


class GatedRecurrence:
    """What ejk.lightning_attention and ejk.recurrent share with ejk.gla:
    inputs q, k, v, the states and cu_seqlens; the op text; ejKernel's
    call shape (heads repeated under GQA, explicit zero states)."""

    op = None
    gates = ()

    @classmethod
    def inputs(cls, c, rng):
        d, o, dt = c.dims, c.opts, c.dtype
        f32, cast = np.float32, np_dtype(dt)
        b, t, h, hkv, k, v = (d[x] for x in ("b", "t", "h", "hkv", "k", "v"))
        normal = lambda *s: rng.standard_normal(s, dtype=f32)
        args = [("q", normal(b, t, h, k).astype(cast), dt),
                ("k", normal(b, t, hkv, k).astype(cast), dt),
                ("v", normal(b, t, hkv, v).astype(cast), dt)]
        seqs = len(o["lens"]) if "lens" in o else b
        args += cls.gate_inputs(c, rng, seqs)
        if o.get("initial_state"):
            args.append(("initial_state", normal(seqs, h, k, v), "f32"))
        if "lens" in o:
            cu = np.concatenate([[0], np.cumsum(o["lens"])]).astype(np.int32)
            assert cu[-1] == t, "lens must add up to t"
            args.append(("cu_seqlens", cu, "i32"))
        return args

    @classmethod
    def mlir(cls, c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        d = c.dims
        seqs = len(c.opts["lens"]) if "lens" in c.opts else d["b"]
        out = ttype((d["b"], d["t"], d["h"], d["v"]), c.dtype)
        state = ttype((seqs, d["h"], d["k"], d["v"]), "f32")
        text = "ejk.%s %%q, %%k, %%v" % cls.op
        for opt in cls.gates + ("initial_state", "cu_seqlens"):
            if opt in types:
                text += " %s(%%%s : %s)" % (opt, opt, types[opt])
        attrs = cls.attributes(c)
        if c.opts.get("reverse"):
            attrs.append("reverse")
        if attrs:
            text += " {" + ", ".join(attrs) + "}"
        text += " : %s -> %s, %s" % (", ".join(types[n] for n in ("q", "k", "v")),
                                     out, state)
        return text, [out, state]

    @staticmethod
    def attributes(c):
        return []

    @staticmethod
    def ejkernel_inputs(c, ins):
        """k, v (heads repeated under GQA), the initial state (zeros when
        absent) and cu_seqlens, as JAX arrays."""
        d = c.dims
        k, v = ins["k"], ins["v"]
        if d["hkv"] < d["h"]:
            k = np.repeat(k, d["h"] // d["hkv"], axis=2)
            v = np.repeat(v, d["h"] // d["hkv"], axis=2)
        seqs = len(c.opts["lens"]) if "lens" in c.opts else d["b"]
        s0 = ins.get("initial_state")
        if s0 is None:
            s0 = np.zeros((seqs, d["h"], d["k"], d["v"]), np.float32)
        return jx(k), jx(v), jx(s0), jx(ins.get("cu_seqlens"))


class Lightning(GatedRecurrence):
    """ejk.lightning_attention against ejKernel's lightning_attention; the
    slopes form against recurrent_attention with g_gamma = -slopes."""

    op = "lightning_attention"
    gates = ("slopes",)

    @staticmethod
    def gate_inputs(c, rng, seqs):
        if not c.opts.get("slopes"):
            return []
        return [("slopes", rng.uniform(0.0, 0.5, c.dims["h"]).astype(np.float32),
                 "f32")]

    @staticmethod
    def attributes(c):
        if c.opts.get("slopes"):
            return []
        layer, layers = c.opts["layer"]
        return ["layer_idx = %d : i64" % layer, "num_layers = %d : i64" % layers]

    @classmethod
    def reference(cls, c, ins):
        from ejkernel.modules.operations import (lightning_attention,
                                                 recurrent_attention)
        k, v, s0, cu = cls.ejkernel_inputs(c, ins)
        common = dict(reverse=bool(c.opts.get("reverse")), return_state=True,
                      platform="xla")
        if c.opts.get("slopes"):
            o, state = recurrent_attention(
                jx(ins["q"]), k, v, None, jx(-ins["slopes"]), None, None, s0,
                cu, **common)
        else:
            layer, layers = c.opts["layer"]
            o, state = lightning_attention(
                jx(ins["q"]), k, v, s0, cu, layer_idx=layer,
                num_layers=layers, **common)
        return [np.asarray(o).astype(np.float32), np.asarray(state)]


class Recurrent(GatedRecurrence):
    """ejk.recurrent against ejKernel's recurrent_attention(platform="xla")."""

    op = "recurrent"
    gates = ("g", "gk", "gv", "g_gamma")

    @staticmethod
    def gate_inputs(c, rng, seqs):
        d, o, dt = c.dims, c.opts, c.dtype
        cast = np_dtype(dt)
        b, t, h, k, v = (d[x] for x in ("b", "t", "h", "k", "v"))
        args = []
        for name, width in (("g", k), ("gk", k), ("gv", v)):
            if o.get(name):
                args.append((name, fla_gate(rng, (b, t, h, width)).astype(cast),
                             dt))
        if o.get("g_gamma"):
            shape = (seqs, h) if o["g_gamma"] == "seq" else (h,)
            args.append(("g_gamma",
                         rng.uniform(-0.1, -0.001, shape).astype(np.float32),
                         "f32"))
        return args

    @classmethod
    def reference(cls, c, ins):
        from ejkernel.modules.operations import recurrent_attention
        k, v, s0, cu = cls.ejkernel_inputs(c, ins)
        o, state = recurrent_attention(
            jx(ins["q"]), k, v, jx(ins.get("g")), jx(ins.get("g_gamma")),
            jx(ins.get("gk")), jx(ins.get("gv")), s0, cu,
            softmax_scale=c.opts.get("softmax_scale"),
            reverse=bool(c.opts.get("reverse")), return_state=True,
            platform="xla")
        return [np.asarray(o).astype(np.float32), np.asarray(state)]


def delta_gate(rng, shape):
    """Log decays as fla's tests draw them: logsigmoid(N(0, 1)) / 4."""
    x = rng.standard_normal(shape, dtype=np.float32)
    return (-np.logaddexp(0, -x) / 4).astype(np.float32)


class Delta:
    """ejk.delta_attention against ejKernel's gated_delta_rule (and
    kernel_delta_attention for an explicit scale), platform="xla"."""

    @staticmethod
    def inputs(c, rng):
        d, o, dt = c.dims, c.opts, c.dtype
        f32, cast = np.float32, np_dtype(dt)
        b, t, h, hkv, k, v = (d[x] for x in ("b", "t", "h", "hkv", "k", "v"))
        normal = lambda *s: rng.standard_normal(s, dtype=f32)
        key = normal(b, t, hkv, k)
        if not o.get("l2norm", True):
            # Unnormalized keys of norm about 1, so that the recurrence
            # contracts (beta |k|^2 < 2), as trained models keep it.
            key = key / np.float32(np.sqrt(k))
        args = [("q", normal(b, t, h, k).astype(cast), dt),
                ("k", key.astype(cast), dt),
                ("v", normal(b, t, hkv, v).astype(cast), dt),
                ("beta", (1 / (1 + np.exp(-normal(b, t, h)))).astype(cast), dt)]
        if o.get("decay") == "head":
            args.append(("decay", delta_gate(rng, (b, t, h)).astype(cast), dt))
        elif o.get("decay") == "key":
            g = np.repeat(delta_gate(rng, (b, t, h))[..., None], k, axis=3)
            args.append(("decay", g.astype(cast), dt))
        seqs = len(o["lens"]) if "lens" in o else b
        if o.get("initial_state"):
            args.append(("initial_state", normal(seqs, h, k, v), "f32"))
        if "lens" in o:
            cu = np.concatenate([[0], np.cumsum(o["lens"])]).astype(np.int32)
            assert cu[-1] == t, "lens must add up to t"
            args.append(("cu_seqlens", cu, "i32"))
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        d = c.dims
        seqs = len(c.opts["lens"]) if "lens" in c.opts else d["b"]
        out = ttype((d["b"], d["t"], d["h"], d["v"]), c.dtype)
        state = ttype((seqs, d["h"], d["k"], d["v"]), "f32")
        text = "ejk.delta_attention %q, %k, %v, %beta"
        for opt in ("decay", "initial_state", "cu_seqlens"):
            if opt in types:
                text += " %s(%%%s : %s)" % (opt, opt, types[opt])
        attrs = []
        if c.opts.get("reverse"):
            attrs.append("reverse")
        if not c.opts.get("l2norm", True):
            attrs.append("use_qk_l2norm = false")
        if "softmax_scale" in c.opts:
            attrs.append("scale = %r : f32" % c.opts["softmax_scale"])
        if attrs:
            text += " {" + ", ".join(attrs) + "}"
        results = [out] if "lens" in c.opts else [out, state]
        text += " : %s -> %s" % (
            ", ".join(types[n] for n in ("q", "k", "v", "beta")),
            ", ".join(results))
        return text, results

    @staticmethod
    def reference(c, ins):
        from ejkernel.modules.operations import (gated_delta_rule,
                                                 kernel_delta_attention)
        d, o = c.dims, c.opts
        q, k, v, beta = ins["q"], ins["k"], ins["v"], ins["beta"]
        if d["hkv"] < d["h"]:
            k = np.repeat(k, d["h"] // d["hkv"], axis=2)
            v = np.repeat(v, d["h"] // d["hkv"], axis=2)
        decay = ins.get("decay")
        if decay is not None and decay.ndim == 4:
            decay = decay[..., 0]  # equal over key dims
        flip = bool(o.get("reverse"))
        if flip:
            q, k, v, beta = (np.flip(x, axis=1) for x in (q, k, v, beta))
            decay = None if decay is None else np.flip(decay, axis=1)
        seg = None
        if "lens" in o:
            seg = np.repeat(np.arange(len(o["lens"]), dtype=np.int32),
                            o["lens"])[None, :]
        l2 = bool(o.get("l2norm", True))
        if "softmax_scale" in o:
            out, state = kernel_delta_attention(
                jx(q), jx(k), jx(v), jx(beta), jx(decay),
                jx(ins.get("initial_state")),
                softmax_scale=o["softmax_scale"], use_qk_l2norm=l2,
                return_state=True, platform="xla")
        else:
            out, state = gated_delta_rule(
                jx(q), jx(k), jx(v), jx(beta), jx(decay), jx(seg),
                jx(ins.get("initial_state")), use_qk_l2norm=l2,
                return_state=True, platform="xla")
        out = np.asarray(out).astype(np.float32)
        if flip:
            out = np.flip(out, axis=1)
        if "lens" in o:
            return [out]
        return [out, np.asarray(state).astype(np.float32)]


class RaggedDelta:
    """ejk.delta_attention with cu_seqlens and initial_state against
    ejKernel's XLA ragged_gated_delta_rule(query, key, value, beta, decay,
    recurrent_state, query_start_loc, state_indices): ejKernel gathers each
    request's state from a pool by its slot and scatters the final states
    back; ejk takes the requests' states in request order (the harness
    gathers them, as a serving runtime would) and returns each request's
    final state, compared with the updated pool's slot. Scale 1/sqrt(K)
    (ejKernel's fixed one), ejk's default."""

    @staticmethod
    def inputs(c, rng):
        d, o, dt = c.dims, c.opts, c.dtype
        f32, cast = np.float32, np_dtype(dt)
        t, h, k, v = sum(d["lens"]), d["h"], d["k"], d["v"]
        normal = lambda *s: rng.standard_normal(s, dtype=f32)
        key = normal(1, t, h, k)
        if not o.get("l2norm", True):
            key = key / np.float32(np.sqrt(k))  # a contracting recurrence
        args = [("q", normal(1, t, h, k).astype(cast), dt),
                ("k", key.astype(cast), dt),
                ("v", normal(1, t, h, v).astype(cast), dt),
                ("beta", (1 / (1 + np.exp(-normal(1, t, h)))).astype(cast), dt)]
        if o.get("decay", True):
            args.append(("decay", delta_gate(rng, (1, t, h)).astype(cast), dt))
        pool = normal(d["slots"], h, k, v) * np.float32(0.5)
        slots = rng.permutation(d["slots"])[:len(d["lens"])].astype(np.int32)
        args.append(("initial_state", pool[slots], "f32"))
        cu = np.concatenate([[0], np.cumsum(d["lens"])]).astype(np.int32)
        args.append(("cu_seqlens", cu, "i32"))
        # Not operands of ejk's op: ejKernel's pool and slots (reference()).
        c.opts["_pool"], c.opts["_slots"] = pool, slots
        return args

    @staticmethod
    def mlir(c, args):
        types = {n: ttype(a.shape, t) for n, a, t in args}
        d = c.dims
        t = sum(d["lens"])
        out = ttype((1, t, d["h"], d["v"]), c.dtype)
        state = ttype((len(d["lens"]), d["h"], d["k"], d["v"]), "f32")
        text = "ejk.delta_attention %q, %k, %v, %beta"
        for opt in ("decay", "initial_state", "cu_seqlens"):
            if opt in types:
                text += " %s(%%%s : %s)" % (opt, opt, types[opt])
        if not c.opts.get("l2norm", True):
            text += " {use_qk_l2norm = false}"
        text += " : %s -> %s, %s" % (
            ", ".join(types[n] for n in ("q", "k", "v", "beta")), out, state)
        return text, [out, state]

    @staticmethod
    def reference(c, ins):
        from ejkernel.kernels._xla.ragged_gated_delta_rule import (
            ragged_gated_delta_rule)
        from ejkernel.kernels._xla.ragged_gated_delta_rule._xla_impl_fwd import (
            _ragged_gdr_decode_only)
        o = c.opts
        decay = ins["decay"][0] if "decay" in ins else None
        operands = (jx(ins["q"][0]), jx(ins["k"][0]), jx(ins["v"][0]),
                    jx(ins["beta"][0]))
        l2 = bool(o.get("l2norm", True))
        if max(c.dims["lens"]) <= 1:
            out, pool = ragged_gated_delta_rule(
                *operands, jx(decay), jx(o["_pool"]), jx(ins["cu_seqlens"]),
                jx(o["_slots"]), use_qk_l2norm=l2)
        else:
            # The public function's chunked path gives an empty request the
            # previous request's state and is ~1e-3 off an f64 recurrence
            # (docs/conformance.md); its sequential path (the one it takes
            # for decodes) handles any lengths.
            if decay is None:
                decay = np.zeros(ins["beta"][0].shape, ins["beta"].dtype)
            pool, out = _ragged_gdr_decode_only(
                *operands, jx(decay), jx(o["_pool"]), jx(ins["cu_seqlens"]),
                jx(o["_slots"]), l2)
        out = np.asarray(out).astype(np.float32)[None]
        return [out, np.asarray(pool).astype(np.float32)[o["_slots"]]]


class Mla:
    """ejk.mla against ejKernel's flash_mla (XLA), the un-absorbed form.

    flash_mla(query, key_value, w_kc, w_vc, b_k=) projects the latent cache
    c with w_kc [lat, 1, nope] into keys and with w_vc into values, and
    takes each head's query as [q_nope | q_rope]. Absorbed, that is ejk.mla
    with q_latent = q_nope . w_kc^T (per head, computed here in f64 before
    rounding to the case's dtype) over the same c and k_rope = b_k; the
    value projection is the identity (w_vc = I) so that flash_mla's output
    is ejk's latent output. flash_mla has one seq_len for queries and
    cache, so its top-left causal mask is ejk's bottom-right one. Without
    softmax_scale, ejk is given qk_nope_head_dim = nope: flash_mla's
    default 1/sqrt(nope + rope) is then ejk's.
    """

    @staticmethod
    def projections(c, rng):
        """The un-absorbed query and w_kc: the first draws of the case's
        generator (reference() draws them again from the same seed)."""
        d, dt = c.dims, c.dtype
        q_nope = rng.standard_normal((d["b"], d["s"], d["h"], d["nope"]),
                                     dtype=np.float32).astype(np_dtype(dt))
        w_kc = (rng.standard_normal((d["lat"], 1, d["nope"]), dtype=np.float32)
                / np.sqrt(d["lat"])).astype(np_dtype(dt))
        return q_nope, w_kc

    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        b, s, h, nope, lat, rope = (d[k] for k in ("b", "s", "h", "nope", "lat", "rope"))
        def normal(shape):
            return rng.standard_normal(shape, dtype=np.float32)
        q_nope, w_kc = Mla.projections(c, rng)
        ql = np.einsum("bshn,ln->bshl", q_nope.astype(np.float64),
                       w_kc[:, 0, :].astype(np.float64))
        return [("ql", ql.astype(np.float32).astype(np_dtype(dt)), dt),
                ("qr", normal((b, s, h, rope)).astype(np_dtype(dt)), dt),
                ("ckv", normal((b, s, lat)).astype(np_dtype(dt)), dt),
                ("kr", normal((b, s, rope)).astype(np_dtype(dt)), dt)]

    @staticmethod
    def mlir(c, args):
        o, d = c.opts, c.dims
        attrs = []
        if o.get("causal"):
            attrs.append("causal")
        if "softmax_scale" in o:
            attrs.append("softmax_scale = %r : f32" % o["softmax_scale"])
        else:
            attrs.append("qk_nope_head_dim = %d" % d["nope"])
        types = [ttype(a.shape, t) for _, a, t in args]
        results = [ttype((d["b"], d["s"], d["h"], d["lat"]), c.dtype)]
        text = "ejk.mla %ql, %qr, %ckv, %kr {" + ", ".join(attrs) + "}"
        text += " : %s -> %s" % (", ".join(types), ", ".join(results))
        return text, results

    @staticmethod
    def reference(c, ins):
        import jax.numpy as jnp
        from ejkernel.modules.operations import flash_mla
        d = c.dims
        q_nope, w_kc = Mla.projections(c, np.random.default_rng(c.seed))
        query = np.concatenate([q_nope, ins["qr"]], axis=-1)
        w_vc = np.eye(d["lat"], dtype=w_kc.dtype)[:, None, :]
        # b_q and b_k are positional-only: (query, key_value, w_kc, w_vc,
        # b_q, b_k).
        out = flash_mla(jx(query), jx(ins["ckv"]), jx(w_kc), jx(w_vc),
                        None, jx(ins["kr"]), softmax_scale=c.opts.get("softmax_scale"),
                        causal=bool(c.opts.get("causal")), platform="xla")
        return [np.asarray(out)]


class PagedMla:
    """ejk.paged_mla against ejKernel's multi_latent_ragged_page_attention
    (XLA). ejKernel writes each step's new latent rows (keys_values,
    keys_pe) into its cache before attending; ejk reads a cache that
    already holds them. The harness draws ejk's cache [pages, page,
    lat + rope] with every token, hands ejKernel the same cache in its
    layout ([pages, page / packing, packing, align128(lat) +
    align128(rope)], zero padding) and, as new rows, the rows the cache
    already holds at positions kv_len - q_len + i (so its write changes
    nothing). ejKernel returns no lse: ejk's op has none here.
    """

    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        h, lat, rope, page = d["h"], d["lat"], d["rope"], d["page"]
        lens, qlens = d["lens"], d["qlens"]
        m = max(1, max(-(-n // page) for n in lens))
        used = [-(-n // page) for n in lens]
        pages = sum(used) + 2
        perm = rng.permutation(pages)
        tables = rng.integers(0, pages, (len(lens), m))
        start = 0
        for i, n in enumerate(used):
            tables[i, :n] = perm[start:start + n]
            start += n
        t = sum(qlens)
        qsl = np.concatenate([[0], np.cumsum(qlens)]).astype(np.int32)
        def normal(shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        return [("ql", normal((t, h, lat)), dt), ("qr", normal((t, h, rope)), dt),
                ("c", normal((pages, page, lat + rope)), dt),
                ("lens", np.array(lens, np.int32), "i32"),
                ("tables", tables.astype(np.int32), "i32"),
                ("starts", qsl, "i32")]

    @staticmethod
    def mlir(c, args):
        o, d = c.opts, c.dims
        types = [ttype(a.shape, t) for _, a, t in args]
        t = sum(d["qlens"])
        results = [ttype((t, d["h"], d["lat"]), c.dtype)]
        text = "ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts"
        if "softmax_scale" in o:
            text += " {softmax_scale = %r : f32}" % o["softmax_scale"]
        text += " : %s -> %s" % (", ".join(types), ", ".join(results))
        return text, results

    @staticmethod
    def reference(c, ins):
        from ejkernel.modules.operations import multi_latent_ragged_page_attention
        d = c.dims
        lat, rope, page = d["lat"], d["rope"], d["page"]
        cache, tables, lens = ins["c"], ins["tables"], ins["lens"]
        pages = cache.shape[0]
        pad = lambda n: -(-n // 128) * 128
        packing = 4 // cache.dtype.itemsize
        ejkc = np.zeros((pages, page, pad(lat) + pad(rope)), cache.dtype)
        ejkc[:, :, :lat] = cache[:, :, :lat]
        ejkc[:, :, pad(lat):pad(lat) + rope] = cache[:, :, lat:]
        ejkc = ejkc.reshape(pages, page // packing, packing, -1)
        # The new rows: the cache's rows at kv_len - q_len + i.
        rows = []
        for s, (n, q) in enumerate(zip(d["lens"], d["qlens"])):
            for j in range(n - q, n):
                rows.append(cache[tables[s, j // page], j % page])
        rows = np.stack(rows) if rows else np.zeros((0, lat + rope), cache.dtype)
        if c.opts.get("v2"):
            # Its v2 takes the same operands (and a window and soft cap,
            # which ejk's op does not have).
            from ejkernel.modules.operations import (
                multi_latent_ragged_page_attention_v2 as
                multi_latent_ragged_page_attention)
        out, _ = multi_latent_ragged_page_attention(
            jx(ins["ql"]), jx(ins["qr"]), jx(rows[:, :lat]), jx(rows[:, lat:]),
            jx(ejkc), jx(lens), jx(tables.reshape(-1)), jx(ins["starts"]),
            jx(np.array([0, 0, len(d["lens"])], np.int32)),
            softmax_scale=c.opts.get("softmax_scale"), platform="xla")
        return [np.asarray(out)]


def paged_attrs(c, scale):
    """The paged family's attributes: softmax_scale, then the soft cap and
    the window where the case has them."""
    o = c.opts
    attrs = ["softmax_scale = %r : f32" % scale]
    if "logits_soft_cap" in o:
        attrs.append("logits_soft_cap = %r : f32" % o["logits_soft_cap"])
    if "sliding_window" in o:
        attrs.append("sliding_window = %d : i64" % o["sliding_window"])
    return attrs


class RaggedPaged:
    """ejk.ragged_paged_attention against ejKernel's XLA ragged paged
    attention: ragged_page_attention_v2(queries, kv_pages, lens, tables,
    cu, num_seqs) with kv_pages the token-major K and V interleaved per head
    ([pages, page, 2 * kv_heads, d], K at even heads) and compute_dtype f32;
    with new_kv, ragged_page_attention_v3(queries, keys, values, kv_cache,
    lens, flat tables, cu, distribution = [0, 0, num_seqs]) on its merged
    cache (merge_kv per page), whose updated cache is split back into K and
    V and compared with ejk's updated pools. Both take kv_lens with the new
    tokens included, a window w as the last w positions, sinks softmax_aux
    as a logit in the denominator, and give 0 to rows of no sequence.
    ejKernel's softmax_scale defaults to 1 in v3: every case passes ejk's.
    Tables: a page per entry, distinct over all rows (v3 writes back every
    page of a table row)."""

    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        slots, m, s = d["slots"], d["m"], d["s"]
        pages = slots * m + 2
        tables = rng.permutation(pages)[:slots * m].reshape(slots, m)
        cu = np.concatenate([[0], np.cumsum(d["qlens"])]).astype(np.int32)
        cu = np.concatenate([cu, np.full(slots - len(d["qlens"]), cu[-1])])
        lens = np.zeros(slots, np.int32)
        lens[:len(d["lens"])] = d["lens"]
        def normal(shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        cache = (pages, s, d["hkv"], d["d"])
        args = [("q", normal((d["t"], d["hq"], d["d"])), dt),
                ("kc", normal(cache), dt), ("vc", normal(cache), dt),
                ("lens", lens, "i32"), ("tables", tables.astype(np.int32), "i32"),
                ("cu", cu.astype(np.int32), "i32"),
                ("n", np.array([len(d["qlens"])], np.int32), "i32")]
        if c.opts.get("write"):
            args += [("k", normal((d["t"], d["hkv"], d["d"])), dt),
                     ("v", normal((d["t"], d["hkv"], d["d"])), dt)]
        if c.opts.get("sinks"):
            args.append(("sinks", rng.standard_normal(d["hq"]).astype(np.float32), "f32"))
        return args

    @staticmethod
    def scale(c):
        return c.opts.get("softmax_scale", c.dims["d"] ** -0.5)

    @staticmethod
    def mlir(c, args):
        o = c.opts
        attrs = paged_attrs(c, RaggedPaged.scale(c))
        types = {n: ttype(a.shape, t) for n, a, t in args}
        text = "ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n"
        if o.get("write"):
            text += " new_kv(%%k, %%v : %s, %s)" % (types["k"], types["v"])
        if o.get("sinks"):
            text += " sinks(%%sinks : %s)" % types["sinks"]
        results = [types["q"]]
        if o.get("write"):
            results += [types["kc"], types["vc"]]
        text += " {%s} : %s -> %s" % (", ".join(attrs), ", ".join(
            types[n] for n in ("q", "kc", "vc", "lens", "tables", "cu", "n")),
            ", ".join(results))
        return text, results

    @staticmethod
    def reference(c, ins):
        import jax.numpy as jnp
        o, d = c.opts, c.dims
        kc, vc = ins["kc"], ins["vc"]
        pages, s, hkv, hd = kc.shape
        sinks = jx(ins["sinks"]) if "sinks" in ins else None
        window = o.get("sliding_window")
        cap = o.get("logits_soft_cap")
        if not o.get("write"):
            from ejkernel.kernels._xla.ragged_page_attention_v2 import (
                ragged_page_attention_v2)
            kv = np.stack([kc, vc], axis=3).reshape(pages, s, 2 * hkv, hd)
            out = ragged_page_attention_v2(
                jx(ins["q"]), jx(kv), jx(ins["lens"]), jx(ins["tables"]),
                jx(ins["cu"]), jx(ins["n"]), softmax_scale=RaggedPaged.scale(c),
                logits_soft_cap=cap, compute_dtype=jnp.float32,
                sliding_window=window, softmax_aux=sinks)
            return [np.asarray(out)]
        from ejkernel.kernels._xla.ragged_page_attention_v3 import (
            ragged_page_attention_v3)
        from ejkernel.kernels._xla.ragged_page_attention_v3._xla_impl_fwd import (
            merge_kv)
        merged = merge_kv(jx(kc.reshape(pages * s, hkv, hd)),
                          jx(vc.reshape(pages * s, hkv, hd)))
        merged = merged.reshape(pages, s, *merged.shape[1:])
        out, cache = ragged_page_attention_v3(
            jx(ins["q"]), jx(ins["k"]), jx(ins["v"]), merged, jx(ins["lens"]),
            jx(ins["tables"].reshape(-1)), jx(ins["cu"]),
            jx(np.array([0, 0, int(ins["n"][0])], np.int32)), sinks,
            softmax_scale=RaggedPaged.scale(c), sliding_window=window,
            logits_soft_cap=cap)
        cache = np.asarray(cache).reshape(pages, s, -1, cache.shape[-1])
        pairs = cache[:, :, :2 * hkv, :hd].reshape(pages, s, hkv, 2, hd)
        return [np.asarray(out), pairs[:, :, :, 0], pairs[:, :, :, 1]]


class PrefillPaged:
    """ejk.prefill_paged_attention (batch 1) against ejKernel's XLA
    prefill_page_attention(query, key_cache, value_cache, context_len,
    page_indices): its caches are [kv_heads, pages, page, d] (ejk's
    head-major pages with the first two dims swapped), its window w keeps a
    query's last w positions, its scale is passed explicitly."""

    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        s = d["s"]
        m = -(-d["length"] // s) + 1
        pages = m + 3
        head_major = c.opts.get("kv_layout") == "head_major"
        cache = ((pages, d["hkv"], s, d["d"]) if head_major
                 else (pages, s, d["hkv"], d["d"]))
        def normal(shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        return [("q", normal((1, d["sq"], d["hq"], d["d"])), dt),
                ("kc", normal(cache), dt), ("vc", normal(cache), dt),
                ("lens", np.array([d["length"]], np.int32), "i32"),
                ("tables", rng.permutation(pages)[:m].reshape(1, m).astype(np.int32),
                 "i32")]

    @staticmethod
    def mlir(c, args):
        o = c.opts
        attrs = ["softmax_scale = %r : f32" % (c.dims["d"] ** -0.5)]
        if "kv_layout" in o:
            attrs.append('kv_layout = "%s"' % o["kv_layout"])
        if "logits_soft_cap" in o:
            attrs.append("logits_soft_cap = %r : f32" % o["logits_soft_cap"])
        if "sliding_window" in o:
            attrs.append("sliding_window = %d : i64" % o["sliding_window"])
        types = [ttype(a.shape, t) for _, a, t in args]
        return ("ejk.prefill_paged_attention %%q, %%kc, %%vc, %%lens, %%tables "
                "{%s} : %s -> %s" % (", ".join(attrs), ", ".join(types), types[0]),
                [types[0]])

    @staticmethod
    def reference(c, ins):
        from ejkernel.kernels._xla.prefill_page_attention._impl import (
            prefill_page_attention)
        o = c.opts
        kc, vc = ins["kc"], ins["vc"]
        if o.get("kv_layout") == "head_major":
            kc, vc = kc.transpose(1, 0, 2, 3), vc.transpose(1, 0, 2, 3)
        else:
            kc, vc = kc.transpose(2, 0, 1, 3), vc.transpose(2, 0, 1, 3)
        out = prefill_page_attention(
            jx(ins["q"][0]), jx(np.ascontiguousarray(kc)),
            jx(np.ascontiguousarray(vc)), jx(ins["lens"]), jx(ins["tables"][0]),
            softmax_scale=c.dims["d"] ** -0.5,
            attn_logits_soft_cap=o.get("logits_soft_cap"),
            sliding_window=o.get("sliding_window"))
        return [np.asarray(out)[None]]



class Unified:
    """ejk.unified_attention against ejKernel's XLA unified_attention(
    queries, key_cache, value_cache, kv_lens, block_tables, query_start_loc,
    alibi_slopes, qq_bias, softmax_aux): the same operands in the same
    layout (token-major pages); ejKernel's softmax_scale is passed
    explicitly. Tables: distinct pages in shuffled order."""

    @staticmethod
    def inputs(c, rng):
        d, dt, o = c.dims, c.dtype, c.opts
        seqs, m, s = len(d["qlens"]), d["m"], d["s"]
        pages = seqs * m + 2
        tables = rng.permutation(pages)[:seqs * m].reshape(seqs, m)
        starts = np.concatenate([[0], np.cumsum(d["qlens"])]).astype(np.int32)
        def normal(shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        cache = (pages, s, d["hkv"], d["d"])
        args = [("q", normal((d["t"], d["hq"], d["d"])), dt),
                ("kc", normal(cache), dt), ("vc", normal(cache), dt),
                ("lens", np.array(d["lens"], np.int32), "i32"),
                ("tables", tables.astype(np.int32), "i32"),
                ("starts", starts, "i32")]
        if o.get("alibi"):
            slopes = 2.0 ** (-8.0 * np.arange(1, d["hq"] + 1) / d["hq"])
            args.append(("alibi", slopes.astype(np.float32), "f32"))
        if o.get("qq"):
            args.append(("qq", rng.standard_normal((o["qq"], o["qq"]),
                                                   dtype=np.float32), "f32"))
        if o.get("sinks"):
            args.append(("sinks", rng.standard_normal(d["hq"]).astype(np.float32),
                         "f32"))
        return args

    @staticmethod
    def scale(c):
        return c.opts.get("softmax_scale", c.dims["d"] ** -0.5)

    @staticmethod
    def mlir(c, args):
        o = c.opts
        attrs = paged_attrs(c, Unified.scale(c))
        types = {n: ttype(a.shape, t) for n, a, t in args}
        text = "ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts"
        for name, keyword in (("alibi", "alibi"), ("qq", "qq_bias"),
                              ("sinks", "sinks")):
            if name in types:
                text += " %s(%%%s : %s)" % (keyword, name, types[name])
        text += " {%s} : %s -> %s" % (", ".join(attrs), ", ".join(
            types[n] for n in ("q", "kc", "vc", "lens", "tables", "starts")),
            types["q"])
        return text, [types["q"]]

    @staticmethod
    def reference(c, ins):
        from ejkernel.kernels._xla.unified_attention import unified_attention
        o = c.opts
        out = unified_attention(
            jx(ins["q"]), jx(ins["kc"]), jx(ins["vc"]), jx(ins["lens"]),
            jx(ins["tables"]), jx(ins["starts"]),
            jx(ins["alibi"]) if "alibi" in ins else None,
            jx(ins["qq"]) if "qq" in ins else None,
            jx(ins["sinks"]) if "sinks" in ins else None,
            softmax_scale=Unified.scale(c),
            sliding_window=o.get("sliding_window"),
            logits_soft_cap=o.get("logits_soft_cap"))
        return [np.asarray(out)]


class Chunked:
    """ejKernel's XLA chunked_prefill_paged_decode(queries, keys, values,
    key_cache, value_cache, kv_lens, block_tables, query_start_loc,
    alibi_slopes, softmax_aux) — it writes token j of sequence s at position
    kv_len - q_len + j of the two token-major pools, then runs
    unified_attention (causal) over them — is ejk's ragged_paged_attention
    with new_kv(keys, values) and num_seqs = the number of sequences: the
    output and both updated pools are compared. ejk's fused write has no
    ALiBi; with slopes the case reads the pools that op wrote with
    ejk.unified_attention, and only the output is compared (the pools are
    in the other cases). Tables: distinct pages in shuffled order."""

    @staticmethod
    def inputs(c, rng):
        """Unified's operands (queries, pools, lengths, tables, starts,
        ALiBi slopes, sinks), then num_seqs and the new tokens' K/V."""
        d, dt = c.dims, c.dtype
        args = Unified.inputs(c, rng)
        def normal(shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        return args + [("n", np.array([len(d["qlens"])], np.int32), "i32"),
                       ("k", normal((d["t"], d["hkv"], d["d"])), dt),
                       ("v", normal((d["t"], d["hkv"], d["d"])), dt)]

    scale = Unified.scale

    @staticmethod
    def mlir(c, args):
        o = c.opts
        attrs = paged_attrs(c, Chunked.scale(c))
        attrs = ", ".join(attrs)
        types = {n: ttype(a.shape, t) for n, a, t in args}
        sinks = (" sinks(%%sinks : %s)" % types["sinks"]) if "sinks" in types else ""
        write = ("ejk.ragged_paged_attention %%q, %%kc, %%vc, %%lens, %%tables, "
                 "%%starts, %%n new_kv(%%k, %%v : %s, %s)%s {%s} : %s -> %s" % (
                     types["k"], types["v"], sinks, attrs,
                     ", ".join(types[n] for n in ("q", "kc", "vc", "lens",
                                                  "tables", "starts", "n")),
                     ", ".join(types[n] for n in ("q", "kc", "vc"))))
        if "alibi" not in types:
            return write, [types["q"], types["kc"], types["vc"]]
        read = ("ejk.unified_attention %%q, %%w#1, %%w#2, %%lens, %%tables, "
                "%%starts alibi(%%alibi : %s)%s {%s} : %s -> %s" % (
                    types["alibi"], sinks, attrs,
                    ", ".join(types[n] for n in ("q", "kc", "vc", "lens",
                                                 "tables", "starts")),
                    types["q"]))
        return read, [types["q"]], ["%w:3 = " + write]

    @staticmethod
    def reference(c, ins):
        from ejkernel.kernels._xla.chunked_prefill_paged_decode import (
            chunked_prefill_paged_decode)
        o = c.opts
        out, kc, vc = chunked_prefill_paged_decode(
            jx(ins["q"]), jx(ins["k"]), jx(ins["v"]), jx(ins["kc"]),
            jx(ins["vc"]), jx(ins["lens"]), jx(ins["tables"]),
            jx(ins["starts"]),
            jx(ins["alibi"]) if "alibi" in ins else None,
            jx(ins["sinks"]) if "sinks" in ins else None,
            softmax_scale=Chunked.scale(c), causal=True,
            sliding_window=o.get("sliding_window"),
            logits_soft_cap=o.get("logits_soft_cap"))
        if "alibi" in ins:
            return [np.asarray(out)]
        return [np.asarray(out), np.asarray(kc), np.asarray(vc)]


class RaggedDecode:
    """ejk.ragged_decode_attention against ejKernel's XLA
    ragged_decode_attention(query, key, value, sequence_start, sequence_end,
    softmax_scale, sliding_window=(left, right), logits_soft_cap,
    softmax_aux): the same operands and layout; ejKernel's kv block size is
    its default (256, clamped to seq_len)."""

    @staticmethod
    def inputs(c, rng):
        d, dt, o = c.dims, c.dtype, c.opts
        b = len(d["ends"])
        def normal(shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        kv = (b, d["sl"], d["hkv"], d["d"])
        args = [("q", normal((b, d["hq"], d["d"])), dt),
                ("k", normal(kv), dt), ("v", normal(kv), dt),
                ("starts", np.array(d["starts"], np.int32), "i32"),
                ("ends", np.array(d["ends"], np.int32), "i32")]
        if o.get("sinks"):
            form, n = o["sinks"]
            shape = {"shared": (n,), "kv": (d["hkv"], n),
                     "head": (d["hq"], n)}[form]
            args.append(("sinks", rng.standard_normal(shape).astype(np.float32),
                         "f32"))
        return args

    @staticmethod
    def scale(c):
        return c.opts.get("softmax_scale", c.dims["d"] ** -0.5)

    @staticmethod
    def mlir(c, args):
        o = c.opts
        attrs = ["softmax_scale = %r : f32" % RaggedDecode.scale(c)]
        if "logits_soft_cap" in o:
            attrs.append("logits_soft_cap = %r : f32" % o["logits_soft_cap"])
        if "sliding_window" in o:
            attrs.append("sliding_window = array<i64: %d, %d>" % o["sliding_window"])
        if "config" in o:
            attrs.append("config = #ejk.config<%s>" % o["config"])
        types = {n: ttype(a.shape, t) for n, a, t in args}
        text = "ejk.ragged_decode_attention %q, %k, %v, %starts, %ends"
        if "sinks" in types:
            text += " sinks(%%sinks : %s)" % types["sinks"]
        text += " {%s} : %s -> %s" % (", ".join(attrs), ", ".join(
            types[n] for n in ("q", "k", "v", "starts", "ends")), types["q"])
        return text, [types["q"]]

    @staticmethod
    def reference(c, ins):
        from ejkernel.kernels._xla.ragged_decode_attention import (
            ragged_decode_attention)
        o = c.opts
        window = o.get("sliding_window")
        out = ragged_decode_attention(
            jx(ins["q"]), jx(ins["k"]), jx(ins["v"]), jx(ins["starts"]),
            jx(ins["ends"]), softmax_scale=RaggedDecode.scale(c),
            sliding_window=tuple(window) if window else None,
            logits_soft_cap=o.get("logits_soft_cap"),
            softmax_aux=jx(ins["sinks"]) if "sinks" in ins else None)
        return [np.asarray(out)]


class BlockSparse:
    @staticmethod
    def inputs(c, rng):
        d, dt = c.dims, c.dtype
        def normal(*shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        args = [("q", normal(d["b"], d["sq"], d["hq"], d["d"]), dt),
                ("k", normal(d["b"], d["sk"], d["hkv"], d["d"]), dt),
                ("v", normal(d["b"], d["sk"], d["hkv"], d["d"]), dt)]
        if d["density"] is not None:
            nq, nk = -(-d["sq"] // d["qbs"]), -(-d["sk"] // d["kbs"])
            args.append(("bm", rng.random((d["b"], 1, nq, nk)) < d["density"], "i1"))
        if c.opts.get("segments"):
            for n, s in (("qs", d["sq"]), ("ks", d["sk"])):
                args.append((n, np.sort(rng.integers(0, 3, (d["b"], s)),
                                        axis=1).astype(np.int32), "i32"))
        return args

    @staticmethod
    def mlir(c, args):
        o, d = c.opts, c.dims
        attrs = ["q_block_size = %d : i64" % d["qbs"],
                 "kv_block_size = %d : i64" % d["kbs"]]
        if o.get("causal") is False:
            attrs.append("causal = false")
        if "sliding_window" in o:
            attrs.append("sliding_window = array<i64: %d, %d>" % o["sliding_window"])
        if "chunk_size" in o:
            attrs.append("chunk_size = %d : i64" % o["chunk_size"])
        if "logits_soft_cap" in o:
            attrs.append("logits_soft_cap = %r : f32" % o["logits_soft_cap"])
        if "softmax_scale" in o:
            attrs.append("softmax_scale = %r : f32" % o["softmax_scale"])
        types = {n: ttype(a.shape, t) for n, a, t in args}
        out = ttype(args[0][1].shape, c.dtype)
        text = "ejk.block_sparse_attention %q, %k, %v"
        operand_types = [types["q"], types["k"], types["v"]]
        if "bm" in types:
            text += ", %bm"
            operand_types.append(types["bm"])
        if "qs" in types:
            text += " q_segment_ids(%%qs : %s) kv_segment_ids(%%ks : %s)" % (
                types["qs"], types["ks"])
        text += " {" + ", ".join(attrs) + "}"
        text += " : %s -> %s" % (", ".join(operand_types), out)
        return text, [out]

    @staticmethod
    def ejkernel(c, ins, q, k, v):
        """ejKernel's XLA blocksparse_attention on BSHD q, k, v (jax arrays:
        jax.vjp differentiates through it), BSHD output."""
        # ejKernel's XLA path takes no block mask (its mask_builder is
        # unused there) and ignores chunk_size: both reach it as the token
        # attention_mask they imply.
        import jax.numpy as jnp
        from ejkernel.kernels._xla.blocksparse_attention import \
            blocksparse_attention
        o, d = c.opts, c.dims
        sq, sk = d["sq"], d["sk"]
        # [B, H|1, Sq, Sk], as ejKernel's attention_mask takes it.
        heads = ins["bm"].shape[1] if "bm" in ins else 1
        mask = np.ones((d["b"], heads, sq, sk), dtype=bool)
        if "bm" in ins:
            bm = ins["bm"].astype(bool)
            mask &= bm[:, :, np.arange(sq) // d["qbs"]][:, :, :, np.arange(sk) // d["kbs"]]
        if "chunk_size" in o:
            ch = o["chunk_size"]
            mask &= (np.arange(sq)[:, None] // ch) == (np.arange(sk)[None, :] // ch)
        bhsd = lambda a: jnp.transpose(a, (0, 2, 1, 3))
        out = blocksparse_attention(
            bhsd(q), bhsd(k), bhsd(v),
            q_segment_ids=jx(ins.get("qs")), kv_segment_ids=jx(ins.get("ks")),
            attention_mask=jx(mask), causal=o.get("causal", True),
            sliding_window=o.get("sliding_window"),
            logits_soft_cap=o.get("logits_soft_cap"),
            softmax_scale=o.get("softmax_scale"))
        return jnp.transpose(out, (0, 2, 1, 3))

    @staticmethod
    def reference(c, ins):
        out = BlockSparse.ejkernel(c, ins, jx(ins["q"]), jx(ins["k"]), jx(ins["v"]))
        return [np.asarray(out)]


class BlockSparseGrad:
    """ejk.block_sparse_attention_grad against jax.vjp of ejKernel's XLA
    blocksparse_attention (which defines no custom VJP: jax differentiates
    its dense masked attention; the Triton/CUDA custom VJPs likewise return
    dq, dk and dv only). ejk's entry runs ejk.block_sparse_attention and
    feeds its output and lse to the backward, as FlashAttentionGrad does."""
    # Gradients: rounding follows each result's largest element (as
    # FlashAttentionGrad's).
    scaled_atol = True

    @staticmethod
    def inputs(c, rng):
        d = c.dims
        args = BlockSparse.inputs(c, rng)  # q, k, v[, bm][, qs, ks]
        do = rng.standard_normal((d["b"], d["sq"], d["hq"], d["d"]), dtype=np.float32)
        args.insert(3, ("do", do.astype(np_dtype(c.dtype)), c.dtype))
        return args

    @staticmethod
    def mlir(c, args):
        d = c.dims
        fwd_args = [a for a in args if a[0] != "do"]
        forward, (out,) = BlockSparse.mlir(c, fwd_args)
        lse = ttype((d["b"], d["hq"], d["sq"]), "f32")
        forward = forward.replace(" -> %s" % out, " -> %s, %s" % (out, lse))
        types = {n: ttype(a.shape, t) for n, a, t in args}
        # The forward's operands, clauses and attributes, with the backward's
        # extra operands after v.
        head, rest = forward.split(" {", 1)
        attrs, operand_types = rest.split("} : ", 1)
        operand_types = operand_types.split(" -> ")[0].split(", ")
        text = head.replace("ejk.block_sparse_attention %q, %k, %v",
                            "ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse")
        text += " {" + attrs + "}"
        results = [types["q"], types["k"], types["v"]]
        text += " : %s, %s, %s, %s%s -> %s" % (
            ", ".join(operand_types[:3]), out, types["do"], lse,
            "".join(", " + t for t in operand_types[3:]), ", ".join(results))
        return text, results, ["%%o, %%lse = %s" % forward]

    @staticmethod
    def reference(c, ins):
        import jax
        _, vjp = jax.vjp(lambda q, k, v: BlockSparse.ejkernel(c, ins, q, k, v),
                         jx(ins["q"]), jx(ins["k"]), jx(ins["v"]))
        return [np.asarray(g) for g in vjp(jx(ins["do"]))]


class NativeSparse:
    @staticmethod
    def inputs(c, rng):
        d, dt, o = c.dims, c.dtype, c.opts
        def normal(*shape):
            return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype(dt))
        b, t, hq, hkv = d["b"], d["t"], d["hq"], d["hkv"]
        args = [("q", normal(b, t, hq, d["d"]), dt),
                ("k", normal(b, t, hkv, d["d"]), dt),
                ("v", normal(b, t, hkv, d["d"]), dt)]
        if o.get("ties"):
            # Every key block a copy of the first: equal compressed keys,
            # equal selection sums, so the order comes from the tie term
            # (f32(c) * 1e-8, lost in rounding for small c) and top_k's
            # lower-index rule.
            k = args[1][1]
            reps = -(-t // d["bs"])
            args[1] = ("k", np.tile(k[:, :d["bs"]], (1, reps, 1, 1))[:, :t], dt)
        for g in o.get("gates", ()):
            args.append(("g" + g, rng.random((b, t, hq), dtype=np.float32)
                         .astype(np_dtype(dt)), dt))
        if "indices" in o:
            nb = -(-t // d["bs"])
            slots = o.get("slots", d["counts"])
            if o["indices"] == "token":
                idx = rng.integers(-1, nb + 1, (b, t, hkv, slots))
                idx[..., 0] = (np.arange(t) // d["bs"])[None, :, None]
            else:
                idx = rng.integers(-1, nb + 1, (b, hkv, nb, slots))
                idx[..., 0] = np.arange(nb)[None, None, :]
            args.append(("bi", idx.astype(np.int32), "i32"))
        return args

    @staticmethod
    def mlir(c, args):
        o, d = c.opts, c.dims
        attrs = ["block_size = %d : i64" % d["bs"],
                 "block_counts = %d : i64" % d["counts"]]
        if "window" in o:
            attrs.append("window_size = %d : i64" % o["window"])
        if "softmax_scale" in o:
            attrs.append("softmax_scale = %r : f32" % o["softmax_scale"])
        types = {n: ttype(a.shape, t) for n, a, t in args}
        out = types["q"]
        text = "ejk.native_sparse_attention %q, %k, %v"
        for n, name in (("gcmp", "g_cmp"), ("gslc", "g_slc"), ("gswa", "g_swa"),
                        ("bi", "block_indices")):
            if n in types:
                text += " %s(%%%s : %s)" % (name, n, types[n])
        text += " {" + ", ".join(attrs) + "}"
        text += " : %s, %s, %s -> %s" % (types["q"], types["k"], types["v"], out)
        return text, [out]

    @staticmethod
    def reference(c, ins):
        from ejkernel.kernels._xla.native_sparse_attention import \
            native_sparse_attention
        o, d = c.opts, c.dims
        if o.get("upcast"):
            ins = {n: a.astype(np.float32) if a.dtype != np.int32 else a
                   for n, a in ins.items()}
        if o.get("public"):
            # The public operation, XLA platform, its heuristic block size.
            from ejkernel.modules.operations import \
                native_sparse_attention as public_nsa
            out = public_nsa(jx(ins["q"]), jx(ins["k"]), jx(ins["v"]),
                             jx(ins.get("gcmp")), jx(ins.get("gslc")), None,
                             d["counts"], softmax_scale=o.get("softmax_scale"),
                             platform="xla")
        elif o.get("indices") == "block":
            # The public XLA function's type hints take per-token indices
            # only; the per-query-block layout its docstring promises is
            # accepted by apply_native_sparse_attention, which it calls.
            from ejkernel.kernels._xla.native_sparse_attention import \
                apply_native_sparse_attention
            out = apply_native_sparse_attention(
                jx(ins["q"]), jx(ins["k"]), jx(ins["v"]), jx(ins["bi"]),
                d["counts"], d["bs"], softmax_scale=o.get("softmax_scale"))
            if "gslc" in ins:
                out = out * jx(ins["gslc"])[..., None]
        else:
            out = native_sparse_attention(
                jx(ins["q"]), jx(ins["k"]), jx(ins["v"]),
                g_cmp=jx(ins.get("gcmp")), g_slc=jx(ins.get("gslc")),
                block_indices=jx(ins.get("bi")), block_counts=d["counts"],
                block_size=d["bs"], softmax_scale=o.get("softmax_scale"))
        out = np.asarray(out, np.float32)
        if "window" in o:
            # NSA's sliding-window branch (ejKernel has none): causal
            # attention over the last `window` keys, ejKernel's
            # flash_attention with sliding_window = (window - 1, 0).
            from ejkernel.kernels._xla.flash_attention import flash_attention
            swa = flash_attention(jx(ins["q"]), jx(ins["k"]), jx(ins["v"]),
                                  causal=True,
                                  sliding_window=(o["window"] - 1, 0),
                                  softmax_scale=o.get("softmax_scale"))
            out = out + np.asarray(swa, np.float32) * \
                np.asarray(ins["gswa"], np.float32)[..., None]
        return [out]


FAMILIES = {"flash_attention": FlashAttention,
            "flash_attention_grad": FlashAttentionGrad, "selective_scan": SelectiveScan,
            "ssd": Ssd, "grouped_matmul": GroupedMatmul,
            "transposed_grouped_matmul": TransposedGroupedMatmul,
            "mean_pooling": MeanPooling, "mean_pooling_grad": MeanPoolingGrad,
            "paged": PagedAttention, "gla": Gla, "lightning": Lightning,
            "recurrent": Recurrent, "delta": Delta, "mla": Mla,
            "paged_mla": PagedMla, "ragged_paged": RaggedPaged,
            "prefill_paged": PrefillPaged, "unified": Unified,
            "chunked": Chunked, "ragged_delta": RaggedDelta,
            "ragged_decode": RaggedDecode, "block_sparse": BlockSparse,
            "block_sparse_grad": BlockSparseGrad,
            "native_sparse": NativeSparse}


# --- running ------------------------------------------------------------------

def prepare(c, work):
    """Writes the case's inputs and entry; returns (inputs, ejk-run argv)."""
    fam = FAMILIES[c.family]
    args = fam.inputs(c, np.random.default_rng(c.seed))
    # A family may return lines that precede its op (the forward whose
    # output the backward takes).
    op, results, *before = fam.mlir(c, args)
    before = "".join("  %s\n" % line for line in (before[0] if before else []))
    d = os.path.join(work, c.name)
    os.makedirs(d, exist_ok=True)
    params = ", ".join("%%%s: %s" % (n, ttype(a.shape, t)) for n, a, t in args)
    names = ", ".join("%%r%d" % i for i in range(len(results)))
    mlir = ("// conformance case %s (generated by test/Conformance/conformance.py)\n"
            "func.func @main(%s) -> (%s) {\n%s  %s = %s\n  return %s : %s\n}\n" %
            (c.name, params, ", ".join(results), before, names, op, names, ", ".join(results)))
    with open(os.path.join(d, "case.mlir"), "w") as f:
        f.write(mlir)
    argv = [os.path.join(d, "case.mlir"), "--entry", "main"]
    for n, a, _ in args:
        path = os.path.join(d, n + ".npy")
        np.save(path, to_npy(a))
        argv += ["--input", path]
    outs = [os.path.join(d, "out%d.npy" % i) for i in range(len(results))]
    for p in outs:
        argv += ["--output", p]
    out_dtypes = [r.rsplit("x", 1)[1].rstrip(">") for r in results]
    return {n: a for n, a, _ in args}, argv, list(zip(outs, out_dtypes))


def run_ejk(ejk_run, argv):
    p = subprocess.run([ejk_run] + argv, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


def compare(c, got, want):
    """Max abs error and whether every element is within tolerance."""
    atol, rtol = TOLERANCES[c.dtype]
    # A family whose rounding follows a result's largest element (gradients)
    # scales atol by it.
    scaled = getattr(FAMILIES[c.family], "scaled_atol", False)
    # A family whose results may be infinite by definition (paged_attention's
    # lse of an empty sequence is -inf) lets equal infinities agree.
    same_inf = getattr(FAMILIES[c.family], "matching_infinities", False)
    worst, ok = 0.0, True
    if len(got) != len(want):
        return float("inf"), False
    for g, w in zip(got, want):
        g = np.asarray(g, np.float64)
        w = np.asarray(w, np.float64)
        if g.shape != w.shape:
            return float("inf"), False
        inf = (np.isinf(w) & (g == w)) if same_inf else np.zeros(w.shape, bool)
        with np.errstate(invalid="ignore"):
            err = np.where(inf, 0.0, np.abs(g - w))
        if not np.all(np.isfinite(g) | inf) or not np.all(np.isfinite(w) | inf):
            ok = False  # NaN/inf never pass (no case has a fully masked row)
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0))) if scaled else 1.0
        ok = ok and bool(np.all(err <= atol * scale + rtol * np.abs(w)))
        worst = max(worst, float(np.nanmax(err)) if err.size else 0.0)
    return worst, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", help="directory of ejk-run (default: PATH)")
    ap.add_argument("--case", action="append",
                    help="run only cases whose name matches (glob; repeatable)")
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES),
                    help="run only this op family (repeatable)")
    ap.add_argument("--work-dir", help="keep inputs, entries and outputs here")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="ejk-run processes at once")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    a = ap.parse_args()

    cases = [c for c in CASES
             if (not a.family or c.family in a.family)
             and (not a.case or any(fnmatch.fnmatch(c.name, p) or p == c.name
                                    for p in a.case))]
    if a.list:
        for c in cases:
            print("%-24s %-16s %-5s %s %s%s" % (c.name, c.family, c.dtype, c.dims, c.opts,
                                               "  [known difference]" if c.known_difference else ""))
        return 0
    if not cases:
        print("conformance: no case matches", file=sys.stderr)
        return 2

    ejk_run = (os.path.join(a.bin_dir, "ejk-run") if a.bin_dir
               else shutil.which("ejk-run"))
    if not ejk_run or not os.access(ejk_run, os.X_OK):
        print("conformance: error: ejk-run not found (%s); pass --bin-dir BUILD/bin"
              % (ejk_run or "not on PATH"), file=sys.stderr)
        return 2

    work = a.work_dir or tempfile.mkdtemp(prefix="ejk-conformance-")
    os.makedirs(work, exist_ok=True)
    # ejKernel on the CPU, without autotuning (it would time candidates) and
    # with its config cache in the work dir, never the user's.
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["EJKERNEL_AUTOTUNE_POLICY"] = "heuristics"
    os.environ["EJKERNEL_PERSISTENT_CACHE_DIR"] = os.path.join(work, "ejkernel-cache")
    # ejk's artifact cache: lit gives each run a fresh one; alone, use ours.
    os.environ.setdefault("EJK_CACHE_DIR", os.path.join(work, "ejk-cache"))

    start = time.time()
    prepared = {c.name: prepare(c, work) for c in cases}
    failures = 0
    # ejk-run compiles each entry (seconds): run them in the background while
    # this process evaluates ejKernel, which is single-threaded Python here.
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        futures = {c.name: pool.submit(run_ejk, ejk_run, prepared[c.name][1]) for c in cases}
        import jax  # noqa: F401  (after the environment above is set)
        for c in cases:
            ins, argv, outs = prepared[c.name]
            want = FAMILIES[c.family].reference(c, ins)
            rc, log = futures[c.name].result()
            if rc != 0 and c.known_error and c.known_error[0] in log:
                print("XFAIL %-24s ejk-run fails -- known error: %s" % (c.name, c.known_error[1]))
                continue
            if rc != 0:
                print("ERROR %-24s ejk-run exited %d:\n%s\n  rerun: %s %s" %
                      (c.name, rc, log.strip(), ejk_run, " ".join(argv)))
                failures += 1
                continue
            got = [from_npy(np.load(p), dt) for p, dt in outs]
            err, ok = compare(c, got, want)
            atol, rtol = TOLERANCES[c.dtype]
            tol = "tol %.0e%s + %.0e*|ref|" % (
                atol, "*max(1, max|ref|)" if getattr(FAMILIES[c.family], "scaled_atol", False)
                else "", rtol)
            if c.known_difference:
                status = "XPASS" if ok else "XFAIL"
                if ok:
                    failures += 1
                print("%s %-24s max abs err %.3g (%s) -- known difference: %s%s" %
                      (status, c.name, err, tol, c.known_difference,
                       "; it now agrees: move the case out of the known differences"
                       " and update docs/conformance.md" if ok else ""))
            else:
                print("%s  %-24s max abs err %.3g (%s)" % ("PASS" if ok else "FAIL", c.name, err, tol))
                if not ok:
                    failures += 1
                    print("      inputs and entry in %s; rerun: %s %s" %
                          (os.path.join(work, c.name), ejk_run, " ".join(argv)))
    print("conformance: %d cases, %d failed, %.1f s" % (len(cases), failures, time.time() - start))
    if not a.work_dir and not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

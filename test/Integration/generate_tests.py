#!/usr/bin/env python3
"""Writes the integration tests of every op family:
test/Integration/CPU/<family>/*.mlir and the same matrix for Vulkan,
test/Integration/Vulkan/<family>/*.mlir (`REQUIRES: vulkan`; they run on
whatever Vulkan device EJK_VULKAN_DEVICE picks: lavapipe in CI).

Each generated file holds several entry functions and one RUN line per entry:
ejk-run compiles the file, runs the entry on seeded random inputs (with each
op's input ranges, e.g. Mamba's for A, the step sizes and their biases) and
--check compares every result with the reference evaluator. A family is one
table at the bottom (FAMILIES): its folder, its files with their cases, its
CHECK lines. Regenerate with
  python3 test/Integration/generate_tests.py
and commit the result; the files are plain lit tests.
"""
import os

ROOT = os.path.dirname(os.path.abspath(__file__))


def tensor(shape, dtype):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dtype + ">"


# --- attention -------------------------------------------------------------

# FlashAttention-2's alignment of the causal diagonal and the window (the
# last query on the last key), which decode against a longer cache needs;
# without it the masks are top-left aligned, as ejKernel's.
BOTTOM_RIGHT = 'mask_alignment = "bottom_right"'

class Attention:
    """One ejk.flash_attention entry."""

    def __init__(self, name, b=1, sq=16, sk=16, hq=2, hkv=2, d=32, dv=None,
                 dtype="f32", attrs=None, bias=None, mask=None,
                 segments=False, lse=True, cpu_config=None, sinks=None,
                 padding=False, cum_q=False, cum_k=False, sinks_dtype="f32"):
        self.name, self.b, self.sq, self.sk = name, b, sq, sk
        self.hq, self.hkv, self.d, self.dv = hq, hkv, d, dv or d
        self.dtype, self.attrs = dtype, attrs or []
        self.bias, self.mask, self.segments, self.lse = bias, mask, segments, lse
        # Issue 16's options: sinks = (per_head, num_sinks), a [B, S]
        # padding mask, cumulative lengths of the queries / keys.
        self.sinks, self.sinks_dtype = sinks, sinks_dtype
        self.padding, self.cum_q, self.cum_k = padding, cum_q, cum_k
        # A config for the CPU only (Vulkan compiles the case with its
        # heuristic).
        self.cpu_config = cpu_config

    def function(self, target="cpu"):
        q = tensor([self.b, self.sq, self.hq, self.d], self.dtype)
        k = tensor([self.b, self.sk, self.hkv, self.d], self.dtype)
        v = tensor([self.b, self.sk, self.hkv, self.dv], self.dtype)
        o = tensor([self.b, self.sq, self.hq, self.dv], self.dtype)
        args = [f"%q: {q}", f"%k: {k}", f"%v: {v}"]
        extra = ""
        if self.bias:
            bb, bh, bdt = self.bias
            t = tensor([bb, bh, self.sq, self.sk], bdt)
            args.append(f"%bias: {t}")
            extra += f" bias(%bias : {t})"
        if self.mask:
            mb, mh = self.mask
            t = tensor([mb, mh, self.sq, self.sk], "i1")
            args.append(f"%mask: {t}")
            extra += f" mask(%mask : {t})"
        if self.segments:
            qs = tensor([self.b, self.sq], "i32")
            ks = tensor([self.b, self.sk], "i32")
            args += [f"%qs: {qs}", f"%ks: {ks}"]
            extra += f" q_segment_ids(%qs : {qs}) kv_segment_ids(%ks : {ks})"
        if self.sinks:
            per_head, n = self.sinks
            t = tensor([self.hq, n] if per_head else [n], self.sinks_dtype)
            args.append(f"%sinks: {t}")
            extra += f" softmax_aux(%sinks : {t})"
        if self.padding:
            t = tensor([self.b, self.sq], "i1")
            args.append(f"%pad: {t}")
            extra += f" padding_mask(%pad : {t})"
        for enabled, name in ((self.cum_q, "cum_seqlens_q"), (self.cum_k, "cum_seqlens_k")):
            if enabled:
                t = tensor([self.b + 1], "i32")
                args.append(f"%{name}: {t}")
                extra += f" {name}(%{name} : {t})"
        results = [o]
        if self.lse:
            results.append(tensor([self.b, self.hq, self.sq], "f32"))
        attrs = list(self.attrs)
        if self.cpu_config and target == "cpu":
            attrs.append(f"config = #ejk.config<{self.cpu_config}>")
        attrs = " {" + ", ".join(attrs) + "}" if attrs else ""
        names = "%o, %lse" if self.lse else "%o"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.flash_attention %q, %k, %v{extra}{attrs}\n"
            f"      : {q}, {k}, {v} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


def attention_files():
    """The attention table: (file name, summary, cases) per file."""
    files = []
    files.append(("head-dims.mlir", "Head dims 32/64/80/128/256, with and without causal.", [
        Attention(f"d{d}{'_causal' if c else ''}", sq=77, sk=77, d=d,
             attrs=["causal"] if c else [])
        for d in (32, 64, 80, 128, 256) for c in (False, True)
    ] + [Attention("dv_differs", sq=33, sk=40, d=64, dv=32)]))

    seqs = [(1, 1), (1, 1000), (7, 7), (7, 77), (77, 7), (77, 1000), (1000, 77), (1000, 1000)]
    files.append(("seq-lengths.mlir", "Sq and Sk in {1, 7, 77, 1000}, equal and unequal, causal and not.", [
        Attention(f"s{sq}_{sk}{'_causal' if c else ''}", sq=sq, sk=sk, d=64, hq=2, hkv=1,
             attrs=["causal"] if c else [])
        for sq, sk in seqs for c in (False, True)
    ]))

    files.append(("options.mlir", "Every flash_attention option alone.", [
        Attention("scale", sq=40, sk=50, attrs=["softmax_scale = 0.3 : f32"]),
        Attention("causal_square", sq=64, sk=64, attrs=["causal"]),
        Attention("causal_more_queries", sq=50, sk=20, attrs=["causal"]),
        Attention("causal_bottom_right", sq=20, sk=50, attrs=["causal", BOTTOM_RIGHT]),
        Attention("causal_more_queries_bottom_right", sq=50, sk=20,
             attrs=["causal", BOTTOM_RIGHT]),
        Attention("window_bottom_right", sq=40, sk=90,
             attrs=["sliding_window = array<i64: 8, 8>", BOTTOM_RIGHT]),
        Attention("window_left", sq=60, sk=60, attrs=["sliding_window = array<i64: 16, 0>"]),
        Attention("window_right", sq=60, sk=60, attrs=["sliding_window = array<i64: 0, 16>"]),
        Attention("window_both", sq=40, sk=90, attrs=["sliding_window = array<i64: 8, 8>"]),
        Attention("window_empty_rows", sq=60, sk=10, attrs=["sliding_window = array<i64: 2, 0>"]),
        Attention("window_symmetric", sq=50, sk=50, attrs=["sliding_window = array<i64: 6>"]),
        Attention("soft_cap", sq=33, sk=45, attrs=["logits_soft_cap = 2.0 : f32", "softmax_scale = 1.0 : f32"]),
        Attention("bias_full", b=2, sq=20, sk=30, bias=(2, 2, "f32")),
        Attention("bias_broadcast", b=2, sq=20, sk=30, bias=(1, 1, "f32")),
        Attention("bias_heads", b=2, sq=20, sk=30, bias=(1, 2, "f32")),
        Attention("mask_full", b=2, sq=20, sk=30, mask=(2, 2)),
        Attention("mask_broadcast", b=2, sq=20, sk=30, mask=(1, 1)),
        Attention("segments", b=2, sq=25, sk=35, segments=True),
        Attention("dropout", sq=30, sk=40, attrs=["dropout_prob = 0.25 : f32", "dropout_seed = 1234 : i64"]),
        Attention("dropout_big_seed", sq=17, sk=70, attrs=["dropout_prob = 0.6 : f32", "dropout_seed = 81985529216486895 : i64"]),
        Attention("no_lse", sq=20, sk=20, lse=False),
    ]))

    files.append(("combinations.mlir", "Options together, GQA 8:1 and 4:2.", [
        Attention("gqa_8_1", sq=33, sk=45, hq=8, hkv=1),
        Attention("gqa_4_2", sq=33, sk=45, hq=4, hkv=2, attrs=["causal"]),
        Attention("everything", b=2, sq=40, sk=56, hq=4, hkv=2, d=64,
             attrs=["causal", "sliding_window = array<i64: 24, 4>", "logits_soft_cap = 5.0 : f32",
                    "dropout_prob = 0.1 : f32", "dropout_seed = 7 : i64", "softmax_scale = 0.2 : f32"],
             bias=(1, 4, "f32"), mask=(2, 1), segments=True),
        Attention("causal_window_gqa", sq=100, sk=130, hq=8, hkv=2, d=80,
             attrs=["causal", "sliding_window = array<i64: 32, 0>"]),
        Attention("causal_window_gqa_bottom_right", sq=100, sk=130, hq=8, hkv=2, d=80,
             attrs=["causal", BOTTOM_RIGHT, "sliding_window = array<i64: 32, 0>"]),
        Attention("mask_segments_causal", b=2, sq=30, sk=30, hq=4, hkv=4, mask=(1, 4), segments=True,
             attrs=["causal"]),
    ]))

    files.append(("decode.mlir", "Short queries (decode): the query heads of a KV head share a "
          "workgroup and K/V are read in place on the CPU; every option, GQA and MQA, "
          "head dims that are not whole vectors, f16/bf16.", [
        Attention("gqa_4_1", b=2, sq=1, sk=77, hq=8, hkv=2, d=64),
        Attention("mqa", sq=1, sk=300, hq=8, hkv=1, d=128),
        Attention("no_group", sq=1, sk=45, hq=4, hkv=4, attrs=["logits_soft_cap = 2.0 : f32"]),
        Attention("causal_odd_dim", sq=3, sk=50, hq=4, hkv=1, d=40, attrs=["causal", BOTTOM_RIGHT]),
        Attention("window", sq=2, sk=90, hq=4, hkv=2, attrs=["sliding_window = array<i64: 8, 0>", BOTTOM_RIGHT]),
        Attention("bias_heads", b=2, sq=1, sk=33, hq=4, hkv=1, bias=(1, 4, "f32")),
        Attention("mask", b=2, sq=2, sk=40, hq=4, hkv=2, mask=(2, 4)),
        Attention("segments", b=2, sq=3, sk=30, hq=4, hkv=2, segments=True),
        Attention("dropout", sq=1, sk=70, hq=8, hkv=2,
             attrs=["dropout_prob = 0.3 : f32", "dropout_seed = 5 : i64"]),
        Attention("dv_differs", sq=1, sk=20, hq=4, hkv=2, d=64, dv=24),
        Attention("f16", sq=1, sk=130, hq=8, hkv=2, d=128, dtype="f16"),
        Attention("bf16_causal", sq=4, sk=61, hq=4, hkv=1, d=40, dtype="bf16", attrs=["causal", BOTTOM_RIGHT]),
        Attention("everything", b=2, sq=3, sk=56, hq=8, hkv=2, d=48,
             attrs=["causal", BOTTOM_RIGHT, "sliding_window = array<i64: 24, 4>", "logits_soft_cap = 5.0 : f32",
                    "dropout_prob = 0.1 : f32", "dropout_seed = 7 : i64"],
             bias=(1, 8, "f32"), mask=(2, 1), segments=True),
        # Keys split across workgroups (CPU key_splits) and combined: more
        # splits than a causal or windowed row reaches (empty splits), the
        # lse, dropout, f16, packed K^T (16 grouped rows) and in place.
        Attention("split_mqa", sq=1, sk=300, hq=8, hkv=1, d=64,
             cpu_config="block_q = 8, block_k = 16, key_splits = 5"),
        Attention("split_causal_window", sq=3, sk=100, hq=4, hkv=2, d=32,
             attrs=["causal", BOTTOM_RIGHT, "sliding_window = array<i64: 20, 0>"],
             cpu_config="block_q = 8, block_k = 16, key_splits = 7"),
        Attention("split_dropout_f16", b=2, sq=2, sk=77, hq=4, hkv=1, d=64, dtype="f16",
             attrs=["dropout_prob = 0.2 : f32", "dropout_seed = 3 : i64"],
             cpu_config="block_q = 8, block_k = 32, key_splits = 3"),
        Attention("split_packed_rows", sq=2, sk=130, hq=16, hkv=2, d=48,
             bias=(1, 16, "f32"), segments=True,
             cpu_config="block_q = 16, block_k = 16, key_splits = 4"),
        Attention("split_no_group", sq=1, sk=64, hq=2, hkv=2, d=32, lse=False,
             cpu_config="block_q = 1, block_k = 16, key_splits = 4"),
    ]))

    unnormalized = "normalize_output = false"
    files.append(("sinks-padding-varlen.mlir", "Attention sinks (softmax_aux), [B, S] padding "
          "masks, variable-length batches (cum_seqlens_q/k) and normalize_output = false, "
          "alone and together (issue 16).", [
        Attention("sinks_per_head", sq=40, sk=50, hq=4, hkv=2, sinks=(True, 3)),
        Attention("sinks_shared", sq=40, sk=50, hq=4, hkv=2, sinks=(False, 1)),
        Attention("sinks_causal_empty_rows", sq=30, sk=10, attrs=["sliding_window = array<i64: 2, 0>"],
             sinks=(True, 2)),
        Attention("sinks_f16", sq=33, sk=70, hq=4, hkv=1, d=64, dtype="f16", sinks=(True, 4),
             sinks_dtype="f16"),
        Attention("sinks_bf16_causal", sq=45, sk=45, hq=4, hkv=2, d=64, dtype="bf16",
             attrs=["causal"], sinks=(False, 2), sinks_dtype="bf16"),
        Attention("sinks_dropout", sq=30, sk=40, sinks=(True, 2),
             attrs=["dropout_prob = 0.25 : f32", "dropout_seed = 1234 : i64"]),
        Attention("sinks_decode_gqa", b=2, sq=1, sk=77, hq=8, hkv=2, d=64, sinks=(True, 2)),
        Attention("sinks_split_keys", sq=1, sk=300, hq=8, hkv=1, d=64, sinks=(True, 2),
             cpu_config="block_q = 8, block_k = 16, key_splits = 5"),
        Attention("sinks_no_lse", sq=20, sk=20, sinks=(True, 1), lse=False),
        Attention("unnormalized", sq=40, sk=50, attrs=[unnormalized]),
        Attention("unnormalized_causal_sinks", sq=50, sk=50, hq=4, hkv=2,
             attrs=[unnormalized, "causal"], sinks=(True, 2)),
        Attention("unnormalized_split_keys", sq=2, sk=130, hq=4, hkv=1, d=32,
             attrs=[unnormalized], cpu_config="block_q = 8, block_k = 16, key_splits = 4"),
        Attention("unnormalized_f16", sq=33, sk=47, hq=2, hkv=2, d=64, dtype="f16",
             attrs=[unnormalized, "sliding_window = array<i64: 8>"]),
        Attention("padding", b=3, sq=40, sk=40, hq=4, hkv=2, padding=True),
        Attention("padding_causal", b=2, sq=70, sk=70, hq=2, hkv=1, d=64, padding=True,
             attrs=["causal"]),
        Attention("padding_mask_segments", b=2, sq=30, sk=30, hq=4, hkv=4, padding=True,
             mask=(2, 1), segments=True),
        Attention("padding_decode", b=2, sq=1, sk=1, hq=8, hkv=2, padding=True),
        Attention("varlen", b=3, sq=40, sk=60, hq=4, hkv=2, cum_q=True, cum_k=True),
        Attention("varlen_q_only", b=2, sq=40, sk=40, cum_q=True, attrs=["causal"]),
        Attention("varlen_k_only", b=3, sq=5, sk=90, hq=4, hkv=1, cum_k=True),
        Attention("varlen_causal", b=3, sq=64, sk=64, hq=4, hkv=2, d=64, cum_q=True, cum_k=True,
             attrs=["causal"]),
        Attention("varlen_causal_bottom_right", b=3, sq=40, sk=100, hq=4, hkv=2, cum_q=True,
             cum_k=True, attrs=["causal", BOTTOM_RIGHT]),
        Attention("varlen_window_bottom_right", b=2, sq=50, sk=80, cum_q=True, cum_k=True,
             attrs=["sliding_window = array<i64: 12, 3>", BOTTOM_RIGHT]),
        Attention("varlen_decode_split_keys", b=3, sq=1, sk=200, hq=4, hkv=1, cum_k=True,
             cpu_config="block_q = 4, block_k = 16, key_splits = 3"),
        Attention("varlen_bf16", b=2, sq=33, sk=66, hq=4, hkv=2, d=80, dtype="bf16", cum_q=True,
             cum_k=True, attrs=["causal"]),
        Attention("everything", b=3, sq=48, sk=48, hq=4, hkv=2, d=64,
             attrs=["causal", BOTTOM_RIGHT, "sliding_window = array<i64: 20, 4>",
                    "logits_soft_cap = 5.0 : f32", "dropout_prob = 0.1 : f32",
                    "dropout_seed = 7 : i64", unnormalized],
             bias=(1, 4, "f32"), mask=(3, 1), segments=True, sinks=(True, 2), padding=True,
             cum_q=True, cum_k=True),
    ]))

    files.append(("dtypes.mlir", "f16 and bf16 inputs with f32 accumulation.", [
        Attention(f"{dt}_{name}", sq=45, sk=67, hq=4, hkv=2, d=d, dtype=dt, attrs=attrs,
             bias=bias)
        for dt in ("f16", "bf16")
        for name, d, attrs, bias in (
            ("plain", 64, [], None),
            ("causal", 128, ["causal"], None),
            ("bias", 32, [], (1, 1, dt)),
            ("window_softcap", 80, ["sliding_window = array<i64: 10, 10>", "logits_soft_cap = 3.0 : f32"], None),
            ("dropout", 64, ["dropout_prob = 0.2 : f32", "dropout_seed = 99 : i64"], (1, 4, "f32")),
        )
    ]))
    return files


# --- state space -----------------------------------------------------------

def optional_operands(operands):
    """The entry arguments and the op's clauses of the enabled optional
    operands: (enabled, argument name, clause keyword, type) each."""
    args, clauses = [], ""
    for enabled, name, keyword, type_ in operands:
        if enabled:
            args.append(f"%{name}: {type_}")
            clauses += f" {keyword}(%{name} : {type_})"
    return args, clauses


def attr_dict(case, attrs, target):
    """The op's attribute dictionary: `attrs` and the case's config (its
    Vulkan config when it has one and the target is Vulkan)."""
    config = (case.vulkan_config if target == "vulkan" and case.vulkan_config
              else case.config)
    if config:
        attrs = attrs + [f"config = #ejk.config<{config}>"]
    return " {" + ", ".join(attrs) + "}" if attrs else ""


class Scan:
    """One ejk.selective_scan entry."""

    def __init__(self, name, b=1, l=16, d=32, n=16, g=1, dtype="f32",
                 skip=False, z=False, bias=False, softplus=False, init=False,
                 final=False, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        x = tensor([self.b, self.l, self.d], self.dtype)
        a = tensor([self.d, self.n], "f32")
        bc = tensor([self.b, self.l, self.g, self.n], self.dtype)
        vec = tensor([self.d], "f32")
        state = tensor([self.b, self.d, self.n], "f32")
        optional, extra = optional_operands([
            (self.skip, "D", "D", vec), (self.z, "z", "z", x),
            (self.bias, "bias", "delta_bias", vec),
            (self.init, "h0", "initial_state", state)])
        args = [f"%u: {x}", f"%delta: {x}", f"%A: {a}", f"%B: {bc}",
                f"%C: {bc}"] + optional
        attrs = attr_dict(self, ["delta_softplus"] if self.softplus else [],
                          target)
        results = [x] + ([state] if self.final else [])
        names = "%y, %h" if self.final else "%y"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.selective_scan %u, %delta, %A, %B, %C{extra}{attrs}\n"
            f"      : {x}, {x}, {a}, {bc}, {bc} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


class Ssd:
    """One ejk.ssd entry."""

    def __init__(self, name, b=1, l=16, h=2, p=16, n=16, g=1, dtype="f32",
                 skip=False, z=False, bias=False, softplus=False, init=False,
                 final=False, chunk=None, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        x = tensor([self.b, self.l, self.h, self.p], self.dtype)
        dt = tensor([self.b, self.l, self.h], self.dtype)
        a = tensor([self.h], "f32")
        bc = tensor([self.b, self.l, self.g, self.n], self.dtype)
        state = tensor([self.b, self.h, self.p, self.n], "f32")
        optional, extra = optional_operands([
            (self.skip, "D", "D", a), (self.z, "z", "z", x),
            (self.bias, "bias", "dt_bias", a),
            (self.init, "s0", "initial_state", state)])
        args = [f"%x: {x}", f"%dt: {dt}", f"%A: {a}", f"%B: {bc}",
                f"%C: {bc}"] + optional
        attrs = ([f"chunk_size = {self.chunk} : i64"] if self.chunk else []) + \
            (["dt_softplus"] if self.softplus else [])
        attrs = attr_dict(self, attrs, target)
        results = [x] + ([state] if self.final else [])
        names = "%y, %s" if self.final else "%y"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.ssd %x, %dt, %A, %B, %C{extra}{attrs}\n"
            f"      : {x}, {dt}, {a}, {bc}, {bc} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


ALL = dict(skip=True, z=True, bias=True, softplus=True, init=True, final=True)

STATE_SPACE_FILES = {
    "selective-scan-seq-lengths.mlir": (
        "ejk.selective_scan over L = 1, 7, 300 and 2048.",
        [Scan("l1", l=1), Scan("l7", l=7), Scan("l300", l=300, **ALL),
         Scan("l2048", l=2048, d=16, softplus=True, skip=True, final=True)]),
    "selective-scan-options.mlir": (
        "Every optional part of ejk.selective_scan alone, then all together.",
        [Scan("skip", skip=True), Scan("gate", z=True),
         Scan("bias", bias=True), Scan("softplus", softplus=True),
         Scan("bias_softplus", bias=True, softplus=True),
         Scan("initial_state", init=True), Scan("final_state", final=True),
         Scan("all", l=45, **ALL)]),
    "selective-scan-shapes.mlir": (
        "ejk.selective_scan shapes: groups (vector-aligned and not), odd "
        "channel and state counts, batches, f16/bf16, configs with tails.",
        [Scan("groups2", d=64, g=2, l=20, **ALL),
         Scan("groups3_unaligned", d=24, g=3, l=20, **ALL),
         Scan("odd_channels", d=20, l=9, **ALL),
         Scan("odd_state", n=5, l=9, **ALL),
         Scan("wide_state", n=40, l=9, **ALL),
         Scan("batch2", b=2, l=33, **ALL),
         Scan("f16", dtype="f16", l=40, **ALL),
         Scan("bf16", dtype="bf16", l=40, **ALL),
         Scan("chunk_tail", l=23, d=48, config="block_d = 32, chunk_l = 5",
              **ALL)]),
    "selective-scan-split.mlir": (
        "ejk.selective_scan's split (chunked) scan on Vulkan: sequences that "
        "are not a whole number of chunks or splits, shorter than one chunk, "
        "whole chunks, 4, 8 and 16 lanes per channel, odd state and channel "
        "counts, groups, batches, f16/bf16, and the one-pass kernel the "
        "heuristic no longer picks for small problems (the CPU runs its own "
        "heuristic).",
        [Scan("split_tail", l=1000, d=64, n=5,
              vulkan_config="block_d = 32, chunk_l = 48, split_l = 112, "
              "state_lanes = 4", **ALL),
         Scan("split_short", l=7,
              vulkan_config="block_d = 32, chunk_l = 16, split_l = 3, "
              "state_lanes = 4", **ALL),
         Scan("split_lanes16", l=77, d=44,
              vulkan_config="block_d = 8, chunk_l = 8, split_l = 10", **ALL),
         Scan("split_lanes8_groups", l=130, d=64, g=4,
              vulkan_config="block_d = 16, chunk_l = 16, split_l = 32, "
              "state_lanes = 8", **ALL),
         Scan("split_whole", l=128, skip=True, softplus=True, final=True,
              vulkan_config="block_d = 32, chunk_l = 16, split_l = 32, "
              "state_lanes = 4"),
         Scan("split_two", l=300, init=True, final=True,
              vulkan_config="block_d = 32, chunk_l = 32, split_l = 200, "
              "state_lanes = 4"),
         Scan("split_f16", dtype="f16", l=150, d=48, g=3,
              vulkan_config="block_d = 32, chunk_l = 16, split_l = 64, "
              "state_lanes = 4", **ALL),
         Scan("split_bf16", dtype="bf16", l=150, d=48, g=3,
              vulkan_config="block_d = 32, chunk_l = 16, split_l = 64, "
              "state_lanes = 4", **ALL),
         Scan("split_batch2", b=2, l=90, **ALL),
         Scan("single_pass", l=300, d=64, g=2,
              vulkan_config="block_d = 8, chunk_l = 16", **ALL)]),
    "ssd-split.mlir": (
        "ejk.ssd's split scan on Vulkan: sequences that are not a whole "
        "number of chunks or splits, splits of one chunk, two splits, odd "
        "head_dim and d_state, groups, initial and final states, batches, "
        "f16/bf16, and the one-pass kernel the heuristic no longer picks for "
        "small problems (the CPU runs its own heuristic).",
        [Ssd("split_tail", l=300, **ALL,
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 32, "
             "num_subgroups = 4, split_l = 96"),
         Ssd("split_one_chunk", l=70, h=4, g=2, **ALL,
             vulkan_config="block_n = 8, block_p = 8, chunk_size = 16, "
             "num_subgroups = 4, split_l = 16"),
         Ssd("split_two", l=100, p=24, n=6, init=True, final=True,
             vulkan_config="block_n = 6, block_p = 16, chunk_size = 32, "
             "num_subgroups = 4, split_l = 64"),
         Ssd("split_batch2", b=2, l=90, **ALL),
         Ssd("split_f16", dtype="f16", l=130, h=4, g=2, **ALL,
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 16, "
             "num_subgroups = 4, split_l = 48"),
         Ssd("split_bf16", dtype="bf16", l=130, h=4, g=2, **ALL,
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 16, "
             "num_subgroups = 4, split_l = 48"),
         Ssd("single_pass", l=150, h=4, g=2, **ALL,
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 32, "
             "num_subgroups = 4")]),
    "ssd-seq-lengths.mlir": (
        "ejk.ssd over L = 1, 7, 300 and 2048.",
        [Ssd("l1", l=1), Ssd("l7", l=7), Ssd("l300", l=300, **ALL),
         Ssd("l2048", l=2048, n=32, softplus=True, skip=True, final=True)]),
    "ssd-options.mlir": (
        "Every optional part of ejk.ssd alone, then all together.",
        [Ssd("skip", skip=True), Ssd("gate", z=True), Ssd("bias", bias=True),
         Ssd("softplus", softplus=True),
         Ssd("bias_softplus", bias=True, softplus=True),
         Ssd("initial_state", init=True), Ssd("final_state", final=True),
         Ssd("all", l=45, **ALL)]),
    "ssd-shapes.mlir": (
        "ejk.ssd shapes: groups, odd head_dim and d_state, head_dim split "
        "over workgroups, configured and odd chunk sizes (one differing from "
        "the model's chunk_size attribute), Mamba-2's chunk_size = 256 left to "
        "the heuristic, batches, f16/bf16.",
        [Ssd("groups2", h=4, g=2, l=40, **ALL),
         Ssd("groups4", h=4, g=4, l=40, **ALL),
         Ssd("odd_head_dim", p=24, l=30, **ALL),
         Ssd("odd_state", n=6, l=30, **ALL),
         Ssd("split_head_dim", p=64, l=30,
             config="block_n = 8, block_p = 16, chunk_size = 16", **ALL),
         Ssd("chunk_config", l=70, chunk=256,
             config="block_n = 16, block_p = 16, chunk_size = 32",
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 32, "
             "num_subgroups = 4", **ALL),
         Ssd("odd_chunk", l=70,
             config="block_n = 16, block_p = 16, chunk_size = 10",
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 10, "
             "num_subgroups = 4", **ALL),
         Ssd("model_chunk", l=300, chunk=256, n=64, **ALL),
         Ssd("batch2", b=2, l=33, **ALL),
         Ssd("f16", dtype="f16", l=40, **ALL),
         Ssd("bf16", dtype="bf16", l=40, **ALL)]),
}


# --- mixture of experts -----------------------------------------------------

class GroupedMatmul:
    """One ejk.grouped_matmul entry (group sizes drawn as a random split of
    the rows, some groups empty)."""

    def __init__(self, name, m=64, k=32, n=48, g=4, local=None, dtype="f32",
                 out_dtype=None, transpose=False, offset=False, acc=False,
                 int8=False, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        local = self.local or self.g
        lhs = tensor([self.m, self.k], self.dtype)
        rhs = tensor([local, self.n, self.k] if self.transpose
                     else [local, self.k, self.n],
                     "i8" if self.int8 else self.dtype)
        sizes = tensor([self.g], "i32")
        out = tensor([self.m, self.n], self.out_dtype or self.dtype)
        optional, extra = optional_operands([
            (self.offset, "offset", "group_offset", tensor([1], "i32")),
            (self.acc, "acc", "existing_out", out),
            (self.int8, "scales", "rhs_scales", tensor([local, self.n], "f32"))])
        args = [f"%lhs: {lhs}", f"%rhs: {rhs}", f"%sizes: {sizes}"] + optional
        attrs = attr_dict(self, ["transpose_rhs"] if self.transpose else [],
                          target)
        return (
            f"func.func @{self.name}({', '.join(args)}) -> {out} {{\n"
            f"  %out = ejk.grouped_matmul %lhs, %rhs, %sizes{extra}{attrs}\n"
            f"      : {lhs}, {rhs}, {sizes} -> {out}\n"
            f"  return %out : {out}\n}}\n")


class TransposedGroupedMatmul:
    """One ejk.transposed_grouped_matmul entry."""

    def __init__(self, name, m=64, k=32, n=48, g=4, local=None, dtype="f32",
                 out_dtype=None, offset=False, acc=False, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        local = self.local or self.g
        lhs = tensor([self.m, self.k], self.dtype)
        rhs = tensor([self.m, self.n], self.dtype)
        sizes = tensor([self.g], "i32")
        out = tensor([local, self.k, self.n], self.out_dtype or self.dtype)
        optional, extra = optional_operands([
            (self.offset, "offset", "group_offset", tensor([1], "i32")),
            (self.acc, "acc", "existing_out", out)])
        args = [f"%lhs: {lhs}", f"%rhs: {rhs}", f"%sizes: {sizes}"] + optional
        attrs = attr_dict(self, [], target)
        return (
            f"func.func @{self.name}({', '.join(args)}) -> {out} {{\n"
            f"  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes{extra}{attrs}\n"
            f"      : {lhs}, {rhs}, {sizes} -> {out}\n"
            f"  return %out : {out}\n}}\n")


class GroupedMatmulBackward:
    """A grouped matmul's backward written with the two ops: d_lhs and
    d_rhs of out = grouped_matmul(lhs, rhs)."""

    def __init__(self, name, m=40, k=24, n=16, g=3, dtype="f32",
                 transpose=False):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.config = self.vulkan_config = None

    def function(self, target="cpu"):
        lhs = tensor([self.m, self.k], self.dtype)
        rhs_shape = ([self.g, self.n, self.k] if self.transpose
                     else [self.g, self.k, self.n])
        rhs = tensor(rhs_shape, self.dtype)
        sizes = tensor([self.g], "i32")
        dout = tensor([self.m, self.n], self.dtype)
        flipped = "" if self.transpose else " {transpose_rhs}"
        d_rhs = (f"  %drhs = ejk.transposed_grouped_matmul %dout, %lhs, %sizes\n"
                 f"      : {dout}, {lhs}, {sizes} -> {rhs}\n" if self.transpose else
                 f"  %drhs = ejk.transposed_grouped_matmul %lhs, %dout, %sizes\n"
                 f"      : {lhs}, {dout}, {sizes} -> {rhs}\n")
        return (
            f"func.func @{self.name}(%lhs: {lhs}, %rhs: {rhs}, %sizes: {sizes}, "
            f"%dout: {dout}) -> ({lhs}, {rhs}) {{\n"
            f"  %dlhs = ejk.grouped_matmul %dout, %rhs, %sizes{flipped}\n"
            f"      : {dout}, {rhs}, {sizes} -> {lhs}\n"
            + d_rhs +
            f"  return %dlhs, %drhs : {lhs}, {rhs}\n}}\n")


MOE_FILES = {
    "grouped-matmul-shapes.mlir": (
        "ejk.grouped_matmul shapes: one group to 256 groups, m not a multiple "
        "of a tile, odd k and n, a single group holding all rows, rhs "
        "transposed.",
        [GroupedMatmul("one_group", g=1),
         GroupedMatmul("groups4"),
         GroupedMatmul("groups256", m=300, k=16, n=8, g=256),
         GroupedMatmul("odd_sizes", m=77, k=13, n=19, g=5),
         GroupedMatmul("tall", m=1000, k=64, n=40, g=7),
         GroupedMatmul("wide", m=33, k=96, n=200, g=3),
         GroupedMatmul("transposed", m=77, k=13, n=19, g=5, transpose=True),
         GroupedMatmul("transposed_wide", m=50, k=128, n=72, g=3,
                       transpose=True),
         GroupedMatmul("k1", m=20, k=1, n=9, g=2)]),
    "grouped-matmul-options.mlir": (
        "ejk.grouped_matmul options: group offsets (expert parallelism), "
        "accumulation into existing_out, f32 results of f16/bf16 inputs, "
        "every dtype.",
        [GroupedMatmul("offset", m=60, g=8, local=3, offset=True),
         GroupedMatmul("offset_transposed", m=60, g=8, local=5, offset=True,
                       transpose=True),
         GroupedMatmul("accumulate", acc=True),
         GroupedMatmul("offset_accumulate", g=6, local=2, offset=True,
                       acc=True),
         GroupedMatmul("f16", m=70, k=40, n=24, g=3, dtype="f16"),
         GroupedMatmul("bf16", m=70, k=40, n=24, g=3, dtype="bf16"),
         GroupedMatmul("f16_out_f32", m=70, k=40, n=24, g=3, dtype="f16",
                       out_dtype="f32"),
         GroupedMatmul("bf16_out_f32_transposed", m=70, k=40, n=24, g=3,
                       dtype="bf16", out_dtype="f32", transpose=True),
         GroupedMatmul("f16_accumulate", m=45, k=32, n=32, g=4, dtype="f16",
                       acc=True)]),
    "grouped-matmul-int8.mlir": (
        "ejk.grouped_matmul with int8 weights and per-channel scales: f32, "
        "f16 and bf16 lhs, f32 results, rhs transposed, empty groups, "
        "offsets, accumulation, odd k and n, k and n multiples of 16 (the "
        "cooperative path's i8 loads on devices that have it).",
        [GroupedMatmul("int8_f32", int8=True),
         GroupedMatmul("int8_f16", m=70, k=48, n=32, g=3, dtype="f16",
                       int8=True),
         GroupedMatmul("int8_f16_out_f32", m=70, k=64, n=48, g=3,
                       dtype="f16", out_dtype="f32", int8=True),
         GroupedMatmul("int8_bf16_out_f32", m=70, k=40, n=24, g=3,
                       dtype="bf16", out_dtype="f32", int8=True),
         GroupedMatmul("int8_bf16", m=45, k=32, n=32, g=4, dtype="bf16",
                       int8=True),
         GroupedMatmul("int8_transposed", m=77, k=13, n=19, g=5,
                       transpose=True, int8=True),
         GroupedMatmul("int8_f16_transposed", m=70, k=64, n=48, g=3,
                       dtype="f16", out_dtype="f32", transpose=True,
                       int8=True),
         GroupedMatmul("int8_empty_groups", m=40, k=32, n=32, g=24,
                       dtype="f16", int8=True),
         GroupedMatmul("int8_odd", m=77, k=13, n=19, g=5, int8=True),
         GroupedMatmul("int8_offset", m=60, k=32, n=48, g=8, local=3,
                       offset=True, int8=True),
         GroupedMatmul("int8_f16_offset_accumulate", m=64, k=32, n=48, g=6,
                       local=2, dtype="f16", offset=True, acc=True,
                       int8=True),
         GroupedMatmul("int8_accumulate", acc=True, int8=True)]),
    "transposed-grouped-matmul.mlir": (
        "ejk.transposed_grouped_matmul: shapes, empty groups, offsets, "
        "accumulation, dtypes.",
        [TransposedGroupedMatmul("groups4"),
         TransposedGroupedMatmul("one_group", g=1),
         TransposedGroupedMatmul("groups64", m=200, k=8, n=12, g=64),
         TransposedGroupedMatmul("odd_sizes", m=77, k=13, n=19, g=5),
         TransposedGroupedMatmul("tall", m=1000, k=40, n=24, g=3),
         TransposedGroupedMatmul("offset", m=60, g=8, local=3, offset=True),
         TransposedGroupedMatmul("accumulate", acc=True),
         TransposedGroupedMatmul("f16", m=70, k=24, n=40, g=3, dtype="f16"),
         TransposedGroupedMatmul("bf16_out_f32", m=70, k=24, n=40, g=3,
                                 dtype="bf16", out_dtype="f32")]),
    "grouped-matmul-backward.mlir": (
        "The backward of a grouped matmul, written with the two ops.",
        [GroupedMatmulBackward("plain"),
         GroupedMatmulBackward("transposed", transpose=True),
         GroupedMatmulBackward("f16", dtype="f16", m=50, k=32, n=24)]),
}


# --- pooling -----------------------------------------------------------------

class MeanPooling:
    """One ejk.mean_pooling (or, with grad, ejk.mean_pooling_grad) entry;
    packed when `total` is given (cumulative lengths drawn as a random
    split, some sequences empty or of length 1)."""

    def __init__(self, name, b=2, s=16, h=32, total=None, dtype="f32",
                 grad=False, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        tokens = tensor([self.total, self.h] if self.total is not None
                        else [self.b, self.s, self.h], self.dtype)
        pooled = tensor([self.b, self.h], self.dtype)
        cu = tensor([self.b + 1], "i32")
        args = []
        extra = ""
        if self.total is not None:
            args.append(f"%cu: {cu}")
            extra = f" cu_seqlens(%cu : {cu})"
        attrs = attr_dict(self, [], target)
        if self.grad:
            args = [f"%dy: {pooled}"] + args
            return (
                f"func.func @{self.name}({', '.join(args)}) -> {tokens} {{\n"
                f"  %dx = ejk.mean_pooling_grad %dy{extra}{attrs}\n"
                f"      : {pooled} -> {tokens}\n"
                f"  return %dx : {tokens}\n}}\n")
        args = [f"%x: {tokens}"] + args
        return (
            f"func.func @{self.name}({', '.join(args)}) -> {pooled} {{\n"
            f"  %y = ejk.mean_pooling %x{extra}{attrs}\n"
            f"      : {tokens} -> {pooled}\n"
            f"  return %y : {pooled}\n}}\n")


POOLING_FILES = {
    "mean-pooling.mlir": (
        "ejk.mean_pooling, dense and packed: one token, odd hidden sizes, "
        "long sequences, many sequences with empty ones, every dtype.",
        [MeanPooling("dense"), MeanPooling("one_token", s=1),
         MeanPooling("odd_hidden", b=3, s=7, h=13),
         MeanPooling("long", b=1, s=3000, h=40),
         MeanPooling("packed", b=4, total=100),
         MeanPooling("packed_many", b=33, total=70, h=20),
         MeanPooling("packed_one", b=1, total=9, h=8),
         MeanPooling("packed_long", b=3, total=4000, h=24),
         MeanPooling("f16", b=3, s=50, h=64, dtype="f16"),
         MeanPooling("bf16_packed", b=5, total=90, h=48, dtype="bf16"),
         MeanPooling("config", b=2, s=45, h=40,
                     config="block_d = 16, block_s = 8")]),
    "mean-pooling-grad.mlir": (
        "ejk.mean_pooling_grad, dense and packed, every dtype.",
        [MeanPooling("dense", grad=True),
         MeanPooling("odd_hidden", b=3, s=7, h=13, grad=True),
         MeanPooling("packed", b=4, total=100, grad=True),
         MeanPooling("packed_many", b=33, total=70, h=20, grad=True),
         MeanPooling("f16", b=3, s=50, h=64, dtype="f16", grad=True),
         MeanPooling("bf16_packed", b=5, total=90, h=48, dtype="bf16",
                     grad=True)]),
}


# --- paged -------------------------------------------------------------------

class PagedAttention:
    """One ejk.paged_attention entry: `pages` pages of `page` tokens, tables
    of `maxp` pages per sequence (random inputs draw shuffled tables and
    lengths in [0, maxp * page], some 0, 1 or full)."""

    def __init__(self, name, b=3, hq=4, hkv=2, d=64, pages=32, page=16,
                 maxp=8, dtype="f32", cache_dtype=None, token_major=False,
                 cap=None, window=None, scale=None, k_scale=None, v_scale=None,
                 lse=False, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        cache_dtype = self.cache_dtype or self.dtype
        cache_shape = ([self.pages, self.page, self.hkv, self.d]
                       if self.token_major else
                       [self.pages, self.hkv, self.page, self.d])
        q = tensor([self.b, self.hq, self.d], self.dtype)
        kc = tensor(cache_shape, cache_dtype)
        lens = tensor([self.b], "i32")
        tables = tensor([self.b, self.maxp], "i32")
        out = tensor([self.b, self.hq, self.d], self.dtype)
        lse = tensor([self.b, self.hq], "f32")
        attrs = []
        if self.token_major:
            attrs.append('kv_layout = "token_major"')
        if self.scale is not None:
            attrs.append(f"softmax_scale = {self.scale} : f32")
        if self.cap is not None:
            attrs.append(f"logits_soft_cap = {self.cap} : f32")
        if self.window is not None:
            attrs.append(f"sliding_window = {self.window} : i64")
        if self.k_scale is not None:
            attrs.append(f"k_scale = {self.k_scale} : f32")
        if self.v_scale is not None:
            attrs.append(f"v_scale = {self.v_scale} : f32")
        results = f"{out}, {lse}" if self.lse else out
        names = "%o, %lse" if self.lse else "%o"
        signature = f"({results})" if self.lse else results
        return (
            f"func.func @{self.name}(%q: {q}, %kc: {kc}, %vc: {kc}, "
            f"%lens: {lens}, %tables: {tables}) -> {signature} {{\n"
            f"  {names} = ejk.paged_attention %q, %kc, %vc, %lens, %tables"
            f"{attr_dict(self, attrs, target)}\n"
            f"      : {q}, {kc}, {kc}, {lens}, {tables} -> {results}\n"
            f"  return {names} : {results}\n}}\n")


SPLITS = "block_k = 16, num_splits = 4"
PAGED_FILES = {
    "paged-attention-shapes.mlir": (
        "ejk.paged_attention shapes: GQA ratios 1 to 64, head dims 16 to 256 "
        "(odd ones too), pages of 1, 16 and 64 tokens, both page layouts, "
        "tables that reuse pages, many sequences.",
        [PagedAttention("mha", hq=4, hkv=4),
         PagedAttention("gqa4", hq=8, hkv=2, d=128),
         PagedAttention("gqa5", hq=10, hkv=2, d=32),
         PagedAttention("gqa7", hq=7, hkv=1, d=64),
         PagedAttention("mqa64", b=2, hq=64, hkv=1, d=32, maxp=4),
         PagedAttention("odd_dim", hq=6, hkv=3, d=20),
         PagedAttention("d256", b=2, hq=4, hkv=1, d=256, maxp=4),
         PagedAttention("d16", hq=2, hkv=1, d=16),
         PagedAttention("page1", hq=4, hkv=2, page=1, pages=100, maxp=40),
         PagedAttention("page64", hq=4, hkv=2, page=64, pages=8, maxp=3),
         PagedAttention("token_major", hq=8, hkv=2, token_major=True),
         PagedAttention("token_major_page1", hq=4, hkv=2, page=1, pages=60,
                        maxp=30, token_major=True),
         PagedAttention("reused_pages", b=4, hq=4, hkv=2, pages=5, maxp=4),
         PagedAttention("many_seqs", b=16, hq=4, hkv=2, d=32, maxp=4),
         PagedAttention("long", b=2, hq=8, hkv=2, d=64, pages=160, maxp=64)]),
    "paged-attention-options.mlir": (
        "ejk.paged_attention options: soft cap, windows (longer and shorter "
        "than the sequences), scale, lse, split keys with their combine, "
        "tables of no pages and batches of no sequences.",
        [PagedAttention("softcap", cap=5.0, scale=0.3),
         PagedAttention("window", hq=8, hkv=2, window=20),
         PagedAttention("window_1", window=1, lse=True),
         PagedAttention("window_long", window=1000),
         PagedAttention("lse", hq=8, hkv=2, lse=True),
         PagedAttention("lse_empty_tables", b=2, maxp=1, page=1, pages=3,
                        lse=True),
         PagedAttention("splits", hq=8, hkv=2, lse=True, config=SPLITS,
                        vulkan_config=SPLITS),
         PagedAttention("splits_window", hq=4, hkv=1, window=37, lse=True,
                        maxp=16, config=SPLITS, vulkan_config=SPLITS),
         PagedAttention("splits_softcap_token_major", hq=4, hkv=2, cap=8.0,
                        token_major=True, config="block_k = 32, num_splits = 3",
                        vulkan_config="block_k = 32, num_splits = 3"),
         PagedAttention("everything", b=4, hq=12, hkv=4, d=96, cap=30.0,
                        scale=0.1, window=50, lse=True, token_major=True),
         PagedAttention("no_pages", maxp=0, lse=True),
         PagedAttention("no_sequences", b=0, lse=True)]),
    "paged-attention-dtypes.mlir": (
        "ejk.paged_attention element types: f16 and bf16 throughout, f32 "
        "queries over f16 and bf16 caches, int8 caches with their scales.",
        [PagedAttention("f16", hq=8, hkv=2, d=128, dtype="f16", lse=True),
         PagedAttention("bf16", hq=8, hkv=2, d=64, dtype="bf16"),
         PagedAttention("f32_over_f16", hq=4, hkv=2, cache_dtype="f16"),
         PagedAttention("f32_over_bf16_token_major", hq=4, hkv=1,
                        cache_dtype="bf16", token_major=True),
         PagedAttention("f16_odd_dim", hq=4, hkv=2, d=40, dtype="f16"),
         PagedAttention("bf16_splits", hq=4, hkv=2, dtype="bf16",
                        config=SPLITS, vulkan_config=SPLITS),
         PagedAttention("int8", hq=8, hkv=2, d=128, cache_dtype="i8",
                        k_scale=0.01, v_scale=0.02, lse=True),
         PagedAttention("int8_f16_token_major_splits", hq=4, hkv=1, d=64,
                        dtype="f16", cache_dtype="i8", token_major=True,
                        k_scale=0.008, v_scale=0.05, config=SPLITS,
                        vulkan_config=SPLITS),
         PagedAttention("f16_scaled", hq=4, hkv=2, dtype="f16", k_scale=0.5,
                        v_scale=2.0)]),
}


class RaggedPaged:
    """One ejk.ragged_paged_attention entry: `t` packed query rows of
    `seqs` sequence slots over `pages` pages of `page` tokens, `maxp` a
    sequence (random inputs: start locations with empty, one-row and long
    sequences, lengths raised to the query counts, a live count that may
    leave padding slots, shuffled tables); `write` adds v3's new_kv."""

    def __init__(self, name, t=40, seqs=5, hq=4, hkv=2, d=64, pages=40,
                 page=16, maxp=8, dtype="f32", cache_dtype=None,
                 head_major=False, cap=None, window=None, scale=None,
                 k_scale=None, v_scale=None, sinks=False, write=False,
                 config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        cache_dtype = self.cache_dtype or self.dtype
        cache_shape = ([self.pages, self.hkv, self.page, self.d]
                       if self.head_major else
                       [self.pages, self.page, self.hkv, self.d])
        q = tensor([self.t, self.hq, self.d], self.dtype)
        kc = tensor(cache_shape, cache_dtype)
        lens = tensor([self.seqs], "i32")
        tables = tensor([self.seqs, self.maxp], "i32")
        cu = tensor([self.seqs + 1], "i32")
        n = tensor([1], "i32")
        new = tensor([self.t, self.hkv, self.d], self.dtype)
        aux = tensor([self.hq], "f32")
        attrs = []
        if self.head_major:
            attrs.append('kv_layout = "head_major"')
        for key, value, kind in (("softmax_scale", self.scale, "f32"),
                                 ("logits_soft_cap", self.cap, "f32"),
                                 ("sliding_window", self.window, "i64"),
                                 ("k_scale", self.k_scale, "f32"),
                                 ("v_scale", self.v_scale, "f32")):
            if value is not None:
                attrs.append(f"{key} = {value} : {kind}")
        args = (f"%q: {q}, %kc: {kc}, %vc: {kc}, %lens: {lens}, "
                f"%tables: {tables}, %cu: {cu}, %n: {n}")
        groups = ""
        if self.write:
            args += f", %k: {new}, %v: {new}"
            groups += f" new_kv(%k, %v : {new}, {new})"
        if self.sinks:
            args += f", %s: {aux}"
            groups += f" sinks(%s : {aux})"
        results = f"{q}, {kc}, {kc}" if self.write else q
        names = "%o:3" if self.write else "%o"
        returned = "%o#0, %o#1, %o#2" if self.write else "%o"
        signature = f"({results})" if self.write else results
        return (
            f"func.func @{self.name}({args}) -> {signature} {{\n"
            f"  {names} = ejk.ragged_paged_attention %q, %kc, %vc, %lens, "
            f"%tables, %cu, %n{groups}{attr_dict(self, attrs, target)}\n"
            f"      : {q}, {kc}, {kc}, {lens}, {tables}, {cu}, {n} -> "
            f"{results}\n"
            f"  return {returned} : {results}\n}}\n")


class PrefillPaged:
    """One ejk.prefill_paged_attention entry: `b` sequences of `sq` new
    queries (random lengths in [0, maxp * page]: rows of sequences shorter
    than the chunk see no token)."""

    def __init__(self, name, b=2, sq=8, hq=4, hkv=2, d=64, pages=32,
                 page=16, maxp=8, dtype="f32", cache_dtype=None,
                 head_major=False, cap=None, window=None, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        cache_shape = ([self.pages, self.hkv, self.page, self.d]
                       if self.head_major else
                       [self.pages, self.page, self.hkv, self.d])
        q = tensor([self.b, self.sq, self.hq, self.d], self.dtype)
        kc = tensor(cache_shape, self.cache_dtype or self.dtype)
        lens = tensor([self.b], "i32")
        tables = tensor([self.b, self.maxp], "i32")
        attrs = []
        if self.head_major:
            attrs.append('kv_layout = "head_major"')
        if self.cap is not None:
            attrs.append(f"logits_soft_cap = {self.cap} : f32")
        if self.window is not None:
            attrs.append(f"sliding_window = {self.window} : i64")
        return (
            f"func.func @{self.name}(%q: {q}, %kc: {kc}, %vc: {kc}, "
            f"%lens: {lens}, %tables: {tables}) -> {q} {{\n"
            f"  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables"
            f"{attr_dict(self, attrs, target)}\n"
            f"      : {q}, {kc}, {kc}, {lens}, {tables} -> {q}\n"
            f"  return %o : {q}\n}}\n")


PAGED_FILES.update({
    "ragged-paged-attention.mlir": (
        "ejk.ragged_paged_attention: mixed prefill and decode batches (query "
        "counts 0 to 200, empty sequences, padding slots past num_seqs), "
        "pages of 1, 16 and 64 tokens, GQA 1/4/8, both page layouts, soft "
        "cap, windows, sinks, v3's fused cache write, f16/bf16/int8 caches.",
        [RaggedPaged("mixed"),
         RaggedPaged("mha", hq=4, hkv=4, d=32),
         RaggedPaged("gqa4_d128", hq=8, hkv=2, d=128, t=24, seqs=3),
         RaggedPaged("gqa8_q200", t=200, seqs=3, hq=8, hkv=1, d=32,
                     pages=64, maxp=16),
         RaggedPaged("page1", t=12, seqs=3, page=1, pages=100, maxp=30),
         RaggedPaged("page64", t=100, seqs=4, page=64, pages=12, maxp=4,
                     d=32),
         RaggedPaged("many_seqs", t=20, seqs=16, d=32, maxp=4),
         RaggedPaged("head_major", head_major=True, hq=8, hkv=2),
         RaggedPaged("softcap", cap=5.0, scale=0.3),
         RaggedPaged("window", window=7, hq=8, hkv=2),
         RaggedPaged("window_1", window=1),
         RaggedPaged("sinks", sinks=True, hq=8, hkv=2),
         RaggedPaged("everything", t=60, seqs=6, hq=12, hkv=4, d=96,
                     cap=30.0, scale=0.1, window=20, sinks=True,
                     head_major=True),
         RaggedPaged("write", write=True, hq=8, hkv=2),
         RaggedPaged("write_head_major_window", write=True, head_major=True,
                     window=9, sinks=True),
         RaggedPaged("write_int8", write=True, cache_dtype="i8",
                     k_scale=0.01, v_scale=0.02, d=32),
         RaggedPaged("f16", dtype="f16", hq=8, hkv=2, d=128, t=30, seqs=4),
         RaggedPaged("bf16_write", dtype="bf16", write=True, d=64),
         RaggedPaged("f32_over_bf16", cache_dtype="bf16", hq=4, hkv=1),
         RaggedPaged("int8", cache_dtype="i8", k_scale=0.01, v_scale=0.02,
                     hq=8, hkv=2),
         RaggedPaged("no_tokens", t=0, seqs=2),
         RaggedPaged("no_pages", t=5, seqs=2, maxp=0)]),
    "prefill-paged-attention.mlir": (
        "ejk.prefill_paged_attention (the ragged kernels with equal query "
        "counts): chunks of 1 to 64 queries, GQA, both page layouts, soft "
        "cap, windows, f16/bf16.",
        [PrefillPaged("chunk8"),
         PrefillPaged("chunk1", sq=1, b=4),
         PrefillPaged("chunk64_gqa8", sq=64, hq=8, hkv=1, d=32, maxp=8),
         PrefillPaged("head_major_window", head_major=True, window=5, sq=20),
         PrefillPaged("softcap_f16", cap=10.0, dtype="f16", d=128),
         PrefillPaged("bf16_over_page64", dtype="bf16", page=64, pages=8,
                      maxp=3, sq=30)]),
})


class Unified:
    """One ejk.unified_attention entry: `t` packed query rows of `seqs`
    sequences (every one live) over `pages` token-major pages of `page`
    tokens, `maxp` a sequence (random inputs: start locations with empty,
    one-row and long sequences, lengths raised to the query counts and
    partially filled last pages, shuffled tables); `alibi` adds ALiBi
    slopes, `qq` a `[qq, qq]` query-query bias, `sinks` the sink logits."""

    def __init__(self, name, t=40, seqs=5, hq=4, hkv=2, d=64, pages=40,
                 page=16, maxp=8, dtype="f32", cache_dtype=None, cap=None,
                 window=None, scale=None, sinks=False, alibi=False, qq=0,
                 aux_dtype="f32", config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        q = tensor([self.t, self.hq, self.d], self.dtype)
        kc = tensor([self.pages, self.page, self.hkv, self.d],
                    self.cache_dtype or self.dtype)
        lens = tensor([self.seqs], "i32")
        tables = tensor([self.seqs, self.maxp], "i32")
        starts = tensor([self.seqs + 1], "i32")
        heads = tensor([self.hq], self.aux_dtype)
        attrs = []
        for key, value, kind in (("softmax_scale", self.scale, "f32"),
                                 ("logits_soft_cap", self.cap, "f32"),
                                 ("sliding_window", self.window, "i64")):
            if value is not None:
                attrs.append(f"{key} = {value} : {kind}")
        args, clauses = optional_operands([
            (self.alibi, "alibi", "alibi", heads),
            (self.qq, "qq", "qq_bias",
             tensor([self.qq, self.qq], self.aux_dtype)),
            (self.sinks, "aux", "sinks", heads)])
        args = [f"%q: {q}", f"%kc: {kc}", f"%vc: {kc}", f"%lens: {lens}",
                f"%tables: {tables}", f"%starts: {starts}"] + args
        return (
            f"func.func @{self.name}({', '.join(args)}) -> {q} {{\n"
            f"  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, "
            f"%starts{clauses}{attr_dict(self, attrs, target)}\n"
            f"      : {q}, {kc}, {kc}, {lens}, {tables}, {starts} -> {q}\n"
            f"  return %o : {q}\n}}\n")


class RaggedDecode:
    """One ejk.ragged_decode_attention entry: `b` sequences over a dense
    `[b, s, hkv, d]` cache (random bounds: ends in [0, s], some 0, 1 or s;
    starts mostly 0, some equal to the end or one before it); `window` is
    [left, right]; `sinks` is (form, num_sinks) with form "shared" ([n]),
    "kv" ([hkv, n]) or "head" ([hq, n])."""

    def __init__(self, name, b=4, s=64, hq=4, hkv=2, d=64, dtype="f32",
                 cache_dtype=None, cap=None, window=None, scale=None,
                 sinks=None, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        q = tensor([self.b, self.hq, self.d], self.dtype)
        k = tensor([self.b, self.s, self.hkv, self.d],
                   self.cache_dtype or self.dtype)
        bounds = tensor([self.b], "i32")
        attrs = []
        for key, value, kind in (("softmax_scale", self.scale, "f32"),
                                 ("logits_soft_cap", self.cap, "f32")):
            if value is not None:
                attrs.append(f"{key} = {value} : {kind}")
        if self.window is not None:
            attrs.append("sliding_window = array<i64: "
                         f"{self.window[0]}, {self.window[1]}>")
        args = [f"%q: {q}", f"%k: {k}", f"%v: {k}", f"%starts: {bounds}",
                f"%ends: {bounds}"]
        clause = ""
        if self.sinks:
            form, n = self.sinks
            shape = {"shared": [n], "kv": [self.hkv, n],
                     "head": [self.hq, n]}[form]
            aux = tensor(shape, "f32")
            args.append(f"%aux: {aux}")
            clause = f" sinks(%aux : {aux})"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> {q} {{\n"
            f"  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends"
            f"{clause}{attr_dict(self, attrs, target)}\n"
            f"      : {q}, {k}, {k}, {bounds}, {bounds} -> {q}\n"
            f"  return %o : {q}\n}}\n")


UNIFIED_PAGED_FILES = {
    "unified-attention.mlir": (
        "ejk.unified_attention (the ragged kernels, every slot live): mixed "
        "prefill and decode batches (empty and one-row sequences, partially "
        "filled last pages, shuffled tables), pages of 1, 16 and 64 tokens, "
        "GQA 1/5/8, soft cap, windows, sinks, ALiBi, query-query bias, "
        "f16/bf16.",
        [Unified("mixed"),
         Unified("gqa1", hq=4, hkv=4, d=32),
         Unified("gqa5", hq=10, hkv=2, d=64, t=30, seqs=4),
         Unified("gqa8_q200", t=200, seqs=3, hq=8, hkv=1, d=32, pages=64,
                 maxp=16),
         Unified("page1", t=12, seqs=3, page=1, pages=100, maxp=30),
         Unified("page64", t=100, seqs=4, page=64, pages=12, maxp=4, d=32),
         Unified("many_seqs", t=20, seqs=16, d=32, maxp=4),
         Unified("softcap", cap=5.0, scale=0.3),
         Unified("window", window=7, hq=8, hkv=2),
         Unified("window_1", window=1),
         Unified("sinks", sinks=True, hq=8, hkv=2),
         Unified("alibi", alibi=True, hq=10, hkv=2),
         Unified("qq_bias", qq=12, t=60, seqs=3),
         Unified("everything", t=60, seqs=6, hq=10, hkv=2, d=96, cap=30.0,
                 scale=0.1, window=20, sinks=True, alibi=True, qq=9),
         Unified("f16", dtype="f16", hq=8, hkv=1, d=128, t=30, seqs=4,
                 sinks=True),
         Unified("bf16", dtype="bf16", hq=10, hkv=2, sinks=True,
                 alibi=True, aux_dtype="bf16", window=11),
         Unified("f32_over_bf16", cache_dtype="bf16", hq=5, hkv=1,
                 qq=8),
         Unified("no_tokens", t=0, seqs=2),
         Unified("no_pages", t=5, seqs=2, maxp=0)]),
    "ragged-decode-attention.mlir": (
        "ejk.ragged_decode_attention (the decode kernels over a dense "
        "cache): ends 0 to seq_len, starts 0 to the end, GQA 1/5/8, "
        "splits, soft cap, [left, right] windows, sinks of every shape "
        "(with and without splits), f16/bf16.",
        [RaggedDecode("plain"),
         RaggedDecode("gqa1", hq=4, hkv=4, d=32),
         RaggedDecode("gqa5", hq=10, hkv=2, s=100),
         RaggedDecode("gqa8_d128", hq=8, hkv=1, d=128, b=3),
         RaggedDecode("splits", b=2, s=700, config="block_k = 32, "
                      "num_splits = 4", vulkan_config="block_k = 16, "
                      "num_splits = 5"),
         RaggedDecode("one_key", s=1, b=5),
         RaggedDecode("softcap", cap=5.0, scale=0.3),
         RaggedDecode("window", window=(10, 0), s=90),
         RaggedDecode("window_0", window=(0, 0)),
         RaggedDecode("window_right", window=(5, 3), hq=8, hkv=2),
         RaggedDecode("sinks_shared", sinks=("shared", 2)),
         RaggedDecode("sinks_kv", sinks=("kv", 1), hq=10, hkv=2),
         RaggedDecode("sinks_head", sinks=("head", 3), hq=8, hkv=2),
         RaggedDecode("sinks_splits", sinks=("head", 2), s=500, b=2,
                      config="block_k = 32, num_splits = 3",
                      vulkan_config="block_k = 16, num_splits = 3"),
         RaggedDecode("everything", b=3, s=300, hq=10, hkv=2, d=96,
                      cap=30.0, scale=0.1, window=(40, 0),
                      sinks=("kv", 2), config="block_k = 16, num_splits = 2",
                      vulkan_config="block_k = 16, num_splits = 2"),
         RaggedDecode("f16", dtype="f16", hq=8, hkv=1, d=128, s=200),
         RaggedDecode("bf16", dtype="bf16", hq=10, hkv=2, s=130,
                      sinks=("shared", 1), window=(50, 0)),
         RaggedDecode("f32_over_f16", cache_dtype="f16", hq=5, hkv=1)]),
}
PAGED_FILES.update(UNIFIED_PAGED_FILES)


# --- linear ----------------------------------------------------------------

class Gla:
    """One ejk.gla entry: `b` batch rows (or `n` packed sequences over `t`
    steps with cu_seqlens: random valid lengths, some empty or of length
    1), `h` query heads over `hkv` key/value heads."""

    def __init__(self, name, b=1, t=64, h=2, hkv=None, k=32, v=None,
                 dtype="f32", g=True, gamma=False, init=False, final=False,
                 n=None, reverse=False, scale=None, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.hkv = hkv or h
        self.v = v or k

    def function(self, target="cpu"):
        q = tensor([self.b, self.t, self.h, self.k], self.dtype)
        kk = tensor([self.b, self.t, self.hkv, self.k], self.dtype)
        vv = tensor([self.b, self.t, self.hkv, self.v], self.dtype)
        o = tensor([self.b, self.t, self.h, self.v], self.dtype)
        seqs = self.n if self.n is not None else self.b
        state = tensor([seqs, self.h, self.k, self.v], "f32")
        optional, extra = optional_operands([
            (self.g, "g", "g", q),
            (self.gamma, "gamma", "g_gamma", tensor([self.h], "f32")),
            (self.init, "s0", "initial_state", state),
            (self.n is not None, "cu", "cu_seqlens",
             tensor([(self.n or 0) + 1], "i32"))])
        args = [f"%q: {q}", f"%k: {kk}", f"%v: {vv}"] + optional
        attrs = (["reverse"] if self.reverse else []) + \
            ([f"scale = {self.scale} : f32"] if self.scale else [])
        attrs = attr_dict(self, attrs, target)
        results = [o] + ([state] if self.final else [])
        names = "%o, %s" if self.final else "%o"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.gla %q, %k, %v{extra}{attrs}\n"
            f"      : {q}, {kk}, {vv} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


STATE = dict(init=True, final=True)
LINEAR_FILES = {
    "gla-seq-lengths.mlir": (
        "ejk.gla over T = 1, 63, 64, 65 and 1000 (the chunk's edges), with "
        "and without states, T = 4000 of strong per-dim decay (the "
        "cumulative gate of a chunk reaches -60, of the sequence -2000), and "
        "chunks whose decay is past the factored scores' bound (exact gate "
        "ratios).",
        [Gla("t1", t=1, **STATE), Gla("t63", t=63),
         Gla("t64", t=64, **STATE), Gla("t65", t=65, gamma=True, **STATE),
         Gla("t1000", t=1000, h=2, k=64, gamma=True, **STATE),
         Gla("t4000_strong_decay", t=4000, h=1, k=16, final=True),
         # Chunks of 256 steps decay by about e^-128 in each key dim: past
         # the factored scores' bound, so the exact gate ratios run.
         # On Vulkan (one step at a time, no gate ratios) the chunk only
         # sets the shared-memory stage: chunks that fit 16 KiB.
         Gla("chunk256_exact_ratios", t=600, k=32, gamma=True,
             config="block_v = 32, chunk_size = 256",
             vulkan_config="block_v = 32, chunk_size = 16", **STATE),
         Gla("chunk128_both_paths", t=700, k=16, v=16,
             config="block_v = 16, chunk_size = 128",
             vulkan_config="block_v = 16, chunk_size = 32", **STATE)]),
    "gla-options.mlir": (
        "ejk.gla options: no gate, g_gamma alone (weak constant decay), both "
        "gates, reverse, scale, states, batches.",
        [Gla("ungated", g=False, t=70), Gla("ungated_state", g=False, t=70,
                                            **STATE),
         Gla("gamma_only", g=False, gamma=True, t=100, **STATE),
         Gla("both_gates", gamma=True, t=100, **STATE),
         Gla("reverse", t=100, reverse=True, **STATE),
         Gla("reverse_gamma", t=33, g=False, gamma=True, reverse=True,
             final=True),
         Gla("scale", t=40, scale=0.5),
         Gla("batch3", b=3, t=90, gamma=True, **STATE)]),
    "gla-shapes.mlir": (
        "ejk.gla shapes: head dims 16 to 256, K != V, odd dims, GQA and "
        "MQA, f16/bf16, configs (small chunks, split head_dim_v), K below "
        "the subgroup.",
        [Gla("k16", k=16, t=50, **STATE),
         Gla("k256", k=256, h=1, t=70, **STATE),
         Gla("k64_v128", k=64, v=128, t=70, **STATE),
         Gla("k128_v32", k=128, v=32, t=70, **STATE),
         Gla("odd_dims", k=20, v=12, t=45, gamma=True, **STATE),
         Gla("gqa4", h=8, hkv=2, t=50, **STATE),
         Gla("mqa", h=4, hkv=1, t=50, reverse=True, **STATE),
         Gla("f16", dtype="f16", t=80, gamma=True, **STATE),
         Gla("bf16", dtype="bf16", t=80, k=64, **STATE),
         Gla("chunk16", t=100, config="block_v = 16, chunk_size = 16",
             **STATE),
         Gla("chunk5_split_v", t=37, k=16, v=48,
             config="block_v = 16, chunk_size = 5", gamma=True, **STATE),
         Gla("k4_v6", k=4, v=6, h=3, b=2, t=77, **STATE)]),
    "gla-varlen.mlir": (
        "ejk.gla over packed sequences (cu_seqlens): random lengths with "
        "empty and length-1 sequences, states per sequence, reverse, GQA, "
        "bf16, a single sequence, K = 1.",
        [Gla("varlen", n=4, t=200, **STATE),
         Gla("varlen_many", n=16, t=100, k=16, gamma=True, **STATE),
         Gla("varlen_reverse", n=5, t=150, reverse=True, **STATE),
         Gla("varlen_gqa", n=3, t=90, h=4, hkv=2, final=True),
         Gla("varlen_no_state", n=6, t=120),
         Gla("varlen_bf16", n=4, t=130, dtype="bf16", k=64, **STATE),
         Gla("varlen_one", n=1, t=70, **STATE),
         Gla("varlen_k1", n=3, t=50, k=1, v=3, dtype="bf16", reverse=True,
             final=True)]),
}


class Lightning:
    """One ejk.lightning_attention entry: ejKernel's layer form
    (`layer` = (layer_idx, num_layers)) or explicit random `slopes`."""

    def __init__(self, name, b=1, t=64, h=4, hkv=None, k=32, v=None,
                 dtype="f32", layer=(0, 4), slopes=False, init=False,
                 final=False, n=None, reverse=False, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.hkv = hkv or h
        self.v = v or k

    def function(self, target="cpu"):
        q = tensor([self.b, self.t, self.h, self.k], self.dtype)
        kk = tensor([self.b, self.t, self.hkv, self.k], self.dtype)
        vv = tensor([self.b, self.t, self.hkv, self.v], self.dtype)
        o = tensor([self.b, self.t, self.h, self.v], self.dtype)
        seqs = self.n if self.n is not None else self.b
        state = tensor([seqs, self.h, self.k, self.v], "f32")
        optional, extra = optional_operands([
            (self.slopes, "slopes", "slopes", tensor([self.h], "f32")),
            (self.init, "s0", "initial_state", state),
            (self.n is not None, "cu", "cu_seqlens",
             tensor([(self.n or 0) + 1], "i32"))])
        args = [f"%q: {q}", f"%k: {kk}", f"%v: {vv}"] + optional
        attrs = ([] if self.slopes else
                 [f"layer_idx = {self.layer[0]} : i64",
                  f"num_layers = {self.layer[1]} : i64"]) + \
            (["reverse"] if self.reverse else [])
        attrs = attr_dict(self, attrs, target)
        results = [o] + ([state] if self.final else [])
        names = "%o, %s" if self.final else "%o"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.lightning_attention %q, %k, %v{extra}{attrs}\n"
            f"      : {q}, {kk}, {vv} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


class Recurrent:
    """One ejk.recurrent entry: any of the gates g, gk (per key dim), gv
    (per value dim) and g_gamma (`gamma`: "head" for [H], "seq" for one row
    per sequence)."""

    def __init__(self, name, b=1, t=64, h=2, hkv=None, k=32, v=None,
                 dtype="f32", g=False, gk=False, gv=False, gamma=None,
                 init=False, final=False, n=None, reverse=False, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.hkv = hkv or h
        self.v = v or k

    def function(self, target="cpu"):
        q = tensor([self.b, self.t, self.h, self.k], self.dtype)
        kk = tensor([self.b, self.t, self.hkv, self.k], self.dtype)
        vv = tensor([self.b, self.t, self.hkv, self.v], self.dtype)
        o = tensor([self.b, self.t, self.h, self.v], self.dtype)
        seqs = self.n if self.n is not None else self.b
        state = tensor([seqs, self.h, self.k, self.v], "f32")
        gamma = tensor([self.h] if self.gamma == "head" else [seqs, self.h],
                       "f32")
        optional, extra = optional_operands([
            (self.g, "g", "g", q),
            (self.gk, "gk", "gk", q),
            (self.gv, "gv", "gv", o),
            (self.gamma, "gamma", "g_gamma", gamma),
            (self.init, "s0", "initial_state", state),
            (self.n is not None, "cu", "cu_seqlens",
             tensor([(self.n or 0) + 1], "i32"))])
        args = [f"%q: {q}", f"%k: {kk}", f"%v: {vv}"] + optional
        attrs = attr_dict(self, ["reverse"] if self.reverse else [], target)
        results = [o] + ([state] if self.final else [])
        names = "%o, %s" if self.final else "%o"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.recurrent %q, %k, %v{extra}{attrs}\n"
            f"      : {q}, {kk}, {vv} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


CP = "chunk_parallel = 1"
LINEAR_FILES.update({
    "gla-chunk-parallel.mlir": (
        "Vulkan's chunk-parallel kernel (chunk_parallel = 1: per-chunk "
        "state updates, a scan over chunks, the chunks' outputs at once) "
        "for ejk.gla, ejk.lightning_attention and ejk.recurrent: per-step, "
        "constant and no key gates, chunks whose decay passes the factored "
        "bound (exact ratios), GQA, K != V, odd dims, reverse, packed "
        "sequences with empty and length-1 ones, states, f16/bf16. The CPU "
        "runs the same cases with its own heuristic configs.",
        [Gla("cp_g", t=1000, k=64, vulkan_config=f"block_v = 64, chunk_size = 64, {CP}", **STATE),
         Gla("cp_gamma", g=False, gamma=True, t=300, vulkan_config=f"block_v = 32, chunk_size = 32, {CP}", **STATE),
         Gla("cp_ungated", g=False, t=200, vulkan_config=f"block_v = 32, chunk_size = 64, {CP}", final=True),
         Gla("cp_gqa_k_ne_v", h=8, hkv=2, k=64, v=32, t=150, vulkan_config=f"block_v = 16, chunk_size = 32, {CP}", **STATE),
         Gla("cp_odd_dims", k=20, v=12, t=90, gamma=True, vulkan_config=f"block_v = 16, chunk_size = 16, {CP}", **STATE),
         Gla("cp_k256", k=256, v=32, h=1, t=70, vulkan_config=f"block_v = 32, chunk_size = 16, {CP}", **STATE),
         Gla("cp_reverse", t=130, reverse=True, vulkan_config=f"block_v = 32, chunk_size = 32, {CP}", **STATE),
         Gla("cp_varlen", n=5, t=300, gamma=True, vulkan_config=f"block_v = 32, chunk_size = 32, {CP}", **STATE),
         Gla("cp_varlen_reverse", n=4, t=200, reverse=True, vulkan_config=f"block_v = 32, chunk_size = 64, {CP}", **STATE),
         Gla("cp_f16", dtype="f16", t=200, gamma=True, vulkan_config=f"block_v = 32, chunk_size = 64, {CP}", **STATE),
         Gla("cp_bf16_v48", dtype="bf16", k=64, v=48, t=100, vulkan_config=f"block_v = 32, chunk_size = 32, {CP}", **STATE),
         Lightning("cp_lightning", t=300, h=4, vulkan_config=f"block_v = 32, chunk_size = 64, {CP}", **STATE),
         Lightning("cp_lightning_varlen", n=3, t=200, slopes=True, vulkan_config=f"block_v = 32, chunk_size = 32, {CP}", **STATE),
         # g + gk + g_gamma: about -0.8 a step, so some 64-step chunks decay
         # past e^-60 in some key dim and take the exact ratios.
         Recurrent("cp_recurrent_strong", g=True, gk=True, gamma="head", t=1000, vulkan_config=f"block_v = 32, chunk_size = 64, {CP}", **STATE),
         Recurrent("cp_recurrent_gamma_per_batch", b=2, gamma="seq", t=100, vulkan_config=f"block_v = 32, chunk_size = 32, {CP}", **STATE)]),
})
LINEAR_FILES.update({
    "lightning.mlir": (
        "ejk.lightning_attention: ejKernel's layer form (first, middle and "
        "last layers), explicit slopes, T = 1, 63, 64, 65 and 1000, GQA, "
        "K != V, reverse, states, packed sequences, f16/bf16.",
        [Lightning("layer0", t=100, **STATE),
         Lightning("layer_mid", t=65, layer=(11, 24), final=True),
         Lightning("layer_last", t=64, layer=(23, 24), h=8, **STATE),
         Lightning("slopes", t=63, slopes=True, **STATE),
         Lightning("t1_decode", t=1, slopes=True, **STATE),
         Lightning("t1000", t=1000, h=2, k=64, **STATE),
         Lightning("gqa_k_ne_v", h=8, hkv=2, k=64, v=32, t=70, final=True),
         Lightning("reverse", t=90, reverse=True, **STATE),
         Lightning("varlen", n=4, t=150, slopes=True, **STATE),
         Lightning("f16", dtype="f16", t=80, **STATE),
         Lightning("bf16_chunk16", dtype="bf16", t=50, k=16, v=48,
                   config="block_v = 16, chunk_size = 16", **STATE)]),
    "recurrent.mlir": (
        "ejk.recurrent: each gate alone and all together (g and gk per key "
        "dim, gv per value dim, g_gamma per head or per sequence), strong "
        "value decay past the factored bound (exact ratios), GQA, K != V, "
        "reverse, packed sequences, T = 1, f16/bf16.",
        [Recurrent("ungated", t=70, **STATE),
         Recurrent("g_only", g=True, t=65, **STATE),
         Recurrent("gk_only", gk=True, t=64, final=True),
         Recurrent("gv_only", gv=True, t=100, **STATE),
         Recurrent("gamma_head", gamma="head", t=63, **STATE),
         Recurrent("gamma_per_batch", b=3, gamma="seq", t=40, **STATE),
         Recurrent("all_gates", g=True, gk=True, gv=True, gamma="head",
                   t=130, **STATE),
         # gv in U[-1, 0): chunks of 128 decay by about e^-64 per column,
         # past the bound, so the exact value ratios run (CPU).
         Recurrent("gv_exact_ratios", gv=True, k=16, v=16, t=300,
                   config="block_v = 16, chunk_size = 128",
                   vulkan_config="block_v = 16, chunk_size = 32", **STATE),
         Recurrent("gv_k_ne_v_gqa", gv=True, gk=True, h=4, hkv=2, k=64,
                   v=32, t=70, final=True),
         Recurrent("reverse_gates", g=True, gv=True, reverse=True, t=90,
                   **STATE),
         Recurrent("t1_decode", g=True, gv=True, b=2, t=1, **STATE),
         Recurrent("varlen", n=4, t=160, gk=True, gv=True, gamma="seq",
                   **STATE),
         Recurrent("f16", dtype="f16", gv=True, t=80, **STATE),
         Recurrent("bf16_split_v", dtype="bf16", gv=True, g=True, k=16,
                   v=48, t=45, config="block_v = 16, chunk_size = 5",
                   **STATE)]),
})


# --- linear: the delta rule --------------------------------------------------

class Delta:
    """One ejk.delta_attention entry: `decay` None, "head" ([B, T, H],
    Gated DeltaNet) or "key" ([B, T, H, K], KDA); `l2norm` False writes
    use_qk_l2norm = false; otherwise as Gla."""

    def __init__(self, name, b=1, t=64, h=2, hkv=None, k=32, v=None,
                 dtype="f32", decay="head", l2norm=True, init=False,
                 final=False, n=None, reverse=False, scale=None, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.hkv = hkv or h
        self.v = v or k

    def function(self, target="cpu"):
        q = tensor([self.b, self.t, self.h, self.k], self.dtype)
        kk = tensor([self.b, self.t, self.hkv, self.k], self.dtype)
        vv = tensor([self.b, self.t, self.hkv, self.v], self.dtype)
        beta = tensor([self.b, self.t, self.h], self.dtype)
        o = tensor([self.b, self.t, self.h, self.v], self.dtype)
        seqs = self.n if self.n is not None else self.b
        state = tensor([seqs, self.h, self.k, self.v], "f32")
        optional, extra = optional_operands([
            (self.decay is not None, "g", "decay",
             q if self.decay == "key" else beta),
            (self.init, "s0", "initial_state", state),
            (self.n is not None, "cu", "cu_seqlens",
             tensor([(self.n or 0) + 1], "i32"))])
        args = [f"%q: {q}", f"%k: {kk}", f"%v: {vv}",
                f"%beta: {beta}"] + optional
        attrs = (["reverse"] if self.reverse else []) + \
            ([f"scale = {self.scale} : f32"] if self.scale else []) + \
            ([] if self.l2norm else ["use_qk_l2norm = false"])
        attrs = attr_dict(self, attrs, target)
        results = [o] + ([state] if self.final else [])
        names = "%o, %s" if self.final else "%o"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.delta_attention %q, %k, %v, %beta{extra}{attrs}\n"
            f"      : {q}, {kk}, {vv}, {beta} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


DELTA_FILES = {
    "delta-seq-lengths.mlir": (
        "ejk.delta_attention over T = 1, 63, 64, 65 and 1000 (the chunk's "
        "edges), with and without states, T = 1 decode steps (a state in "
        "and out), T = 4000 of strong decay (per head and per key dim: the "
        "cumulative decay of the sequence reaches -2000 and stays finite), "
        "and per-key chunks past the factored scores' bound (exact ratios).",
        [Delta("t1", t=1, **STATE),
         Delta("t1_decode_gqa", t=1, b=3, h=4, hkv=2, k=64, **STATE),
         Delta("t1_decode_kda", t=1, b=2, decay="key", **STATE),
         Delta("t63", t=63),
         Delta("t64", t=64, **STATE),
         Delta("t65", t=65, decay="key", **STATE),
         Delta("t1000", t=1000, k=64, **STATE),
         Delta("t1000_no_decay", t=1000, k=32, decay=None, **STATE),
         Delta("t4000_strong_head_decay", t=4000, h=1, k=16, final=True),
         Delta("t4000_strong_key_decay", t=4000, h=1, k=16, decay="key",
               final=True),
         # Chunks of 256 steps decay by about e^-128 in each key dim: past
         # the factored bound, so the exact per-key ratios run; on Vulkan
         # the chunk only sets the stage, so chunks that fit.
         Delta("chunk256_exact_ratios", t=600, k=32, decay="key",
               config="block_v = 32, chunk_size = 256",
               vulkan_config="block_v = 32, chunk_size = 16", **STATE),
         Delta("chunk128_both_paths", t=700, k=16, decay="key",
               config="block_v = 16, chunk_size = 128",
               vulkan_config="block_v = 16, chunk_size = 32", **STATE)]),
    "delta-options.mlir": (
        "ejk.delta_attention options: no decay (DeltaNet), per-head decay "
        "(Gated DeltaNet), per-key-dim decay (KDA), use_qk_l2norm = false "
        "(keys of norm < 1), reverse, scale, states, batches.",
        [Delta("no_decay", decay=None, t=70),
         Delta("no_decay_state", decay=None, t=70, **STATE),
         Delta("head_decay", t=100, **STATE),
         Delta("key_decay", decay="key", t=100, **STATE),
         Delta("no_l2norm", l2norm=False, t=90, **STATE),
         Delta("no_l2norm_key_decay", l2norm=False, decay="key", t=90,
               **STATE),
         Delta("no_l2norm_no_decay", l2norm=False, decay=None, t=90,
               **STATE),
         Delta("reverse", t=100, reverse=True, **STATE),
         Delta("reverse_key_decay", t=33, decay="key", reverse=True,
               final=True),
         Delta("scale", t=40, scale=0.5),
         Delta("batch3", b=3, t=90, **STATE)]),
    "delta-shapes.mlir": (
        "ejk.delta_attention shapes: head dims 16 to 256, K != V, odd dims, "
        "GQA and MQA, f16/bf16, configs (small chunks, split head_dim_v), K "
        "below the subgroup.",
        [Delta("k16", k=16, t=50, **STATE),
         Delta("k256", k=256, h=1, t=70, **STATE),
         Delta("k64_v128", k=64, v=128, t=70, **STATE),
         Delta("k128_v32", k=128, v=32, t=70, decay="key", **STATE),
         Delta("odd_dims", k=20, v=12, t=45, decay="key", **STATE),
         Delta("gqa4", h=8, hkv=2, t=50, **STATE),
         Delta("mqa", h=4, hkv=1, t=50, reverse=True, **STATE),
         Delta("f16", dtype="f16", t=80, **STATE),
         Delta("bf16", dtype="bf16", t=80, k=64, decay="key", **STATE),
         Delta("chunk16", t=100, config="block_v = 16, chunk_size = 16",
               **STATE),
         Delta("chunk5_split_v", t=37, k=16, v=48,
               config="block_v = 16, chunk_size = 5", decay="key", **STATE),
         Delta("k4_v6", k=4, v=6, h=3, b=2, t=77, **STATE)]),
    "delta-varlen.mlir": (
        "ejk.delta_attention over packed sequences (cu_seqlens): random "
        "lengths with empty and length-1 sequences, states per sequence, "
        "reverse, GQA, per-key decay, bf16, a single sequence, K = 1.",
        [Delta("varlen", n=4, t=200, **STATE),
         Delta("varlen_many", n=16, t=100, k=16, decay="key", **STATE),
         Delta("varlen_reverse", n=5, t=150, reverse=True, **STATE),
         Delta("varlen_gqa", n=3, t=90, h=4, hkv=2, final=True),
         Delta("varlen_no_state", n=6, t=120, decay=None),
         Delta("varlen_bf16", n=4, t=130, dtype="bf16", k=64, **STATE),
         Delta("varlen_one", n=1, t=70, **STATE),
         Delta("varlen_k1", n=3, t=50, k=1, v=3, dtype="bf16", reverse=True,
               final=True)]),
}


def _dcp(chunk, block_v):
    return f"block_v = {block_v}, chunk_size = {chunk}, {CP}"


DELTA_FILES.update({
    "delta-chunk-parallel.mlir": (
        "Vulkan's chunk-parallel delta rule (chunk_parallel = 1: per-chunk "
        "gates and UT transform, a state pass over chunks producing the new "
        "values, every chunk's outputs at once): T = 1, 63, 64, 65 and "
        "1000, no / per-head / per-key decay, l2 norm on and off, K = V and "
        "K != V, odd dims, K = 256, GQA and MQA, reverse, scale, strong "
        "decay over T = 4000, packed sequences with empty and length-1 "
        "ones, states, f16/bf16. The CPU runs the same cases with its own "
        "heuristic configs.",
        [Delta("cp_t1", t=1, vulkan_config=_dcp(16, 16), **STATE),
         Delta("cp_t63", t=63, vulkan_config=_dcp(64, 32)),
         Delta("cp_t64", t=64, vulkan_config=_dcp(64, 32), **STATE),
         Delta("cp_t65_key", t=65, decay="key", vulkan_config=_dcp(64, 16),
               **STATE),
         Delta("cp_t1000", t=1000, k=64, vulkan_config=_dcp(64, 32),
               **STATE),
         Delta("cp_t1000_key", t=1000, k=64, decay="key",
               vulkan_config=_dcp(32, 32), **STATE),
         Delta("cp_no_decay", t=300, decay=None, vulkan_config=_dcp(32, 32),
               **STATE),
         Delta("cp_no_l2norm", t=200, l2norm=False,
               vulkan_config=_dcp(64, 32), **STATE),
         Delta("cp_no_l2norm_key", t=150, l2norm=False, decay="key",
               vulkan_config=_dcp(32, 16), **STATE),
         Delta("cp_k64_v128", k=64, v=128, t=130, vulkan_config=_dcp(64, 32),
               **STATE),
         Delta("cp_k128_v32", k=128, v=32, t=100, decay="key",
               vulkan_config=_dcp(32, 32), **STATE),
         Delta("cp_k256", k=256, v=32, h=1, t=70, vulkan_config=_dcp(16, 16),
               **STATE),
         Delta("cp_odd_dims", k=20, v=12, t=90, decay="key",
               vulkan_config=_dcp(16, 16), **STATE),
         Delta("cp_gqa", h=8, hkv=2, t=150, vulkan_config=_dcp(32, 16),
               **STATE),
         Delta("cp_mqa_reverse", h=4, hkv=1, t=130, reverse=True,
               vulkan_config=_dcp(64, 32), **STATE),
         Delta("cp_reverse_key", t=100, decay="key", reverse=True,
               vulkan_config=_dcp(32, 32), final=True),
         Delta("cp_scale_batch", b=3, t=90, scale=0.5,
               vulkan_config=_dcp(32, 32), **STATE),
         Delta("cp_t4000_strong_head_decay", t=4000, h=1, k=16,
               vulkan_config=_dcp(64, 16), final=True),
         Delta("cp_t4000_strong_key_decay", t=4000, h=1, k=16, decay="key",
               vulkan_config=_dcp(64, 16), final=True),
         Delta("cp_varlen", n=5, t=300, vulkan_config=_dcp(32, 32), **STATE),
         Delta("cp_varlen_key_reverse", n=6, t=200, k=16, decay="key",
               reverse=True, vulkan_config=_dcp(64, 16), **STATE),
         Delta("cp_varlen_gqa", n=3, t=90, h=4, hkv=2,
               vulkan_config=_dcp(16, 16), final=True),
         Delta("cp_f16", dtype="f16", t=200, vulkan_config=_dcp(64, 32),
               **STATE),
         Delta("cp_bf16_key", dtype="bf16", t=150, k=64, decay="key",
               vulkan_config=_dcp(32, 32), **STATE),
         Delta("cp_varlen_bf16", n=4, t=130, dtype="bf16", k=64,
               vulkan_config=_dcp(64, 32), **STATE)]),
})


# --- the families ----------------------------------------------------------

# --- latent ----------------------------------------------------------------

class Mla:
    """One ejk.mla entry: `sq` queries of `h` heads over `sk` cached tokens
    of a latent of `l` and a RoPE key of `r` per sequence."""

    def __init__(self, name, b=2, sq=1, h=8, l=64, r=16, sk=48, dtype="f32",
                 causal=False, lse=False, scale=None, nope=None, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        ql = tensor([self.b, self.sq, self.h, self.l], self.dtype)
        qr = tensor([self.b, self.sq, self.h, self.r], self.dtype)
        ckv = tensor([self.b, self.sk, self.l], self.dtype)
        kr = tensor([self.b, self.sk, self.r], self.dtype)
        lse = tensor([self.b, self.h, self.sq], "f32")
        attrs = []
        if self.causal:
            attrs.append("causal")
        if self.scale is not None:
            attrs.append(f"softmax_scale = {self.scale} : f32")
        if self.nope is not None:
            attrs.append(f"qk_nope_head_dim = {self.nope}")
        results = f"{ql}, {lse}" if self.lse else ql
        names = "%o, %lse" if self.lse else "%o"
        signature = f"({results})" if self.lse else results
        return (
            f"func.func @{self.name}(%ql: {ql}, %qr: {qr}, %ckv: {ckv}, "
            f"%kr: {kr}) -> {signature} {{\n"
            f"  {names} = ejk.mla %ql, %qr, %ckv, %kr"
            f"{attr_dict(self, attrs, target)}\n"
            f"      : {ql}, {qr}, {ckv}, {kr} -> {results}\n"
            f"  return {names} : {results}\n}}\n")


class PagedMla:
    """One ejk.paged_mla entry: `t` packed query tokens of `seqs` sequences
    (random starts, some sequences empty), pages of `page` tokens, tables
    of `maxp` pages (random inputs draw shuffled tables and lengths in
    [0, maxp * page], some 0, 1 or full)."""

    def __init__(self, name, t=6, seqs=3, h=8, l=64, r=16, pages=32, page=16,
                 maxp=6, dtype="f32", lse=False, scale=None, config=None,
                 vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        ql = tensor([self.t, self.h, self.l], self.dtype)
        qr = tensor([self.t, self.h, self.r], self.dtype)
        cache = tensor([self.pages, self.page, self.l + self.r], self.dtype)
        lens = tensor([self.seqs], "i32")
        tables = tensor([self.seqs, self.maxp], "i32")
        starts = tensor([self.seqs + 1], "i32")
        lse = tensor([self.t, self.h], "f32")
        attrs = []
        if self.scale is not None:
            attrs.append(f"softmax_scale = {self.scale} : f32")
        results = f"{ql}, {lse}" if self.lse else ql
        names = "%o, %lse" if self.lse else "%o"
        signature = f"({results})" if self.lse else results
        return (
            f"func.func @{self.name}(%ql: {ql}, %qr: {qr}, %c: {cache}, "
            f"%lens: {lens}, %tables: {tables}, %starts: {starts}) -> "
            f"{signature} {{\n"
            f"  {names} = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts"
            f"{attr_dict(self, attrs, target)}\n"
            f"      : {ql}, {qr}, {cache}, {lens}, {tables}, {starts} -> "
            f"{results}\n"
            f"  return {names} : {results}\n}}\n")


MLA_SPLITS = "block_k = 16, num_splits = 4"
MLA_VULKAN_SPLITS = "block_k = 4, num_splits = 3"
LATENT_FILES = {
    "mla-shapes.mlir": (
        "ejk.mla shapes: 1 to 128 heads (odd counts too), latents of 64 to "
        "512 (odd ones too), RoPE keys of 8, 16 and 64, caches of 1 to "
        "4096 tokens, decode and multi-token rows, DeepSeek-V3's 128 x 512 "
        "+ 64.",
        [Mla("h1", h=1, l=64, r=16, sk=100),
         Mla("h16_rope8", h=16, l=128, r=8, sk=70),
         Mla("h7_l96", h=7, l=96, r=16, sk=33),
         Mla("odd_latent", h=4, l=72, r=8, sk=40),
         Mla("cache1", h=8, l=64, r=16, sk=1),
         Mla("long4096", b=1, h=4, l=64, r=16, sk=4096),
         Mla("deepseek", b=1, h=128, l=512, r=64, sk=130, nope=128),
         Mla("l256_h32", b=1, h=32, l=256, r=64, sk=65),
         Mla("mtp2_causal", sq=2, h=16, l=64, r=16, sk=50, causal=True),
         Mla("prefill_causal", b=1, sq=33, h=4, l=64, r=16, sk=33,
             causal=True),
         Mla("prefill_plain", b=1, sq=5, h=4, l=64, r=16, sk=21)]),
    "mla-options.mlir": (
        "ejk.mla options: lse, scale, the models' default scale, split keys "
        "with their combine, causal rows that see no key (seq_q > seq_k), "
        "an empty cache.",
        [Mla("lse", h=8, lse=True),
         Mla("scale", h=8, scale=0.05),
         Mla("nope_default", h=8, nope=128, lse=True),
         Mla("splits", b=2, h=16, l=128, r=16, sk=300, lse=True,
             config=MLA_SPLITS, vulkan_config=MLA_VULKAN_SPLITS),
         Mla("splits_causal", b=1, sq=3, h=4, l=64, r=16, sk=200,
             causal=True, lse=True, config=MLA_SPLITS,
             vulkan_config=MLA_VULKAN_SPLITS),
         Mla("causal_short_cache", b=1, sq=6, h=4, l=64, r=16, sk=4,
             causal=True, lse=True),
         Mla("empty_cache", h=4, sk=0, lse=True)]),
    "mla-dtypes.mlir": (
        "ejk.mla element types: f16 and bf16 queries, caches and outputs "
        "(f32 accumulation), split and not.",
        [Mla("f16", h=16, l=128, r=64, sk=90, dtype="f16", lse=True),
         Mla("bf16", h=16, l=128, r=64, sk=90, dtype="bf16"),
         Mla("bf16_deepseek", b=1, h=128, l=512, r=64, sk=64, dtype="bf16",
             nope=128),
         Mla("f16_splits", h=8, l=64, r=16, sk=200, dtype="f16",
             config=MLA_SPLITS, vulkan_config=MLA_VULKAN_SPLITS)]),
    "paged-mla.mlir": (
        "ejk.paged_mla: ragged decode and mixed prefill over shuffled pages "
        "(random lengths, some 0, 1 or full; some sequences with no query), "
        "pages of 1, 16 and 64 tokens, 1 to 128 heads, RoPE 8 to 64, lse, "
        "splits, f16 and bf16, tables of no pages.",
        [PagedMla("decode", t=4, seqs=4, h=8),
         PagedMla("mixed", t=20, seqs=4, h=4),
         PagedMla("page1", t=5, seqs=3, h=4, page=1, pages=100, maxp=40),
         PagedMla("page64_deepseek", t=2, seqs=2, h=128, l=512, r=64,
                  page=64, pages=8, maxp=3, lse=True),
         PagedMla("rope8", t=6, seqs=3, h=16, l=128, r=8),
         PagedMla("h1_lse", t=6, seqs=2, h=1, lse=True),
         PagedMla("splits", t=8, seqs=3, h=8, maxp=12, lse=True,
                  config=MLA_SPLITS, vulkan_config=MLA_VULKAN_SPLITS),
         PagedMla("f16", t=6, seqs=3, h=16, l=128, r=64, dtype="f16",
                  lse=True),
         PagedMla("bf16_page64", t=4, seqs=4, h=32, l=256, r=64, page=64,
                  pages=10, maxp=2, dtype="bf16"),
         PagedMla("no_pages", t=3, seqs=2, maxp=0, lse=True)]),
}


# --- block-sparse attention -----------------------------------------------

class BlockSparse:
    """One ejk.block_sparse_attention entry. Its inputs come from
    Inputs/block_sparse_inputs.py (the block mask at `density`, with one
    dead query-block row per head in between 0 and 1), not from ejk-run's
    random inputs, whose i1 tensors are 85 % true."""

    def __init__(self, name, b=1, sq=64, sk=64, hq=2, hkv=2, d=32, dv=None,
                 dtype="f32", qbs=16, kbs=16, blocks=(1, 1), density=0.5,
                 attrs=None, bias=None, mask=None, segments=False, lse=True,
                 repro=False):
        self.name, self.b, self.sq, self.sk = name, b, sq, sk
        self.hq, self.hkv, self.d, self.dv = hq, hkv, d, dv or d
        self.dtype, self.qbs, self.kbs = dtype, qbs, kbs
        # (batch | 1, heads | 1) of the block mask; None: no block mask.
        self.blocks, self.density = blocks, density
        self.attrs = attrs or []
        self.bias, self.mask, self.segments, self.lse = bias, mask, segments, lse
        # Also run twice and compare the outputs byte for byte.
        self.repro = repro

    def operands(self):
        """(name, kind, dtype, shape) of each argument, in order."""
        ops = [("q", "normal", self.dtype, [self.b, self.sq, self.hq, self.d]),
               ("k", "normal", self.dtype, [self.b, self.sk, self.hkv, self.d]),
               ("v", "normal", self.dtype, [self.b, self.sk, self.hkv, self.dv])]
        if self.blocks:
            nq = -(-self.sq // self.qbs)
            nk = -(-self.sk // self.kbs)
            ops.append(("bm", "blocks", "i1", [*self.blocks, nq, nk]))
        if self.bias:
            ops.append(("bias", "normal", "f32",
                        [*self.bias, self.sq, self.sk]))
        if self.mask:
            ops.append(("mask", "mask", "i1", [*self.mask, self.sq, self.sk]))
        if self.segments:
            ops.append(("qs", "segments", "i32", [self.b, self.sq]))
            ops.append(("ks", "segments", "i32", [self.b, self.sk]))
        return ops

    def run_lines(self, flags, seed):
        out = f"%t.{self.name}"
        specs = " ".join(f"{n}:{k}:{dt}:{'x'.join(map(str, sh))}"
                         for n, k, dt, sh in self.operands())
        inputs = " ".join(f"--input {out}/{n}.npy" for n, *_ in self.operands())
        run = f"ejk-run %s --entry {self.name}{flags} {inputs}"
        lines = [f"// RUN: rm -rf {out} && mkdir -p {out} && %python "
                 f"%S/../../Inputs/block_sparse_inputs.py {out} {seed} "
                 f"{self.density} {specs}",
                 f"// RUN: {run} --check | FileCheck %s"]
        if self.repro:
            # Every result twice, compared byte for byte.
            names = ["o", "lse"] if self.lse else ["o"]
            for run_tag in ("a", "b"):
                outs = " ".join(f"--output {out}/{n}_{run_tag}.npy"
                                for n in names)
                lines.append(f"// RUN: {run} {outs}")
            lines += [f"// RUN: cmp {out}/{n}_a.npy {out}/{n}_b.npy"
                      for n in names]
        return lines

    def function(self, target="cpu"):
        types = {n: tensor(sh, dt) for n, _, dt, sh in self.operands()}
        q, k, v = types["q"], types["k"], types["v"]
        o = tensor([self.b, self.sq, self.hq, self.dv], self.dtype)
        args = [f"%{n}: {t}" for n, t in types.items()]
        extra = ", %bm" if self.blocks else ""
        for name in ("bias", "mask"):
            if name in types:
                extra += f" {name}(%{name} : {types[name]})"
        if self.segments:
            extra += (f" q_segment_ids(%qs : {types['qs']})"
                      f" kv_segment_ids(%ks : {types['ks']})")
        results = [o]
        if self.lse:
            results.append(tensor([self.b, self.hq, self.sq], "f32"))
        attrs = [f"q_block_size = {self.qbs} : i64",
                 f"kv_block_size = {self.kbs} : i64"] + self.attrs
        operand_types = f"{q}, {k}, {v}" + (f", {types['bm']}"
                                            if self.blocks else "")
        names = "%o, %lse" if self.lse else "%o"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.block_sparse_attention %q, %k, %v{extra} {{{', '.join(attrs)}}}\n"
            f"      : {operand_types} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


NOT_CAUSAL = "causal = false"
BLOCK_SPARSE_FILES = {
    "block_sparse.mlir": (
        "ejk.block_sparse_attention over random block masks: densities 0 to "
        "1 (one dead query-block row per head in between: output 0, lse "
        "-inf), per-head and broadcast masks, partial blocks, GQA, f32/f16/"
        "bf16, and a run twice compared byte for byte.",
        [BlockSparse("density_0", density=0.0, attrs=[NOT_CAUSAL]),
         BlockSparse("density_25", b=2, hq=2, blocks=(2, 2), density=0.25,
                     attrs=[NOT_CAUSAL], repro=True),
         BlockSparse("density_50", sq=96, sk=128, qbs=32, kbs=32,
                     blocks=(1, 2), density=0.5, attrs=[NOT_CAUSAL]),
         BlockSparse("density_75", sq=64, sk=64, qbs=16, kbs=32,
                     density=0.75, attrs=[NOT_CAUSAL]),
         BlockSparse("density_100", density=1.0, attrs=[NOT_CAUSAL]),
         BlockSparse("causal_default", sq=80, sk=80, qbs=16, kbs=16,
                     blocks=(1, 2), density=0.6),
         BlockSparse("partial_blocks", sq=50, sk=70, qbs=16, kbs=32,
                     blocks=(1, 2), density=0.6, attrs=[NOT_CAUSAL]),
         BlockSparse("gqa_4_1", hq=4, hkv=1, blocks=(1, 4), density=0.5,
                     attrs=[NOT_CAUSAL], lse=False),
         BlockSparse("gqa_dv", sq=32, sk=96, hq=4, hkv=2, d=48, dv=16,
                     kbs=32, blocks=(1, 4), density=0.5, attrs=[NOT_CAUSAL]),
         BlockSparse("f16", dtype="f16", blocks=(1, 2), density=0.5,
                     attrs=[NOT_CAUSAL]),
         BlockSparse("bf16", dtype="bf16", blocks=(1, 2), density=0.5),
         BlockSparse("big_blocks", sq=128, sk=256, qbs=64, kbs=128,
                     blocks=(1, 2), density=0.5, attrs=[NOT_CAUSAL]),
         # 256 lists (query blocks of each batch and head), GQA.
         BlockSparse("many_jobs", b=2, sq=512, sk=128, hq=4, hkv=2, d=16,
                     blocks=(2, 4), density=0.4, attrs=[NOT_CAUSAL],
                     repro=True)]),
    "block_sparse_masks.mlir": (
        "ejk.block_sparse_attention with the attribute masks (ejKernel's "
        "mask builders) with and without a block mask, and the data "
        "options: token mask, bias, segments, soft cap, scale.",
        [BlockSparse("causal", blocks=None),
         BlockSparse("local", blocks=None,
                     attrs=[NOT_CAUSAL, "sliding_window = array<i64: 16, 8>"]),
         BlockSparse("causal_local", blocks=None,
                     attrs=["sliding_window = array<i64: 24>"]),
         BlockSparse("chunked_causal", sq=96, sk=96, blocks=None,
                     attrs=["chunk_size = 32 : i64"]),
         BlockSparse("chunked_odd", sq=96, sk=96, blocks=None,
                     attrs=[NOT_CAUSAL, "chunk_size = 24 : i64"]),
         BlockSparse("bottom_right", sq=32, sk=80, blocks=None,
                     attrs=['mask_alignment = "bottom_right"']),
         BlockSparse("bottom_right_chunk", sq=48, sk=80, blocks=(1, 2),
                     density=0.7, attrs=['mask_alignment = "bottom_right"',
                                         "chunk_size = 32 : i64"]),
         BlockSparse("blocks_window_chunk", sq=96, sk=96, blocks=(1, 2),
                     density=0.7,
                     attrs=["sliding_window = array<i64: 40, 0>",
                            "chunk_size = 48 : i64"]),
         BlockSparse("top_left_rect", sq=80, sk=48, blocks=(1, 1),
                     density=0.8),
         BlockSparse("data_options", b=2, blocks=(2, 1), density=0.6,
                     bias=(1, 2), mask=(2, 1), segments=True,
                     attrs=[NOT_CAUSAL, "logits_soft_cap = 5.0 : f32",
                            "softmax_scale = 0.2 : f32"]),
         # Long lists: 38 key blocks, and with a window the first live
         # block far from key 0.
         BlockSparse("long_keys", sq=32, sk=600, blocks=(1, 2), density=0.5,
                     attrs=[NOT_CAUSAL]),
         BlockSparse("long_keys_window", sq=32, sk=600, blocks=(1, 2),
                     density=0.7, attrs=['mask_alignment = "bottom_right"',
                                         "sliding_window = array<i64: 300, 0>"]),
         # 125 key blocks of 16: Vulkan kernels build their own lists in
         # chunks of 64 blocks (LiveBlocks.h), here two, the second partial,
         # and with the window lists that start past key 0.
         BlockSparse("many_key_blocks", sq=48, sk=2000, blocks=(1, 2),
                     density=0.5, attrs=[NOT_CAUSAL], repro=True),
         BlockSparse("many_key_blocks_window", sq=48, sk=2000,
                     blocks=(1, 2), density=0.6,
                     attrs=['mask_alignment = "bottom_right"',
                            "sliding_window = array<i64: 1300, 0>"])]),
}


class Nsa:
    """One ejk.native_sparse_attention entry on ejk-run's random inputs
    (gates in [0, 1), given block indices in [-1, blocks]: invalid entries
    included). `gates` names the gates given ("cmp" selects the blocks),
    `indices` "token" or "block" gives the indices instead; `repro` also
    runs it twice and compares the outputs byte for byte."""

    def __init__(self, name, b=1, t=64, hq=4, hkv=2, d=32, dtype="f32",
                 bs=16, counts=3, gates=("cmp", "slc"), window=0,
                 indices=None, slots=3, attrs=None, repro=False):
        self.name, self.b, self.t, self.hq, self.hkv, self.d = \
            name, b, t, hq, hkv, d
        self.dtype, self.bs, self.counts, self.gates = dtype, bs, counts, gates
        self.window, self.indices, self.slots = window, indices, slots
        self.attrs, self.repro = attrs or [], repro

    def run_lines(self, flags, seed):
        run = f"ejk-run %s --entry {self.name}{flags} --random-inputs {seed}"
        lines = [f"// RUN: {run} --check | FileCheck %s"]
        if self.repro:
            out = f"%t.{self.name}"
            lines.append(f"// RUN: rm -rf {out} && mkdir -p {out}")
            for tag in ("a", "b"):
                lines.append(f"// RUN: {run} --output {out}/o_{tag}.npy")
            lines.append(f"// RUN: cmp {out}/o_a.npy {out}/o_b.npy")
        return lines

    def function(self, target="cpu"):
        q = tensor([self.b, self.t, self.hq, self.d], self.dtype)
        kv = tensor([self.b, self.t, self.hkv, self.d], self.dtype)
        g = tensor([self.b, self.t, self.hq], self.dtype)
        args = [f"%q: {q}", f"%k: {kv}", f"%v: {kv}"]
        extra = ""
        for gate in self.gates:
            args.append(f"%g{gate}: {g}")
            extra += f" g_{gate}(%g{gate} : {g})"
        if self.indices:
            blocks = -(-self.t // self.bs)
            shape = ([self.b, self.t, self.hkv, self.slots]
                     if self.indices == "token"
                     else [self.b, self.hkv, blocks, self.slots])
            bi = tensor(shape, "i32")
            args.append(f"%bi: {bi}")
            extra += f" block_indices(%bi : {bi})"
        attrs = [f"block_size = {self.bs} : i64",
                 f"block_counts = {self.counts} : i64"] + self.attrs
        if self.window:
            attrs.append(f"window_size = {self.window} : i64")
        return (
            f"func.func @{self.name}({', '.join(args)}) -> {q} {{\n"
            f"  %o = ejk.native_sparse_attention %q, %k, %v{extra} {{{', '.join(attrs)}}}\n"
            f"      : {q}, {kv}, {kv} -> {q}\n"
            f"  return %o : {q}\n}}\n")


CS = ("cmp", "slc")
NSA_FILES = {
    "native_sparse.mlir": (
        "ejk.native_sparse_attention with the blocks selected by the "
        "compression branch: top-k 1 to all (and more than all), GQA 1 to 8, "
        "block sizes 8 to 32, sequences that are not whole blocks, f32/f16/"
        "bf16, and a run twice compared byte for byte.",
        [Nsa("topk_1", counts=1),
         Nsa("topk_2", counts=2, repro=True),
         Nsa("topk_all", counts=4),
         Nsa("topk_more_than_all", t=60, counts=9),
         Nsa("mha", hq=2, hkv=2, counts=2),
         Nsa("gqa_8", hq=8, hkv=1, counts=3),
         Nsa("block_8", bs=8, counts=5, t=70),
         Nsa("block_32", t=100, bs=32, counts=2),
         Nsa("partial_block", t=50, bs=16, counts=2),
         Nsa("one_partial_block", t=7, bs=16, counts=2),
         Nsa("cmp_only", gates=("cmp",), counts=2),
         Nsa("head_dim_40", d=40, counts=2, attrs=["softmax_scale = 0.2 : f32"]),
         Nsa("batch_2", b=2, t=48, counts=2),
         Nsa("f16", dtype="f16", counts=2),
         Nsa("bf16", dtype="bf16", counts=2)]),
    "native_sparse_window.mlir": (
        "ejk.native_sparse_attention's sliding-window branch (with and "
        "without its gate, windows shorter and longer than the sequence) "
        "and caller-given block indices per token and per query block.",
        [Nsa("window_8", window=8, gates=("cmp", "slc", "swa")),
         Nsa("window_24_ungated", t=72, window=24, counts=2),
         Nsa("window_longer", t=40, window=64, gates=("cmp", "slc", "swa"),
             repro=True),
         Nsa("window_bf16", dtype="bf16", window=16,
             gates=("cmp", "slc", "swa")),
         Nsa("indices_token", t=50, indices="token", gates=("slc",),
             counts=3, slots=3),
         Nsa("indices_token_counts", t=64, indices="token", gates=(),
             counts=2, slots=4),
         Nsa("indices_block", t=70, indices="block", gates=("slc",),
             counts=3, slots=3, window=8),
         Nsa("indices_gqa_f16", t=48, hq=8, hkv=2, dtype="f16",
             indices="block", gates=("slc",), counts=4, slots=4)]),
}


class Family:
    """One op family's tests: `files` maps a file name to (summary, cases);
    `checks` are the CHECK lines every file ends with; `wide_vectors` runs
    the cases of the `*shapes*` files again for 256-bit vectors on the CPU;
    `not_on_vulkan` names cases that cannot run on Vulkan; `targets` are
    the targets the family has kernels for."""

    def __init__(self, folder, files, checks, wide_vectors=False,
                 not_on_vulkan=(), targets=("cpu", "vulkan")):
        self.folder, self.files, self.checks = folder, files, checks
        self.wide_vectors, self.not_on_vulkan = wide_vectors, set(not_on_vulkan)
        self.targets = targets


FAMILIES = [
    Family("attention",
           {name: (summary, cases)
            for name, summary, cases in attention_files()},
           checks=["// CHECK-NOT: FAILED",
                   "// CHECK: result 0 ({{.*}}): {{.*}}: ok"]),
    # Nothing is left out on Vulkan: the chunk_size attribute does not bind
    # the kernel's chunk, so Mamba-2's 256 runs with chunks that fit.
    Family("state-space", STATE_SPACE_FILES,
           checks=["// CHECK: result 0 ({{.*}}): {{.*}}: ok",
                   "// CHECK-NOT: FAILED"],
           wide_vectors=True),
    Family("moe", MOE_FILES,
           checks=["// CHECK: result 0 ({{.*}}): {{.*}}: ok",
                   "// CHECK-NOT: FAILED"],
           wide_vectors=True),
    Family("pooling", POOLING_FILES,
           checks=["// CHECK: result 0 ({{.*}}): {{.*}}: ok",
                   "// CHECK-NOT: FAILED"]),
    Family("paged", PAGED_FILES,
           checks=["// CHECK: result 0 ({{.*}}): {{.*}}: ok",
                   "// CHECK-NOT: FAILED"]),
    Family("linear", {**LINEAR_FILES, **DELTA_FILES},
           checks=["// CHECK: result 0 ({{.*}}): {{.*}}: ok",
                   "// CHECK-NOT: FAILED"],
           wide_vectors=True),
    Family("latent", LATENT_FILES,
           checks=["// CHECK: result 0 ({{.*}}): {{.*}}: ok",
                   "// CHECK-NOT: FAILED"],
           wide_vectors=True),
    Family("attention-sparse", BLOCK_SPARSE_FILES,
           checks=["// CHECK-NOT: FAILED",
                   "// CHECK: result 0 ({{.*}}): {{.*}}: ok"]),
    Family("native-sparse", NSA_FILES,
           checks=["// CHECK-NOT: FAILED",
                   "// CHECK: result 0 ({{.*}}): {{.*}}: ok"]),
]


def write(family, target, filename, summary, cases):
    lines = [f"// {summary}",
             "// Generated by test/Integration/generate_tests.py.", ""]
    flags = ""
    if target == "vulkan":
        lines += ["// REQUIRES: vulkan", ""]
        flags = " --target vulkan"
        cases = [case for case in cases
                 if case.name not in family.not_on_vulkan]
    for seed, case in enumerate(cases, start=1):
        # A case may bring its own inputs (BlockSparse).
        if hasattr(case, "run_lines"):
            lines += case.run_lines(flags, seed)
            continue
        lines.append(f"// RUN: ejk-run %s --entry {case.name}{flags} "
                     f"--random-inputs {seed} --check | FileCheck %s")
    if target == "cpu" and family.wide_vectors and "shapes" in filename:
        # The same cases compiled for 256-bit vectors (8 lanes, AVX2
        # register blocks) on any x86-64 host that runs AVX2.
        for seed, case in enumerate(cases, start=1):
            lines.append(f"// RUN: ejk-run %s --entry {case.name} --vector-bits 256 "
                         f"--random-inputs {seed} --check | FileCheck %s")
    lines += [""] + family.checks + [""]
    body = "\n".join(case.function(target) for case in cases)
    directory = os.path.join(ROOT, "CPU" if target == "cpu" else "Vulkan",
                             family.folder)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, filename), "w") as f:
        f.write("\n".join(lines) + "\n" + body)


def main():
    for family in FAMILIES:
        for filename, (summary, cases) in family.files.items():
            for target in family.targets:
                write(family, target, filename, summary, cases)


if __name__ == "__main__":
    main()

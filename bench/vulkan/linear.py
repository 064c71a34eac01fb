#!/usr/bin/env python3
"""ejk's Vulkan gla against flash-linear-attention's Triton kernels on the
GPU machine, in one process (issue 18's GPU bar; docs/ops/linear.md).

  here:   python3 bench/vulkan/linear.py prepare DIR [FINGERPRINT]
          compiles the variants with ejkc for FINGERPRINT (default
          bench/vulkan/h100.fingerprint; LINEAR_ONLY=REGEX: only the
          matching names) into DIR/art/<name>/, copies the runtime to
          DIR/lib/ and this script to DIR/.
  there:  python3 DIR/linear.py run DIR
          (with flash-linear-attention 0.6.0, fla-core 0.6.0 and einops on
          PYTHONPATH, carried as wheels: the device tool's README) fills the
          inputs (q, k, v ~ N(0, 1), g = logsigmoid(N(0, 1)) / 16, g_gamma =
          log(1 - 2^(-5 - h/2)) per head), checks a small case against an
          f32 recurrence in PyTorch (the chk_* cases: cooperative and SIMT
          kernels, f16 and bf16, weak, medium and strong gates, T not a
          multiple of the chunk, varlen, GQA, reverse, initial and final
          states: `recurrence`, which matches ejk's CPU kernel in f32 on
          all of these) and each bench case against fla's output,
          times ejk with the runtime's GPU timestamps (each dispatch too)
          and fla's chunk_gla / chunk_simple_gla with CUDA events in turn,
          LINEAR_ROUNDS rounds (default 3), their medians
          (linear_rounds.py; with LINEAR_GROUPS=1 the bench cases of one
          problem share their inputs and every variant and fla are timed
          in turn within each round), and
          writes DIR/linear.json (and $OUT/linear.json). LINEAR_ONLY=REGEX
          runs only the cases whose names match; BENCH_PEER=0 skips fla
          (its first call compiles Triton kernels for a minute or more).
"""
import json, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402  (beside this script here and there)
import linear_rounds  # noqa: E402  (likewise)


# name: (B, T, H, K, V, dtype, gated[, config[, cu_seqlens]])
# gated: "g" (g = logsigmoid(N(0, 1)) / 16, fla's benchmark gates), "g/4"
# and "g/1" (4x and 16x stronger: chunks of 64 reach B_last of about -13 and
# -50, past the cooperative kernel's factored bound of 16), or "gamma".
# Without a config ejkc's heuristic picks (chunk-parallel SIMT from 256
# steps, also where the fingerprint has cooperative matrices); the
# "_simt" and "coop" variants pin the other kernels for comparison.
RECURRENT = "block_v = 8, chunk_size = 16"
CHUNK_PARALLEL = "block_v = 48, chunk_size = 32, chunk_parallel = 1"
SIMT64 = "block_v = 128, chunk_size = 64, chunk_parallel = 1"
# cooperative = 1: the outputs on cooperative matrices (the heuristic's
# pick once it has run whole); 2: the update too. The results of 2026-11-27
# (bench/results/h200/linear-2026-11-27-coop*.json) predate form 1: their
# unconfigured variants and their "_coop_" and "chk_coop_" cases ran what
# is now cooperative = 2 (the "coop2" names below).
COOP1 = "chunk_parallel = 1, cooperative = 1"
COOP2 = "chunk_parallel = 1, cooperative = 2"
# The in-order cooperative kernel (constant decays: the chunks of a
# sequence in order, the state in matrix accumulators, no states temporary;
# lib/Ops/Linear/Vulkan/CoopInOrder.cpp).
def INORDER(chunk, block_v):
    return f"block_v = {block_v}, chunk_size = {chunk}, cooperative = 1"
# Form 2 (`cooperative = 2`): each subgroup converts its own score and
# state tiles to operands behind subgroup barriers (3 workgroup barriers a
# chunk instead of 7).
def INORDER2(chunk, block_v):
    return f"block_v = {block_v}, chunk_size = {chunk}, cooperative = 2"
# The split form (`chunk_parallel = 1, cooperative = 3`, constant decays):
# a state pass writing each chunk's state in the input type, then outputs
# with every operand read from memory straight into matrices
# (lib/Ops/Linear/Vulkan/CoopSplit.cpp). Batch rows, T a multiple of the
# chunk.
def SPLIT(chunk, block_v):
    return (f"block_v = {block_v}, chunk_size = {chunk}, chunk_parallel = 1, "
            "cooperative = 3")
# Packed sequences of lengths 37, 0, 113, 1, 149 (T = 300).
CU = [0, 37, 37, 150, 151, 300]


def variants():
    shape = (4, 4096, 16, 128, 128)
    simple = (16, 16384, 8, 128, 128)
    small = (2, 100, 3, 32, 48)
    mid = (2, 200, 3, 64, 64)
    c64 = "block_v = 64, chunk_size = 64, "
    cases = {
        "ggla_bf16": shape + ("bf16", "g"),
        "ggla_f16": shape + ("f16", "g"),
        "ggla_bf16_simt": shape + ("bf16", "g", SIMT64),
        "ggla_f16_simt": shape + ("f16", "g", SIMT64),
        "ggla_bf16_coop2": shape + ("bf16", "g", "block_v = 128, chunk_size = 64, " + COOP2),
        # Cooperative configs around the heuristic's (C 64, block_v 128).
        "ggla_bf16_coop2_c32_v128": shape + ("bf16", "g", "block_v = 128, chunk_size = 32, " + COOP2),
        "ggla_bf16_coop2_c64_v64": shape + ("bf16", "g", c64 + COOP2),
        "ggla_bf16_coop1_c32_v128": shape + ("bf16", "g", "block_v = 128, chunk_size = 32, " + COOP1),
        "ggla_bf16_coop1": shape + ("bf16", "g", "block_v = 128, chunk_size = 64, " + COOP1),
        "ggla_f16_coop1": shape + ("f16", "g", "block_v = 128, chunk_size = 64, " + COOP1),
        "gsimple_bf16_coop1": simple + ("bf16", "gamma", "block_v = 128, chunk_size = 64, " + COOP1),
        "gsimple_bf16": simple + ("bf16", "gamma"),
        "gsimple_bf16_simt": simple + ("bf16", "gamma", SIMT64),
        "gsimple_bf16_coop2": simple + ("bf16", "gamma", "block_v = 128, chunk_size = 64, " + COOP2),
        "gsimple_bf16_inorder_c32_v32": simple + ("bf16", "gamma", INORDER(32, 32)),
        "gsimple_bf16_inorder_c16_v64": simple + ("bf16", "gamma", INORDER(16, 64)),
        "gsimple_bf16_inorder_c16_v32": simple + ("bf16", "gamma", INORDER(16, 32)),
        "gsimple_bf16_inorder_c32_v16": simple + ("bf16", "gamma", INORDER(32, 16)),
        "gsimple_f16_inorder_c32_v32": simple + ("f16", "gamma", INORDER(32, 32)),
        "gsimple_f16": simple + ("f16", "gamma"),
        # In order: T = 100, 700 not multiples of the chunk; V = 48 leaves a
        # partial V block; packed sequences (an empty one, one of length 1).
        "chk_inorder_small_f16": small + ("f16", "gamma", INORDER(32, 32)),
        "chk_inorder_small_bf16": small + ("bf16", "gamma", INORDER(16, 32)),
        "chk_inorder_gamma_bf16": (2, 700, 4, 64, 64, "bf16", "gamma", INORDER(32, 32)),
        "chk_inorder_gamma_f16_c16_v64": (2, 700, 4, 64, 64, "f16", "gamma", INORDER(16, 64)),
        "chk_inorder_varlen_f16": (1, 300, 2, 64, 64, "f16", "gamma", INORDER(32, 32), CU),
        "chk_inorder_long_bf16": (1, 2000, 2, 128, 128, "bf16", "gamma", INORDER(32, 32)),
        "chk_inorder_long_f16_v16": (1, 2000, 2, 128, 128, "f16", "gamma", INORDER(32, 16)),
        # K = 128 with chunks of 32: the q stage can hold a second f32 tile
        # per subgroup (bench/results/h200/linear-inorder-park-state.patch
        # parks the state there); varlen; V = 48 (a partial V block).
        "chk_inorder_long_f16": (1, 2000, 2, 128, 128, "f16", "gamma", INORDER(32, 32)),
        "chk_inorder_parks_varlen_bf16": (1, 300, 2, 128, 128, "bf16", "gamma", INORDER(32, 32), CU),
        "chk_inorder_parks_v48_f16": (2, 700, 4, 128, 48, "f16", "gamma", INORDER(32, 32)),
        # GQA, reverse, states in and out (initial states 0.5 N(0, 1), the
        # final states compared too), alone and together with packed
        # sequences: paths FileCheck pins but no GPU run had covered.
        "chk_inorder_gqa_bf16": (2, 300, 4, 64, 64, "bf16", "gamma", INORDER(32, 32), None, {"kv": 2}),
        "chk_inorder_reverse_f16": (2, 300, 2, 128, 64, "f16", "gamma", INORDER(32, 32), None, {"reverse": True}),
        "chk_inorder_states_bf16": (2, 300, 2, 128, 64, "bf16", "gamma", INORDER(32, 32), None, {"states": True}),
        "chk_inorder_varlen_all_f16": (1, 300, 4, 64, 48, "f16", "gamma", INORDER(32, 32), CU,
                                       {"kv": 2, "reverse": True, "states": True}),
        # The heuristic's pick with 8 x 16 x 2 = 256 workgroups: in order.
        "chk_inorder_heuristic_bf16": (8, 300, 16, 64, 64, "bf16", "gamma"),
        "chk_inorder_heuristic_f16": (8, 300, 16, 64, 64, "f16", "gamma"),
        "gsimple_bf16_inorder2_c32_v32": simple + ("bf16", "gamma", INORDER2(32, 32)),
        "gsimple_f16_inorder2_c32_v32": simple + ("f16", "gamma", INORDER2(32, 32)),
        "gsimple_bf16_inorder2_c16_v64": simple + ("bf16", "gamma", INORDER2(16, 64)),
        "gsimple_bf16_inorder2_c16_v32": simple + ("bf16", "gamma", INORDER2(16, 32)),
        "gsimple_bf16_inorder2_c32_v16": simple + ("bf16", "gamma", INORDER2(32, 16)),
        "ggla_bf16_coop1_c64_v64": shape + ("bf16", "g", c64 + COOP1),
        "gsimple_bf16_split_c64_v32": simple + ("bf16", "gamma", SPLIT(64, 32)),
        "gsimple_bf16_split_c64_v64": simple + ("bf16", "gamma", SPLIT(64, 64)),
        "gsimple_bf16_split_c32_v32": simple + ("bf16", "gamma", SPLIT(32, 32)),
        "gsimple_bf16_split_c32_v64": simple + ("bf16", "gamma", SPLIT(32, 64)),
        "gsimple_f16_split_c64_v32": simple + ("f16", "gamma", SPLIT(64, 32)),
        "gsimple_f16_split_c64_v64": simple + ("f16", "gamma", SPLIT(64, 64)),
        # The split form: K = 64 and 128, V blocks of 16 to 64 in the state
        # pass, chunks of 16, 32 and 64, GQA, states in and out.
        "chk_split_bf16": (2, 512, 4, 64, 64, "bf16", "gamma", SPLIT(64, 32)),
        "chk_split_f16": (2, 512, 4, 64, 64, "f16", "gamma", SPLIT(64, 32)),
        "chk_split_long_bf16": (1, 2048, 2, 128, 128, "bf16", "gamma", SPLIT(64, 32)),
        "chk_split_long_f16_v64": (1, 2048, 2, 128, 128, "f16", "gamma", SPLIT(64, 64)),
        "chk_split_c32_f16": (2, 512, 4, 128, 64, "f16", "gamma", SPLIT(32, 32)),
        "chk_split_c16_v16_bf16": (1, 256, 2, 128, 128, "bf16", "gamma", SPLIT(16, 16)),
        "chk_split_gqa_bf16": (2, 512, 4, 64, 64, "bf16", "gamma", SPLIT(64, 32), None, {"kv": 2}),
        "chk_split_states_f16": (2, 512, 2, 128, 64, "f16", "gamma", SPLIT(64, 32), None, {"states": True}),
        "chk_gla": small + ("f16", "g", RECURRENT),
        "chk_gla_chunk_parallel": small + ("f16", "g", CHUNK_PARALLEL),
        # Cooperative: T = 100 is not a multiple of the chunk; V = 48 leaves
        # subgroups without a tile of their own.
        "chk_coop2_f16": small + ("f16", "g", "block_v = 48, chunk_size = 32, " + COOP2),
        "chk_coop2_bf16": small + ("bf16", "g", "block_v = 48, chunk_size = 32, " + COOP2),
        "chk_coop2_c64_f16": mid + ("f16", "g", c64 + COOP2),
        "chk_coop2_mid_f16": mid + ("f16", "g/4", c64 + COOP2),
        "chk_coop2_strong_f16": mid + ("f16", "g/1", c64 + COOP2),
        "chk_coop2_strong_bf16": mid + ("bf16", "g/1", c64 + COOP2),
        "chk_coop2_gamma_bf16": (2, 700, 4, 64, 64, "bf16", "gamma", c64 + COOP2),
        "chk_coop2_varlen_f16": (1, 300, 2, 64, 64, "f16", "g", c64 + COOP2, CU),
        "chk_coop2_varlen_strong_f16": (1, 300, 2, 64, 64, "f16", "g/1", c64 + COOP2, CU),
        "chk_simt_varlen_f16": (1, 300, 2, 64, 64, "f16", "g", SIMT64, CU),
        # cooperative = 1 (SIMT update, f32 states): not yet run on a GPU.
        "chk_coop1_f16": small + ("f16", "g", "block_v = 48, chunk_size = 32, " + COOP1),
        "chk_coop1_strong_bf16": mid + ("bf16", "g/1", c64 + COOP1),
        "chk_coop1_gamma_bf16": (2, 700, 4, 64, 64, "bf16", "gamma", c64 + COOP1),
        "chk_coop1_varlen_f16": (1, 300, 2, 64, 64, "f16", "g/4", c64 + COOP1, CU),
        # The heuristic's pick at K = V = 128 (the SIMT chunk-parallel kernel).
        "chk_gla_long": (1, 700, 2, 128, 128, "f16", "g"),
        "chk_gla_long_bf16": (1, 700, 2, 128, 128, "bf16", "g"),
    }
    # Form 2 on every in-order check case; at the heuristic's shape, its
    # C 32 block_v 32.
    for name, spec in list(cases.items()):
        if name.startswith("chk_inorder"):
            config = (spec[7].replace("cooperative = 1", "cooperative = 2")
                      if len(spec) > 7 else INORDER2(32, 32))
            cases["chk_inorder2" + name[len("chk_inorder"):]] = (
                spec[:7] + (config,) + spec[8:])
    return cases


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def ir(b, tt, h, k, v, dt, gated, config=None, cu=None, opts=None):
    opts = opts or {}
    hkv = opts.get("kv", h)
    q, o = t(b, tt, h, k, e=dt), t(b, tt, h, v, e=dt)
    kt, vv = t(b, tt, hkv, k, e=dt), t(b, tt, hkv, v, e=dt)
    args = [f"%q: {q}", f"%k: {kt}", f"%v: {vv}"]
    clause = ""
    if gated.startswith("g/") or gated == "g":
        args.append(f"%g: {q}")
        clause = f" g(%g : {q})"
    else:
        args.append(f"%gg: {t(h, e='f32')}")
        clause = f" g_gamma(%gg : {t(h, e='f32')})"
    states = t(len(cu) - 1 if cu else b, h, k, v, e="f32")
    if opts.get("states"):
        args.append(f"%s0: {states}")
        clause += f" initial_state(%s0 : {states})"
    if cu:
        args.append(f"%cu: {t(len(cu), e='i32')}")
        clause += f" cu_seqlens(%cu : {t(len(cu), e='i32')})"
    attrs = (["reverse"] if opts.get("reverse") else []) + (
        [f"config = #ejk.config<{config}>"] if config else [])
    attrs = f" {{{', '.join(attrs)}}}" if attrs else ""
    results, types = ("%o, %s", f"{o}, {states}") if opts.get("states") else ("%o", o)
    return (f"func.func @main({', '.join(args)}) -> ({types}) {{\n"
            f"  {results} = ejk.gla %q, %k, %v{clause}{attrs} : {q}, {kt}, {vv} -> {types}\n"
            f"  return {results} : {types}\n}}\n")


def recurrence(q, kk, vv, decay, scale, cu=None, s0=None, reverse=False,
               zeros=None, einsum=None):
    """The op's recurrence in f32, one step at a time: q [B, T, H, K], kk
    [B, T, Hkv, K], vv [B, T, Hkv, V] (arrays of one library: torch here,
    numpy in a test), decay(rows, i) the decay of step i ([rows, H, K] or
    [1, H, 1]). Per sequence (each batch row, or each packed one of cu),
    from s0 (or zero), last to first with reverse. Returns the outputs
    (zero outside every sequence) and each sequence's final state."""
    b, tt, h, k = q.shape
    hkv, v = vv.shape[2], vv.shape[3]
    heads = [j // (h // hkv) for j in range(h)]
    kx, vx = kk[:, :, heads], vv[:, :, heads]
    ref = zeros((b, tt, h, v))
    if cu:
        seqs = [(slice(0, 1), range(cu[n], cu[n + 1]), slice(n, n + 1))
                for n in range(len(cu) - 1)]
    else:
        seqs = [(slice(None), range(tt), slice(None))]
    finals = []
    for rows, steps, at in seqs:
        s = zeros((1 if cu else b, h, k, v)) if s0 is None else s0[at]
        for i in (reversed(steps) if reverse else steps):
            s = s * decay(rows, i)[..., None] + kx[rows, i][..., None] * vx[rows, i][:, :, None, :]
            ref[rows, i] = scale * einsum("bhk,bhkv->bhv", q[rows, i], s)
        finals.append(s)
    return ref, finals


# Each dispatch's time comes from the runtime's timestamps
# (dispatch_median_us). Results before 2026-11-27's in-order runs timed
# dispatches with copies of the artifact that stopped after the update
# ("__u") and after the scan ("__us").
def prepare(out, fingerprint):
    """Compiles variants() (with LINEAR_ONLY=REGEX set, only the names that
    match it) into out."""
    import re
    only = os.environ.get("LINEAR_ONLY")
    cases = {name: spec for name, spec in variants().items()
             if not only or re.search(only, name)}
    ejk_runtime.prepare(out, fingerprint, cases, ir, __file__)
    linear_rounds.copy_beside(out)


def run(d):
    import torch
    import torch.nn.functional as F

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    clocks, warm = ejk_runtime.clocks, ejk_runtime.warm

    cuda_ms = ejk_runtime.cuda_median_ms

    try:
        from fla.ops.gla import chunk_gla
        from fla.ops.simple_gla import chunk_simple_gla
        fla_error = None
    except Exception as ex:
        chunk_gla = chunk_simple_gla = None
        fla_error = repr(ex)[:300]
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16}
    results = {"torch": torch.__version__, "fla_import_error": fla_error}
    # gla's cases last: chunk_gla's first call compiles for a minute, which
    # a call short of time then spends after everything else.
    ordered = sorted(ejk_runtime.ordered_cases(d, "LINEAR_ONLY"),
                     key=lambda kv: kv[0].startswith("ggla"))
    if os.environ.get("LINEAR_GROUPS") == "1":
        # The bench cases of one problem (shape, type, gates, options) as
        # one group: inputs made once, every variant and fla timed in
        # turn each round (linear_rounds.time_group); the checks as below.
        groups = {}
        for name, spec in ordered:
            if not name.startswith("chk"):
                key = json.dumps(spec[:7] + spec[8:])
                groups.setdefault(key, []).append((name, spec))
        ordered = [kv for kv in ordered if kv[0].startswith("chk")]
    else:
        groups = {}
    for group in groups.values():
        run_group(d, rt, group, results, log, chunk_gla, chunk_simple_gla, tdt)
        ejk_runtime.save_results(d, "linear", results)
    references = {}
    for name, (b, tt, h, k, v, dt, gated, *rest) in ordered:
        cu = rest[1] if len(rest) > 1 else None
        opts = rest[2] if len(rest) > 2 else {}
        hkv = opts.get("kv", h)
        per_step = gated == "g" or gated.startswith("g/")
        divisor = 16.0 if gated == "g" else float(gated[2:]) if per_step else 1.0
        try:
            torch.manual_seed(0)
            q = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
            kk = torch.randn(b, tt, hkv, k, device=gpu).to(tdt[dt])
            vv = torch.randn(b, tt, hkv, v, device=gpu).to(tdt[dt])
            g = (F.logsigmoid(torch.randn(b, tt, h, k, device=gpu)) / divisor).to(tdt[dt])
            gamma = torch.tensor([math.log(1 - 2 ** (-5 - i / 2)) for i in range(h)],
                                 dtype=torch.float32, device=gpu)
            n_states = len(cu) - 1 if cu else b
            s0 = (0.5 * torch.randn(n_states, h, k, v, device=gpu)
                  if opts.get("states") else None)
            mod = rt.load(os.path.join(d, "art", name))
            ins = [rt.upload(x) for x in (q, kk, vv, g if per_step else gamma)]
            if s0 is not None:
                ins.append(rt.upload(s0))
            if cu:
                ins.append(rt.upload(torch.tensor(cu, dtype=torch.int32)))
            outs = [rt.empty(b * tt * h * v * q.element_size())]
            if s0 is not None:
                outs.append(rt.empty(n_states * h * k * v * 4))
            mod.bind(ins, outs)
            invoke = mod.invoke
            invoke()
            got = rt.download(outs[0], (b, tt, h, v), tdt[dt]).float().to(gpu)
            entry = {"nan": bool(torch.isnan(got).any())}
            scale = k ** -0.5
            if name.startswith("chk"):
                # The recurrence in f32 (from zero or the initial state at
                # each sequence's start; steps of no sequence are zero).
                if per_step:
                    decay = lambda rows, i: torch.exp(g[rows, i].float())
                else:
                    decay = lambda rows, i: torch.exp(gamma)[None, :, None]
                # One reference per problem (variants of one problem share
                # it: their inputs are the same seed's).
                key = json.dumps([b, tt, h, k, v, dt, gated] + rest[1:])
                if key not in references:
                    references[key] = recurrence(
                        q.float(), kk.float(), vv.float(), decay, scale, cu,
                        s0, opts.get("reverse", False),
                        zeros=lambda shape: torch.zeros(shape, device=gpu),
                        einsum=torch.einsum)
                ref, finals = references[key]
                if s0 is not None:
                    final = rt.download(outs[1], (n_states, h, k, v), torch.float32).to(gpu)
                    entry["max_abs_err_final_state"] = max(
                        float((final[slice(n, n + 1) if cu else slice(None)] - f).abs().max())
                        for n, f in enumerate(finals))
                    entry["max_abs_final_state"] = float(final.abs().max())
                err = (got - ref).abs()
                entry["max_abs_err_vs_recurrence"] = float(err.max())
                entry["max_abs_ref"] = float(ref.abs().max())
                # Relative to the output's scale (f16/bf16 outputs round
                # at 2^-11 / 2^-8 of it).
                entry["max_err_over_max_ref"] = float(err.max() / ref.abs().max().clamp_min(1e-6))
            else:
                # ejk and fla in turn, rounds, medians (linear_rounds.py).
                f = None
                if (chunk_gla is not None and "__" not in name
                        and os.environ.get("BENCH_PEER", "1") != "0"):
                    if per_step:
                        f = lambda: chunk_gla(q, kk, vv, g, scale=scale)[0]
                    else:
                        f = lambda: chunk_simple_gla(q, kk, vv, g_gamma=gamma, scale=scale)[0]
                    ref = f().float()
                    entry["max_abs_err_vs_fla"] = float((got - ref).abs().max())
                    entry["max_abs_fla"] = float(ref.abs().max())
                    del ref
                linear_rounds.time_rounds(mod, f, entry)
                log(name, "ejk_median_ms", entry["ejk_median_ms"])
            ejk_runtime.record(results, name, entry, log, rt, mod)
        except Exception as ex:
            ejk_runtime.record_error(results, name, ex, log)
        # After every case: a call that ends early keeps what it measured.
        ejk_runtime.save_results(d, "linear", results)


def run_group(d, rt, group, results, log, chunk_gla, chunk_simple_gla, tdt):
    """Times the bench cases `group` (name, spec) of one problem against
    each other and fla in one set of rounds; each variant's output is
    compared with fla's."""
    import torch
    import torch.nn.functional as F
    gpu = torch.device("cuda")
    b, tt, h, k, v, dt, gated, *rest = group[0][1]
    if len(rest) > 1 and rest[1]:
        raise SystemExit("LINEAR_GROUPS times batch rows only")
    opts = rest[2] if len(rest) > 2 else {}
    hkv = opts.get("kv", h)
    per_step = gated == "g" or gated.startswith("g/")
    divisor = 16.0 if gated == "g" else float(gated[2:]) if per_step else 1.0
    entries, mods = {}, {}
    try:
        torch.manual_seed(0)
        q = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
        kk = torch.randn(b, tt, hkv, k, device=gpu).to(tdt[dt])
        vv = torch.randn(b, tt, hkv, v, device=gpu).to(tdt[dt])
        g = (F.logsigmoid(torch.randn(b, tt, h, k, device=gpu)) / divisor).to(tdt[dt])
        gamma = torch.tensor([math.log(1 - 2 ** (-5 - i / 2)) for i in range(h)],
                             dtype=torch.float32, device=gpu)
        scale = k ** -0.5
        ins = [rt.upload(x) for x in (q, kk, vv, g if per_step else gamma)]
        out = rt.empty(b * tt * h * v * q.element_size())
        f = ref = None
        if chunk_gla is not None and os.environ.get("BENCH_PEER", "1") != "0":
            if per_step:
                f = lambda: chunk_gla(q, kk, vv, g, scale=scale)[0]
            else:
                f = lambda: chunk_simple_gla(q, kk, vv, g_gamma=gamma, scale=scale)[0]
            ref = f().float()
        for name, _ in group:
            try:
                mod = rt.load(os.path.join(d, "art", name))
                mod.bind(ins, [out])
                mod.invoke()
                got = rt.download(out, (b, tt, h, v), tdt[dt]).float().to(gpu)
                entry = {"nan": bool(torch.isnan(got).any())}
                if ref is not None:
                    entry["max_abs_err_vs_fla"] = float((got - ref).abs().max())
                    entry["max_abs_fla"] = float(ref.abs().max())
                del got
                entries[name], mods[name] = entry, mod
            except Exception as ex:
                ejk_runtime.record_error(results, name, ex, log)
        linear_rounds.time_group(mods, f, entries)
        for name, entry in entries.items():
            results[name] = entry
            log(name, json.dumps(entry))
    except Exception as ex:
        for name, _ in group:
            if name not in results:
                ejk_runtime.record_error(results, name, ex, log)
    for mod in mods.values():
        mod.destroy()
    rt.release()


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)

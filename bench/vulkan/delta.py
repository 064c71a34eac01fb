#!/usr/bin/env python3
"""ejk's Vulkan gated delta rule against flash-linear-attention's Triton
kernels on the GPU machine, in one process (issue 18's GPU bar;
docs/ops/delta.md).

  here:   python3 bench/vulkan/delta.py prepare DIR [FINGERPRINT]
          compiles the variants with ejkc for FINGERPRINT (default
          bench/vulkan/h100.fingerprint) into DIR/art/<name>/, copies the
          runtime to DIR/lib/ and this script to DIR/.
  there:  python3 DIR/delta.py run DIR
          (with flash-linear-attention 0.6.0, fla-core 0.6.0 and einops on
          PYTHONPATH, carried as wheels: the device tool's README) fills the
          inputs (q, k, v ~ N(0, 1), beta = sigmoid(N(0, 1)), decay =
          logsigmoid(N(0, 1)) / 16 per head or per key dim; "/1": 16x
          stronger), checks the "chk" cases (first) against an f32
          recurrence in PyTorch (from zero at each packed sequence's start)
          and each bench case against fla's output, times ejk with the
          runtime's GPU timestamps and fla's chunk_gated_delta_rule /
          chunk_kda with CUDA events in turn, LINEAR_ROUNDS rounds
          (default 3), their medians (linear_rounds.py), and writes
          DIR/delta.json (and $OUT/delta.json). DELTA_ONLY=REGEX runs only
          the cases whose names match (also prepare: compiles only those);
          BENCH_PEER=0 skips fla (its first call compiles Triton kernels for
          a minute or more). FLA_PIECES=REGEX also times fla's pieces
          (l2 norms, cumsum, the fused UT transform, the state pass, the
          outputs) after the cases whose names match, in the same process.

Both sides normalize q and k in the kernel (ejk's use_qk_l2norm default,
fla's use_qk_l2norm_in_kernel=True) and scale by 1/sqrt(K).
"""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402  (beside this script here and there)
import linear_rounds  # noqa: E402  (likewise)


def cp(chunk, block_v):
    return f"block_v = {block_v}, chunk_size = {chunk}, chunk_parallel = 1"


def coop(chunk, block_v, form=1):
    return cp(chunk, block_v) + f", cooperative = {form}"


# name: (B, T, H, K, V, dtype, decay[, config[, cu_seqlens[, init]]]); decay:
# "head" or "key" (logsigmoid(N(0, 1)) / 16), "head/1" (16x stronger:
# chunks of 64 decay by about e^-50) or "none".
# Without a config ejkc's heuristic picks (chunk-parallel from 256 steps);
# the "_recurrent" variant pins the step-by-step kernel, the "coop" ones
# the outputs on cooperative matrices (`cooperative = 1`), "coop2" the
# state pass too (`cooperative = 2`: S in accumulators, W and Kd f16 from
# memory; the outputs on matrices reading its f16 states and new values,
# in 16-byte words where their rules hold, e.g. K = V = 64 or 128 and K 32
# with V 64, else as matrices in fragment pieces, e.g. V = 48; the
# heuristic's form). `init`: an f32 initial state in and the final state
# out (checked too).
RECURRENT = "block_v = 8, chunk_size = 16"
GDN = (4, 4096, 16, 128, 128)
# Packed sequences of lengths 37, 0, 113, 1, 149 (T = 300).
CU = [0, 37, 37, 150, 151, 300]


def edge_checks(prefix, config):
    """The checks every chunk-parallel form runs at `config`: 16x stronger
    gates, no decay, varlen with empty and length-1 sequences."""
    return {
        prefix + "_strong_bf16": (2, 200, 3, 64, 64, "bf16", "head/1", config),
        prefix + "_none_f16": (2, 200, 3, 64, 64, "f16", "none", config),
        prefix + "_varlen_f16": (1, 300, 2, 64, 64, "f16", "head", config, CU),
    }


def variants():
    # In order of importance (a device call may end early).
    return {
        "gdn_bf16": (*GDN, "bf16", "head"),
        "chk_gdn_f16": (2, 100, 3, 32, 48, "f16", "head", cp(32, 16)),
        "chk_gdn_bf16_long": (1, 700, 2, 64, 64, "bf16", "head"),
        "gdn_f16": (*GDN, "f16", "head"),
        "kda_bf16": (*GDN, "bf16", "key"),
        "chk_kda_f16": (2, 130, 2, 64, 32, "f16", "key", cp(64, 32)),
        "chk_kda_bf16_long": (1, 700, 2, 128, 128, "bf16", "key"),
        # Chunk-parallel configs around the heuristic's (C 64, block_v 32).
        "gdn_bf16_c64_v16": (*GDN, "bf16", "head", cp(64, 16)),
        "gdn_bf16_c32_v32": (*GDN, "bf16", "head", cp(32, 32)),
        "gdn_bf16_c32_v16": (*GDN, "bf16", "head", cp(32, 16)),
        # The SIMT kernel's padded key tiles and vector stages of W and Kd
        # (2026-11-27, run 5): K = 128 (8 key rows a thread), K = 256,
        # strong gates, no decay, varlen, other chunks and blocks.
        "chk_gdn_bf16_k128": (1, 700, 2, 128, 128, "bf16", "head"),
        "chk_gdn_f16_k256": (1, 300, 2, 256, 64, "f16", "head"),
        **edge_checks("chk_gdn", cp(64, 32)),
        "chk_gdn_c32_v16_bf16": (1, 700, 2, 128, 128, "bf16", "head",
                                 cp(32, 16)),
        "chk_gdn_c16_v48_f16": (2, 100, 3, 32, 48, "f16", "head", cp(16, 48)),
        "gdn_bf16_recurrent": (*GDN, "bf16", "head", RECURRENT),
        "chk_gdn_f16_recurrent": (2, 100, 3, 32, 48, "f16", "head",
                                  RECURRENT),
        # Cooperative outputs: T not a multiple of the chunk, V = 48 (a
        # subgroup without an O tile of its own), strong gates, no decay,
        # varlen with empty and length-1 sequences, K = V = 128.
        "gdn_bf16_coop": (*GDN, "bf16", "head", coop(64, 32)),
        "gdn_f16_coop": (*GDN, "f16", "head", coop(64, 32)),
        "chk_coop_f16": (2, 100, 3, 32, 48, "f16", "head", coop(32, 16)),
        "chk_coop_bf16": (2, 100, 3, 32, 48, "bf16", "head", coop(32, 16)),
        **edge_checks("chk_coop", coop(64, 32)),
        "chk_coop_long_bf16": (1, 700, 2, 128, 128, "bf16", "head",
                               coop(64, 32)),
        "gdn_bf16_coop2": (*GDN, "bf16", "head", coop(64, 32, 2)),
        "gdn_bf16_coop2_v16": (*GDN, "bf16", "head", coop(64, 16, 2)),
        "gdn_f16_coop2": (*GDN, "f16", "head", coop(64, 32, 2)),
        "chk_coop2_f16": (2, 100, 3, 32, 48, "f16", "head", coop(32, 16, 2)),
        "chk_coop2_bf16": (2, 100, 3, 32, 48, "bf16", "head",
                           coop(32, 16, 2)),
        **edge_checks("chk_coop2", coop(64, 32, 2)),
        "chk_coop2_long_bf16": (1, 700, 2, 128, 128, "bf16", "head",
                                coop(64, 32, 2)),
        "chk_coop2_long_v16_bf16": (1, 700, 2, 128, 128, "bf16", "head",
                                    coop(64, 16, 2)),
        # Session 17's state pass: block_v 64 (two new-value and four state
        # tiles a subgroup), chunks of 32, states in and out (also with
        # packed sequences, reverse not needed: the pass is the same).
        "chk_coop2_v64_bf16": (1, 700, 2, 128, 128, "bf16", "head",
                               coop(64, 64, 2)),
        "chk_coop2_c32_f16": (1, 700, 2, 128, 128, "f16", "head",
                              coop(32, 32, 2)),
        "chk_coop2_init_f16": (2, 200, 3, 64, 64, "f16", "head",
                               coop(64, 32, 2), None, True),
        "chk_coop2_init_varlen_f16": (1, 300, 2, 64, 64, "f16", "head",
                                      coop(64, 32, 2), CU, True),
        "chk_simt_init_f16": (2, 200, 3, 64, 64, "f16", "head", cp(64, 32),
                              None, True),
        # K = 32 below the chunk (the cooperative outputs' P beside the q
        # stage, not over it).
        "chk_coop2_k32_f16": (2, 200, 3, 32, 64, "f16", "head",
                              coop(64, 32, 2)),
        # K = 256 at chunks of 32: the outputs in words with a row's words
        # over all 32 lanes of a subgroup.
        "chk_coop2_k256_c32_f16": (1, 300, 2, 256, 64, "f16", "head",
                                   coop(32, 32, 2)),
        "gdn_bf16_coop2_v64": (*GDN, "bf16", "head", coop(64, 64, 2)),
        "gdn_bf16_coop2_c32": (*GDN, "bf16", "head", coop(32, 32, 2)),
    }


t = ejk_runtime.tensor_type


def ir(b, tt, h, k, v, dt, decay, config=None, cu=None, init=False):
    q, vv, beta = t(b, tt, h, k, e=dt), t(b, tt, h, v, e=dt), t(b, tt, h, e=dt)
    g = q if decay.startswith("key") else beta
    args = [f"%q: {q}", f"%k: {q}", f"%v: {vv}", f"%beta: {beta}"]
    clause = ""
    if decay != "none":
        args.append(f"%g: {g}")
        clause = f" decay(%g : {g})"
    st = t(len(cu) - 1 if cu else b, h, k, v, e="f32")
    if init:
        args.append(f"%s0: {st}")
        clause += f" initial_state(%s0 : {st})"
    if cu:
        ct = t(len(cu), e="i32")
        args.append(f"%cu: {ct}")
        clause += f" cu_seqlens(%cu : {ct})"
    attrs = f" {{config = #ejk.config<{config}>}}" if config else ""
    res, outs, rets = vv, "%o", f"%o : {vv}"
    if init:
        res, outs, rets = f"{vv}, {st}", "%o, %s", f"%o, %s : {vv}, {st}"
    return (f"func.func @main({', '.join(args)}) -> ({res}) {{\n"
            f"  {outs} = ejk.delta_attention %q, %k, %v, %beta{clause}"
            f"{attrs}\n      : {q}, {q}, {vv}, {beta} -> {res}\n"
            f"  return {rets}\n}}\n")


def prepare(out, fingerprint):
    import re
    only = os.environ.get("DELTA_ONLY")
    cases = {n: c for n, c in variants().items()
             if not only or re.search(only, n)}
    ejk_runtime.prepare(out, fingerprint, cases, ir, __file__)
    linear_rounds.copy_beside(out)


def fla_pieces(q, k, v, g, beta, scale):
    """fla's chunk_gated_delta_rule forward (fla 0.6.0's
    chunk_gated_delta_rule_fwd, chunk size 64) timed piece by piece on the
    same inputs: the l2 norms of q and k, the chunk-local cumsum of the
    gates, the fused K K^T + solve_tril + recompute_w_u (the UT transform),
    the state pass (chunk_gated_delta_rule_fwd_h) and the outputs
    (chunk_fwd_o). Median ms each (ejk_runtime.cuda_median_ms)."""
    from fla.modules.norm.l2norm import l2norm_fwd
    from fla.ops.common.chunk_delta_h import chunk_gated_delta_rule_fwd_h
    from fla.ops.common.chunk_o import chunk_fwd_o
    from fla.ops.gated_delta_rule.chunk_fwd import \
        chunk_gated_delta_rule_fwd_intra
    from fla.ops.utils import chunk_local_cumsum
    from fla.ops.utils.constant import RCP_LN2
    qn, _ = l2norm_fwd(q)
    kn, _ = l2norm_fwd(k)
    gc = chunk_local_cumsum(g, chunk_size=64, scale=RCP_LN2)
    w, u, _ = chunk_gated_delta_rule_fwd_intra(k=kn, v=v, g=gc, beta=beta,
                                               chunk_size=64)
    h, vn, _ = chunk_gated_delta_rule_fwd_h(k=kn, w=w, u=u, g=gc,
                                            chunk_size=64)
    pieces = {
        "l2norm_q_k": lambda: (l2norm_fwd(q), l2norm_fwd(k)),
        "cumsum": lambda: chunk_local_cumsum(g, chunk_size=64, scale=RCP_LN2),
        "intra_ut": lambda: chunk_gated_delta_rule_fwd_intra(
            k=kn, v=v, g=gc, beta=beta, chunk_size=64),
        "fwd_h": lambda: chunk_gated_delta_rule_fwd_h(
            k=kn, w=w, u=u, g=gc, chunk_size=64),
        "fwd_o": lambda: chunk_fwd_o(q=qn, k=kn, v=vn, h=h, g=gc, scale=scale,
                                     chunk_size=64),
    }
    return {n: ejk_runtime.cuda_median_ms(f) for n, f in pieces.items()}


def recurrence(q, k, v, beta, g, scale, cu=None, s0=None):
    """The gated delta rule one step at a time in f32 (l2-normalized q and
    k, ejKernel's epsilon; from `s0` (or zero) at each sequence's start,
    zero at steps of no packed sequence). Returns the outputs and the final
    states."""
    import torch
    q, k, v, beta, g = (x.float() for x in (q, k, v, beta, g))
    q = q / torch.sqrt((q * q).sum(-1, keepdim=True) + 1e-6)
    k = k / torch.sqrt((k * k).sum(-1, keepdim=True) + 1e-6)
    b, tt, h, kd = q.shape
    out = torch.zeros(b, tt, h, v.shape[-1], device=q.device)

    def steps(lo, hi, s):
        for i in range(lo, hi):
            decay = torch.exp(g[:, i])
            s = s * (decay[..., None] if g.dim() == 4
                     else decay[..., None, None])
            kt = k[:, i]
            pred = torch.einsum("bhk,bhkv->bhv", kt, s)
            s = s + kt[..., None] * (
                beta[:, i, :, None] * (v[:, i] - pred))[:, :, None, :]
            out[:, i] = scale * torch.einsum("bhk,bhkv->bhv", q[:, i], s)
        return s

    def start(rows, n):
        if s0 is not None:
            return s0[n:n + rows].clone()
        return torch.zeros(rows, h, kd, v.shape[-1], device=q.device)

    if cu:
        finals = [steps(cu[n], cu[n + 1], start(1, n))
                  for n in range(len(cu) - 1)]
        return out, torch.cat(finals)
    return out, steps(0, tt, start(b, 0))


def run(d):
    import torch
    import torch.nn.functional as F

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    try:
        from fla.ops.gated_delta_rule import chunk_gated_delta_rule
        fla_error = None
    except Exception as ex:
        chunk_gated_delta_rule = None
        fla_error = repr(ex)[:300]
    try:
        from fla.ops.kda import chunk_kda
    except Exception as ex:
        chunk_kda = None
        fla_error = (fla_error or "") + " kda: " + repr(ex)[:300]
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16}
    results = {"torch": torch.__version__, "fla_import_error": fla_error,
               "device": rt.device_lines()}
    ordered = ejk_runtime.ordered_cases(d, "DELTA_ONLY")
    pieces_only = os.environ.get("FLA_PIECES")
    for name, (b, tt, h, k, v, dt, decay, *rest) in ordered:
        cu = rest[1] if len(rest) > 1 else None
        init = len(rest) > 2 and rest[2]
        divisor = 1.0 if decay.endswith("/1") else 16.0
        decay = decay.split("/")[0]
        try:
            torch.manual_seed(0)
            q = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
            kk = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
            vv = torch.randn(b, tt, h, v, device=gpu).to(tdt[dt])
            beta = torch.sigmoid(torch.randn(b, tt, h, device=gpu)).to(tdt[dt])
            gshape = (b, tt, h, k) if decay == "key" else (b, tt, h)
            g = (F.logsigmoid(torch.randn(*gshape, device=gpu)) / divisor).to(tdt[dt])
            if decay == "none":
                g = torch.zeros_like(g)
            mod = rt.load(os.path.join(d, "art", name))
            ins = [rt.upload(x) for x in (q, kk, vv, beta, g)
                   if decay != "none" or x is not g]
            nseq = len(cu) - 1 if cu else b
            s0 = None
            if init:
                s0 = 0.5 * torch.randn(nseq, h, k, v, device=gpu)
                ins.append(rt.upload(s0))
            if cu:
                ins.append(rt.upload(torch.tensor(cu, dtype=torch.int32)))
            outs = [rt.empty(b * tt * h * v * q.element_size())]
            if init:
                outs.append(rt.empty(nseq * h * k * v * 4))
            mod.bind(ins, outs)
            mod.invoke()
            got = rt.download(outs[0], (b, tt, h, v), tdt[dt]).float().to(gpu)
            entry = {"nan": bool(torch.isnan(got).any())}
            scale = k ** -0.5
            if name.startswith("chk"):
                ref, sref = recurrence(q, kk, vv, beta, g, scale, cu, s0)
                if init:
                    sgot = rt.download(outs[1], (nseq, h, k, v),
                                       torch.float32).to(gpu)
                    entry["final_state_max_abs_err"] = float(
                        (sgot - sref).abs().max())
                    entry["final_state_max_abs_ref"] = float(
                        sref.abs().max())
                err = (got - ref).abs().max()
                entry["max_abs_err_vs_recurrence"] = float(err)
                entry["max_abs_ref"] = float(ref.abs().max())
                entry["max_err_over_max_ref"] = float(
                    err / ref.abs().max().clamp_min(1e-6))
            else:
                peer = chunk_kda if decay == "key" else chunk_gated_delta_rule
                if os.environ.get("BENCH_PEER", "1") == "0":
                    peer = None
                f = None
                try:
                    if peer is not None:
                        f = lambda: peer(q, kk, vv,
                                         g.float() if decay == "key" else g,
                                         beta, scale=scale,
                                         use_qk_l2norm_in_kernel=True)[0]
                        ref = f().float()
                        entry["max_abs_err_vs_fla"] = float((got - ref).abs().max())
                        entry["max_abs_fla"] = float(ref.abs().max())
                        del ref
                except Exception as ex:
                    entry["fla_error"] = repr(ex)[:400]
                    f = None
                # ejk (each dispatch too: gates, prepare, state, outputs;
                # or the one recurrent dispatch) and fla in turn, rounds,
                # medians (linear_rounds.py).
                linear_rounds.time_rounds(mod, f, entry)
                log(name, "ejk", entry["ejk_median_ms"],
                    entry.get("dispatch_median_us"), "fla",
                    entry.get("fla_median_ms"))
                if (f is not None and pieces_only and decay == "head"
                        and re.search(pieces_only, name)):
                    try:
                        entry["fla_pieces_ms"] = fla_pieces(q, kk, vv, g,
                                                            beta, scale)
                    except Exception as ex:
                        entry["fla_pieces_error"] = repr(ex)[:400]
                    log(name, "fla pieces", entry.get("fla_pieces_ms"))
            ejk_runtime.record(results, name, entry, log, rt, mod)
        except Exception as ex:
            ejk_runtime.record_error(results, name, ex, log)
        # After every case: a call that ends early keeps what it measured.
        ejk_runtime.save_results(d, "delta", results)


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)

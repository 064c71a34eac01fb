#!/usr/bin/env python3
"""ejk's Vulkan native sparse attention (docs/ops/native-sparse.md): the
attend dispatch on cooperative matrices (`cooperative = 1`), with the
selection one thread per token or one subgroup per token
(`subgroup_select = 1`), against the portable kernel (one thread per token)
and a PyTorch implementation of the same math, in one process on the GPU
machine (issue 19).

  here:   python3 bench/vulkan/nsa.py prepare DIR [FINGERPRINT]
          compiles every variant with ejkc for FINGERPRINT (default
          bench/vulkan/h100.fingerprint) into DIR/art/<name>/ and copies
          the runtime and this script to DIR.
  there:  python3 DIR/nsa.py run DIR
          check cases (chk_*): random inputs drawn there (seeded), ejk's
          output against nsa_reference() below in f32 PyTorch on the same
          inputs (the cooperative and the portable kernel both), two runs
          byte for byte; then the bench (B1 T4096 H16 Hkv4 D128, blocks of
          64, top-16, window 512, all three gates; f16 and bf16): median of
          20 invokes by the runtime's GPU timestamps (per dispatch too)
          after 2 s of warm-up, and PyTorch's nsa_reference in the input
          type (CUDA events). Writes DIR/nsa.json (and $OUT/nsa.json).
"""
import json, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402

T_ = ejk_runtime.tensor_type


def case(b, t, h, hkv, d, bs, k, window=0, gates=True, compress=True,
         dtype="f16", coop=1, block_t=32, seed=1, lanes=0):
    """`lanes`: the selection with one subgroup per token
    (`subgroup_select = 1`)."""
    return dict(b=b, t=t, h=h, hkv=hkv, d=d, bs=bs, k=k, window=window,
                gates=gates, compress=compress, dtype=dtype, coop=coop,
                block_t=block_t, seed=seed, lanes=lanes)


def variants():
    v = {}
    # Checks: the cooperative kernel (f16 and bf16) and, for the same
    # inputs, the portable one.
    checks = {
        "topk2_gqa4": case(1, 100, 8, 2, 32, 16, 2),
        "topk_all_mha": case(1, 70, 4, 4, 64, 16, 8, seed=2),
        "window_gates": case(2, 130, 8, 2, 64, 32, 3, window=40, seed=3),
        "no_gates_window": case(1, 96, 16, 1, 32, 16, 4, window=24,
                                gates=False, seed=4),
        "given_indices": case(1, 80, 8, 2, 64, 16, 3, compress=False, seed=5),
        "d128_gqa16": case(1, 200, 16, 1, 128, 64, 2, window=64, seed=6),
    }
    for name, c in checks.items():
        for dtype in ("f16", "bf16"):
            v[f"chk_{name}_{dtype}_coop"] = (dict(c, dtype=dtype, coop=1),)
            # The one-subgroup-per-token selection: must match the
            # cooperative case above byte for byte (same attend dispatch,
            # the same selection bits).
            if c["compress"]:
                v[f"chk_{name}_{dtype}_lanes"] = (
                    dict(c, dtype=dtype, coop=1, lanes=1),)
            v[f"chk_{name}_{dtype}_portable"] = (dict(c, dtype=dtype, coop=0),)
    # No config: the heuristic's pick (the cooperative kernel).
    v["chk_heuristic_window_gates_f16"] = (dict(checks["window_gates"],
                                                coop=None),)
    for dtype in ("f16", "bf16"):
        for coop, lanes, label in ((1, 0, "coop"), (1, 1, "coop_lanes"),
                                   (0, 0, "portable")):
            v[f"nsa_{dtype}_{label}"] = (
                case(1, 4096, 16, 4, 128, 64, 16, window=512, dtype=dtype,
                     coop=coop, block_t=64, lanes=lanes),)
    return v


def signature(c):
    b, t, h, hkv, d = (c[x] for x in ("b", "t", "h", "hkv", "d"))
    e = c["dtype"]
    args = [("q", e, (b, t, h, d)), ("k", e, (b, t, hkv, d)),
            ("v", e, (b, t, hkv, d))]
    if c["compress"]:
        args.append(("gc", e, (b, t, h)))
    if c["gates"]:
        args += [("gs", e, (b, t, h))]
        if c["window"]:
            args += [("gw", e, (b, t, h))]
    if not c["compress"]:
        args.append(("bi", "i32", (b, t, hkv, c["k"])))
    return args


def ir(c):
    args = signature(c)
    types = {n: T_(*s, e=e) for n, e, s in args}
    params = ", ".join(f"%{n}: {types[n]}" for n, _, _ in args)
    clauses = ""
    for n, clause in (("gc", "g_cmp"), ("gs", "g_slc"), ("gw", "g_swa"),
                      ("bi", "block_indices")):
        if n in types:
            clauses += f" {clause}(%{n} : {types[n]})"
    attrs = [f"block_size = {c['bs']} : i64", f"block_counts = {c['k']} : i64",
             f"softmax_scale = {1 / math.sqrt(c['d'])} : f32"]
    if c["window"]:
        attrs.append(f"window_size = {c['window']} : i64")
    cfg = f"block_t = {c['block_t']}"
    if c["coop"]:
        cfg += ", cooperative = 1"
    if c.get("lanes"):
        cfg += ", subgroup_select = 1"
    if c["coop"] is not None:
        attrs.append(f"config = #ejk.config<{cfg}>")
    out = types["q"]
    return (f"func.func @main({params}) -> {out} {{\n"
            f"  %o = ejk.native_sparse_attention %q, %k, %v{clauses} "
            f"{{{', '.join(attrs)}}}\n"
            f"      : {types['q']}, {types['k']}, {types['v']} -> {out}\n"
            f"  return %o : {out}\n}}\n")


def nsa_reference(q, k, v, c, gc=None, gs=None, gw=None, bi=None):
    """ejk.native_sparse_attention's math (docs/ops/native-sparse.md) in
    PyTorch, in the inputs' type: compression (block means, attention over
    completed blocks), top-k selection summed over the group with ejKernel's
    tie term, selected and window attention as masked dense attention."""
    import torch
    import torch.nn.functional as F
    B, T, H, D = q.shape
    Hkv, G, bs = k.shape[2], H // k.shape[2], c["bs"]
    NB = -(-T // bs)
    scale = 1 / math.sqrt(D)
    dev = q.device
    t = torch.arange(T, device=dev)
    blk = torch.arange(NB, device=dev)
    qh = q.transpose(1, 2)  # [B, H, T, D]
    kh = k.transpose(1, 2).repeat_interleave(G, 1)
    vh = v.transpose(1, 2).repeat_interleave(G, 1)
    out = torch.zeros_like(qh)
    if gc is not None:
        pad = NB * bs - T
        kc = F.pad(k, (0, 0, 0, 0, 0, pad)).view(B, NB, bs, Hkv, D).mean(2)
        vc = F.pad(v, (0, 0, 0, 0, 0, pad)).view(B, NB, bs, Hkv, D).mean(2)
        kc = kc.transpose(1, 2).repeat_interleave(G, 1)  # [B, H, NB, D]
        vc = vc.transpose(1, 2).repeat_interleave(G, 1)
        s = (qh @ kc.transpose(-1, -2)) * scale  # [B, H, T, NB]
        done = blk[None, :] < ((t + 1) // bs)[:, None]
        sm = s.masked_fill(~done, float("-inf"))
        lse = torch.logsumexp(sm, -1)
        lse = torch.where(done.any(-1), lse, torch.zeros_like(lse))
        pc = torch.exp(sm - lse[..., None])
        out = out + (pc @ vc) * gc.transpose(1, 2)[..., None]
        seen = blk[None, :] <= (t // bs)[:, None]
        p = torch.exp(s - lse[..., None]).masked_fill(~seen, 0.0)
        p = torch.where(blk[None, :] == (t // bs)[:, None],
                        torch.ones_like(p), p)
        sums = p.float().view(B, Hkv, G, T, NB).sum(2)
        key = sums + blk.float() * 1e-8
        key = key.masked_fill(~seen, float("-inf"))
        vals, idx = key.topk(min(c["k"], NB), -1)
        idx = torch.where(torch.isinf(vals), torch.full_like(idx, -1), idx)
        idx = idx.transpose(1, 2)  # [B, T, Hkv, k]
    else:
        idx = bi.long()[..., :c["k"]]
    valid = (idx >= 0) & (idx < NB)
    chosen = torch.zeros(B, T, Hkv, NB + 1, dtype=torch.bool, device=dev)
    chosen.scatter_(-1, torch.where(valid, idx, torch.full_like(idx, NB)),
                    True)
    chosen = chosen[..., :NB].repeat_interleave(bs, -1)[..., :T]
    causal = t[None, :] <= t[:, None]
    allowed = chosen.permute(0, 2, 1, 3).repeat_interleave(G, 1) & causal

    def attend(mask):
        s = (qh @ kh.transpose(-1, -2)) * scale
        s = s.masked_fill(~mask, float("-inf"))
        w = torch.softmax(s.float(), -1).nan_to_num(0.0).to(q.dtype)
        return w @ vh

    o = attend(allowed)
    out = out + (o * gs.transpose(1, 2)[..., None] if gs is not None else o)
    if c["window"]:
        win = causal & (t[None, :] > t[:, None] - c["window"])
        o = attend(win[None, None])
        out = out + (o * gw.transpose(1, 2)[..., None] if gw is not None
                     else o)
    return out.transpose(1, 2)


def inputs(c, gpu):
    import torch
    g = torch.Generator().manual_seed(c["seed"])
    dt = {"f16": torch.float16, "bf16": torch.bfloat16}[c["dtype"]]
    vals = {}
    for n, e, s in signature(c):
        if n == "bi":
            # Per token: distinct blocks counting back from the token's
            # own, some -1 (the reference takes each block once).
            tb = (torch.arange(c["t"]) // c["bs"]).view(1, -1, 1, 1)
            x = (tb - torch.arange(s[-1]).view(1, 1, 1, -1)).expand(s).clone()
            x[x < 0] = -1
            x[torch.rand(s, generator=g) < 0.15] = -1
            vals[n] = x.int().to(gpu)
        elif n.startswith("g"):
            vals[n] = torch.rand(s, generator=g).to(dt).to(gpu)
        else:
            vals[n] = torch.randn(s, generator=g).to(dt).to(gpu)
    return vals


def run(d):
    import torch
    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    results = {"device": rt.device_lines(), "torch": torch.__version__,
               "gpu": torch.cuda.get_device_name()}
    log(results["device"])
    coop_out = {}
    for name, (c,) in ejk_runtime.ordered_cases(d, "NSA_ONLY"):
        try:
            vals = inputs(c, gpu)
            names = [n for n, _, _ in signature(c)]
            mod = rt.load(os.path.join(d, "art", name))
            out_shape = (c["b"], c["t"], c["h"], c["d"])
            out = rt.empty(int(torch.tensor(out_shape).prod()) * 2)
            mod.bind([rt.upload(vals[n]) for n in names], [out])
            dt = vals["q"].dtype
            mod.invoke()
            first = rt.download(out, out_shape, dt)
            mod.invoke()
            second = rt.download(out, out_shape, dt)
            entry = {"identical_runs": bool(torch.equal(
                first.view(torch.uint8), second.view(torch.uint8))),
                "nan": bool(torch.isnan(first).any())}
            kw = {n: vals[n] for n in ("gc", "gs", "gw", "bi") if n in vals}
            if name.startswith("chk"):
                f32 = {n: (x.float() if x.is_floating_point() else x)
                       for n, x in vals.items()}
                ref = nsa_reference(f32["q"], f32["k"], f32["v"], c,
                                    **{n: f32[n] for n in kw})
                err = (first.to(gpu).float() - ref).abs()
                entry["max_err"] = float(err.max())
                entry["ref_max"] = float(ref.abs().max())
                entry["ok"] = (entry["identical_runs"] and not entry["nan"]
                               and entry["max_err"] < 2e-2 * max(
                                   1.0, entry["ref_max"]))
                # The portable kernel on the same inputs (run after).
                base = name.rsplit("_", 1)[0]
                if c.get("lanes"):
                    if base in coop_out:
                        entry["identical_to_coop"] = bool(torch.equal(
                            first.view(torch.uint8),
                            coop_out[base].view(torch.uint8)))
                        entry["ok"] = entry["ok"] and entry["identical_to_coop"]
                elif c["coop"]:
                    coop_out[base] = first
                elif base in coop_out:
                    entry["max_diff_vs_coop"] = float(
                        (first.float() - coop_out.pop(base).float()).abs().max())
            else:
                entry["dispatch_us"] = None
                ejk_runtime.warm(mod.invoke, 2.0)
                entry["clocks_before"] = ejk_runtime.clocks()
                ts, per = [], []
                for _ in range(20):
                    mod.invoke()
                    ts.append(mod.last_time_us())
                    per.append(mod.dispatch_times_us(8))
                order = sorted(range(20), key=lambda i: ts[i])
                entry["median_us"] = ts[order[10]]
                entry["min_us"] = ts[order[0]]
                entry["dispatch_us"] = per[order[10]]
                entry["clocks_after"] = ejk_runtime.clocks()
                if c["coop"] and not c.get("lanes"):
                    # The same math in PyTorch (input type, masked dense).
                    fn = lambda: nsa_reference(vals["q"], vals["k"],
                                               vals["v"], c, **kw)
                    ref = fn()
                    entry["torch_us"] = ejk_runtime.cuda_median_ms(fn, 10) * 1e3
                    entry["max_diff_vs_torch"] = float(
                        (first.to(gpu).float() - ref.float()).abs().max())
                    torch.cuda.empty_cache()
            ejk_runtime.record(results, name, entry, log, rt, mod)
        except Exception as ex:
            ejk_runtime.record_error(results, name, ex, log)
            rt.release()
    checks = [n for n in results if n.startswith("chk")]
    results["checks_ok"] = all(results[n].get("ok") for n in checks)
    log("checks_ok", results["checks_ok"], len(checks))
    ejk_runtime.save_results(d, "nsa", results)


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, ejk_runtime.preparer(variants, ir,
                                                            __file__), run)

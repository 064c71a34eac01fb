#!/usr/bin/env python3
"""ejk's Vulkan mixed prefill + decode batch (ejk.ragged_paged_attention)
against PyTorch on the GPU machine, in one process (docs/ops/paged.md,
"Speed").

  here:   python3 bench/vulkan/ragged.py prepare DIR [FINGERPRINT]
  there:  python3 DIR/ragged.py run DIR
          fills each artifact's inputs (decodes first, then prefills, packed;
          pages dealt from a shuffled pool), checks the output against an
          f32 PyTorch reference, times it with the runtime's GPU timestamps
          after a second of warm-up and, in the same process, PyTorch SDPA
          on the gathered (dense) KV: one batched call for the decodes (GQA)
          and one causal call for the prefills, plus the gather; writes
          DIR/ragged.json (and $OUT/ragged.json when OUT is set).

ragged-mixed is issue 17's mixed workload (bench/paged.py's CPU one): 8
decodes over 1024 cached tokens and 2 prefills of 512 new tokens, 32 query
heads over 8 KV heads, head dim 128, pages of 16, fp16. GB/s counts each
sequence's K/V once. The chk-* cases are only checked (not timed): partial
last pages, shuffled tables, windows, sinks, soft cap, GQA 5:1, q_len 1, 2,
17 and 300, empty sequences, head-major pages, unified_attention (ALiBi)
and prefill_paged_attention: with block_q > 1 (cooperative matrices) the
rows of sequences with several queries run on the cooperative-matrix
kernel, the others on the decode kernel (docs/ops/paged-vulkan.md).
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402


def mixed(nd, dctx, npf, plen, h=32, hkv=8, d=128, page=16, **kw):
    case = dict(op="ragged", qlens=[1] * nd + [plen] * npf,
                lens=[dctx] * nd + [plen] * npf, h=h, hkv=hkv, d=d, page=page,
                dt="f16", time=True)
    case.update(kw)
    return case


def chk(qlens, lens, h, hkv, d, page=16, **kw):
    case = dict(op="ragged", qlens=qlens, lens=lens, h=h, hkv=hkv, d=d,
                page=page, dt="f16", time=False)
    case.update(kw)
    return case


# The decode kernel's heuristic entries for D128, 32-lane subgroups.
DECODE = "block_q = 1, block_k = 32, num_subgroups = 8"


# name: a case (op, per-sequence query and KV lengths, heads, options,
# optionally a config).
def variants():
    odd = dict(qlens=[1, 2, 17, 300, 0, 1], lens=[50, 40, 17, 333, 0, 1])
    return {
        "ragged-mixed": (mixed(8, 1024, 2, 512),),
        "ragged-decode32": (mixed(32, 4096, 0, 0),),
        "ragged-mixed-large": (mixed(32, 4096, 2, 1024),),
        # The decode kernel for every row (the path before the cooperative
        # one), and other cooperative configs, as baselines in the same run.
        "ragged-mixed@decode-only": (mixed(8, 1024, 2, 512, config=DECODE),),
        "ragged-mixed-large@decode-only": (mixed(32, 4096, 2, 1024,
                                                 config=DECODE),),
        "ragged-mixed@pbk16": (mixed(8, 1024, 2, 512, config=DECODE.replace(
            "block_q = 1", "block_q = 16") + ", prefill_block_k = 16"),),
        "ragged-mixed@rows32": (mixed(8, 1024, 2, 512, config=DECODE.replace(
            "block_q = 1", "block_q = 8") + ", prefill_block_k = 32"),),
        "prefill-2x1024": (mixed(0, 0, 2, 1024, op="prefill"),),
        "chk-small": (chk([1] * 3 + [33] * 2, [77] * 3 + [33] * 2, 12, 4, 64),),
        "chk-odd": (chk(h=16, hkv=4, d=128, **odd),),
        "chk-window-sinks": (chk(h=16, hkv=4, d=128, window=37, sinks=True,
                                 **odd),),
        "chk-gqa5-cap": (chk([1, 17, 64, 2, 300], [100, 30, 64, 9, 310], 10, 2,
                             64, softcap=20.0),),
        "chk-head-major": (chk([5, 40, 1], [70, 40, 3], 16, 2, 128,
                               layout="head", window=50),),
        "chk-page64": (chk([300, 1, 17], [300, 65, 80], 8, 8, 64, page=64),),
        "chk-unified": (chk(h=16, hkv=4, d=128, op="unified", alibi=True,
                            sinks=True, window=100, **odd),),
        "chk-prefill": (chk([40, 40], [40, 77], 16, 4, 128, op="prefill",
                            softcap=30.0),),
        "chk-prefill-q1": (chk([1, 1], [40, 77], 16, 4, 128, op="prefill"),),
        # bf16: the prefill rows on bf16 cooperative matrices where the
        # device has them (docs/vulkan-pipeline.md), the decode kernel
        # (block_q = 1) as the baseline in the same run.
        "ragged-mixed-bf16": (mixed(8, 1024, 2, 512, dt="bf16"),),
        "ragged-mixed-bf16@decode-only": (mixed(8, 1024, 2, 512, dt="bf16",
                                                config=DECODE),),
        "prefill-2x1024-bf16": (mixed(0, 0, 2, 1024, op="prefill", dt="bf16"),),
        "chk-odd-bf16": (chk(h=16, hkv=4, d=128, dt="bf16", **odd),),
        "chk-window-sinks-bf16": (chk(h=16, hkv=4, d=128, window=37,
                                      sinks=True, dt="bf16", **odd),),
        "chk-prefill-bf16": (chk([40, 40], [40, 77], 16, 4, 128, op="prefill",
                                 softcap=30.0, dt="bf16"),),
    }


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def pages_per_seq(c):
    return max(1, max(-(-n // c["page"]) for n in c["lens"]))


def ir(c):
    qlens, lens, h, hkv, d, page, dt = (c[k] for k in
                                        ("qlens", "lens", "h", "hkv", "d", "page", "dt"))
    per, slots = pages_per_seq(c), len(lens)
    if c["op"] == "prefill":
        q = t(slots, qlens[0], h, d, e=dt)
    else:
        q = t(sum(qlens), h, d, e=dt)
    if c.get("layout") == "head":
        cache = t(slots * per, hkv, page, d, e=dt)
    else:
        cache = t(slots * per, page, hkv, d, e=dt)
    types = [q, cache, cache, t(slots, e="i32"), t(slots, per, e="i32")]
    names = ["%q", "%kc", "%vc", "%lens", "%tables"]
    if c["op"] != "prefill":
        types.append(t(slots + 1, e="i32"))
        names.append("%cu")
    if c["op"] == "ragged":
        types.append(t(1, e="i32"))
        names.append("%n")
    extra, params = "", list(zip(names, types))
    if c.get("alibi"):
        extra += f" alibi(%a : {t(h, e='f32')})"
        params.append(("%a", t(h, e="f32")))
    if c.get("sinks"):
        extra += f" sinks(%s : {t(h, e='f32')})"
        params.append(("%s", t(h, e="f32")))
    attrs = []
    if c.get("layout") == "head":
        attrs.append('kv_layout = "head_major"')
    if c.get("window"):
        attrs.append(f"sliding_window = {c['window']} : i64")
    if c.get("softcap"):
        attrs.append(f"logits_soft_cap = {c['softcap']} : f32")
    if c.get("config"):
        attrs.append(f"config = #ejk.config<{c['config']}>")
    attr = " {" + ", ".join(attrs) + "}" if attrs else ""
    op = {"ragged": "ragged_paged_attention", "unified": "unified_attention",
          "prefill": "prefill_paged_attention"}[c["op"]]
    sig = ", ".join(f"{n}: {ty}" for n, ty in params)
    return (f"func.func @main({sig}) -> {q} {{\n"
            f"  %o = ejk.{op} {', '.join(names)}{extra}{attr}\n"
            f"      : {', '.join(types)} -> {q}\n"
            f"  return %o : {q}\n}}\n")


def prepare(out, fingerprint):
    ejk_runtime.prepare(out, fingerprint, variants(), ir, __file__)


# --- run (on the GPU machine) -------------------------------------------------

def run(d):
    import torch
    import torch.nn.functional as F

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    results = {"device": rt.device_lines(), "torch": torch.__version__}
    log(results["device"])
    clocks, warm = ejk_runtime.clocks, ejk_runtime.warm
    cuda_us = lambda fn: ejk_runtime.cuda_median_ms(fn) * 1e3
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16}

    results["copy_gbps"] = ejk_runtime.copy_gbps()
    log("copy", results["copy_gbps"], clocks())

    cases = json.load(open(os.path.join(d, "cases.json")))
    for name, (c,) in cases.items():
        try:
            entry = run_case(rt, d, name, c, gpu, tdt, cuda_us, warm, clocks,
                             results["copy_gbps"])
            results[name] = entry
            log(name, json.dumps(entry))
        except Exception as ex:
            results[name] = {"error": repr(ex)[:400]}
            log(name, "ERROR", repr(ex)[:400])
    ejk_runtime.save_results(d, "ragged", results)


def run_case(rt, d, name, c, gpu, tdt, cuda_us, warm, clocks, copy_gbps):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    qlens, lens, h, hkv, dim, page, dt = (c[k] for k in
                                          ("qlens", "lens", "h", "hkv", "d", "page", "dt"))
    per, slots, g = pages_per_seq(c), len(lens), h // hkv
    ntok = sum(qlens)
    q = torch.randn(ntok, h, dim).to(tdt[dt])
    kseq = [torch.randn(n, hkv, dim).to(tdt[dt]) for n in lens]
    vseq = [torch.randn(n, hkv, dim).to(tdt[dt]) for n in lens]
    tables = torch.randperm(slots * per, dtype=torch.int32).reshape(slots, per)
    kc = torch.zeros(slots * per * page, hkv, dim, dtype=tdt[dt])
    vc = torch.zeros_like(kc)
    for s, n in enumerate(lens):
        tok = torch.arange(n)
        rows = tables[s, tok // page].long() * page + tok % page
        kc[rows], vc[rows] = kseq[s], vseq[s]
    kc = kc.reshape(slots * per, page, hkv, dim)
    vc = vc.reshape(slots * per, page, hkv, dim)
    if c.get("layout") == "head":
        kcb, vcb = kc.transpose(1, 2).contiguous(), vc.transpose(1, 2).contiguous()
    else:
        kcb, vcb = kc, vc
    cu = torch.tensor([0] + list(torch.tensor(qlens).cumsum(0)), dtype=torch.int32)
    alibi = torch.rand(h) * 0.1 if c.get("alibi") else None
    sinks = torch.randn(h) if c.get("sinks") else None
    args = [q if c["op"] != "prefill" else q.reshape(slots, qlens[0], h, dim),
            kcb, vcb, torch.tensor(lens, dtype=torch.int32), tables]
    if c["op"] != "prefill":
        args.append(cu)
    if c["op"] == "ragged":
        args.append(torch.tensor([slots], dtype=torch.int32))
    for x in (alibi, sinks):
        if x is not None:
            args.append(x.float())
    mod = rt.load(os.path.join(d, "art", name))
    ins = [rt.upload(x.contiguous()) for x in args]
    outs = [rt.empty(q.numel() * q.element_size())]
    mod.bind(ins, outs)
    mod.invoke()
    got = rt.download(outs[0], tuple(q.shape), tdt[dt]).float().to(gpu)

    # f32 reference, sequence by sequence (bottom-right causal, window,
    # ALiBi, soft cap, sinks in the denominator).
    err = 0.0
    window, cap = c.get("window"), c.get("softcap")
    for s in range(slots):
        a, b = int(cu[s]), int(cu[s + 1])
        if b == a:
            continue
        n = lens[s]
        qs = q[a:b].float().to(gpu) * dim ** -0.5
        ks = kseq[s].float().to(gpu).repeat_interleave(g, 1)
        vs = vseq[s].float().to(gpu).repeat_interleave(g, 1)
        sc = torch.einsum("ihd,thd->hit", qs, ks)
        ctx = n - (b - a)
        tpos = torch.arange(n, device=gpu)
        if alibi is not None:
            sc = sc + alibi.to(gpu)[:, None, None] * (tpos - ctx)[None, None, :]
        if cap:
            sc = cap * torch.tanh(sc / cap)
        pos = ctx + torch.arange(b - a, device=gpu)
        ok = tpos[None, :] <= pos[:, None]
        if window:
            ok &= (pos[:, None] - tpos[None, :]) < window
        sc = sc.masked_fill(~ok[None], float("-inf"))
        if sinks is not None:
            sink = sinks.to(gpu)[:, None, None].expand(h, b - a, 1)
            pr = torch.softmax(torch.cat([sc, sink], -1), -1)[..., :n]
        else:
            pr = torch.softmax(sc, -1)
        ref = torch.einsum("hit,thd->ihd", pr.nan_to_num(0.0), vs)
        err = max(err, float((got[a:b] - ref).abs().max()))
    entry = {"max_abs_err": err, "nan": bool(torch.isnan(got).any()),
             "ok": err < 1e-2 and not bool(torch.isnan(got).any())}
    if c["time"]:
        med = mod.time_us(entry)
        kv = sum(lens) * hkv * dim * 2 * q.element_size()
        entry.update(gbps=kv / (med * 1e-6) / 1e9)
        entry["pct_of_copy"] = 100 * entry["gbps"] / copy_gbps
        # PyTorch SDPA on the gathered KV: decodes batched, prefills
        # batched and causal (each prefill sees only its own tokens).
        nd = sum(1 for x in qlens if x == 1)
        npf = len(qlens) - nd
        plen = qlens[-1]
        calls = []
        if nd:
            qd = q[:nd].to(gpu).reshape(nd, h, 1, dim)
            kd = torch.stack(kseq[:nd]).to(gpu).transpose(1, 2).contiguous()
            vd = torch.stack(vseq[:nd]).to(gpu).transpose(1, 2).contiguous()
            calls.append(lambda: F.scaled_dot_product_attention(
                qd, kd, vd, enable_gqa=True))
        if npf:
            qp = q[nd:].to(gpu).reshape(npf, plen, h, dim).transpose(1, 2).contiguous()
            kp = torch.stack(kseq[nd:]).to(gpu).transpose(1, 2).contiguous()
            vp = torch.stack(vseq[nd:]).to(gpu).transpose(1, 2).contiguous()
            calls.append(lambda: F.scaled_dot_product_attention(
                qp, kp, vp, is_causal=True, enable_gqa=True))
        sdpa_us = cuda_us(lambda: [f() for f in calls])
        kcg, tg = kc.to(gpu), tables.to(gpu).long()
        entry["torch"] = {"sdpa_us": sdpa_us,
                          "gather_us": cuda_us(lambda: kcg[tg]),
                          "clocks": clocks()}
        entry["ejk_over_sdpa"] = med / sdpa_us
    rt.release()
    mod.destroy()
    return entry


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)

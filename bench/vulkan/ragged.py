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
sequence's K/V once.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402


# name: (decodes, decode context, prefills, prefill length, heads, kv heads,
#        head dim, page, dtype)
def variants():
    return {
        "ragged-mixed": (8, 1024, 2, 512, 32, 8, 128, 16, "f16"),
        "ragged-decode32": (32, 4096, 0, 0, 32, 8, 128, 16, "f16"),
        "ragged-mixed-large": (32, 4096, 2, 1024, 32, 8, 128, 16, "f16"),
        "chk-small": (3, 77, 2, 33, 12, 4, 64, 16, "f16"),
    }


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def layout(nd, dctx, npf, plen, page):
    qlens = [1] * nd + [plen] * npf
    lens = [dctx] * nd + [plen] * npf
    per = max(-(-n // page) for n in lens)
    return qlens, lens, per


def ir(nd, dctx, npf, plen, h, hkv, d, page, dt):
    qlens, lens, per = layout(nd, dctx, npf, plen, page)
    slots = len(lens)
    q = t(sum(qlens), h, d, e=dt)
    c = t(slots * per, page, hkv, d, e=dt)
    types = [q, c, c, t(slots, e="i32"), t(slots, per, e="i32"),
             t(slots + 1, e="i32"), t(1, e="i32")]
    names = ["%q", "%kc", "%vc", "%lens", "%tables", "%cu", "%n"]
    params = ", ".join(f"{n}: {ty}" for n, ty in zip(names, types))
    return (f"func.func @main({params}) -> {q} {{\n"
            f"  %o = ejk.ragged_paged_attention {', '.join(names)}\n"
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

    src = torch.empty(512 * 2 ** 20, dtype=torch.float32, device=gpu)
    dst = torch.empty_like(src)
    us = cuda_us(lambda: dst.copy_(src))
    results["copy_gbps"] = 2 * src.numel() * 4 / (us * 1e-6) / 1e9
    log("copy", results["copy_gbps"], clocks())
    del src, dst

    cases = json.load(open(os.path.join(d, "cases.json")))
    for name, (nd, dctx, npf, plen, h, hkv, dim, page, dt) in cases.items():
        try:
            torch.manual_seed(0)
            qlens, lens, per = layout(nd, dctx, npf, plen, page)
            slots, ntok, g = len(lens), sum(qlens), h // hkv
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
            cu = torch.tensor([0] + list(torch.tensor(qlens).cumsum(0)), dtype=torch.int32)
            mod = rt.load(os.path.join(d, "art", name))
            ins = [rt.upload(x) for x in (q, kc, vc, torch.tensor(lens, dtype=torch.int32),
                                           tables, cu, torch.tensor([slots], dtype=torch.int32))]
            outs = [rt.empty(q.numel() * q.element_size())]
            mod.bind(ins, outs)
            mod.invoke()
            got = rt.download(outs[0], tuple(q.shape), tdt[dt]).float().to(gpu)

            # f32 reference, sequence by sequence (bottom-right causal).
            err = 0.0
            for s in range(slots):
                a, b = int(cu[s]), int(cu[s + 1])
                qs = q[a:b].float().to(gpu) * dim ** -0.5
                ks = kseq[s].float().to(gpu).repeat_interleave(g, 1)
                vs = vseq[s].float().to(gpu).repeat_interleave(g, 1)
                sc = torch.einsum("ihd,thd->hit", qs, ks)
                pos = lens[s] - (b - a) + torch.arange(b - a, device=gpu)
                ok = torch.arange(lens[s], device=gpu)[None, :] <= pos[:, None]
                sc = sc.masked_fill(~ok[None], float("-inf"))
                ref = torch.einsum("hit,thd->ihd", torch.softmax(sc, -1).nan_to_num(0.0), vs)
                if b > a:
                    err = max(err, float((got[a:b] - ref).abs().max()))
            entry = {"max_abs_err": err, "nan": bool(torch.isnan(got).any())}
            if not name.startswith("chk"):
                warm(mod.invoke)
                entry["clocks_before"] = clocks()
                ts = []
                for _ in range(30):
                    mod.invoke()
                    ts.append(mod.last_time_us())
                ts.sort()
                entry["clocks_after"] = clocks()
                kv = sum(lens) * hkv * dim * 2 * q.element_size()
                entry.update(median_us=ts[15], min_us=ts[0],
                             gbps=kv / (ts[15] * 1e-6) / 1e9)
                entry["pct_of_copy"] = 100 * entry["gbps"] / results["copy_gbps"]
                # PyTorch SDPA on the gathered KV: decodes batched, prefills
                # batched and causal (each prefill sees only its own tokens).
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
                sdpa_us = cuda_us(lambda: [c() for c in calls])
                kcg, tg = kc.to(gpu), tables.to(gpu).long()
                entry["torch"] = {"sdpa_us": sdpa_us,
                                  "gather_us": cuda_us(lambda: kcg[tg]),
                                  "clocks": clocks()}
                entry["ejk_over_sdpa"] = ts[15] / sdpa_us
            results[name] = entry
            log(name, json.dumps(entry))
            rt.release()
            mod.destroy()
        except Exception as ex:
            results[name] = {"error": repr(ex)[:400]}
            log(name, "ERROR", repr(ex)[:400])
    ejk_runtime.save_results(d, "ragged", results)


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)

#!/usr/bin/env python3
"""vmm's device steps (prepared by prep_vmm.py; ejk_runtime.py beside it):

  python3 vmm_device.py timing DIR   old (GLSL450) vs new (Vulkan memory model)
      artifacts of gfa-d128, gfa-long, gla, ssd in one process: inputs made
      once per workload, old and new alternating (order flipped each round)
      for ROUNDS rounds, each measurement the median of 30 invokes by the
      runtime's GPU timestamps after a warm-up (2 s first, 0.3 s later); the
      two outputs compared (max |new - old|) and gfa-d128's against an f32
      PyTorch reference. Writes DIR/timing.json (and $OUT/timing.json).
  python3 vmm_device.py attn DIR     dense flash attention checks of
      DIR/attn/<case> (f16/bf16, register and shared-memory softmax) against
      an f32 PyTorch reference, two runs byte for byte. Writes
      DIR/attn.json (and $OUT/attn.json).
"""
import json, math, os, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402

log = lambda *a: print(*a, flush=True)


def attention_ref(q, k, v, causal):
    """f32 softmax(Q K^T / sqrt(d)) V with GQA, [B, S, H, D] layout."""
    import torch
    h, hkv = q.shape[2], k.shape[2]
    qf, kf, vf = (x.float().transpose(1, 2) for x in (q, k, v))
    kf = kf.repeat_interleave(h // hkv, dim=1)
    vf = vf.repeat_interleave(h // hkv, dim=1)
    s = qf @ kf.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        mask = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
    return (s.softmax(-1) @ vf).transpose(1, 2)


def buffers(d):
    kj = json.load(open(os.path.join(d, "kernel.json")))
    return kj["entries"][0]["buffers"]


def make_inputs(workload, d, gpu):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    bufs = [b for b in buffers(d) if b["role"] == "input"]
    if workload == "ssd":
        import ssm
        _, typed = ssm.inputs("ssd", ssm.M2, "f16", "DS", gpu)
        return list(typed.values())
    xs = [torch.randn(*b["shape"], device=gpu).to(tdt[b["dtype"]]) for b in bufs]
    if workload == "gla":
        xs[3] = (F.logsigmoid(torch.randn(*bufs[3]["shape"], device=gpu)) / 16).to(xs[3].dtype)
    return xs


def outputs(d):
    import torch
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    return [(b["shape"], tdt[b["dtype"]]) for b in buffers(d) if b["role"] == "output"]


def timing(d):
    import torch
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    results = {"device": rt.device_lines(), "rounds": int(os.environ.get("ROUNDS", "3"))}
    for w in ("gfa-d128", "gfa-long", "gla", "ssd"):
        dirs = {v: os.path.join(d, "time", v, w) for v in ("old", "new")}
        entry = {v: {"rounds_us": []} for v in dirs}
        try:
            xs = make_inputs(w, dirs["new"], gpu)
            ins = [rt.upload(x) for x in xs]
            mods, outs = {}, {}
            for v, p in dirs.items():
                mods[v] = rt.load(p)
                outs[v] = [rt.empty(math.prod(s) * torch.empty(0, dtype=t).element_size())
                           for s, t in outputs(p)]
                mods[v].bind(ins, outs[v])
            first = True
            for r in range(results["rounds"]):
                order = ("old", "new") if r % 2 == 0 else ("new", "old")
                for v in order:
                    m = mods[v]
                    ejk_runtime.warm(m.invoke, 2.0 if first else 0.3)
                    first = False
                    before = ejk_runtime.clocks()
                    ts = []
                    for _ in range(30):
                        m.invoke()
                        ts.append(m.last_time_us())
                    ts.sort()
                    entry[v]["rounds_us"].append(ts[15])
                    entry[v].setdefault("min_us", []).append(ts[0])
                    entry[v].setdefault("clocks", []).append([before, ejk_runtime.clocks()])
                    log(w, v, "round", r, "median_us", ts[15], "min_us", ts[0])
            for v in dirs:
                rs = sorted(entry[v]["rounds_us"])
                entry[v]["median_us"] = rs[len(rs) // 2]
            entry["new_over_old"] = entry["new"]["median_us"] / entry["old"]["median_us"]
            shape, t = outputs(dirs["new"])[0]
            o = {v: rt.download(outs[v][0], shape, t).float() for v in dirs}
            entry["max_abs_new_minus_old"] = float((o["new"] - o["old"]).abs().max())
            entry["new_finite"] = bool(torch.isfinite(o["new"]).all())
            if w == "gfa-d128":
                ref = attention_ref(xs[0], xs[1], xs[2], False).cpu()
                entry["max_abs_new_vs_f32_ref"] = float((o["new"] - ref).abs().max())
            log(w, json.dumps({k: v for k, v in entry.items() if k not in ("old", "new")}),
                "old", entry["old"]["median_us"], "new", entry["new"]["median_us"])
        except Exception as ex:
            entry["error"] = repr(ex)[:400]
            log(w, "ERROR", repr(ex)[:400])
        results[w] = entry
        rt.release()
        ejk_runtime.save_results(d, "timing", results)


def attn(d):
    import torch
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    results, bad = {}, 0
    for name in sorted(os.listdir(os.path.join(d, "attn"))):
        p = os.path.join(d, "attn", name)
        if not os.path.isdir(p):
            continue
        entry = {}
        try:
            causal = "causal" in name
            xs = make_inputs("attn", p, gpu)
            mod = rt.load(p)
            (shape, t), = outputs(p)
            out = rt.empty(math.prod(shape) * torch.empty(0, dtype=t).element_size())
            mod.bind([rt.upload(x) for x in xs], [out])
            mod.invoke()
            o1 = rt.download(out, shape, t)
            mod.invoke()
            o2 = rt.download(out, shape, t)
            ref = attention_ref(*xs, causal).cpu()
            err = float((o1.float() - ref).abs().max())
            tol = 2e-2 if "bf16" in name else 4e-3
            entry = {"max_abs_err": err, "tol": tol, "runs_identical": bool(torch.equal(o1, o2)),
                     "ok": err <= tol and bool(torch.equal(o1, o2))}
            mod.destroy()
        except Exception as ex:
            entry = {"error": repr(ex)[:400], "ok": False}
        bad += not entry["ok"]
        results[name] = entry
        log(name, json.dumps(entry))
        rt.release()
    results["summary"] = f"{len(results) - bad}/{len(results)} ok"
    log("attn", results["summary"])
    ejk_runtime.save_results(d, "attn", results)


if __name__ == "__main__":
    {"timing": timing, "attn": attn}[sys.argv[1]](sys.argv[2])

#!/usr/bin/env python3
"""On the GPU machine: times the probe/prototype artifacts (art/) beside ejkc's
heuristic and channel-lanes artifacts (ejk/art/) in one process, with the
256 MiB copy_ rate; then checks every full prototype and ejk artifact against
PyTorch's f32 recurrence (ssm.reference); then the driver's pipeline
statistics. Writes $OUT/probe.json after every round, $OUT/pstats.txt."""
import json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "ejk"))
import ejk_runtime, ssm  # noqa: E402
import torch  # noqa: E402

OUT = os.environ.get("OUT", HERE)
log = lambda *a: print(*a, flush=True)
res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": []}


def save():
    json.dump(res, open(os.path.join(OUT, "probe.json"), "w"), indent=1)


gpu = torch.device("cuda")
rt = ejk_runtime.Runtime(os.path.join(HERE, "ejk"))
res["device"] = rt.device_lines()
x, typed = ssm.inputs("scan", ssm.M1, "f32", "DS", gpu)
ins = [rt.upload(v) for v in typed.values()]
yb = rt.empty(2048 * 2048 * 4)
mods = {}
only = os.environ.get("PROBE_ONLY", "")
for name in sorted(os.listdir(os.path.join(HERE, "ejk", "art"))):
    p = os.path.join(HERE, "ejk", "art", name)
    if os.path.isdir(p):
        mods[name] = rt.load(p)
ART = os.path.join(HERE, os.environ.get("PROBE_ART", "art"))
for name in sorted(os.listdir(ART)):
    if only and only not in name:
        continue
    try:
        mods[name] = rt.load(os.path.join(ART, name))
    except Exception as ex:
        res[name] = {"error": repr(ex)[:300]}
        log(name, "LOAD ERROR", repr(ex)[:300])
for m in mods.values():
    m.bind(ins, [yb])
log("loaded", len(mods))


def copy_rate():
    xx = torch.empty(256 * 2**20 // 4, device=gpu)
    yy = torch.empty_like(xx)
    ms = ejk_runtime.cuda_median_ms(lambda: yy.copy_(xx))
    return 2 * xx.numel() * 4 / ms / 1e6


res["copy_gbps_start"] = copy_rate()
log("copy GB/s", res["copy_gbps_start"])
ejk_runtime.warm(mods["mamba1"].invoke, 2.0)
samples = {n: [] for n in mods}
disp = {n: [] for n in mods}
t_start = time.time()
for r in range(3):
    rd = {"clocks_before": ejk_runtime.clocks()}
    for name, m in mods.items():
        try:
            ejk_runtime.warm(m.invoke, 0.15)
            for _ in range(10):
                m.invoke()
                samples[name].append(m.last_time_us())
                disp[name].append(m.dispatch_times_us())
        except Exception as ex:
            res[name] = {"error": repr(ex)[:300]}
    rd["clocks_after"] = ejk_runtime.clocks()
    res["rounds"].append(rd)
    for name in mods:
        s = sorted(samples[name])
        if s:
            per = [sorted(c)[len(c) // 2] for c in zip(*disp[name])]
            res.setdefault(name, {}).update(median_us=s[len(s) // 2], min_us=s[0], n=len(s),
                                            dispatch_us=per)
    save()
    log("round", r, rd, f"{time.time() - t_start:.1f} s")
res["copy_gbps"] = copy_rate()
log("copy GB/s", res["copy_gbps"])
BYTES = 50.7e6
for name in mods:
    e = res.get(name, {})
    if "median_us" in e:
        e["of_copy"] = BYTES / (e["median_us"] * 1e-6) / 1e9 / res["copy_gbps"]
        log(f"{name:40s} {e['median_us']:8.1f} us {100 * e['of_copy']:5.1f} % {e['dispatch_us']}")
save()
# Checks: the prototypes' and ejkc's outputs against the f32 recurrence.
yref, _ = ssm.reference("scan", ssm.M1, "DS", x)
amax = float(yref.abs().max())
for name, m in mods.items():
    if not (name.startswith("full") or name.startswith("mamba1") or name.startswith("sl")):
        continue
    rt.rt.ejk_buffer_upload(yb, __import__("ctypes").c_void_p(
        torch.full((2048 * 2048,), float("nan")).data_ptr()),
        __import__("ctypes").c_size_t(2048 * 2048 * 4), __import__("ctypes").c_size_t(0))
    m.invoke()
    y = rt.download(yb, tuple(yref.shape), torch.float32).to(gpu)
    err = float((y - yref).abs().max())
    res.setdefault(name, {}).update(max_abs_err=err, max_abs_ref=amax,
                                    nan=bool(torch.isnan(y).any()))
    log("chk", name, err, "of", amax, "ok" if err <= 1e-4 * amax else "FAIL")
save()
# The driver's statistics (registers, ...) of every pipeline.
tool = os.path.join(HERE, "pipeline_stats")
argv = [tool]
for root in (ART, os.path.join(HERE, "ejk", "art")):
    for name in sorted(os.listdir(root)):
        kj = os.path.join(root, name, "kernel.json")
        if not os.path.exists(kj) or name not in mods:
            continue
        for dd in json.load(open(kj))["entries"][0]["dispatches"]:
            argv += [dd["entry_point"], str(len(dd["bindings"])), os.path.join(root, name, dd["spirv"])]
r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
open(os.path.join(OUT, "pstats.txt"), "w").write(r.stdout + r.stderr)
log("pipeline_stats rc", r.returncode, len(r.stdout.splitlines()), "lines")

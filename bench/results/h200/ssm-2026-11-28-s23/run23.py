#!/usr/bin/env python3
"""On the GPU machine (session 23, H200): times art/ (gen23.py) beside ejkc's
heuristic (ejk/art/mamba1) in one process, rounds interleaving every module,
with the 256 MiB copy_ rate (as bench/vulkan/ssm.py) at start and end and
nvidia-smi's clocks before/after every round; then checks every one-pass
kernel and the heuristic against PyTorch's f32 recurrence (ssm.reference),
the streams and walks against their own formulas; then the driver's pipeline
statistics. Writes $OUT/probe.json after every round, $OUT/pstats.txt."""
import ctypes, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "ejk"))
import ejk_runtime, ssm  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

OUT = os.environ.get("OUT", HERE)
ROUNDS = int(os.environ.get("ROUNDS", 3))
log = lambda *a: print(*a, flush=True)
smi = lambda: subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,"
                              "power.draw,clocks_throttle_reasons.active", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": [],
       "smi_start": smi()}
log("smi", res["smi_start"])


def save():
    json.dump(res, open(os.path.join(OUT, "probe.json"), "w"), indent=1)


gpu = torch.device("cuda")
rt = ejk_runtime.Runtime(os.path.join(HERE, "ejk"))
res["device"] = rt.device_lines()
log(res["device"])
x, typed = ssm.inputs("scan", ssm.M1, "f32", "DS", gpu)
ins = [rt.upload(v) for v in typed.values()]
NY = 2048 * 2048
yb = rt.empty(NY * 4)
BYTES = sum(v.numel() * v.element_size() for v in typed.values()) + NY * 4
res["bytes"] = BYTES
mods = {"mamba1": rt.load(os.path.join(HERE, "ejk", "art", "mamba1"))}
ART = os.path.join(HERE, os.environ.get("PROBE_ART", "art"))
only = os.environ.get("PROBE_ONLY", "")
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
log("loaded", len(mods), "bytes", BYTES)


def copy_rate():
    xx = torch.empty(256 * 2**20 // 4, device=gpu)
    yy = torch.empty_like(xx)
    ms = ejk_runtime.cuda_median_ms(lambda: yy.copy_(xx))
    return 2 * xx.numel() * 4 / ms / 1e6


res["copy_gbps_start"] = copy_rate()
log("copy GB/s", res["copy_gbps_start"], "bar us", BYTES / (0.4 * res["copy_gbps_start"] * 1e3))
ejk_runtime.warm(mods["mamba1"].invoke, 2.0)
samples = {n: [] for n in mods}
disp = {n: [] for n in mods}
t_start = time.time()
for r in range(ROUNDS):
    rd = {"clocks_before": ejk_runtime.clocks(), "smi_before": smi()}
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
    rd["smi_after"] = smi()
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
res["bar_us"] = BYTES / (0.4 * res["copy_gbps"] * 1e3)
log("copy GB/s", res["copy_gbps"], "bar (40 %) us", res["bar_us"])
for name in mods:
    e = res.get(name, {})
    if "median_us" in e:
        e["of_copy"] = BYTES / (e["median_us"] * 1e-6) / 1e9 / res["copy_gbps"]
        log(f"{name:42s} {e['median_us']:8.1f} us {100 * e['of_copy']:5.1f} % {e['dispatch_us']}")
save()
# Checks.
yref, _ = ssm.reference("scan", ssm.M1, "DS", x)
amax = float(yref.abs().max())
dt = torch.where(x["delta"] > 20, x["delta"], F.softplus(x["delta"], threshold=1e9))
ywalk = (dt * x["u"] + x["opt_D"] * x["u"]).reshape(-1)
yflat = (x["delta"] + x["u"]).reshape(-1)
nanbuf = torch.full((NY,), float("nan"))
for name, m in mods.items():
    if any(t in name for t in ("_fixt", "_nobc", "_noy", "_nobar")):
        continue  # timing only: outputs wrong by design
    if name.startswith(("sl", "mamba1")):
        ref = yref.reshape(-1)
    elif name.startswith("walk") and not name.endswith("noy"):
        ref = ywalk
    elif name.startswith(("flat", "rows")):
        ref = yflat
    else:
        continue
    rt.rt.ejk_buffer_upload(yb, ctypes.c_void_p(nanbuf.data_ptr()), ctypes.c_size_t(NY * 4),
                            ctypes.c_size_t(0))
    m.invoke()
    y = rt.download(yb, (NY,), torch.float32).to(gpu)
    err = float((y - ref).abs().max())
    mx = float(ref.abs().max())
    nan = bool(torch.isnan(y).any())
    ok = err <= 1e-4 * mx and not nan
    res.setdefault(name, {}).update(max_abs_err=err, max_abs_ref=mx, nan=nan, ok=ok)
    log("chk", name, err, "of", mx, "ok" if ok else "FAIL")
save()
res["smi_end"] = smi()
log("smi", res["smi_end"])
save()
tool = os.path.join(HERE, "pipeline_stats")
argv = [tool]
for root in (ART, os.path.join(HERE, "ejk", "art")):
    for name in sorted(os.listdir(root)):
        kj = os.path.join(root, name, "kernel.json")
        if not os.path.exists(kj) or name not in mods:
            continue
        for dd in json.load(open(kj))["entries"][0]["dispatches"]:
            argv += [dd["entry_point"], str(len(dd["bindings"])), os.path.join(root, name, dd["spirv"])]
r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
open(os.path.join(OUT, "pstats.txt"), "w").write(r.stdout + r.stderr)
log("pipeline_stats rc", r.returncode, len(r.stdout.splitlines()), "lines")

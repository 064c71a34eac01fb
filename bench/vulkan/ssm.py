import json, os, re, subprocess, torch
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("OUT", "/tmp/out")
m = json.load(open(os.path.join(HERE, "ssm", "ssm.json")))
res = {}
for e in m["entries"]:
    r = subprocess.run([os.path.join(HERE, "ejk-bench-run"), os.path.join(HERE, "ssm", "ssm.json"),
                        "--entry", e["name"], "--runs", "10", "--warmup", "2"], capture_output=True, text=True, timeout=300)
    mm = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", r.stdout + r.stderr)
    flops = sum(d["flops"] for d in e["dispatches"]); nbytes = sum(d["bytes"] for d in e["dispatches"])
    if not mm:
        print(e["name"], "FAILED", (r.stdout + r.stderr)[-400:]); continue
    med = float(mm.group(1))
    res[e["name"]] = dict(median_ms=med, min_ms=float(mm.group(2)), flops=flops, bytes=nbytes,
                          tflops=flops / med / 1e9, gbps=nbytes / med / 1e6)
    print(e["name"], res[e["name"]])
x = torch.empty(256 * 2**20 // 4, device="cuda"); y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
torch.cuda.synchronize(); ts = []
for _ in range(20):
    s, t = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); y.copy_(x); t.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(t))
ts.sort(); res["copy_gbps"] = 2 * x.numel() * 4 / ts[10] / 1e6
print("copy GB/s (read+write):", res["copy_gbps"])
json.dump(res, open(os.path.join(OUT, "h100-ssm.json"), "w"), indent=1)

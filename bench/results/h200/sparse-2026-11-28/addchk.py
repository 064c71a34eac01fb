# One new chk case into an existing sparse.py bench dir (prepare's chk part).
import json, os, subprocess, sys
sys.path.insert(0, "bench/vulkan")
import sparse
out, name = sys.argv[1], sys.argv[2]
c = sparse.variants()[name]
src = os.path.join(out, "art", name + ".mlir")
open(src, "w").write(sparse.ir(c))
d = os.path.join(out, "chk", name)
os.makedirs(d, exist_ok=True)
args, results = sparse.signature(c)
specs = [f"{n}:{k}:{e}:{'x'.join(map(str, s))}" for n, k, e, s in args]
subprocess.run([sys.executable, "test/Integration/Inputs/block_sparse_inputs.py", d,
                str(c["seed"]), str(c["density"] or 0.0)] + specs, check=True)
cpu = os.path.join(d, "cpu.mlir")
open(cpu, "w").write(sparse.ir(dict(c, cfg=None)))
run = ["build/bin/ejk-run", cpu, "--entry", "main", "--target", "cpu"]
for n, _, _, _ in args:
    run += ["--input", os.path.join(d, n + ".npy")]
r = subprocess.run(run + ["--check"], capture_output=True, text=True)
print(name, "cpu --check", "ok" if r.returncode == 0 and "FAILED" not in r.stdout else "FAILED " + r.stdout[-300:])
refs = []
for n, _, _ in results:
    refs += ["--output", os.path.join(d, "ref_" + n + ".npy")]
subprocess.run(run + refs, check=True, capture_output=True)
cases = json.load(open(os.path.join(out, "cases.json")))
cases[name] = (c,)
json.dump(cases, open(os.path.join(out, "cases.json"), "w"), indent=1)

"""Regenerates the inputs of sparse.py's chk cases (sp/chk/NAME/*.npy but
ref_*) with block_sparse_inputs.py, as prepare wrote them (pure Python's
seeded random: the same bytes anywhere), and checks them against md5 sums
written here (inputs.md5), so that the carry leaves them out.
  python3 gen_inputs.py SPDIR [md5|gen] [JOBS]"""
import hashlib, json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
sp, mode = sys.argv[1], sys.argv[2]
sys.path.insert(0, sp)
import sparse
cases = {n: c[0] for n, c in json.load(open(os.path.join(sp, "cases.json"))).items()
         if n.startswith("chk") and "@" not in n}
gen = "test/Integration/Inputs/block_sparse_inputs.py"
def files(name):
    d = os.path.join(sp, "chk", name)
    return sorted(f for f in os.listdir(d) if f.endswith(".npy") and not f.startswith("ref_"))
if mode == "md5":
    sums = {}
    for n in cases:
        for f in files(n):
            sums[n + "/" + f] = hashlib.md5(open(os.path.join(sp, "chk", n, f), "rb").read()).hexdigest()
    json.dump(sums, open(os.path.join(sp, "inputs.md5"), "w"), indent=0)
    print(len(sums), "sums")
    sys.exit(0)
def one(n):
    c = cases[n]
    args, _ = sparse.signature(c)
    specs = [f"{a}:{k}:{e}:{'x'.join(map(str, s))}" for a, k, e, s in args]
    d = os.path.join(sp, "chk", n)
    subprocess.run([sys.executable, gen, d, str(c["seed"]), str(c["density"] or 0.0)] + specs, check=True)
with ThreadPoolExecutor(int(sys.argv[3]) if len(sys.argv) > 3 else 4) as ex:
    list(ex.map(one, sorted(cases, key=lambda n: -os.path.getsize(os.path.join(sp, "chk", n, "ref_o.npy")))))
sums = json.load(open(os.path.join(sp, "inputs.md5")))
bad = [k for k, v in sums.items() if hashlib.md5(open(os.path.join(sp, "chk", k), "rb").read()).hexdigest() != v]
print("inputs regenerated:", len(sums) - len(bad), "ok,", len(bad), "differ", bad[:5])

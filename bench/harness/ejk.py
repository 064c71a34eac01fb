"""Runs ejk on a workload through the built tools (ejkc, ejk-run)."""
import os
import re
import subprocess
import time

BENCH_RE = re.compile(r"bench: (\d+) runs, median ([0-9.]+) ms, min ([0-9.]+) ms")


class Ejk:
    def __init__(self, build_dir, threads):
        self.bindir = os.path.join(build_dir, "bin")
        self.threads = threads
        for tool in ("ejkc", "ejk-run", "ejk-cpu-peak"):
            if not os.access(os.path.join(self.bindir, tool), os.X_OK):
                raise FileNotFoundError(
                    f"{os.path.join(self.bindir, tool)} is missing: build ejk first "
                    f"(scripts/build.sh) or pass --build DIR")

    def _env(self):
        env = dict(os.environ, EJK_NUM_THREADS=str(self.threads))
        return env

    def _cmd(self, argv):
        """Pins to the first `threads` CPUs, like the peers' workers."""
        cpus = sorted(os.sched_getaffinity(0))
        if self.threads < len(cpus):
            return ["taskset", "-c", ",".join(str(c) for c in cpus[:self.threads])] + argv
        return argv

    def peak(self, read_mib=None):
        import json
        argv = [os.path.join(self.bindir, "ejk-cpu-peak"), str(self.threads)]
        if read_mib:
            argv.append(str(read_mib))
        out = subprocess.run(self._cmd(argv), capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    def compile(self, ir_path, out_dir):
        """Cold compile with ejkc; returns (seconds, None) or (None, first error line)."""
        start = time.perf_counter()
        r = subprocess.run([os.path.join(self.bindir, "ejkc"), ir_path, "-o", out_dir],
                           capture_output=True, text=True, env=self._env())
        if r.returncode != 0:
            lines = [l for l in (r.stderr + r.stdout).splitlines() if "error" in l]
            first = lines[0] if lines else f"ejkc exited {r.returncode}"
            # The location names a temporary file: keep the message only.
            return None, re.sub(r'^loc\("[^"]*":\d+:\d+\): ', "", first.strip())
        return time.perf_counter() - start, None

    def run(self, w, ir_path, input_paths, out_npy, runs, check=False):
        """ejk-run --bench on the given .npy inputs; writes the output to out_npy
        (several results, e.g. dq, dk, dv: flattened and concatenated, as the
        peers hand theirs over)."""
        results = len(w.output_shapes())
        outs = [out_npy] if results == 1 else [f"{out_npy}.{i}.npy" for i in range(results)]
        argv = [os.path.join(self.bindir, "ejk-run"), ir_path, "--entry", w.entry(),
                "--bench", str(runs)]
        for o in outs:
            argv += ["--output", o]
        for p in input_paths:
            argv += ["--input", p]
        if check:
            argv.append("--check")
        r = subprocess.run(self._cmd(argv), capture_output=True, text=True, env=self._env())
        text = r.stdout + r.stderr
        if r.returncode != 0:
            return {"error": text.strip().splitlines()[-1] if text.strip() else
                    f"ejk-run exited {r.returncode}"}
        m = BENCH_RE.search(text)
        if not m:
            return {"error": "ejk-run printed no bench line: " + text.strip()[:300]}
        out = {"runs": int(m.group(1)), "median_ms": float(m.group(2)),
               "min_ms": float(m.group(3))}
        if results > 1:
            import numpy as np
            np.save(out_npy, np.concatenate([np.load(o).ravel() for o in outs]))
        if check:
            out["check"] = [l.strip() for l in text.splitlines() if "max abs error" in l]
        return out

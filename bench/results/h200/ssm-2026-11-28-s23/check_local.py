#!/usr/bin/env python3
"""Checks the prototype full scans on lavapipe at L=256, D=64 (PL/PD) against
a pure-Python f32-ish recurrence (no numpy/torch here). Run:
  PL=256 PD=64 POUT=chk python3 gen_check.py && python3 check_local.py chk"""
import array, ctypes, json, math, os, random, sys

d = sys.argv[1]
L, D, N = int(os.environ.get("PL", 256)), int(os.environ.get("PD", 64)), 16
rt = ctypes.CDLL("/work/main/build/lib/Runtime/libejk_runtime.so.1")
rt.ejk_last_error.restype = ctypes.c_char_p
dev = ctypes.c_void_p()
assert rt.ejk_device_create(b"vulkan", ctypes.byref(dev)) == 0, rt.ejk_last_error()
random.seed(0)
g = lambda n, f: array.array("f", [f() for _ in range(n)])
u = g(L * D, lambda: random.gauss(0, 1))
delta = g(L * D, lambda: random.gauss(0, 1) * 0.5 - 2.0)
A = g(D * N, lambda: -math.exp(random.gauss(0, 1) * 0.5))
B = g(L * N, lambda: random.gauss(0, 1))
C = g(L * N, lambda: random.gauss(0, 1))
Dv = g(D, lambda: random.gauss(0, 1))
# reference
yref = [0.0] * (L * D)
for c in range(D):
    h = [0.0] * N
    for t in range(L):
        x = delta[t * D + c]
        dt = x if x > 20 else math.log1p(math.exp(x))
        yy = 0.0
        for n in range(N):
            h[n] = math.exp(dt * A[c * N + n]) * h[n] + dt * u[t * D + c] * B[t * N + n]
            yy += h[n] * C[t * N + n]
        yref[t * D + c] = yy + Dv[c] * u[t * D + c]
amax = max(abs(v) for v in yref)


def buf(a):
    b = ctypes.c_void_p()
    n = len(a) * 4
    assert rt.ejk_buffer_create(dev, ctypes.c_size_t(n), ctypes.byref(b)) == 0
    ptr = a.buffer_info()[0]
    assert rt.ejk_buffer_upload(b, ctypes.c_void_p(ptr), ctypes.c_size_t(n), ctypes.c_size_t(0)) == 0
    return b


ins = [buf(x) for x in (u, delta, A, B, C, Dv)]
yb = buf(array.array("f", [0.0] * (L * D)))
fails = 0
for name in sorted(os.listdir(d)):
    if not (name.startswith("full") or name.startswith("sl")):
        continue
    mod = ctypes.c_void_p()
    st = rt.ejk_module_load(dev, os.path.join(d, name, "kernel.json").encode(), ctypes.byref(mod))
    assert st == 0, rt.ejk_last_error()
    i = (ctypes.c_void_p * 6)(*ins)
    o = (ctypes.c_void_p * 1)(yb)
    st = rt.ejk_invoke(mod, b"main", i, ctypes.c_size_t(6), o, ctypes.c_size_t(1))
    assert st == 0, rt.ejk_last_error()
    y = array.array("f", [0.0] * (L * D))
    rt.ejk_buffer_download(yb, ctypes.c_void_p(y.buffer_info()[0]), ctypes.c_size_t(L * D * 4),
                           ctypes.c_size_t(0))
    err = max(abs(a - b) for a, b in zip(y, yref))
    ok = err <= 1e-4 * max(1.0, amax)
    fails += not ok
    print(name, "max_abs_err", err, "of", amax, "ok" if ok else "FAIL", flush=True)
    rt.ejk_module_destroy(mod)
sys.exit(1 if fails else 0)

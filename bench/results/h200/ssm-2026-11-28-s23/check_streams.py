#!/usr/bin/env python3
"""lavapipe check of the stream/walk probes at PL=256 PD=512 (their own
formulas: flat/rows y = delta + u; walk y = softplus(delta) * u + D * u)."""
import array, ctypes, math, os, random, sys
os.environ.setdefault("PL", "256"); os.environ.setdefault("PD", "512"); os.environ.setdefault("POUT", "chks")
import gen, gen23
L, D = gen.L, gen.D
os.makedirs(gen.OUT, exist_ok=True)
names = []
for name, (kind, p) in gen23.variants().items():
    if kind == "flat":
        p = dict(p, G=min(p["G"], 64))
    elif kind == "rows":
        p = dict(p, G=16, U=1)
    elif kind != "walk":
        continue
    if kind == "walk" and (D // p["CW"] < 1 or p.get("NOY")):
        continue
    gen23.build(name, kind, p)
    names.append((name, kind))
rt = ctypes.CDLL("/work/main/build/lib/Runtime/libejk_runtime.so.1")
rt.ejk_last_error.restype = ctypes.c_char_p
dev = ctypes.c_void_p()
assert rt.ejk_device_create(b"vulkan", ctypes.byref(dev)) == 0
random.seed(1)
g = lambda n, f: array.array("f", [f() for _ in range(n)])
u = g(L * D, lambda: random.gauss(0, 1)); dl = g(L * D, lambda: random.gauss(0, 1) - 1)
Dv = g(D, lambda: random.gauss(0, 1))
sp = lambda x: x if x > 20 else math.log1p(math.exp(x))
def buf(a):
    b = ctypes.c_void_p(); n = len(a) * 4
    assert rt.ejk_buffer_create(dev, ctypes.c_size_t(n), ctypes.byref(b)) == 0
    assert rt.ejk_buffer_upload(b, ctypes.c_void_p(a.buffer_info()[0]), ctypes.c_size_t(n), ctypes.c_size_t(0)) == 0
    return b
z = lambda n: array.array("f", [0.0] * n)
ins = [buf(u), buf(dl), buf(z(D * 16)), buf(z(L * 16)), buf(z(L * 16)), buf(Dv)]
yb = buf(z(L * D))
bad = 0
for name, kind in names:
    mod = ctypes.c_void_p()
    assert rt.ejk_module_load(dev, os.path.join(gen.OUT, name, "kernel.json").encode(), ctypes.byref(mod)) == 0, rt.ejk_last_error()
    rt.ejk_buffer_upload(yb, ctypes.c_void_p(z(L * D).buffer_info()[0]), ctypes.c_size_t(L * D * 4), ctypes.c_size_t(0))
    assert rt.ejk_invoke(mod, b"main", (ctypes.c_void_p * 6)(*ins), ctypes.c_size_t(6), (ctypes.c_void_p * 1)(yb), ctypes.c_size_t(1)) == 0, rt.ejk_last_error()
    y = z(L * D)
    rt.ejk_buffer_download(yb, ctypes.c_void_p(y.buffer_info()[0]), ctypes.c_size_t(L * D * 4), ctypes.c_size_t(0))
    if kind == "walk":
        err = max(abs(y[i] - (sp(dl[i]) * u[i] + Dv[i % D] * u[i])) for i in range(L * D))
    else:
        err = max(abs(y[i] - (dl[i] + u[i])) for i in range(L * D))
    bad += err > 1e-4
    print(name, err, "ok" if err <= 1e-4 else "FAIL", flush=True)
sys.exit(1 if bad else 0)

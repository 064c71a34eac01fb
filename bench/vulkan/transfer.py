#!/usr/bin/env python3
"""Host <-> device copy rates of the ejk runtime's Vulkan buffers against
CUDA's, in one process (docs/runtime.md, "Staged copies").

  here:   python3 bench/vulkan/transfer.py prepare DIR [OLD_RUNTIME]
          copies the runtime built here to DIR/lib/ and these scripts to
          DIR; with OLD_RUNTIME (a libejk_runtime.so.1 of another commit),
          also to DIR/old/lib/ so both are timed in the same run.
  there:  python3 DIR/transfer.py run DIR
          times ejk_buffer_upload and ejk_buffer_download of 16 MiB to
          1 GiB from ordinary (pageable) host memory and from the same
          memory registered with ejk_host_register, then PyTorch's
          pageable and pinned host <-> device copies of the same sizes;
          writes DIR/transfer.json (and $OUT/transfer.json when OUT is set).

Device-local buffers are not host-visible on a discrete GPU, so every
upload and download goes through the runtime's staging buffer; the ring
attention runtime (docs/ops/ring.md) moves each K/V shard this way.
"""
import ctypes, os, shutil, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402

SIZES_MIB = [16, 128, 1024]
REPS = 5


def prepare(out, old_runtime=None):
    os.makedirs(os.path.join(out, "lib"), exist_ok=True)
    shutil.copy(os.path.join(ejk_runtime.ROOT, "build", "lib", "Runtime",
                             "libejk_runtime.so.1"), os.path.join(out, "lib"))
    if old_runtime:
        os.makedirs(os.path.join(out, "old", "lib"), exist_ok=True)
        shutil.copy(old_runtime, os.path.join(out, "old", "lib",
                                              "libejk_runtime.so.1"))
    shutil.copy(os.path.abspath(__file__), out)
    shutil.copy(ejk_runtime.__file__, out)


def best_gbps(fn, nbytes):
    """The best of REPS timed calls of `fn` (after one untimed), in GB/s."""
    fn()
    best = float("inf")
    for _ in range(REPS):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return nbytes / best / 1e9


def time_ejk(directory):
    import torch
    rt = ejk_runtime.Runtime(directory)
    rows = {}
    for mib in SIZES_MIB:
        n = mib << 20
        host = torch.randint(0, 255, (n,), dtype=torch.uint8)
        back = torch.empty_like(host)
        buf = rt.empty(n)
        ptr, out = ctypes.c_void_p(host.data_ptr()), ctypes.c_void_p(back.data_ptr())
        up = lambda: rt.check(rt.rt.ejk_buffer_upload(buf, ptr, ctypes.c_size_t(n),
                                                      ctypes.c_size_t(0)), "upload")
        down = lambda: rt.check(rt.rt.ejk_buffer_download(buf, out, ctypes.c_size_t(n),
                                                          ctypes.c_size_t(0)), "download")
        row = {"upload_gbps": best_gbps(up, n),
               "download_gbps": best_gbps(down, n),
               "round_trip_equal": bool(torch.equal(host, back))}
        # The same copies from and into registered host memory (a runtime
        # without ejk_host_register, or a device that refuses, leaves the
        # row without these keys).
        register = getattr(rt.rt, "ejk_host_register", None)
        if register is not None and \
                register(rt.dev, ptr, ctypes.c_size_t(n)) == 0 and \
                register(rt.dev, out, ctypes.c_size_t(n)) == 0:
            back.zero_()
            row["registered_upload_gbps"] = best_gbps(up, n)
            row["registered_download_gbps"] = best_gbps(down, n)
            row["registered_round_trip_equal"] = bool(torch.equal(host, back))
            rt.rt.ejk_host_unregister(rt.dev, ptr)
            rt.rt.ejk_host_unregister(rt.dev, out)
        rows[mib] = row
        rt.release()
    return rows


def time_torch():
    import torch
    rows = {}
    for mib in SIZES_MIB:
        n = mib << 20
        dev = torch.empty(n, dtype=torch.uint8, device="cuda")
        row = {}
        for kind, host in (("pageable", torch.empty(n, dtype=torch.uint8)),
                           ("pinned", torch.empty(n, dtype=torch.uint8).pin_memory())):
            def up():
                dev.copy_(host)
                torch.cuda.synchronize()

            def down():
                host.copy_(dev)
                torch.cuda.synchronize()
            row[f"{kind}_upload_gbps"] = best_gbps(up, n)
            row[f"{kind}_download_gbps"] = best_gbps(down, n)
        rows[mib] = row
    return rows


def run(d):
    results = {"sizes_mib": SIZES_MIB, "best_of": REPS}
    for name, directory in (("ejk", d), ("ejk_old", os.path.join(d, "old"))):
        if os.path.exists(os.path.join(directory, "lib", "libejk_runtime.so.1")):
            results[name] = time_ejk(directory)
            print(name, results[name], flush=True)
    results["torch"] = time_torch()
    print("torch", results["torch"], flush=True)
    ejk_runtime.save_results(d, "transfer", results)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    else:
        raise SystemExit(__doc__)

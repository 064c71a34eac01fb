"""Inputs and the expected results of run-tiled.mlir's hand-written kernel.

  tiled_kernel.py make DIR    writes a.npy (bf16 bits as u16), h.npy (f16),
                              m.npy (bool)
  tiled_kernel.py check DIR   compares b.npy (f32) and c.npy (bf16 bits) with
                              a numpy model of the kernel; prints "ok"
"""
import os
import sys

import numpy as np

SHAPE = (2, 64)


def bf16_bits(x):
    """f32 -> bf16 bits, rounding to nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def make(directory):
    rng = np.random.default_rng(7)
    a = bf16_bits(rng.uniform(-0.5, 0.5, SHAPE).astype(np.float32))
    h = rng.uniform(-0.5, 0.5, SHAPE).astype(np.float16)
    m = rng.random(SHAPE) < 0.7
    np.save(os.path.join(directory, "a.npy"), a)
    np.save(os.path.join(directory, "h.npy"), h)
    np.save(os.path.join(directory, "m.npy"), m)


def check(directory):
    load = lambda name: np.load(os.path.join(directory, name))
    a, h, m = load("a.npy"), load("h.npy"), load("m.npy")
    f = bf16_value(a).astype(np.float64)
    e = np.exp(f)
    s = np.where(m, e, h.astype(np.float64))
    t = np.arange(64)
    # Each workgroup sums 4 neighbours (mod 64) from workgroup memory...
    total = sum(s[:, (t + i) & 63] for i in range(4))
    # ...and takes its subgroup neighbour's sum (shuffle xor 1).
    shuffled = total[:, t ^ 1]
    expected = np.exp2(shuffled * np.tanh(np.log(e)) + f)
    b, c = load("b.npy"), bf16_value(load("c.npy"))
    ok = True
    if not np.allclose(b, expected, rtol=1e-4, atol=1e-5):
        print("b differs: max abs error", np.max(np.abs(b - expected)))
        ok = False
    # c is b rounded to bf16 on the device.
    if not np.array_equal(c, bf16_value(bf16_bits(b))):
        print("c is not b rounded to bf16 (nearest even)")
        ok = False
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(make(sys.argv[2]) if sys.argv[1] == "make" else check(sys.argv[2]))

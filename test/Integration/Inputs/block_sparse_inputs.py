"""Writes the inputs of one block-sparse attention test as .npy files,
without numpy (the integration tests need only Python):

  block_sparse_inputs.py OUTDIR SEED DENSITY SPEC...

Each SPEC is NAME:KIND:DTYPE:SHAPE (SHAPE like 1x64x2x32) and becomes
OUTDIR/NAME.npy. KIND `normal` draws N(0, 1) floats (f32, f16, or bf16 as
u16 bit patterns, as ejk-run reads them); `blocks` draws a block mask whose
blocks are live with probability DENSITY (0 and 1 exactly: all dead, all
live) and, for DENSITY in (0, 1), kills every block of one query-block row
per (batch, head) so that the rows with no live key are exercised;
`blocks_rc` draws the same and also kills one key-block column per (batch,
head), so that keys no query sees are exercised (the backward); `mask`
draws a token mask, true with probability 0.85; `segments` draws sorted
segment ids in [0, 3) per batch row."""
import random
import struct
import sys


def npy(path, descr, shape, payload):
    shape_text = "(" + ", ".join(str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                header.encode() + payload)


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def floats(dtype, values):
    if dtype == "f32":
        return "<f4", b"".join(struct.pack("<f", v) for v in values)
    if dtype == "f16":
        return "<f2", b"".join(struct.pack("<e", v) for v in values)
    if dtype == "bf16":
        # Round to nearest even on the upper 16 bits of the f32 pattern.
        out = []
        for v in values:
            bits = struct.unpack("<I", struct.pack("<f", v))[0]
            bits += 0x7FFF + ((bits >> 16) & 1)
            out.append(struct.pack("<H", (bits >> 16) & 0xFFFF))
        return "<u2", b"".join(out)
    raise SystemExit(f"unknown float dtype {dtype}")


def main():
    out, seed, density = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    rng = random.Random(seed)
    for spec in sys.argv[4:]:
        name, kind, dtype, shape_text = spec.split(":")
        shape = [int(d) for d in shape_text.split("x")]
        n = count(shape)
        path = f"{out}/{name}.npy"
        if kind == "normal":
            descr, payload = floats(dtype, [rng.gauss(0.0, 1.0)
                                            for _ in range(n)])
            npy(path, descr, shape, payload)
        elif kind in ("blocks", "blocks_rc"):
            bits = [1 if rng.random() < density else 0 for _ in range(n)]
            if 0.0 < density < 1.0:
                rows, cols = shape[2], shape[3]
                for bh in range(shape[0] * shape[1]):
                    dead = rng.randrange(rows)
                    for c in range(cols):
                        bits[(bh * rows + dead) * cols + c] = 0
                    if kind == "blocks_rc":
                        dead = rng.randrange(cols)
                        for r in range(rows):
                            bits[(bh * rows + r) * cols + dead] = 0
            npy(path, "|b1", shape, bytes(bits))
        elif kind == "mask":
            npy(path, "|b1", shape,
                bytes(1 if rng.random() < 0.85 else 0 for _ in range(n)))
        elif kind == "segments":
            last = shape[-1]
            ids = []
            for _ in range(n // last):
                ids += sorted(rng.randrange(3) for _ in range(last))
            npy(path, "<i4", shape, b"".join(struct.pack("<i", v) for v in ids))
        else:
            raise SystemExit(f"unknown kind {kind}")


if __name__ == "__main__":
    main()

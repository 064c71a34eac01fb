#!/usr/bin/env python3
"""Writes the state-space integration tests (test/Integration/CPU/ssm/*.mlir
and the same matrix for Vulkan, test/Integration/Vulkan/ssm/*.mlir, which
run on whatever Vulkan device EJK_VULKAN_DEVICE picks: lavapipe in CI).

Each generated file holds several entry functions and one RUN line per entry
(the shapes files a second one compiled for 256-bit vectors):
ejk-run compiles the file, runs the entry on seeded random inputs (with
Mamba's ranges for A, the step sizes and their biases, see
tools/ejk-run/InputRanges.h) and --check compares every result with the
reference evaluator. Regenerate with
  python3 test/Integration/generate_ssm_tests.py
and commit the result; the files are plain lit tests.
"""
import os

ROOT = os.path.dirname(os.path.abspath(__file__))

# Cases that cannot run on Vulkan (none: the chunk_size attribute does not
# bind the kernel's chunk, so Mamba-2's 256 runs with chunks that fit).
NOT_ON_VULKAN = set()


def tensor(shape, dtype):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dtype + ">"


def optional_operands(operands):
    """The entry arguments and the op's clauses of the enabled optional
    operands: (enabled, argument name, clause keyword, type) each."""
    args, clauses = [], ""
    for enabled, name, keyword, type_ in operands:
        if enabled:
            args.append(f"%{name}: {type_}")
            clauses += f" {keyword}(%{name} : {type_})"
    return args, clauses


def attr_dict(case, attrs, target):
    """The op's attribute dictionary: `attrs` and the case's config (its
    Vulkan config when it has one and the target is Vulkan)."""
    config = (case.vulkan_config if target == "vulkan" and case.vulkan_config
              else case.config)
    if config:
        attrs = attrs + [f"config = #ejk.config<{config}>"]
    return " {" + ", ".join(attrs) + "}" if attrs else ""


class Scan:
    """One ejk.selective_scan entry."""

    def __init__(self, name, b=1, l=16, d=32, n=16, g=1, dtype="f32",
                 skip=False, z=False, bias=False, softplus=False, init=False,
                 final=False, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        x = tensor([self.b, self.l, self.d], self.dtype)
        a = tensor([self.d, self.n], "f32")
        bc = tensor([self.b, self.l, self.g, self.n], self.dtype)
        vec = tensor([self.d], "f32")
        state = tensor([self.b, self.d, self.n], "f32")
        optional, extra = optional_operands([
            (self.skip, "D", "D", vec), (self.z, "z", "z", x),
            (self.bias, "bias", "delta_bias", vec),
            (self.init, "h0", "initial_state", state)])
        args = [f"%u: {x}", f"%delta: {x}", f"%A: {a}", f"%B: {bc}",
                f"%C: {bc}"] + optional
        attrs = attr_dict(self, ["delta_softplus"] if self.softplus else [],
                          target)
        results = [x] + ([state] if self.final else [])
        names = "%y, %h" if self.final else "%y"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.selective_scan %u, %delta, %A, %B, %C{extra}{attrs}\n"
            f"      : {x}, {x}, {a}, {bc}, {bc} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


class Ssd:
    """One ejk.ssd entry."""

    def __init__(self, name, b=1, l=16, h=2, p=16, n=16, g=1, dtype="f32",
                 skip=False, z=False, bias=False, softplus=False, init=False,
                 final=False, chunk=None, config=None, vulkan_config=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def function(self, target="cpu"):
        x = tensor([self.b, self.l, self.h, self.p], self.dtype)
        dt = tensor([self.b, self.l, self.h], self.dtype)
        a = tensor([self.h], "f32")
        bc = tensor([self.b, self.l, self.g, self.n], self.dtype)
        state = tensor([self.b, self.h, self.p, self.n], "f32")
        optional, extra = optional_operands([
            (self.skip, "D", "D", a), (self.z, "z", "z", x),
            (self.bias, "bias", "dt_bias", a),
            (self.init, "s0", "initial_state", state)])
        args = [f"%x: {x}", f"%dt: {dt}", f"%A: {a}", f"%B: {bc}",
                f"%C: {bc}"] + optional
        attrs = ([f"chunk_size = {self.chunk} : i64"] if self.chunk else []) + \
            (["dt_softplus"] if self.softplus else [])
        attrs = attr_dict(self, attrs, target)
        results = [x] + ([state] if self.final else [])
        names = "%y, %s" if self.final else "%y"
        return (
            f"func.func @{self.name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {names} = ejk.ssd %x, %dt, %A, %B, %C{extra}{attrs}\n"
            f"      : {x}, {dt}, {a}, {bc}, {bc} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}\n}}\n")


ALL = dict(skip=True, z=True, bias=True, softplus=True, init=True, final=True)

FILES = {
    "selective-scan-seq-lengths.mlir": (
        "ejk.selective_scan over L = 1, 7, 300 and 2048.",
        [Scan("l1", l=1), Scan("l7", l=7), Scan("l300", l=300, **ALL),
         Scan("l2048", l=2048, d=16, softplus=True, skip=True, final=True)]),
    "selective-scan-options.mlir": (
        "Every optional part of ejk.selective_scan alone, then all together.",
        [Scan("skip", skip=True), Scan("gate", z=True),
         Scan("bias", bias=True), Scan("softplus", softplus=True),
         Scan("bias_softplus", bias=True, softplus=True),
         Scan("initial_state", init=True), Scan("final_state", final=True),
         Scan("all", l=45, **ALL)]),
    "selective-scan-shapes.mlir": (
        "ejk.selective_scan shapes: groups (vector-aligned and not), odd "
        "channel and state counts, batches, f16/bf16, configs with tails.",
        [Scan("groups2", d=64, g=2, l=20, **ALL),
         Scan("groups3_unaligned", d=24, g=3, l=20, **ALL),
         Scan("odd_channels", d=20, l=9, **ALL),
         Scan("odd_state", n=5, l=9, **ALL),
         Scan("wide_state", n=40, l=9, **ALL),
         Scan("batch2", b=2, l=33, **ALL),
         Scan("f16", dtype="f16", l=40, **ALL),
         Scan("bf16", dtype="bf16", l=40, **ALL),
         Scan("chunk_tail", l=23, d=48, config="block_d = 32, chunk_l = 5",
              **ALL)]),
    "ssd-seq-lengths.mlir": (
        "ejk.ssd over L = 1, 7, 300 and 2048.",
        [Ssd("l1", l=1), Ssd("l7", l=7), Ssd("l300", l=300, **ALL),
         Ssd("l2048", l=2048, n=32, softplus=True, skip=True, final=True)]),
    "ssd-options.mlir": (
        "Every optional part of ejk.ssd alone, then all together.",
        [Ssd("skip", skip=True), Ssd("gate", z=True), Ssd("bias", bias=True),
         Ssd("softplus", softplus=True),
         Ssd("bias_softplus", bias=True, softplus=True),
         Ssd("initial_state", init=True), Ssd("final_state", final=True),
         Ssd("all", l=45, **ALL)]),
    "ssd-shapes.mlir": (
        "ejk.ssd shapes: groups, odd head_dim and d_state, head_dim split "
        "over workgroups, configured and odd chunk sizes (one differing from "
        "the model's chunk_size attribute), Mamba-2's chunk_size = 256 left to "
        "the heuristic, batches, f16/bf16.",
        [Ssd("groups2", h=4, g=2, l=40, **ALL),
         Ssd("groups4", h=4, g=4, l=40, **ALL),
         Ssd("odd_head_dim", p=24, l=30, **ALL),
         Ssd("odd_state", n=6, l=30, **ALL),
         Ssd("split_head_dim", p=64, l=30,
             config="block_n = 8, block_p = 16, chunk_size = 16", **ALL),
         Ssd("chunk_config", l=70, chunk=256,
             config="block_n = 16, block_p = 16, chunk_size = 32",
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 32, "
             "num_subgroups = 4", **ALL),
         Ssd("odd_chunk", l=70,
             config="block_n = 16, block_p = 16, chunk_size = 10",
             vulkan_config="block_n = 16, block_p = 16, chunk_size = 10, "
             "num_subgroups = 4", **ALL),
         Ssd("model_chunk", l=300, chunk=256, n=64, **ALL),
         Ssd("batch2", b=2, l=33, **ALL),
         Ssd("f16", dtype="f16", l=40, **ALL),
         Ssd("bf16", dtype="bf16", l=40, **ALL)]),
}


def write(target, filename, summary, cases):
    lines = [f"// {summary}",
             "// Generated by test/Integration/generate_ssm_tests.py.", ""]
    flags = ""
    if target == "vulkan":
        lines += ["// REQUIRES: vulkan", ""]
        flags = " --target vulkan"
    for seed, case in enumerate(cases, start=1):
        if target == "vulkan" and case.name in NOT_ON_VULKAN:
            continue
        lines.append(f"// RUN: ejk-run %s --entry {case.name}{flags} "
                     f"--random-inputs {seed} --check | FileCheck %s")
    if target == "cpu" and "shapes" in filename:
        # The same cases compiled for 256-bit vectors (8 lanes, AVX2
        # register blocks) on any x86-64 host that runs AVX2.
        for seed, case in enumerate(cases, start=1):
            lines.append(f"// RUN: ejk-run %s --entry {case.name} --vector-bits 256 "
                         f"--random-inputs {seed} --check | FileCheck %s")
    lines += ["", "// CHECK: result 0 ({{.*}}): {{.*}}: ok", "// CHECK-NOT: FAILED", ""]
    body = "\n".join(case.function(target) for case in cases
                     if target == "cpu" or case.name not in NOT_ON_VULKAN)
    directory = os.path.join(ROOT, "CPU" if target == "cpu" else "Vulkan", "ssm")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, filename), "w") as f:
        f.write("\n".join(lines) + "\n" + body)


def main():
    for filename, (summary, cases) in FILES.items():
        for target in ("cpu", "vulkan"):
            write(target, filename, summary, cases)


if __name__ == "__main__":
    main()

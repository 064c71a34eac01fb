"""IREE for llvm-cpu, given the attention as its own fused attention op.

torch.aten.scaled_dot_product_attention in the torch dialect (IREE's torch
input), which IREE converts to iree_linalg_ext.attention, its fused
(online-softmax) attention op, and compiles for the host CPU.
"""
from . import iree_cpu

NAME = "iree-fused"
LABEL = "IREE (fused op)"
OPS = {"attention"}
DESCRIPTION = ("torch.aten.scaled_dot_product_attention in the torch dialect (is_causal, "
               "enable_gqa) through IREE's torch input, which lowers it to IREE's fused "
               "iree_linalg_ext.attention op; same compile flags and runtime as above; inputs "
               "handed over in BHSD layout (transposed outside the timed region)")


def limit_threads(n):
    pass  # IREE's threads are set in iree_cpu.load(), before the device exists


def version():
    return iree_cpu.version()


def _vtensor(shape, dtype):
    return f"!torch.vtensor<[{','.join(str(s) for s in shape)}],{dtype}>"


def torch_ir(w):
    d = w.dims
    q = _vtensor((d["B"], d["Hq"], d["Sq"], d["D"]), w.dtype)
    kv = _vtensor((d["B"], d["Hkv"], d["Sk"], d["D"]), w.dtype)
    causal = "true" if w.causal else "false"
    gqa = "true" if d["Hq"] != d["Hkv"] else "false"
    return f"""func.func @attention(%q: {q}, %k: {kv}, %v: {kv}) -> {q} {{
  %none = torch.constant.none
  %p = torch.constant.float 0.000000e+00
  %causal = torch.constant.bool {causal}
  %gqa = torch.constant.bool {gqa}
  %0 = torch.aten.scaled_dot_product_attention %q, %k, %v, %none, %p, %causal, %none, %gqa : {q}, {kv}, {kv}, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> {q}
  return %0 : {q}
}}
"""


def build(w, arrays, threads):
    import numpy as np
    import iree.compiler as ic
    import iree.runtime as rt
    vmfb = ic.compile_str(torch_ir(w), input_type="torch", extra_args=iree_cpu.COMPILE_FLAGS)
    config, modules = iree_cpu.load(vmfb, threads)
    fn = modules["module"]["attention"]
    args = [rt.asdevicearray(config.device, np.ascontiguousarray(a.transpose(0, 2, 1, 3)))
            for a in arrays]
    return (lambda: fn(*args)), (lambda o: o.to_host().transpose(0, 2, 1, 3))

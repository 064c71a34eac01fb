"""IREE (iree-base-compiler / iree-base-runtime) for llvm-cpu.

The attention is given to IREE as torch.aten.scaled_dot_product_attention in
the torch dialect (IREE's torch input), which IREE converts to its own fused
attention op, iree_linalg_ext.attention, and compiles for the host CPU.
"""
import os

NAME = "iree"
LABEL = "IREE (llvm-cpu)"
OPS = {"attention"}
DESCRIPTION = ("torch.aten.scaled_dot_product_attention in the torch dialect (IREE's torch "
               "input: is_causal, enable_gqa), which IREE lowers to its fused "
               "iree_linalg_ext.attention op; compiled with iree-compile "
               "--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu "
               "--iree-llvmcpu-target-cpu=host, run on the local-task driver with "
               "--task_topology_max_group_count=threads; inputs handed over in BHSD layout "
               "(transposed outside the timed region) and uploaded once")


def limit_threads(n):
    pass  # set through the runtime flag in build(), before the device exists


def version():
    import importlib.metadata
    return importlib.metadata.version("iree-base-compiler")


def _vtensor(shape, dtype):
    return f"!torch.vtensor<[{','.join(str(s) for s in shape)}],{dtype}>"


def torch_ir(w):
    d = w.dims
    elem = {"f32": "f32", "f16": "f16"}[w.dtype]
    q = _vtensor((d["B"], d["Hq"], d["Sq"], d["D"]), elem)
    kv = _vtensor((d["B"], d["Hkv"], d["Sk"], d["D"]), elem)
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
    vmfb = ic.compile_str(torch_ir(w), input_type="torch",
                          extra_args=["--iree-hal-target-device=local",
                                      "--iree-hal-local-target-device-backends=llvm-cpu",
                                      "--iree-llvmcpu-target-cpu=host"])
    rt.flags.parse_flags(f"--task_topology_max_group_count={threads}")
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    fn = ctx.modules.module["attention"]
    args = [rt.asdevicearray(config.device, np.ascontiguousarray(a.transpose(0, 2, 1, 3)))
            for a in arrays]
    # The module's synchronous entry waits on its completion fence.
    return (lambda: fn(*args)), (lambda o: o.to_host().transpose(0, 2, 1, 3))

"""IREE (iree-base-compiler / iree-base-runtime) for llvm-cpu, from StableHLO.

The attention is given to IREE as StableHLO exported from JAX
(jax.jit(jax.nn.dot_product_attention).lower(...)), the way a JAX model
reaches IREE; IREE compiles its matmuls and softmax for the host CPU.
iree_fused.py gives IREE the same attention as its own fused op instead.
"""
from . import jax_xla

NAME = "iree"
LABEL = "IREE (StableHLO)"
OPS = {"attention"}
DESCRIPTION = ("StableHLO exported from JAX (jax.jit(jax.nn.dot_product_attention, "
               "implementation='xla').lower(...)), compiled by iree-compile for llvm-cpu "
               "(--iree-llvmcpu-target-cpu=host), run on the local-task driver with "
               "--task_topology_max_group_count=threads, inputs uploaded once")
COMPILE_FLAGS = ["--iree-hal-target-device=local",
                 "--iree-hal-local-target-device-backends=llvm-cpu",
                 "--iree-llvmcpu-target-cpu=host"]


def limit_threads(n):
    jax_xla.limit_threads(n)  # JAX only exports here; IREE's threads: load()


def version():
    import importlib.metadata
    return importlib.metadata.version("iree-base-compiler")


def load(vmfb, threads):
    """(config, the module's functions) on a local-task device of `threads` workers."""
    import iree.runtime as rt
    rt.flags.parse_flags(f"--task_topology_max_group_count={threads}")
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    return config, ctx.modules


def build(w, arrays, threads):
    import jax
    import iree.compiler as ic
    import iree.runtime as rt
    def attention(q, k, v):
        return jax.nn.dot_product_attention(q, k, v, is_causal=w.causal,
                                            implementation="xla")

    hlo = jax.jit(attention).lower(*arrays).as_text()
    vmfb = ic.compile_str(hlo, input_type="stablehlo", extra_args=COMPILE_FLAGS)
    config, modules = load(vmfb, threads)
    main = modules["jit_attention"]["main"]
    args = [rt.asdevicearray(config.device, a) for a in arrays]
    # The module's synchronous entry waits on its completion fence.
    return (lambda: main(*args)), (lambda o: o.to_host())

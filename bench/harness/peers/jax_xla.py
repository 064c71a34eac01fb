"""JAX on the CPU (XLA:CPU): jax.nn.dot_product_attention for attention;
reference scans (ssm_ref.py) for mamba1/mamba2; jax.lax.ragged_dot for moe."""
import os

NAME = "jax"
LABEL = "JAX (XLA:CPU)"
OPS = {"attention", "selective_scan", "ssd", "grouped_matmul"}
DESCRIPTION = ("jax.jit(jax.nn.dot_product_attention) on the BSHD inputs (is_causal; GQA by "
               "its native K/V head grouping), implementation='xla'; mamba1/mamba2: jax.jit of "
               "a lax.scan selective scan and of mamba_ssm's chunked ssd_minimal_discrete "
               "(chunk 256) in jnp (bench/harness/peers/ssm_ref.py; JAX has no scan op); "
               "moe: jax.jit(jax.lax.ragged_dot) (bench/harness/peers/moe_ref.py)")


def limit_threads(n):
    _xla_threads(n)


def _xla_threads(n):
    # XLA:CPU sizes its pools from the CPUs the process may run on (the worker
    # pins itself); the flag bounds Eigen's intra-op pool as well.
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = (flags + f" --xla_cpu_multi_thread_eigen=true"
                               f" intra_op_parallelism_threads={n}").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def version():
    import jax
    return jax.__version__


def build(w, arrays, threads):
    import jax
    import numpy as np
    if w.op == "grouped_matmul":
        from . import moe_ref
        args = [jax.device_put(a) for a in arrays]
        fn = jax.jit(moe_ref.jax_grouped_matmul)
        return (lambda: fn(*args).block_until_ready()), np.asarray
    if w.op != "attention":
        from . import ssm_ref
        args = [jax.device_put(a) for a in arrays]
        if w.op == "selective_scan":
            fn = jax.jit(ssm_ref.jax_selective_scan)
        else:
            fn = jax.jit(lambda *a: ssm_ref.jax_ssd(*a, w.dims["chunk"]))
        return (lambda: fn(*args).block_until_ready()), np.asarray
    q, k, v = (jax.device_put(a) for a in arrays)
    fn = jax.jit(lambda q, k, v: jax.nn.dot_product_attention(
        q, k, v, is_causal=w.causal, implementation="xla"))
    return (lambda: fn(q, k, v).block_until_ready()), np.asarray

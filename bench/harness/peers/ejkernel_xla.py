"""ejKernel's own entry points on the CPU (its XLA implementations)."""
from . import jax_xla as jax_peer

NAME = "ejkernel"
LABEL = "ejKernel (XLA)"
OPS = {"attention", "selective_scan", "ssd"}
DESCRIPTION = ("ejkernel.modules.flash_attention / state_space_v1 / state_space_v2 with "
               "platform='xla', under jax.jit; softplus of dt is done inside the jitted "
               "function (ejkernel takes dt after softplus, ejk applies it in the kernel); both "
               "state-space entry points are, on XLA, a sequential lax.scan over the sequence "
               "(no chunks; state_space_v1 also keeps every step's [D, N] state)")


def limit_threads(n):
    jax_peer.limit_threads(n)


def version():
    import importlib.metadata
    import jax
    return f"{importlib.metadata.version('ejkernel')}, jax {jax.__version__}"


def build(w, arrays, threads):
    import jax
    import numpy as np
    from ejkernel import modules as ek
    args = [jax.device_put(a) for a in arrays]
    if w.op == "attention":
        def f(q, k, v):
            return ek.flash_attention(q, k, v, causal=w.causal, platform="xla")
    elif w.op == "selective_scan":
        def f(u, delta, A, B, C, D, z):
            y, _, _ = ek.state_space_v1(u, A, B[:, :, 0, :], C[:, :, 0, :], D,
                                        jax.nn.softplus(delta), gate=z,
                                        act_fn=jax.nn.silu, platform="xla")
            return y
    else:
        def f(x, dt, A, B, C, D):
            y, _, _ = ek.state_space_v2(x, A, B, C, D, jax.nn.softplus(dt),
                                        n_groups=w.dims["G"], platform="xla")
            return y.reshape(x.shape)
    fn = jax.jit(f)
    return (lambda: fn(*args).block_until_ready()), np.asarray

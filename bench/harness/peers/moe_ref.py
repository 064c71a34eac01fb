"""Grouped matmul (MoE experts) for the PyTorch and JAX peers.

PyTorch has no grouped matmul op on the CPU: the MoE layers of its ecosystem
(Mixtral's and Qwen-MoE's reference code in transformers, for instance) loop
over the experts in Python and run one matmul per expert on its slice of the
sorted tokens, which is what `torch_grouped_matmul` does.

JAX has one: `jax.lax.ragged_dot(lhs, rhs, group_sizes)`, the op megablox's
`gmm` and ejKernel's XLA grouped matmul lower to; `jax_grouped_matmul` is it
under jax.jit.

Semantics are ejk's (lib/Reference/GroupedMatmul.cpp): out[r] = lhs[r] @
rhs[g] for the rows r of group g, rows sorted by group.
"""


def torch_grouped_matmul(lhs, rhs, group_sizes):
    """lhs [m, k]; rhs [e, k, n]; group_sizes [e] (host ints)."""
    import torch
    out = lhs.new_zeros((lhs.shape[0], rhs.shape[2]))
    start = 0
    for e, size in enumerate(group_sizes):
        if size > 0:
            torch.matmul(lhs[start:start + size], rhs[e], out=out[start:start + size])
        start += size
    return out


def jax_grouped_matmul(lhs, rhs, group_sizes):
    import jax
    return jax.lax.ragged_dot(lhs, rhs, group_sizes)

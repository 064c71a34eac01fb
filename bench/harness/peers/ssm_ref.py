"""Reference Mamba scans for the PyTorch and JAX peers (neither has an op).

PyTorch: the two reference implementations that ship with mamba_ssm, re-typed
here for the BSHD-style layouts of the workloads (mamba_ssm itself needs CUDA
to install): `selective_scan_ref` (mamba_ssm/ops/selective_scan_interface.py:
exp(dt A) and dt B u for every step up front, then a Python loop over the
sequence) and `ssd_minimal_discrete` (mamba_ssm/modules/ssd_minimal.py: the
chunked SSD algorithm in four einsums, chunk = the workload's chunk).

JAX: the same two algorithms under jax.jit: the selective scan as a
lax.scan over the sequence (the step computes exp(dt A) and dt B u itself, as
JAX Mamba ports do, rather than materialising [B, L, D, N]), and the same
chunked SSD in jnp.

Semantics are ejk's (lib/Reference/SelectiveScan.cpp, Ssd.cpp): dt =
softplus(delta); state = exp(dt A) state + dt B u; y = C . state + D u,
times silu(z) for the selective scan.
"""


def torch_selective_scan(u, delta, A, B, C, D, z):
    """u, delta, z [b, l, d]; A [d, n]; B, C [b, l, 1, n]; D [d]."""
    import torch
    import torch.nn.functional as F
    dt = F.softplus(delta)
    Bt, Ct = B[:, :, 0, :], C[:, :, 0, :]
    delta_a = torch.exp(torch.einsum("bld,dn->bldn", dt, A))
    delta_b_u = torch.einsum("bld,bln,bld->bldn", dt, Bt, u)
    x = A.new_zeros((u.shape[0], u.shape[2], A.shape[1]))
    ys = []
    for i in range(u.shape[1]):
        x = delta_a[:, i] * x + delta_b_u[:, i]
        ys.append(torch.einsum("bdn,bn->bd", x, Ct[:, i]))
    y = torch.stack(ys, dim=1)
    return (y + u * D) * F.silu(z)


def _torch_segsum(x):
    import torch
    t = x.size(-1)
    x = x[..., None].expand(*x.shape, t)
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool), diagonal=-1)
    x = x.masked_fill(~mask, 0)
    s = torch.cumsum(x, dim=-2)
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool), diagonal=0)
    return s.masked_fill(~mask, -torch.inf)


def torch_ssd(x, dt, A, B, C, D, chunk):
    """x [b, l, h, p]; dt [b, l, h]; A, D [h]; B, C [b, l, g, n]."""
    import torch
    import torch.nn.functional as F
    b, l, h, p = x.shape
    g, n = B.shape[2], B.shape[3]
    dt = F.softplus(dt)
    X = (x * dt[..., None]).reshape(b, l // chunk, chunk, h, p)
    Ad = (A * dt).reshape(b, l // chunk, chunk, h).permute(0, 3, 1, 2)  # b h c l
    Bh = B.repeat_interleave(h // g, dim=2).reshape(b, l // chunk, chunk, h, n)
    Ch = C.repeat_interleave(h // g, dim=2).reshape(b, l // chunk, chunk, h, n)
    a_cumsum = torch.cumsum(Ad, dim=-1)
    L = torch.exp(_torch_segsum(Ad))
    y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", Ch, Bh, L, X)
    decay_states = torch.exp(a_cumsum[..., -1:] - a_cumsum)
    states = torch.einsum("bclhn,bhcl,bclhp->bchpn", Bh, decay_states, X)
    states = torch.cat([torch.zeros_like(states[:, :1]), states], dim=1)
    decay_chunk = torch.exp(_torch_segsum(F.pad(a_cumsum[..., -1], (1, 0))))
    states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)[:, :-1]
    y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", Ch, states, torch.exp(a_cumsum))
    return (y_diag + y_off).reshape(b, l, h, p) + x * D[:, None]


def jax_selective_scan(u, delta, A, B, C, D, z):
    import jax
    import jax.numpy as jnp
    dt = jax.nn.softplus(delta)

    def step(state, inp):
        dt_t, u_t, b_t, c_t = inp  # [b, d], [b, d], [b, n], [b, n]
        state = (jnp.exp(dt_t[..., None] * A) * state +
                 (dt_t * u_t)[..., None] * b_t[:, None, :])
        return state, jnp.einsum("bdn,bn->bd", state, c_t)

    state0 = jnp.zeros((u.shape[0], u.shape[2], A.shape[1]), u.dtype)
    xs = tuple(jnp.swapaxes(a, 0, 1) for a in (dt, u, B[:, :, 0, :], C[:, :, 0, :]))
    _, ys = jax.lax.scan(step, state0, xs)
    y = jnp.swapaxes(ys, 0, 1)
    return (y + u * D) * jax.nn.silu(z)


def _jax_segsum(x):
    import jax.numpy as jnp
    t = x.shape[-1]
    x = jnp.broadcast_to(x[..., None], x.shape + (t,))
    x = jnp.where(jnp.tril(jnp.ones((t, t), bool), -1), x, 0.0)
    s = jnp.cumsum(x, axis=-2)
    return jnp.where(jnp.tril(jnp.ones((t, t), bool), 0), s, -jnp.inf)


def jax_ssd(x, dt, A, B, C, D, chunk):
    import jax
    import jax.numpy as jnp
    b, l, h, p = x.shape
    g, n = B.shape[2], B.shape[3]
    dt = jax.nn.softplus(dt)
    X = (x * dt[..., None]).reshape(b, l // chunk, chunk, h, p)
    Ad = (A * dt).reshape(b, l // chunk, chunk, h).transpose(0, 3, 1, 2)
    Bh = jnp.repeat(B, h // g, axis=2).reshape(b, l // chunk, chunk, h, n)
    Ch = jnp.repeat(C, h // g, axis=2).reshape(b, l // chunk, chunk, h, n)
    a_cumsum = jnp.cumsum(Ad, axis=-1)
    L = jnp.exp(_jax_segsum(Ad))
    y_diag = jnp.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", Ch, Bh, L, X)
    decay_states = jnp.exp(a_cumsum[..., -1:] - a_cumsum)
    states = jnp.einsum("bclhn,bhcl,bclhp->bchpn", Bh, decay_states, X)
    states = jnp.concatenate([jnp.zeros_like(states[:, :1]), states], axis=1)
    last = jnp.pad(a_cumsum[..., -1], [(0, 0)] * 2 + [(1, 0)])
    decay_chunk = jnp.exp(_jax_segsum(last))
    states = jnp.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)[:, :-1]
    y_off = jnp.einsum("bclhn,bchpn,bhcl->bclhp", Ch, states, jnp.exp(a_cumsum))
    return (y_diag + y_off).reshape(b, l, h, p) + x * D[:, None]

"""PyTorch on the CPU: scaled_dot_product_attention (its fused flash kernel) for
attention; mamba_ssm's reference scans (ssm_ref.py) for mamba1/mamba2; a
per-expert matmul loop (moe_ref.py) for moe."""
import os

NAME = "torch"
LABEL = "PyTorch"
OPS = {"attention", "attention_bwd", "attention_fwdbwd", "selective_scan", "ssd",
       "grouped_matmul"}
DESCRIPTION = ("torch.nn.functional.scaled_dot_product_attention on BHSD views of the "
               "BSHD inputs (is_causal, enable_gqa), torch.set_num_threads(threads); mamba1/mamba2: "
               "mamba_ssm's eager reference scans, selective_scan_ref and "
               "ssd_minimal_discrete (chunk 256), re-typed in bench/harness/peers/ssm_ref.py "
               "(PyTorch has no scan op); moe: one torch.matmul per expert on its rows "
               "(bench/harness/peers/moe_ref.py; PyTorch has no grouped matmul on the CPU); "
               "fa-d128-bwd: torch.autograd.grad of that SDPA's output (the forward run once "
               "outside the timing, graph retained), -fwdbwd: forward and autograd.grad in "
               "the timed call (the CPU flash kernel's forward and backward)")


def limit_threads(n):
    os.environ["OMP_NUM_THREADS"] = str(n)
    os.environ["MKL_NUM_THREADS"] = str(n)


def version():
    import torch
    return torch.__version__


def build(w, arrays, threads):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    if w.op == "grouped_matmul":
        from . import moe_ref
        lhs, rhs = torch.from_numpy(arrays[0]), torch.from_numpy(arrays[1])
        sizes = [int(s) for s in arrays[2]]

        def run_moe():
            with torch.inference_mode():
                return moe_ref.torch_grouped_matmul(lhs, rhs, sizes)
        return run_moe, lambda o: o.numpy()
    if w.op in ("attention_bwd", "attention_fwdbwd"):
        return _build_grad(w, arrays)
    if w.op != "attention":
        from . import ssm_ref
        t = [torch.from_numpy(a) for a in arrays]
        if w.op == "selective_scan":
            def scan():
                return ssm_ref.torch_selective_scan(*t)
        else:
            def scan():
                return ssm_ref.torch_ssd(*t, w.dims["chunk"])

        def run_scan():
            with torch.inference_mode():
                return scan()
        return run_scan, lambda o: o.numpy()
    q, k, v = (torch.from_numpy(a).permute(0, 2, 1, 3) for a in arrays)
    gqa = w.dims["Hq"] != w.dims["Hkv"]

    def run():
        with torch.inference_mode():
            return F.scaled_dot_product_attention(q, k, v, is_causal=w.causal,
                                                  enable_gqa=gqa)

    return run, lambda o: o.permute(0, 2, 1, 3).contiguous().numpy()


def _build_grad(w, arrays):
    """The backward (attention_bwd) or forward + backward (attention_fwdbwd) of
    SDPA through torch.autograd; the result is dq, dk, dv in BSHD, flattened
    and concatenated (as the harness hands ejk's three results over). The
    backward starts from PyTorch's own forward (its output and logsumexp),
    not from the workload's o and lse."""
    import torch
    import torch.nn.functional as F
    q, k, v = (torch.from_numpy(a).permute(0, 2, 1, 3).requires_grad_() for a in arrays[:3])
    do = torch.from_numpy(arrays[4] if w.op == "attention_bwd" else arrays[3]).permute(0, 2, 1, 3)
    gqa = w.dims["Hq"] != w.dims["Hkv"]

    def forward():
        return F.scaled_dot_product_attention(q, k, v, is_causal=w.causal, enable_gqa=gqa)

    if w.op == "attention_bwd":
        out = forward()

        def run():
            return torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
    else:
        def run():
            return torch.autograd.grad(forward(), (q, k, v), do)

    def to_numpy(grads):
        import numpy as np
        return np.concatenate([g.permute(0, 2, 1, 3).contiguous().numpy().ravel()
                               for g in grads])
    return run, to_numpy

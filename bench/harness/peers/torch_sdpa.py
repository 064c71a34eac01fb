"""PyTorch scaled_dot_product_attention on the CPU (its fused flash kernel)."""
import os

NAME = "torch"
LABEL = "PyTorch SDPA"
OPS = {"attention"}
DESCRIPTION = ("torch.nn.functional.scaled_dot_product_attention on BHSD views of the "
               "BSHD inputs (is_causal, enable_gqa), torch.set_num_threads(threads)")


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
    q, k, v = (torch.from_numpy(a).permute(0, 2, 1, 3) for a in arrays)
    gqa = w.dims["Hq"] != w.dims["Hkv"]

    def run():
        with torch.inference_mode():
            return F.scaled_dot_product_attention(q, k, v, is_causal=w.causal,
                                                  enable_gqa=gqa)

    return run, lambda o: o.permute(0, 2, 1, 3).contiguous().numpy()

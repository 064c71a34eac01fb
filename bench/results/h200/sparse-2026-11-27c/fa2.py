"""FlashAttention-2 (PyTorch SDPA's flash backend) on the six gfa prefill
shapes and gfa-d128 in bf16: median of 20 CUDA-event timings after 1 s of
warm-up each, with the SM clock before and after (call 3)."""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "sp2"))
import ejk_runtime
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
shapes = {"gfa-d128": (4, 2048, 16, 128, False), "gfa-d128-causal": (4, 2048, 16, 128, True),
          "gfa-d64": (4, 2048, 32, 64, False), "gfa-d64-causal": (4, 2048, 32, 64, True),
          "gfa-long": (1, 8192, 16, 128, False), "gfa-long-causal": (1, 8192, 16, 128, True),
          "gfa-d128-bf16": (4, 2048, 16, 128, False)}
out = {}
for name, (b, s, h, d, causal) in shapes.items():
    dt = torch.bfloat16 if name.endswith("bf16") else torch.float16
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dt) for _ in range(3))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        c0 = ejk_runtime.clocks()
        ms = ejk_runtime.cuda_median_ms(fn, 20)
        out[name] = {"fa2_ms": ms, "clocks": [c0, ejk_runtime.clocks()]}
    print(name, json.dumps(out[name]), flush=True)

"""FlashAttention-2 (PyTorch SDPA's flash backend) and cuDNN on the six gfa
prefill shapes: median of 20 CUDA-event timings after 1 s of warm-up each,
with the SM clock before and after (issue 21, helper fa)."""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "vulkan"))
import ejk_runtime
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
shapes = {"gfa-d128": (4, 2048, 16, 128, False), "gfa-d128-causal": (4, 2048, 16, 128, True),
          "gfa-d64": (4, 2048, 32, 64, False), "gfa-d64-causal": (4, 2048, 32, 64, True),
          "gfa-long": (1, 8192, 16, 128, False), "gfa-long-causal": (1, 8192, 16, 128, True)}
backends = {"fa2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
which = sys.argv[1:] or ["fa2"]
for name, (b, s, h, d, causal) in shapes.items():
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
    row = {}
    for peer in which:
        with sdpa_kernel(backends[peer]):
            fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            c0 = ejk_runtime.clocks()
            row[peer + "_ms"] = ejk_runtime.cuda_median_ms(fn, 20)
            row[peer + "_clocks"] = [c0, ejk_runtime.clocks()]
    print(name, json.dumps(row), flush=True)

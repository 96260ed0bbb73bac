# Peers for the campaign's goal: PyTorch SDPA (FlashAttention-2 and cuDNN backends) on the dense equivalent of each
# case-study prefill row the goal names, and of H14: same batch, heads, lengths, head dim and dtype; no paging, sinks
# or softcap (SDPA has none of them). Rates use kseek's own FLOP count for the row (`kseek scenarios`), so a peer's
# TFLOP/s and the candidate's compare directly. kseek runs it after each campaign evaluation (campaign.json
# "peer_figures"), on the same machine, and it writes its document to $KSEEK_PEER_FIGURES; by hand:
#   OUT=dir python3 peers.py      -> dir/peers.json and one line per row on stdout
import json, os
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

def median_ms(fn, iters=20):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record(); fn(); ends[i].record()
    torch.cuda.synchronize()
    t = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return t[len(t) // 2]

# id, kseek GFLOP, [(batch, sq, sk)...] (several entries: varlen, one call each), hq, hkv, d, dtype, causal
rows = [
    ("H01", 1099.8, [(8, 4096, 4096)], 32, 8, 128, torch.bfloat16, True),
    ("H03", 8796.4, [(1, 32768, 32768)], 32, 8, 128, torch.bfloat16, True),
    ("H04", 549.9, [(4, 4096, 4096)], 32, 32, 128, torch.float16, True),
    ("H05", 2199.3, [(4, 8192, 8192)], 64, 8, 64, torch.bfloat16, True),
    ("H07", 2199.3, [(4, 8192, 8192)], 16, 8, 256, torch.bfloat16, True),
    ("H10", 824.8, [(8, 4096, 4096)], 32, 32, 96, torch.bfloat16, True),
    ("H23", 869.7, [(1, n, n) for n in (1024, 2048, 4096, 4096, 6144, 8192, 3072, 4096)], 16, 16, 80, torch.bfloat16, False),
    ("H24", 737.3, [(64, 1500, 1500)], 20, 20, 64, torch.float16, False),
    ("H14", 17.2, [(256, 1, 4096)], 32, 8, 128, torch.bfloat16, False),  # one query row sees every key
]
results = []
for rid, gflop, shapes, hq, hkv, d, dtype, causal in rows:
    tensors = []
    for b, sq, sk in shapes:
        q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype)
        k = torch.randn(b, hkv, sk, d, device="cuda", dtype=dtype)
        v = torch.randn(b, hkv, sk, d, device="cuda", dtype=dtype)
        tensors.append((q, k, v, causal and sq > 1))
    row = {"scenario": rid, "gflop": gflop}
    for name, backend in (("fa2", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                def run():
                    for q, k, v, c in tensors:
                        F.scaled_dot_product_attention(q, k, v, is_causal=c, enable_gqa=hq != hkv)
                ms = median_ms(run)
            row[name + "_ms"] = round(ms, 4)
            row[name + "_tflops"] = round(gflop * 1e9 / (ms * 1e-3) / 1e12, 1)
        except Exception as e:  # a backend that refuses the shape says why
            row[name] = "n/a: " + str(e).split("\n")[0][:100]
    results.append(row)
    print("peer", json.dumps(row), flush=True)
    del tensors
    torch.cuda.empty_cache()
target = os.environ.get("KSEEK_PEER_FIGURES") or os.path.join(os.environ.get("OUT", "."), "peers.json")
json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": results}, open(target, "w"), indent=1)

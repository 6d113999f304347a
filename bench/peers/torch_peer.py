"""The PyTorch (cuBLAS for gemm, TF32 off) peer of loom.recipes on an NVIDIA GPU. Usage: torch_peer.py OP SIZE
REPS; prints the median seconds of one call (CUDA events), or exits 77 without torch or a GPU."""
import sys

try:
    import torch
except ImportError:
    sys.exit(77)
if not torch.cuda.is_available():
    sys.exit(77)

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
op, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dev = "cuda"
f32 = torch.float32
if op == "gemm":
    a, b = torch.rand(n, n, device=dev, dtype=f32), torch.rand(n, n, device=dev, dtype=f32)
    c = torch.empty(n, n, device=dev, dtype=f32)
    run = lambda: torch.mm(a, b, out=c)
elif op == "copy":
    a, out = torch.rand(n, device=dev, dtype=f32), torch.empty(n, device=dev, dtype=f32)
    run = lambda: out.copy_(a)
elif op == "triad":
    a, b, c = (torch.rand(n, device=dev, dtype=f32) for _ in range(3))
    run = lambda: torch.add(b, c, alpha=3.0, out=a)
elif op == "sum":
    a = torch.rand(n, device=dev, dtype=f32)
    run = lambda: a.sum()
elif op == "transpose":
    a, out = torch.rand(n, n, device=dev, dtype=f32), torch.empty(n, n, device=dev, dtype=f32)
    run = lambda: out.copy_(a.t())
elif op == "stencil5":
    a, out = torch.rand(n, n, device=dev, dtype=f32), torch.zeros(n, n, device=dev, dtype=f32)
    w = torch.tensor([[0, 1, 0], [1, -4, 1], [0, 1, 0]], device=dev, dtype=f32).view(1, 1, 3, 3)
    run = lambda: out[1:-1, 1:-1].copy_(torch.nn.functional.conv2d(a.view(1, 1, n, n), w)[0, 0])
elif op == "batched_gemm":
    a, b = torch.rand(n, 8, 8, device=dev, dtype=f32), torch.rand(n, 8, 8, device=dev, dtype=f32)
    c = torch.empty(n, 8, 8, device=dev, dtype=f32)
    run = lambda: torch.bmm(a, b, out=c)
else:
    sys.exit(f"unknown op {op}")
for _ in range(3):
    run()
times = []
for _ in range(reps):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    run()
    end.record()
    torch.cuda.synchronize()
    times.append(start.elapsed_time(end) / 1e3)
times.sort()
print(f"{times[len(times) // 2]:.9f}")

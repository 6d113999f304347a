"""The numpy peer of loom.recipes on the C executor: OPENBLAS_NUM_THREADS (set by the caller) threads of
OpenBLAS for gemm. Usage: numpy_peer.py OP SIZE REPS; prints the median seconds of one call, or exits 77 when
numpy is missing."""
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit(77)

op, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
if op == "gemm":
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    run = lambda: a @ b
elif op == "batched_gemm":
    a, b = rng.random((n, 8, 8), dtype=np.float32), rng.random((n, 8, 8), dtype=np.float32)
    run = lambda: np.matmul(a, b)
elif op == "sum":
    a = rng.random(n, dtype=np.float32)
    run = lambda: a.sum()
else:
    sys.exit(f"unknown op {op}")
run()
times = []
for _ in range(reps):
    start = time.perf_counter()
    run()
    times.append(time.perf_counter() - start)
times.sort()
print(f"{times[len(times) // 2]:.9f}")

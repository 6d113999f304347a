-- recipes.gemm's GPU kernel as CUDA, in a program that times it beside cuBLAS and that Nsight Compute can profile
-- (ncu profiles CUDA kernels, not OpenCL ones): where the gap to cuBLAS goes (docs/performance.md).
--
--   build/loom bench/gemm_cuda_profile.lua DIR [N] [lx,ly,ri,rj,kt[,vec]]   writes DIR/gemm_profile.cu; then, where
--   there is a GPU (the lent machine has nvcc and Nsight Compute, no Lua: carry DIR):
--   nvcc -O3 -arch=native -o gemm_profile DIR/gemm_profile.cu -lcublas && ./gemm_profile
--   ncu --set full --kernel-name gemm --launch-count 1 ./gemm_profile
--
-- The program checks Loom's product against cuBLAS's (relative error of the largest difference) and prints
-- both times, the median of 20 runs each; cuBLAS in plain float32 (CUBLAS_DEFAULT_MATH: no TF32).
local lp = require("loom")
local recipes = require("loom.recipes")

local dir = assert(arg[1], "usage: loom bench/gemm_cuda_profile.lua DIR [N] [lx,ly,ri,rj,kt[,vec]]")
local n = tonumber(arg[2] or "4096")
local tile = {}
if arg[3] then
  local names = { "lx", "ly", "ri", "rj", "kt", "vec" }
  local i = 0
  for v in arg[3]:gmatch("%d+") do
    i = i + 1
    tile[names[i]] = tonumber(v)
  end
end
tile.target, tile.n, tile.m, tile.k = "opencl", n, n, n
local knl = lp.set_options(recipes.gemm(tile), { target = "cuda" })
local code, info = lp.generate_code(knl)

-- A size of the grid table: isl's constant piecewise expression "{ [(N)] }".
local function size(text)
  return assert(tonumber(text:match("%[%((%d+)%)%]")), "the launch size " .. text .. " is not a constant")
end
local grid, block = info.grid[1].global, info.grid[1]["local"]
local dims = string.format("dim3 grid(%d, %d), block(%d, %d);", size(grid[1]), size(grid[2] or "{ [(1)] }"),
  size(block[1]), size(block[2] or "{ [(1)] }"))

local host = [[
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

template <class F> float median_ms(F launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int run = 0; run < 23; ++run) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (run >= 3) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main() {
  const int n = @N@;
  const size_t bytes = size_t(n) * n * sizeof(float);
  std::vector<float> ha(size_t(n) * n), hb(size_t(n) * n);
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = float(std::rand()) / RAND_MAX - 0.5f, hb[i] = float(std::rand()) / RAND_MAX - 0.5f;
  float *a, *b, *c, *ref;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMalloc(&ref, bytes));
  CHECK(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
  @DIMS@
  const float loom_ms = median_ms([&] { gemm<<<grid, block>>>(a, b, c); });
  CHECK(cudaGetLastError());
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1, zero = 0;
  // Row-major c = a b is column-major c^T = b^T a^T.
  const float cublas_ms = median_ms([&] { cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, ref, n); });
  std::vector<float> hc(size_t(n) * n), hr(size_t(n) * n);
  CHECK(cudaMemcpy(hc.data(), c, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hr.data(), ref, bytes, cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  for (size_t i = 0; i < hc.size(); ++i) worst = std::max(worst, std::fabs(double(hc[i]) - hr[i])), scale = std::max(scale, std::fabs(double(hr[i])));
  const double flops = 2.0 * n * n * n;
  std::printf("n=%d @TILE@ loom %.3f ms (%.1f TFLOP/s), cublas %.3f ms (%.1f TFLOP/s), ratio %.2f, largest difference %.2e of %.2e\n",
              n, loom_ms, flops / loom_ms / 1e9, cublas_ms, flops / cublas_ms / 1e9, cublas_ms / loom_ms, worst, scale);
  return worst <= 1e-3 * scale ? 0 : 1;
}
]]
local shown = string.format("lx,ly,ri,rj,kt[,vec]=%s", arg[3] or "default")
host = host:gsub("@DIMS@", dims):gsub("@N@", tostring(n)):gsub("@TILE@", shown)
local out = assert(io.open(dir .. "/gemm_profile.cu", "w"))
out:write(code, "\n", host)
out:close()
print(string.format("wrote %s/gemm_profile.cu (%s, %s)", dir, shown, dims))

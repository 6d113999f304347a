-- Each loom.recipes kernel beside its peer, in one run: the median time of the kernel alone, its rate, the peer's
-- time and the ratio (peer time / Loom time: 1.00 is as fast as the peer, more is faster), with the goal of
-- issue 15 where it sets one.
--
--   build/loom bench/recipes.lua [c|opencl] [--threads=N] [--reps=N] [--rounds=N] [--quick]
--
-- Peers: on the C executor hand-written loops (bench/peers/loops.c, gcc -O3 -march=native -fopenmp) and OpenBLAS
-- through numpy (bench/peers/numpy_peer.py, OPENBLAS_NUM_THREADS=N); on OpenCL PyTorch on the GPU
-- (bench/peers/torch_peer.py; cuBLAS with TF32 off). A peer that is not installed prints "skipped".
local lp = require("loom")
local recipes = require("loom.recipes")

local target, threads, reps, rounds, quick = "c", 2, 10, 3, false
for _, a in ipairs(arg) do
  if a == "c" or a == "opencl" then target = a
  elseif a:match("^%-%-threads=%d+$") then threads = tonumber(a:match("%d+"))
  elseif a:match("^%-%-reps=%d+$") then reps = tonumber(a:match("%d+"))
  elseif a:match("^%-%-rounds=%d+$") then rounds = tonumber(a:match("%d+"))
  elseif a == "--quick" then quick = true
  else error("unknown argument " .. a) end
end
local exec = target == "c" and lp.c.executor { threads = threads } or lp.cl.queue {}
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/peers/?.lua;" .. package.path
local peers = require("peers")

local function rand(shape) return lp.rand(shape, "float32", 1) end

-- Sizes: what the C executor handles in seconds on 2 cores, and what fills a large GPU.
local big = target == "opencl"
local N = {
  gemm = big and 4096 or 2048, matrix = big and 8192 or 4096, vector = big and (1 << 28) or (1 << 24),
  batch = big and (1 << 20) or (1 << 16),
}
if quick then N = { gemm = 512, matrix = 1024, vector = 1 << 20, batch = 1 << 12 } end

-- Streaming arrays: rows of OpenCL vectors of 4 on a GPU, plain on C (where vec axes are unrolled).
local V = big and 4 or 1
local VS = big and { N.vector // 4, 4 } or { N.vector }

-- Each case: the recipe's options and arguments, its work (flops or bytes moved) and its peer.
local cases = {
  { name = "gemm", label = N.gemm .. "^3", opts = { n = N.gemm, m = N.gemm, k = N.gemm }, args = function() return { a = rand { N.gemm, N.gemm }, b = rand { N.gemm, N.gemm } } end,
    flops = 2 * N.gemm ^ 3, peer = big and "torch" or "numpy", op = "gemm", size = N.gemm, goal = big and 0.80 or 0.70 },
  { name = "transpose", label = N.matrix .. "^2", opts = { n = N.matrix, m = N.matrix }, args = function() return { a = rand { N.matrix, N.matrix } } end,
    bytes = 8 * N.matrix ^ 2, peer = big and "torch" or "gcc", op = "transpose", size = N.matrix, goal = not big and 0.90 or nil },
  { name = "stencil5", label = N.matrix .. "^2", opts = { n = N.matrix, m = N.matrix }, args = function() return { a = rand { N.matrix, N.matrix } } end,
    bytes = 8 * N.matrix ^ 2, peer = big and "torch" or "gcc", op = "stencil5", size = N.matrix },
  { name = "copy", label = tostring(N.vector), opts = { n = N.vector // V, vec = V }, args = function() return { a = rand(VS) } end,
    bytes = 8 * N.vector, peer = big and "torch" or "gcc", op = "copy", size = N.vector, goal = big and 0.95 or nil },
  { name = "triad", label = tostring(N.vector), opts = { n = N.vector // V, vec = V },
    args = function() return { b = rand(VS), c = rand(VS), s = 3.0 } end,
    bytes = 12 * N.vector, peer = big and "torch" or "gcc", op = "triad", size = N.vector, goal = big and 0.95 or 0.90 },
  { name = "sum", label = tostring(N.vector), opts = { n = N.vector }, args = function() return { a = rand { N.vector } } end,
    bytes = 4 * N.vector, peer = big and "torch" or "gcc", op = "sum", size = N.vector },
  { name = "batched_gemm", label = N.batch .. " x 8^3", opts = { batch = N.batch }, args = function() return { a = rand { N.batch, 8, 8 }, b = rand { N.batch, 8, 8 } } end,
    flops = 2 * 512 * N.batch, peer = big and "torch" or "gcc", op = "batched_gemm", size = N.batch },
}

local function rate(case, seconds)
  if case.flops then return string.format("%8.1f GFLOP/s", case.flops / seconds / 1e9) end
  return string.format("%8.1f GB/s   ", case.bytes / seconds / 1e9)
end

print(string.format("device: %s; %s", exec.device, target == "c" and (threads .. " threads") or "OpenCL"))
print(string.format("%-13s %-16s %10s %17s  %-6s %10s %17s  %6s  %s", "recipe", "size", "loom ms", "loom rate", "peer",
  "peer ms", "peer rate", "ratio", "goal"))
for _, case in ipairs(cases) do
  local opts = { target = target }
  for k, v in pairs(case.opts) do opts[k] = v end
  local knl = recipes[case.name](opts)
  -- Loom and the peer alternately, the best median of each kept: on a shared machine other processes only ever
  -- slow a run down, and a round that ran beside them says nothing about the code.
  local args = case.args()
  local loom, peer, why = math.huge, math.huge, nil
  for _ = 1, rounds do
    loom = math.min(loom, (lp.time(knl, exec, args, { warmup = 2, runs = reps })))
    local p
    p, why = peers.seconds(case.peer, case.op, case.size, reps, threads)
    peer = p and math.min(peer, p) or nil
    if not p then break end
  end
  local goal = case.goal and string.format(">= %.2f %s", case.goal, peer and (peer / loom >= case.goal and "met" or "NOT met") or "") or ""
  if peer then
    print(string.format("%-13s %-16s %10.3f %s  %-6s %10.3f %s  %6.2f  %s", case.name, case.label, loom * 1e3, rate(case, loom),
      case.peer, peer * 1e3, rate(case, peer), peer / loom, goal))
  else
    print(string.format("%-13s %-16s %10.3f %s  %-6s %s", case.name, case.label, loom * 1e3, rate(case, loom), case.peer, why))
  end
  io.stdout:flush()
end
peers.cleanup()

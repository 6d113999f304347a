-- Runs the peers that bench/recipes.lua and bench/tune_gemm.lua compare Loom with: hand-written loops (loops.c,
-- compiled once with gcc -O3 -march=native -fopenmp), OpenBLAS through numpy, PyTorch on the GPU. Each prints
-- the median seconds of one call; a peer that is not installed exits with 77.
local M = {}

local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

local function run_command(cmd)
  local pipe = assert(io.popen(cmd .. " 2>&1"))
  local out = pipe:read("a")
  local ok, _, code = pipe:close()
  return ok, out, code
end

local loops_binary
local function loops()
  if not loops_binary then
    loops_binary = os.tmpname()
    local ok, out = run_command(string.format("gcc -O3 -march=native -fopenmp -o %s %sloops.c", loops_binary, here))
    assert(ok, "cannot compile the hand-written loops:\n" .. out)
  end
  return loops_binary
end

local commands = {
  gcc = function(op, size, reps, threads) return string.format("%s %s %d %d %d", loops(), op, size, reps, threads) end,
  numpy = function(op, size, reps, threads)
    return string.format("OPENBLAS_NUM_THREADS=%d OMP_NUM_THREADS=%d python3 %snumpy_peer.py %s %d %d", threads, threads,
      here, op, size, reps)
  end,
  torch = function(op, size, reps) return string.format("python3 %storch_peer.py %s %d %d", here, op, size, reps) end,
}

-- The seconds of one call of `op` of `size` by peer `kind` ("gcc", "numpy", "torch"), or nil and why not.
function M.seconds(kind, op, size, reps, threads)
  local ok, out, code = run_command(commands[kind](op, size, reps, threads))
  if code == 77 then return nil, "skipped (not installed)" end
  if not ok then return nil, "failed: " .. out:match("[^\n]*") end
  return tonumber(out:match("[%d.e-]+"))
end

-- Removes what the peers left behind (the compiled loops).
function M.cleanup()
  if loops_binary then os.remove(loops_binary) end
end

return M

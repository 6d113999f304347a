-- The tutorial's "Ordering" section on both executors: dependencies act within the shared inames, separate
-- loops complete before the next, the single-writer heuristic, and loop nesting by prioritize_loops.
local lp = require("loom")
local h = require("helpers")

local N = 9
local a = lp.rand({ N, N }, "float32", 7)

-- The plain-Lua run of the fused nest `for i, for j: out[j,i] = a[i,j]; out[i,j] = 2*out[i,j]`. Where it doubles
-- an element not yet written (whose content is undefined), a later transpose step overwrites it.
local function fused_reference()
  local out = {}
  for i = 0, N - 1 do
    for j = 0, N - 1 do
      out[j * N + i] = a:get(i, j)
      out[i * N + j] = 2 * (out[i * N + j] or 0)
    end
  end
  return function(i, j) return out[i * N + j] end
end

-- "WARNING: Incorrect." The dependency holds within i and j only, so the result is not 2*a^T; it is exactly
-- what the fused nest computes.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", [[
    out[j,i] = a[i,j] {id=transpose}
    out[i,j] = 2*out[i,j]  {dep=transpose}
    ]], { lp.GlobalArg("out", { shape = lp.auto, is_input = false }), "..." }, { name = "transpose_and_dbl" })
  knl = lp.prioritize_loops(knl, "i,j")
  local deps = knl.instructions[2].depends_on
  h.check_equal(#deps == 1 and deps[1], "transpose", "dep=transpose is recorded")
  local fused = fused_reference()
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, fused, name .. " fused transpose-and-double")
    local all_doubled = true
    h.each_index({ N, N }, function(i, j) all_doubled = all_doubled and out:get(i, j) == 2 * a:get(j, i) end)
    h.check(not all_doubled, "%s: the incorrect kernel happened to compute 2*a^T", name)
  end)
end

-- Separate ii, jj loops: all of the transpose happens first, and the result is 2*a^T.
do
  local knl = lp.make_kernel("{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }", [[
    out[j,i] = a[i,j] {id=transpose}
    out[ii,jj] = 2*out[ii,jj]  {dep=transpose}
    ]], { lp.GlobalArg("out", { shape = lp.auto, is_input = false }), "..." })
  knl = lp.prioritize_loops(knl, "i,j")
  knl = lp.prioritize_loops(knl, "ii,jj")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i, j) return 2 * a:get(j, i) end, name .. " transpose then double")
  end)
end

-- No dep=: tmp has one writer, so its readers depend on it, and tmp is complete before any ii iteration.
do
  local knl = lp.make_kernel("{ [i,ii]: 0<=i,ii<n }", {
    "tmp[i] = 2*a[i]",
    "out[ii] = tmp[n-1-ii] - tmp[ii]",
  })
  local v = h.array_from({ N }, "int32", function(i) return i * i end)
  h.on_each_executor(function(exec, name)
    local out, tmp = knl(exec, { a = v })
    h.check_array(tmp, function(i) return 2 * i * i end, name .. " single writer: tmp")
    h.check_array(out, function(i) return 2 * (N - 1 - i) ^ 2 - 2 * i * i end, name .. " single writer: out")
  end)
end

-- A private temporary carries a value between two instructions of one iteration.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "<> t = a[i] * a[i]",
    "out[i] = t + t",
  })
  local v = h.array_from({ N }, "int64", function(i) return i - 4 end)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = v }), function(i) return 2 * (i - 4) ^ 2 end, name .. " temporary")
  end)
end

-- Loop nesting: both orders fill with zeros; the array passed in is the one written.
do
  local base = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "a[i,j] = 0")
  for _, order in ipairs({ "i,j", "j,i" }) do
    local knl = lp.prioritize_loops(base, order)
    local code = lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))
    local outer = order:sub(1, 1)
    h.check(code:find("for (int " .. outer .. " = 0", 1, true) < code:find("for (int " .. order:sub(3, 3) .. " = 0",
      1, true), "prioritize_loops('%s') puts %s outside", order, outer)
    h.on_each_executor(function(exec, name)
      local target = lp.rand({ N, N }, "float32", 9)
      local out = knl(exec, { a = target })
      h.check_array(out, function() return 0 end, name .. " zero fill " .. order)
      h.check_array(target, function() return 0 end, name .. " zero fill in place " .. order)
    end)
  end
end

print("ordering: ok")

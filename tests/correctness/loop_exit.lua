-- A sequential loop whose every statement runs only while a flag (a private scalar that the loop sets) says so
-- is left as soon as the flag stops it, instead of running its remaining iterations for nothing: OKL's
-- `break`, and the same pattern written with loopy's predicates. Each kernel runs on every executor against
-- the same computation in Lua; where the rule does not hold (a statement without the predicate, a flag in
-- global memory, a flag the loop does not write) the loop keeps all its iterations.
local lp = require("loom")
local T = require("helpers")

-- The body of the loop over `iname` in `code`: from its `for` line to the end of the block or statement.
local function loop_text(code, iname)
  local start = code:find("for %(int " .. iname .. " = ")
  T.check(start ~= nil, "no loop over %s in:\n%s", iname, code)
  return code:sub(start)
end

local function first_line_after_loop(code, iname)
  return loop_text(code, iname):match("^[^\n]*\n([^\n]*\n[^\n]*\n[^\n]*)")
end

local n, m = 7, 9
-- Row r holds r zeros (skipped by `continue`), then r + 1 ones, then -1 (the break), then more ones.
local function value(r, c)
  if c < r then return 0 end
  if c == 2 * r + 1 then return -1 end
  return 1
end
local function reference(r)
  local found, total = -1, 0
  for c = 0, m - 1 do
    local v = value(r, c)
    if v ~= 0 then
      total = total + v
      if v < 0 then found = c break end
    end
  end
  return found, total
end

-- OKL: `continue` and `break` in one loop; the loop is left once the break's flag is set, and the reset of
-- continue's flag is under it too.
do
  local knl = lp.parse_okl([[
    @kernel void firstneg(const int n, const int m, const float *a, int *idx, float *s) {
      for (int r = 0; r < n; ++r; @tile(4, @outer, @inner)) {
        int found = -1;
        float total = 0;
        for (int c = 0; c < m; ++c) {
          if (a[r*m + c] == 0) continue;
          total += a[r*m + c];
          if (a[r*m + c] < 0) { found = c; break; }
        }
        idx[r] = found;
        s[r] = total;
      }
    }]]).firstneg
  local code = lp.generate_code(knl)
  T.check_contains(first_line_after_loop(code, "c"), "if (!(broken == 0))\n        break;")
  T.on_each_executor(function(exec, name)
    local a = T.array_from({ n * m }, "float32", function(k) return value(k // m, k % m) end)
    local idx, s = lp.zeros({ n }, "int32"), lp.zeros({ n }, "float32")
    knl(exec, { n = n, m = m, a = a, idx = idx, s = s })
    T.check_array(idx, function(r) return (reference(r)) end, "OKL break's index on " .. name)
    T.check_array(s, function(r) return select(2, reference(r)) end, "OKL break's sum on " .. name)
  end)
end

-- loopy's predicates: the same search with a flag, `done`, written inside the loop and read by every statement
-- of it. `extra` is one more statement in the loop, and `flag` where the flag lives.
local function search_kernel(extra, flag_decl)
  return lp.make_kernel("{[r,c]: 0<=r<n and 0<=c<m}", string.format([[
    for r
      %s
      <float32> total = 0 {id=t0}
      <int32> found = -1 {id=f0}
      for c
        total = total + a[r,c] {id=add, dep=d0:t0:f0, if=done == 0}
        found = c {id=set, dep=add, if=done == 0:a[r,c] < 0}
        done = 1 {id=stop, dep=set, if=done == 0:a[r,c] < 0}
        %s
      end
      idx[r] = found {dep=stop}
      s[r] = total {dep=stop}
    end]], flag_decl, extra),
    { lp.GlobalArg("a", "float32", { shape = "n, m" }), lp.GlobalArg("idx", "int32", { shape = "n" }),
      lp.GlobalArg("s", "float32", { shape = "n" }), lp.GlobalArg("g", "int32", { shape = "n" }), "..." },
    { name = "search" })
end

local function check_search(knl, what, count)
  T.on_each_executor(function(exec, name)
    local a = T.array_from({ n, m }, "float32", value)
    local idx, s, g = lp.zeros({ n }, "int32"), lp.zeros({ n }, "float32"), lp.zeros({ n }, "int32")
    knl(exec, { n = n, m = m, a = a, idx = idx, s = s, g = g })
    -- Without `continue` the zeros are summed too: the sum is up to and with the first negative.
    local function want(r)
      local total = 0
      for c = 0, m - 1 do
        total = total + value(r, c)
        if value(r, c) < 0 then return c, total end
      end
      return -1, total
    end
    T.check_array(idx, function(r) return (want(r)) end, what .. ": index on " .. name)
    T.check_array(s, function(r) return select(2, want(r)) end, what .. ": sum on " .. name)
    if count then T.check_array(g, function() return m end, what .. ": statements run without the flag on " .. name) end
  end)
end

do
  local knl = search_kernel("", "<int32> done = 0 {id=d0}")
  T.check_contains(first_line_after_loop(lp.generate_code(knl), "c"), "if (!(done == 0))")
  check_search(knl, "a private flag")
end

-- A statement of the loop that runs whatever the flag says: every iteration runs.
do
  local knl = search_kernel("g[r] = g[r] + 1 {id=count, dep=g0}", "<int32> done = 0 {id=d0}\n      g[r] = 0 {id=g0}")
  local code = lp.generate_code(knl)
  T.check(not T.contains(loop_text(code, "c"), "break"), "a loop with an unpredicated statement was left early:\n%s", code)
  check_search(knl, "an unpredicated statement", true)
end

-- The flag in global memory (another work-item may write it): no exit.
do
  local knl = lp.make_kernel("{[r,c]: 0<=r<n and 0<=c<m}", [[
    for r
      flags[r] = 0 {id=d0}
      for c
        out[r,c] = 1 {id=w, dep=d0, if=flags[r] == 0}
        flags[r] = 1 {id=stop, dep=w, if=flags[r] == 0:c >= r}
      end
    end]], { lp.GlobalArg("out", "int32", { shape = "n, m" }), lp.GlobalArg("flags", "int32", { shape = "n" }), "..." })
  local code = lp.generate_code(knl)
  T.check(not T.contains(code, "break"), "a loop left on a flag in global memory:\n%s", code)
end

-- A predicate the loop does not write (it holds or fails for the whole loop): no exit is added for it.
do
  local knl = lp.make_kernel("{[r,c]: 0<=r<n and 0<=c<m}", [[
    for r
      <int32> on = r % 2 {id=o}
      for c
        out[r,c] = c {id=w, dep=o, if=on == 0}
      end
    end]], { lp.GlobalArg("out", "int32", { shape = "n, m" }), "..." })
  local code = lp.generate_code(knl)
  T.check(not T.contains(code, "break"), "a loop left on a predicate it does not write:\n%s", code)
end

print("loop_exit: ok")

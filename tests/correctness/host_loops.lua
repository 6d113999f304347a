-- Sequential loops around global barriers run on the host: the host program launches the device kernels of
-- the loop's body once per iteration, with the loop's iname as an argument. Every kernel runs on OpenCL and
-- on the C executor and is compared with a plain-Lua reference.
local lp = require("loom")
local h = require("helpers")

-- Three steps, each reading a neighbour (from another work-group at the group's edge) before anyone writes
-- it: the private t is saved between the two device kernels of every step.
do
  local knl = lp.make_kernel("{ [k, i]: 0<=k<3 and 0<=i<n }", [[
    for k, i
      <> t = u[(i + 1) % n]  {id=get, dep=*}
      ... gbarrier  {id=wait, dep=get}
      u[i] = t + 1  {id=put, dep=wait}
    end
    ]], { lp.GlobalArg("u", "float32", { shape = "n" }), "..." })
  knl = lp.split_iname(knl, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
  h.expect_error("MissingDefinitionError", "'t'", lp.generate_code, knl)
  knl = lp.save_and_reload_temporaries(knl)
  local _, info = lp.generate_code(knl)
  h.check_equal(#info.kernels, 2, "device kernels")
  local n = 1000
  local u0 = lp.arange(n, "float32")
  h.on_each_executor(function(exec, name)
    local u = u0:copy()
    knl(exec, { u = u })
    h.check_array(u, function(i) return u0:get((i + 3) % n) + 3 end, "u on " .. name)
  end)
end

-- Nested host loops, the inner one's bounds depending on the outer iname: every (k, j <= k) adds 10k + j.
do
  local knl = lp.make_kernel("{ [k, j, i]: 0<=k<4 and 0<=j<=k and 0<=i<n }", [[
    for k, j, i
      ... gbarrier
      b[i] = b[i] + 10*k + j
    end
    ]], { lp.GlobalArg("b", "int32", { shape = "n" }), "..." }, { seq_dependencies = true })
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  local add = 0
  for k = 0, 3 do for j = 0, k do add = add + 10 * k + j end end
  h.on_each_executor(function(exec, name)
    local b = lp.arange(37, "int32")
    knl(exec, { b = b })
    h.check_array(b, function(i) return i + add end, "b on " .. name)
  end)

  -- The host program: a C function with the loops on the C target, the launches with their grids on OpenCL.
  local c_host = lp.generate_code_v2(lp.set_options(knl, { target = "c" })):host_code()
  h.check_contains(c_host, "void _lpy_host_loopy_kernel(int *__restrict__ b, int const n)")
  h.check_contains(c_host, "for (int k = 0; k <= 3; ++k)")
  h.check_contains(c_host, "for (int j = 0; j <= k; ++j)")
  h.check_contains(c_host, "loopy_kernel(b, n, k, j);")
  local cl_host = lp.generate_code_v2(knl):host_code()
  h.check_contains(cl_host, "loopy_kernel(b, n, k, j);  /* groups ((15 + n) / 16), work-items (16) */")
end

-- Device kernels before, inside and after a host loop, in the order the linearization runs them.
do
  local knl = lp.make_kernel("{ [k, i]: 0<=k<n and 0<=i<m }", [[
    c[i] = 1  {id=init}
    for k
      ... gbarrier  {id=top, dep=init}
      c[i] = 2*c[i] + a[k]  {id=step, dep=top}
    end
    ... gbarrier  {id=after, dep=step}
    out[i] = c[m - 1 - i]  {dep=after}
    ]], { lp.GlobalArg("a", "float64", { shape = "n" }), lp.GlobalArg("c, out", "float64", { shape = "m" }), "..." })
  knl = lp.split_iname(knl, "i", 4, { outer_tag = "g.0", inner_tag = "l.0" })
  local _, info = lp.generate_code(knl)
  h.check_equal(table.concat(info.kernels, " "), "loopy_kernel loopy_kernel_0 loopy_kernel_1", "device kernels")
  local a = lp.rand({ 5 }, "float64", 3)
  local want = 1
  for k = 0, 4 do want = 2 * want + a:get(k) end
  h.on_each_executor(function(exec, name)
    local c, out = knl(exec, { a = a, m = 10 })
    h.check_array(out, function() return want end, "out on " .. name)
  end)
end

-- The `sep` and `vec` array axis tags, lp.tag_array_axes and the `vec` iname tag. Every kernel runs on OpenCL
-- (vector types, `.sN` entries, whole-vector operations) and on the C executor (the same layout addressed as
-- scalars), and both are compared with index arithmetic in plain Lua; the OpenCL text is checked where the
-- vector form is the point.
local lp = require("loom")
local h = require("helpers")

local SIZES = { 0, 1, 5 }

local function check_code(knl, pieces, absent)
  local code = lp.generate_code(knl)
  for _, p in ipairs(pieces) do h.check(h.contains(code, p), "code lacks '%s':\n%s", p, code) end
  for _, p in ipairs(absent or {}) do h.check(not h.contains(code, p), "code has '%s':\n%s", p, code) end
  return code
end

local function with_target(knl, target) return lp.set_options(knl, { target = target }) end

-- Whole-vector arithmetic: an instruction over a `vec` iname that indexes only `vec` axes by it runs once on
-- float4 values; the C target computes the same entries one by one.
do
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", "out[i,k] = 2*a[i,k] + b[i,k] - 1",
    { lp.GlobalArg("a,b,out", "float32", { shape = "n, 4", dim_tags = "c,vec" }), "..." })
  knl = lp.tag_inames(knl, { k = "vec" })
  check_code(knl, { "__global float4 const *__restrict__ a", "__global float4 *__restrict__ out",
    "out[i] = 2.0f * a[i] + b[i] + -1.0f;" }, { ".s" })
  check_code(with_target(knl, "c"), { "out[4 * i + 3] = 2.0f * a[4 * i + 3] + b[4 * i + 3] + -1.0f;" }, { "float4" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a, b = lp.rand({ n, 4 }, "float32", 1), lp.rand({ n, 4 }, "float32", 2)
      local out = knl(exec, { a = a, b = b })
      h.check_array(out, function(i, k) return 2 * a:get(i, k) + b:get(i, k) - 1 end, name .. " vec4", { rtol = 1e-6 })
    end
  end)
end

-- Constant subscripts on a vec axis are vector entries `.sN`; float3 takes the room of 4 floats in memory,
-- so the (n, 3) host arrays passed as they are go through a padded copy.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    out[i, 0] = a[i, 1] * a[i, 2]
    out[i, 1] = a[i, 0] + 3
    out[i, 2] = a[i, 2]
    ]], { lp.GlobalArg("a,out", "float32", { shape = "n, 3", dim_tags = "c,vec" }), "..." })
  check_code(knl, { "__global float3 const *__restrict__ a", "out[i].s0 = a[i].s1 * a[i].s2;",
    "out[i].s1 = a[i].s0 + 3.0f;" })
  check_code(with_target(knl, "c"), { "out[4 * i] = a[4 * i + 1] * a[4 * i + 2];" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a = lp.rand({ n, 3 }, "float32", 3)
      local want = function(i, k)
        if k == 0 then return a:get(i, 1) * a:get(i, 2) end
        if k == 1 then return a:get(i, 0) + 3 end
        return a:get(i, 2)
      end
      h.check_array(knl(exec, { a = a }), want, name .. " float3 entries", { rtol = 1e-6 })
      local given = lp.zeros({ n, 3 }, "float32")
      knl(exec, { a = a, out = given })
      h.check_array(given, want, name .. " float3 entries in place", { rtol = 1e-6 })
    end
  end)
end

-- Instructions that cannot take vectors fall back to unrolling, instruction by instruction, in loopy's order:
-- every lane of the first instruction before the second reads them.
do
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", [[
    t[i,k] = 3*a[i,k] {id=scale}
    out[i,k] = sqrt(t[i,k]) + k + t[i,3-k] {id=mix, dep=scale}
    ]], { lp.GlobalArg("a,t,out", "float32", { shape = "n, 4", dim_tags = "c,vec" }), "..." })
  knl = lp.tag_inames(knl, { k = "vec" })
  check_code(knl, { "t[i] = 3.0f * a[i];", "out[i].s0 = sqrt(t[i].s0) + 0.0f + t[i].s3;",
    "out[i].s3 = sqrt(t[i].s3) + 3.0f + t[i].s0;" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a = lp.rand({ n, 4 }, "float32", 4)
      local t, out = knl(exec, { a = a })
      h.check_array(t, function(i, k) return 3 * a:get(i, k) end, name .. " scaled", { rtol = 1e-6 })
      h.check_array(out, function(i, k)
        return math.sqrt(3 * a:get(i, k)) + k + 3 * a:get(i, 3 - k)
      end, name .. " unrolled fallback", { rtol = 1e-5 })
    end
  end)
end

-- A vec iname that covers only part of the vector (k < 3 of 4 entries) cannot run on whole vectors either.
do
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<3 }", "out[i,k] = a[i,k] + 1",
    { lp.GlobalArg("a,out", "float32", { shape = "n, 4", dim_tags = "c,vec" }), "..." })
  knl = lp.tag_inames(knl, { k = "vec" })
  check_code(knl, { "out[i].s0 = a[i].s0 + 1.0f;", "out[i].s2 = a[i].s2 + 1.0f;" }, { ".s3" })
  h.on_each_executor(function(exec, name)
    local a = lp.rand({ 5, 4 }, "float32", 5)
    local out = knl(exec, { a = a, out = lp.zeros({ 5, 4 }, "float32") })
    h.check_array(out, function(i, k) return k < 3 and a:get(i, k) + 1 or 0 end, name .. " partial lanes", { rtol = 1e-6 })
  end)
end

-- Other types and lengths: double2 and int8 (8 ints), vec as the first axis, and fixed strides with vec
-- (padding between the vectors).
do
  local d2 = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<2 }", "out[k,i] = a[k,i] * a[k,i]",
    { lp.GlobalArg("a,out", "float64", { shape = "2, n", dim_tags = "vec,c" }), "..." })
  d2 = lp.tag_inames(d2, { k = "vec" })
  check_code(d2, { "__global double2 const *__restrict__ a", "out[i] = a[i] * a[i];" })
  local i8 = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<8 }", "out[i,k] = a[i,k] * 3 + b[i,k]",
    { lp.GlobalArg("a,b,out", "int32", { shape = "n, 8", dim_tags = "stride:16,vec" }), "..." })
  i8 = lp.tag_inames(i8, { k = "vec" })
  check_code(i8, { "__global int8 const *__restrict__ a", "out[2 * i] = 3 * a[2 * i] + b[2 * i];" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a = lp.rand({ n, 2 }, "float64", 6):transpose()  -- the layout `vec,c` declares: Fortran order
      h.check_array(d2(exec, { a = a }), function(k, i) return a:get(k, i) ^ 2 end, name .. " double2", { rtol = 1e-12 })
      local x = h.array_from({ n, 8 }, "int32", function(i, k) return 10 * i + k end)
      local y = h.array_from({ n, 8 }, "int32", function(i, k) return i - k end)
      h.check_array(i8(exec, { a = x, b = y }), function(i, k) return 3 * (10 * i + k) + i - k end, name .. " int8")
    end
  end)
end

-- A private temporary of vector type: one vector is a plain variable, as loopy declares it.
do
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", [[
    t[k] = a[i,k] * a[i,k] {id=sq}
    out[i,k] = t[k] + a[i,k] {dep=sq}
    ]], { lp.GlobalArg("a,out", "float32", { shape = "n, 4", dim_tags = "c,vec" }),
      lp.TemporaryVariable("t", "float32", { shape = "4", dim_tags = "vec" }), "..." })
  knl = lp.tag_inames(knl, { k = "vec" })
  check_code(knl, { "float4 t;", "t = a[i] * a[i];", "out[i] = t + a[i];" })
  h.on_each_executor(function(exec, name)
    local a = lp.rand({ 5, 4 }, "float32", 7)
    h.check_array(knl(exec, { a = a }), function(i, k) return a:get(i, k) ^ 2 + a:get(i, k) end, name .. " vec temporary",
      { rtol = 1e-6 })
  end)
end

-- A reduction inside a vec loop: its accumulator gets a vec axis (loopy's realize_ilp), so the whole
-- reduction runs on vectors; a vec iname over arrays without vec axes, and under a parallel axis.
do
  local knl = lp.make_kernel("{ [i,k,j]: 0<=i<n and 0<=k<4 and 0<=j<m }", "out[i,k] = sum(j, a[i,j,k])",
    { lp.GlobalArg("a", "float32", { shape = "n, m, 4", dim_tags = "c,c,vec" }),
      lp.GlobalArg("out", "float32", { shape = "n, 4", dim_tags = "c,vec" }), "..." })
  knl = lp.tag_inames(knl, { k = "vec" })
  check_code(knl, { "float4 acc_j;", "acc_j = acc_j + a[m * i + j];", "out[i] = acc_j;" })
  local flat = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", "out[4*i + k] = a[4*i + k] * 2",
    { lp.GlobalArg("a,out", "float32", { shape = "4*n" }), "..." })
  flat = lp.tag_inames(flat, { k = "vec" })
  check_code(flat, { "out[3 + 4 * i] = a[3 + 4 * i] * 2.0f;" }, { "float4" })
  local par = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", "out[i,k] = a[i,k] * 2",
    { lp.GlobalArg("a,out", "float32", { shape = "n, 4", dim_tags = "c,vec" }), "..." })
  par = lp.tag_inames(lp.split_iname(par, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" }), { k = "vec" })
  check_code(par, { "out[16 * gid(0) + lid(0)] = a[16 * gid(0) + lid(0)] * 2.0f;" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs({ 0, 1, 37 }) do
      local m = 5
      local a = lp.rand({ n, m, 4 }, "float32", 11)
      h.check_array(knl(exec, { a = a }), function(i, k)
        local s = 0
        for j = 0, m - 1 do s = s + a:get(i, j, k) end
        return s
      end, name .. " vec reduction", { rtol = 1e-5 })
      local b = lp.rand({ 4 * n }, "float32", 12)
      h.check_array(flat(exec, { a = b }), function(i) return 2 * b:get(i) end, name .. " vec without vec axes")
      local c = lp.rand({ n, 4 }, "float32", 13)
      h.check_array(par(exec, { a = c }), function(i, k) return 2 * c:get(i, k) end, name .. " vec under l.0")
    end
  end)
end

-- lp.privatize_temporaries_with_inames, what vec loops apply to their temporaries, on its own: the
-- temporary gets an axis along the iname and gives what the untransformed kernel gives.
do
  local base = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<3 }", [[
    <> t = a[i,j] * 2 {id=w}
    <> u = t + 1 {id=u, dep=w}
    out[i,j] = t * u {dep=u}
    ]], { lp.GlobalArg("a,out", "float32", { shape = "n, 3" }), "..." })
  local both = lp.privatize_temporaries_with_inames(base, "j")
  local only_t = base:privatize_temporaries_with_inames({ "j" }, "t")
  h.check(h.contains(tostring(both), "u: type: <auto/runtime>, shape: (3)"), "listing:\n%s", tostring(both))
  h.check(h.contains(tostring(only_t), "t: type: <auto/runtime>, shape: (3)") and
    not h.contains(tostring(only_t), "u: type: <auto/runtime>, shape: (3)"), "listing:\n%s", tostring(only_t))
  check_code(both, { "float t[3];", "t[j] = a[3 * i + j] * 2.0f;", "out[3 * i + j] = t[j] * u[j];" })
  h.on_each_executor(function(exec, name)
    local a = lp.rand({ 6, 3 }, "float32", 14)
    local want = base(exec, { a = a })
    h.check_array(both(exec, { a = a }), want, name .. " privatized")
    h.check_array(only_t(exec, { a = a }), want, name .. " privatized t only")
  end)
end

-- lp.tag_array_axes re-lays out arrays of an existing kernel (string, list and method forms): the results
-- are the untransformed kernel's.
do
  local base = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", "out[i,k] = a[i,k] * (k + 1)",
    { lp.GlobalArg("a,out", "float32", { shape = "n, 4" }), "..." })
  local tagged = lp.tag_inames(lp.tag_array_axes(base, "a,out", "c,vec"), { k = "unr" })
  local listed = base:tag_array_axes({ "a", "out" }, { "c", "vec" }):tag_inames({ k = "vec" })
  local fortran = lp.tag_array_axes(base, "a", "f,f")
  h.check(h.contains(tostring(tagged), "dim_tags: (N0:stride:4, vec)"), "listing:\n%s", tostring(tagged))
  h.check(h.contains(tostring(fortran), "a: type: np:dtype('float32'), shape: (n, 4), dim_tags: (N0:stride:1, N1:stride:n)"),
    "listing:\n%s", tostring(fortran))
  h.check(not h.contains(tostring(base), "vec"), "the original kernel changed:\n%s", tostring(base))
  check_code(listed, { "out[i].s0 = a[i].s0 * 1;", "out[i].s3 = a[i].s3 * 4;" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a = lp.rand({ 4, n }, "float32", 8):transpose()  -- Fortran order: what `fortran` declares
      local want = base(exec, { a = a })
      for what, knl in pairs({ tagged = tagged, listed = listed, fortran = fortran }) do
        h.check_array(knl(exec, { a = a }), want, name .. " tag_array_axes " .. what)
      end
    end
  end)
end

-- sep: each index along the axis is a separate array argument (loopy's a_s0, a_s1, ...). Constant
-- subscripts and unrolled inames pick one; the caller passes and gets back one array with the full shape.
do
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<3 }", [[
    out[k,i] = 2*a[k,i] {id=w}
    b[i,1] = a[0,i] - a[2,i] {id=z}
    b[i,0] = a[1,i]
    ]], { lp.GlobalArg("a,out", "float32", { shape = "3, n", dim_tags = "sep,c" }),
      lp.GlobalArg("b", "float32", { shape = "n, 2", dim_tags = "c,sep" }), "..." })
  knl = lp.tag_inames(knl, { k = "unr" })
  check_code(knl, { "__global float const *__restrict__ a_s0, __global float const *__restrict__ a_s1, " ..
    "__global float const *__restrict__ a_s2, __global float *__restrict__ out_s0",
    "__global float *__restrict__ b_s0, __global float *__restrict__ b_s1, int const n",
    "b_s1[i] = a_s0[i] + -1.0f * a_s2[i];", "out_s2[i] = 2.0f * a_s2[i];" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a = lp.rand({ 3, n }, "float32", 9)
      local out, b = knl(exec, { a = a })
      h.check_array(out, function(k, i) return 2 * a:get(k, i) end, name .. " sep out", { shape = { 3, n } })
      h.check_array(b, function(i, j)
        if j == 0 then return a:get(1, i) end
        return a:get(0, i) - a:get(2, i)
      end, name .. " sep b", { rtol = 1e-6, shape = { n, 2 } })
      -- A passed output is written in place; its elements the kernel does not write keep their values.
      local given = lp.zeros({ 3, n }, "float32")
      given:fill(7)
      local again = knl(exec, { a = a, out = given })
      h.check_array(given, out, name .. " sep out in place")
      h.check_array(again, out, name .. " sep out returned")
    end
  end)
end

-- Two sep axes (a_s1_0 ...), a sep axis in the middle, and sep together with vec.
do
  local knl = lp.make_kernel("{ [i,j,l,k]: 0<=i<n and 0<=j<2 and 0<=l<3 and 0<=k<4 }",
    "out[j,i,l,k] = a[j,i,l,k] * (j + 1) + l",
    { lp.GlobalArg("a,out", "float32", { shape = "2, n, 3, 4", dim_tags = "sep,c,sep,vec" }), "..." })
  knl = lp.tag_inames(knl, { j = "unr", l = "unr", k = "vec" })
  check_code(knl, { "__global float4 const *__restrict__ a_s0_0", "__global float4 *__restrict__ out_s1_2",
    "out_s1_2[i] = a_s1_2[i] * 2 + 2.0f;" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a = lp.rand({ 2, n, 3, 4 }, "float32", 10)
      h.check_array(knl(exec, { a = a }), function(j, i, l, k) return a:get(j, i, l, k) * (j + 1) + l end,
        name .. " sep and vec", { rtol = 1e-6 })
    end
  end)
end

-- As in loopy, a sep argument may also be given as its separate arrays: a list (nested, one level per sep
-- axis) of arrays without the sep axes. Written ones are written in place and returned as such a list.
do
  local knl = lp.make_kernel("{ [i,j,l]: 0<=i<n and 0<=j<2 and 0<=l<3 }", "out[j,l,i] = a[j,i,l] + 10*j + l",
    { lp.GlobalArg("a", "float32", { shape = "2, n, 3", dim_tags = "sep,c,sep" }),
      lp.GlobalArg("out", "float32", { shape = "2, 3, n", dim_tags = "sep,sep,c" }), "..." })
  knl = lp.tag_inames(knl, { j = "unr", l = "unr" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local a, out = {}, {}
      for j = 1, 2 do
        a[j], out[j] = {}, {}
        for l = 1, 3 do
          a[j][l] = lp.rand({ n }, "float32", 10 * j + l)
          out[j][l] = lp.zeros({ n }, "float32")
        end
      end
      local got = knl(exec, { a = a, out = out })
      for j = 0, 1 do
        for l = 0, 2 do
          local want = function(i) return a[j + 1][l + 1]:get(i) + 10 * j + l end
          h.check_array(out[j + 1][l + 1], want, name .. " sep list in place", { rtol = 1e-6 })
          h.check_array(got[j + 1][l + 1], want, name .. " sep list returned", { rtol = 1e-6 })
        end
      end
      -- An output not passed is allocated with the full shape.
      local full = knl(exec, { a = a })
      h.check_array(full, function(j, l, i) return a[j + 1][l + 1]:get(i) + 10 * j + l end, name .. " sep allocated",
        { rtol = 1e-6, shape = { 2, 3, n } })
    end
  end)
end

-- Where vec meets ILP and slabs: realize_ilp privatizes a temporary over the ILP and the vec iname at once
-- (a `c` axis and a `vec` axis: an array of float4 on OpenCL), a slab split of the loop around a vec loop
-- keeps its vector statements in each slab, and a reduction whose loop is split with slabs inside a vec
-- loop runs on vectors in both slabs.
do
  local base = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", [[
    <> t = 2*a[i,k] {id=w}
    out[i,k] = t + a[i,k] {dep=w}
    ]], { lp.GlobalArg("a,out", "float32", { shape = "n, 4", dim_tags = "c,vec" }), "..." })
  base = lp.tag_inames(base, { k = "vec" })
  local ilp = lp.split_iname(base, "i", 2, { inner_tag = "ilp" })
  check_code(ilp, { "float4 t[2];", "t[1] = 2.0f * a[1 + 2 * i_outer];", "out[1 + 2 * i_outer] = t[1] + a[1 + 2 * i_outer];" })
  -- On C the vec lanes are written out and the ILP loop stays a loop, for gcc to unroll.
  check_code(with_target(ilp, "c"), { "float t[2 * 4];", "t[4 * i_inner + 3] = 2.0f * a[8 * i_outer + 4 * i_inner + 3];" })
  local slab = lp.split_iname(base, "i", 4, { slabs = { 0, 1 } })
  check_code(slab, { "/* bulk slab for 'i_outer' */", "/* final slab for 'i_outer' */", "float4 t;",
    "t = 2.0f * a[4 * i_outer + i_inner];" })
  local slab_ilp = lp.split_iname(base, "i", 4, { slabs = { 1, 1 }, inner_tag = "ilp" })
  check_code(slab_ilp, { "/* bulk slab for 'i_outer' */", "float4 t[4];", "t[3] = 2.0f * a[3 + 4 * i_outer];" })
  local red = lp.make_kernel("{ [i,k,j]: 0<=i<n and 0<=k<4 and 0<=j<m }", "out[i,k] = sum(j, a[i,j,k])",
    { lp.GlobalArg("a", "float32", { shape = "n, m, 4", dim_tags = "c,c,vec" }),
      lp.GlobalArg("out", "float32", { shape = "n, 4", dim_tags = "c,vec" }), "..." })
  red = lp.split_iname(lp.tag_inames(red, { k = "vec" }), "j", 2, { slabs = { 0, 1 } })
  check_code(red, { "float4 acc_j_outer_j_inner;", "/* final slab for 'j_outer' */",
    "acc_j_outer_j_inner = acc_j_outer_j_inner + a[" })
  h.on_each_executor(function(exec, name)
    for _, n in ipairs({ 0, 1, 5, 8 }) do
      local a = lp.rand({ n, 4 }, "float32", 21)
      local want = function(i, k) return 3 * a:get(i, k) end
      for what, knl in pairs({ ilp = ilp, slab = slab, ["slab+ilp"] = slab_ilp }) do
        h.check_array(knl(exec, { a = a }), want, name .. " vec with " .. what, { rtol = 1e-6 })
      end
      local m = 5
      local b = lp.rand({ n, m, 4 }, "float32", 22)
      h.check_array(red(exec, { a = b }), function(i, k)
        local s = 0
        for j = 0, m - 1 do s = s + b:get(i, j, k) end
        return s
      end, name .. " vec reduction with slabs", { rtol = 1e-5 })
    end
  end)
end

-- An atomic update in a vec loop is not vectorizable: its lanes are unrolled, each an atomic update of the
-- (volatile) scalar array, entry by entry of the float4.
do
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", "out[0] = out[0] + a[i,k] {atomic}",
    { lp.GlobalArg("a", "float32", { shape = "n, 4", dim_tags = "c,vec" }),
      lp.GlobalArg("out", "float32", { shape = "1", for_atomic = true }), "..." },
    { silenced_warnings = { "write_race(insn)" } })  -- loopy warns of atomic updates too
  knl = lp.tag_inames(lp.fix_parameters(knl, { n = 8 }), { k = "vec", i = "l.0" })
  check_code(knl, { "__global volatile float *__restrict__ out", "loopy_new_val = loopy_old_val + a[lid(0)].s3;" })
  h.on_each_executor(function(exec, name)
    local a = lp.rand({ 8, 4 }, "float32", 23)
    local sum = 0
    for i = 0, 7 do for k = 0, 3 do sum = sum + a:get(i, k) end end
    h.check_array(knl(exec, { a = a, out = lp.zeros({ 1 }, "float32") }), function() return sum end,
      name .. " atomic update in a vec loop", { rtol = 1e-5 })
  end)
end

-- A vec iname is left and entered again around a loop that instructions inside it wait for (loopy's
-- test_vec_inames_can_reenter, with data): t0 before the loop j, t1 written in j over a duplicate of i,
-- t2 and out after it, each in its own vec section.
do
  local knl = lp.make_kernel("{ [i, j]: 0<=i<4 and 0<=j<3 }", [[
    for i
      <> t0[i] = a[i]
      for j
        <> t1[i] = j*a[i] + t0[i]
      end
      <> t2[i] = t1[i] - 1
      out[i] = t0[i] + t2[i]
    end
    ]], { lp.GlobalArg("a, out", "float32", { shape = "4" }) }, { seq_dependencies = true })
  knl = lp.tag_inames(knl, "i:vec")
  knl = lp.tag_array_axes(knl, "t0,t1,t2", "vec")
  knl = lp.duplicate_inames(knl, "i", { within = "writes:t1", tags = { i = "vec" } })
  local a = lp.array({ 1, 2, 3, 4 }, "float32")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i) return 4 * a:get(i) - 1 end, name .. " vec re-entered")
  end)
end

-- Array layouts and temporaries on both executors: every dim-tag form, orders, strides and offsets, checked
-- against index arithmetic written out by hand (the flat index the generated code computes, and the memory
-- of host arrays the kernel reads and writes in place), plus constant arguments, several names in one
-- declaration, private and local array temporaries, and initialized read-only tables.
local lp = require("loom")
local h = require("helpers")

local N, M = 3, 5

-- x rounded to the nearest float32.
local function f32(x) return (string.unpack("f", string.pack("f", x))) end

-- The flat index the generated OpenCL code computes for the first `name[...]` of the kernel body, as a Lua
-- function of `vars` (C's integer + and * read the same in Lua).
local function generated_index(knl, name, vars)
  local code = lp.generate_code(knl)
  local body = code:match("%b{}", code:find("loopy_kernel%("))
  local at = body:find("[^%w_]" .. name .. "%[")
  h.check(at ~= nil, "no %s[...] in the generated code:\n%s", name, code)
  local expr = body:match("%b[]", at + 1):sub(2, -2)
  return assert(load("local " .. table.concat(vars, ", ") .. " = ...; return " .. expr)), expr
end

local function copy(t)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  return out
end

-- Each layout of a (n, m, 4) array, with the flat index of element (i, j, k) written out by hand and the
-- order of host arrays that have it (nil: none has; the executor copies to and from that layout).
local LAYOUTS = {
  { what = "default (C)", opts = {}, host = "C", index = function(i, j, k) return 4 * M * i + 4 * j + k end },
  { what = "order C", opts = { order = "C" }, host = "C", index = function(i, j, k) return 4 * M * i + 4 * j + k end },
  { what = "order F", opts = { order = "F" }, host = "F", index = function(i, j, k) return i + N * j + N * M * k end },
  { what = "c,c,c", opts = { dim_tags = "c,c,c" }, host = "C",
    index = function(i, j, k) return 4 * M * i + 4 * j + k end },
  { what = "f,f,f", opts = { dim_tags = "f,f,f" }, host = "F",
    index = function(i, j, k) return i + N * j + N * M * k end },
  { what = "N1,N0,N2", opts = { dim_tags = "N1,N0,N2" }, index = function(i, j, k) return M * i + j + M * N * k end },
  { what = "N0,N2,N1", opts = { dim_tags = "N0,N2,N1" }, index = function(i, j, k) return i + 4 * N * j + N * k end },
  -- Left to right: c nests its axis inside those before it, f outside them.
  { what = "c,f,c", opts = { dim_tags = "c,f,c" }, index = function(i, j, k) return 4 * i + 4 * N * j + k end },
  { what = "N3?,N2,N1,N0", opts = { dim_tags = "N3?,N2,N1,N0" }, host = "C",
    index = function(i, j, k) return 4 * M * i + 4 * j + k end },
  { what = "tags as a list", opts = { dim_tags = { "N0", "N1", "N2" } }, host = "F",
    index = function(i, j, k) return i + N * j + N * M * k end },
  { what = "stride: tags (padded)", opts = { dim_tags = "stride:8*m, stride:8, stride:1" },
    index = function(i, j, k) return 8 * M * i + 8 * j + k end },
  { what = "strides list", opts = { strides = { "8*m", 8, 1 } },
    index = function(i, j, k) return 8 * M * i + 8 * j + k end },
  { what = "strides string (gaps)", opts = { strides = "1, n, 2*n*m" },
    index = function(i, j, k) return i + N * j + 2 * N * M * k end },
  { what = "stride: and c", opts = { dim_tags = "stride:16*m, c, c" },
    index = function(i, j, k) return 16 * M * i + 4 * j + k end },
  { what = "levels with fixed strides", opts = { dim_tags = "N2, N1:stride:6, N0:stride:1" },
    index = function(i, j, k) return 6 * M * i + 6 * j + k end },
  { what = "offset 7", opts = { offset = 7 }, index = function(i, j, k) return 7 + 4 * M * i + 4 * j + k end },
  { what = "offset expression", opts = { offset = "2*n", order = "F" },
    index = function(i, j, k) return 2 * N + i + N * j + N * M * k end },
  { what = "offset lp.auto", opts = { offset = lp.auto }, host = "C", offset_arg = 5,
    index = function(i, j, k, a_offset) return a_offset + 4 * M * i + 4 * j + k end },
}

local DOMAIN = "{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<4 }"
local SHAPE = { N, M, 4 }

local function value(i, j, k) return 100 * i + 10 * j + k end

for _, layout in ipairs(LAYOUTS) do
  local decl = copy(layout.opts)
  decl.shape = "n, m, 4"
  local reader = lp.make_kernel(DOMAIN, "out[i,j,k] = 2*a[i,j,k] + 1", { lp.GlobalArg("a", "float32", decl), "..." })
  local writer = lp.make_kernel(DOMAIN, "b[i,j,k] = 100*i + 10*j + k", { lp.GlobalArg("b", "float32", decl), "..." })

  -- The kernel's flat index is the hand-written one.
  local offset = layout.offset_arg or 0
  local typed = lp.add_dtypes(reader, { out = "float32" })
  local index, expr = generated_index(typed, "a", { "i", "j", "k", "n", "m", "a_offset" })
  h.each_index(SHAPE, function(i, j, k)
    h.check_equal(index(i, j, k, N, M, offset), layout.index(i, j, k, offset), layout.what .. " index " .. expr)
  end)

  h.on_each_executor(function(exec, name)
    local what = name .. " " .. layout.what
    -- Read: from a host array of the declared layout when there is one (then the kernel reads its memory as
    -- it is), else from a C array copied into the layout.
    local a = h.array_from(SHAPE, "float32", value, layout.host)
    local args = { a = a, a_offset = layout.offset_arg }
    local out = reader(exec, args)
    h.check_array(out, function(i, j, k) return 2 * value(i, j, k) + 1 end, what .. " read", { shape = SHAPE })

    -- Write: into a new array, and in place into one of the declared layout.
    local b = writer(exec, { n = N, m = M, b_offset = layout.offset_arg })
    h.check_array(b, value, what .. " write", { shape = SHAPE, dtype = "float32" })
    local into = lp.zeros(SHAPE, "float32", layout.host or "C")
    writer(exec, { b = into, b_offset = layout.offset_arg })
    h.check_array(into, value, what .. " write in place")
  end)
end

-- The listing prints the resolved dim tags and offsets as loopy does.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = a[i,j] + c[i,j] + d[i,j]", {
    lp.GlobalArg("a", "float32", { shape = "n, m", order = "F" }),
    lp.GlobalArg("c", "float32", { shape = "n, m", strides = "2*m, 1", offset = 3 }),
    lp.GlobalArg("d", "float32", { shape = "n, m", offset = lp.auto }),
    "...",
  })
  local text = tostring(knl)
  for _, line in ipairs({
    "a: type: np:dtype('float32'), shape: (n, m), dim_tags: (N0:stride:1, N1:stride:n) in aspace: global",
    "c: type: np:dtype('float32'), shape: (n, m), dim_tags: (stride:2*m, stride:1), offset: 3 in aspace: global",
    "d: type: np:dtype('float32'), shape: (n, m), dim_tags: (N1:stride:m, N0:stride:1), offset: d_offset in aspace: "
      .. "global",
    "d_offset: ValueArg, type: np:dtype('int32')",
    "out: type: <auto/runtime>, shape: (n, m), dim_tags: (N1:stride:m, N0:stride:1) out aspace: global",
  }) do
    h.check(text:find(line, 1, true), "listing lacks '%s':\n%s", line, text)
  end
  local names = {}
  for _, arg in ipairs(knl.args) do names[#names + 1] = arg.name end
  h.check_equal(table.concat(names, " "), "a c d d_offset m n out", "offset argument right after its array")
end

-- default_order applies to the arrays that are not declared.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = 3*a[i,j]", nil, { default_order = "F" })
  h.check(tostring(knl):find("out: type: <auto/runtime>, shape: (n, m), dim_tags: (N0:stride:1, N1:stride:n)", 1, true),
    "default_order F:\n%s", tostring(knl))
  local a = h.array_from({ N, M }, "int32", function(i, j) return 7 * i - j end, "F")
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(i, j) return 3 * (7 * i - j) end, name .. " default_order F")
  end)
end

-- Several names in one declaration, each with its own offset argument; a constant argument; a typed value
-- argument.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = s*x[i] + y[i] + w[i % 4]", {
    lp.GlobalArg("x, y", "float64", { shape = "n", offset = lp.auto }),
    lp.ConstantArg("w", "float64", { shape = 4 }),
    lp.ValueArg("s", "float64"),
    "...",
  })
  local names = {}
  for _, arg in ipairs(knl.args) do names[#names + 1] = arg.name .. ":" .. arg.kind end
  h.check_equal(table.concat(names, " "),
    "x:GlobalArg x_offset:ValueArg y:GlobalArg y_offset:ValueArg w:ConstantArg s:ValueArg n:ValueArg out:GlobalArg",
    "arguments")
  local code = lp.generate_code(lp.add_dtypes(knl, { out = "float64" }))
  h.check(code:find("__constant double const *__restrict__ w", 1, true), "constant argument:\n%s", code)
  local x, y = lp.rand(10, "float64", 1), lp.rand(10, "float64", 2)
  local w = lp.array({ 0.5, 1.5, 2.5, 3.5 })
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { x = x, y = y, w = w, s = 2, y_offset = 3 })
    h.check_array(out, function(i) return 2 * x:get(i) + y:get(i) + w:get(i % 4) end, name .. " several names",
      { rtol = 1e-15 })
  end)
end

-- A 0-d argument with an offset, and an argument declared aligned (host arrays are 64-byte aligned).
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = x[i] + s0", {
    lp.GlobalArg("x", "float64", { shape = "n", alignment = 64 }),
    lp.GlobalArg("s0", "float64", { shape = {}, offset = 2 }),
    "...",
  })
  local code = lp.generate_code(knl)
  h.check(code:find("out[i] = x[i] + s0[2];", 1, true), "0-d argument with an offset:\n%s", code)
  local s0 = lp.zeros({}, "float64")
  s0:set(2.5)
  local x = lp.arange(5, "float64")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { x = x, s0 = s0 }), function(i) return i + 2.5 end, name .. " 0-d with offset")
  end)
end

-- Private array temporaries: a shape found from the footprint, bounded by the assumptions, declared, and
-- with their own layout.
do
  local footprint = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<4 }", {
    "<> t[k] = a[i, k] * (k + 1)",
    "out[i] = t[0] + t[1] + t[2] + t[3]  {dep=insn, inames=i}",
  })
  local bounded = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", {
    "<> t[k] = a[i, k]  {id=w}",
    "out[i] = t[m - 1] - t[0]  {dep=w, inames=i}",
  }, { "..." }, { assumptions = "1 <= m <= 8" })
  local declared = lp.make_kernel("{ [i,k,l]: 0<=i<n and 0<=k,l<2 }", {
    "t[k, l] = a[i, 2*k + l]  {id=w}",
    "out[i] = t[0, 1] + 10*t[1, 0]  {dep=w, inames=i}",
  }, { lp.TemporaryVariable("t", "float32", { shape = "2, 2", dim_tags = "f,f", alignment = 16 }), "..." })
  local typed = {}
  for key, knl in pairs({ footprint = footprint, bounded = bounded, declared = declared }) do
    typed[key] = lp.add_dtypes(knl, { a = "float32" })
  end
  for _, want in ipairs({ { "footprint", "float t[4];" }, { "bounded", "float t[8];" },
                          { "declared", "float t[2 * 2] __attribute__ ((aligned (16)));" } }) do
    local code = lp.generate_code(typed[want[1]])
    h.check(code:find("\n  " .. want[2] .. "\n", 1, true), "%s: expected '%s' in:\n%s", want[1], want[2], code)
  end
  -- Sized by a parameter (a variable-length array on C), the declaration keeps its alignment too.
  local sized = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", {
    "t[k] = a[i, k]  {id=w}",
    "out[i] = t[m - 1] - t[0]  {dep=w, inames=i}",
  }, { lp.TemporaryVariable("t", "float32", { shape = "m", alignment = 32 }), lp.GlobalArg("a", "float32", { shape = "n, m" }),
       "..." }, { target = "c" })
  h.check_contains(lp.generate_code(sized), "float t[m] __attribute__ ((aligned (32)));")
  local a = h.array_from({ N, 4 }, "float32", function(i, k) return i + k / 4 end)
  h.on_each_executor(function(exec, name)
    h.check_array(footprint(exec, { a = a }), function(i)
      local s = 0
      for k = 0, 3 do s = s + f32(a:get(i, k) * (k + 1)) end
      return s
    end, name .. " footprint temporary", { rtol = 1e-6 })
    h.check_array(bounded(exec, { a = a, m = 4 }), function(i) return f32(a:get(i, 3) - a:get(i, 0)) end,
      name .. " bounded temporary")
    h.check_array(declared(exec, { a = a }), function(i) return f32(a:get(i, 1) + 10 * a:get(i, 2)) end,
      name .. " declared temporary")
  end)
end

-- Local temporaries are declared first in the kernel body (the tutorial's example).
do
  local knl = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}", [[
    <> a_temp[i_inner] = a[16*i_outer + i_inner]  {priority=10}
    out[16*i_outer + i_inner] = sum(k, a_temp[k])
  ]])
  knl = lp.tag_inames(knl, { i_outer = "g.0", i_inner = "l.0" })
  knl = lp.set_temporary_address_space(knl, "a_temp", "local")
  local code = lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))
  h.check(code:find("{\n  __local float a_temp[16];\n  float acc_k;\n\n", 1, true), "local temporary:\n%s", code)
  local a = lp.arange(48, "float32")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i)
      local group = i - i % 16
      return 16 * group + 120
    end, name .. " local temporary")
  end)
end

-- Read-only tables with initializers: a lookup table from a Lua list, a 2-D table from a loom.Array stored
-- in Fortran order and with padded rows, and a table in global memory (program-scope constants). Tables no
-- instruction reads are not declared (generated C compiles with -Werror).
do
  local popcount = {}
  for v = 0, 15 do
    local bits, x = 0, v
    while x > 0 do bits, x = bits + x % 2, x // 2 end
    popcount[v + 1] = bits
  end
  local grid = { { 1.5, -2, 4 }, { 8, 0.25, -16 } }
  local function knl(table_opts)
    return lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = bits[a[i] % 16] + g[i % 2, i % 3]", {
      lp.TemporaryVariable("bits", "int32", { initializer = popcount, read_only = true }),
      lp.TemporaryVariable("g", nil, table_opts),
      lp.TemporaryVariable("unused", "float32", { initializer = { 1, 2 }, read_only = true, address_space = "global" }),
      "...",
    })
  end
  local tables = {
    { what = "F-order table", opts = { initializer = lp.array(grid, "float64"), read_only = true, order = "F" },
      decl = "double const g[2 * 3] = { 1.5, 8.0, -2.0, 0.25, 4.0, -16.0 };" },
    { what = "padded table", opts = { initializer = lp.array(grid, "float64"), read_only = true, strides = "4, 1" },
      decl = "double const g[7] = { 1.5, -2.0, 4.0, 0.0, 8.0, 0.25, -16.0 };" },
    { what = "global table",
      opts = { initializer = lp.array(grid, "float64"), read_only = true, address_space = "global" },
      decl = "__constant double const g[2 * 3] = { 1.5, -2.0, 4.0, 8.0, 0.25, -16.0 };" },
  }
  local a = h.array_from({ 40 }, "int32", function(i) return 3 * i + 1 end)
  local strict_c = lp.c.executor { cflags = { "-Wall", "-Wextra", "-Werror" } }
  for _, t in ipairs(tables) do
    local k = knl(t.opts)
    local code = lp.generate_code(lp.add_dtypes(k, { a = "int32" }))
    h.check(code:find(t.decl, 1, true), "%s: expected '%s' in:\n%s", t.what, t.decl, code)
    h.check(not code:find("unused", 1, true), "%s: a table no instruction reads is declared:\n%s", t.what, code)
    h.check(code:find("int const bits[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };", 1, true),
      "lookup table:\n%s", code)
    local c_code = lp.generate_code(lp.set_options(lp.add_dtypes(k, { a = "int32" }), { target = "c" }))
    h.check(c_code:find("\nstatic int const bits[16] = {", 1, true), "C program-scope table:\n%s", c_code)
    h.check_array(k(strict_c, { a = a }), function(i)
      return popcount[(3 * i + 1) % 16 + 1] + grid[i % 2 + 1][i % 3 + 1]
    end, "C with -Wall -Wextra -Werror " .. t.what)
    h.on_each_executor(function(exec, name)
      h.check_array(k(exec, { a = a }), function(i)
        return popcount[(3 * i + 1) % 16 + 1] + grid[i % 2 + 1][i % 3 + 1]
      end, name .. " " .. t.what, { dtype = "float64" })
    end)
  end
end

print("arrays_layouts: ok")

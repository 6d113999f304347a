-- Atomic assignments (`{atomic}` updates, `{atomic=init}` stores): many work-items, of one group and of
-- different groups, update the same elements. Every kernel runs on OpenCL and on the C executor with several
-- threads (its groups run in parallel, so atomicity across groups matters there too) and is compared with a
-- plain-Lua reference: exactly for integers, with a tolerance for floats (the order of the additions varies).
-- The C code must also compile without warnings.
local lp = require("loom")
local h = require("helpers")

local executors = {
  { name = "opencl", exec = lp.cl.queue {} },
  { name = "c", exec = lp.c.executor { threads = 4, cflags = { "-Wall", "-Wextra", "-Werror" } } },
}

local function on_each_executor(f)
  for _, e in ipairs(executors) do f(e.exec, e.name) end
end

local function code_for(knl, target)
  return (lp.generate_code(lp.set_options(knl, { target = target })))
end

local function expect_code(code, snippets, what)
  for _, s in ipairs(snippets) do h.check(code:find(s, 1, true), "%s: '%s' missing in\n%s", what, s, code) end
end

local n = 5000
local bins = h.array_from({ n }, "int32", function(i) return (i * 7 + i // 5) % 16 end)

-- A histogram over groups of 64 work-items: the classic atomic increment.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "hist[bin[i]] = hist[bin[i]] + 1 {atomic}",
    { lp.GlobalArg("hist", "int32", { shape = "16", for_atomic = true }), lp.GlobalArg("bin", "int32", { shape = "n" }),
      "..." })
  knl = lp.split_iname(knl, "i", 64, { outer_tag = "g.0", inner_tag = "l.0" })
  h.check(tostring(knl):find("{id=insn, atomic=update[hist]SEQ_CST/auto}", 1, true), "listing:\n%s", tostring(knl))
  h.check(tostring(knl):find("hist: type: np_atomic:dtype('int32')", 1, true), "listing:\n%s", tostring(knl))
  expect_code(code_for(knl, "opencl"), { "__global volatile int *__restrict__ hist", "atomic_inc(&(hist[bin[" }, "opencl")
  expect_code(code_for(knl, "c"), { "__atomic_fetch_add(&(hist[bin[", ", 1, __ATOMIC_SEQ_CST);" }, "c")
  expect_code(code_for(knl, "cuda"), { "atomicAdd(&(hist[bin[" }, "cuda")
  local want = {}
  for b = 0, 15 do want[b] = 0 end
  for i = 0, n - 1 do want[bins:get(i)] = want[bins:get(i)] + 1 end
  on_each_executor(function(ex, name)
    local hist = knl(ex, { hist = lp.zeros({ 16 }, "int32"), bin = bins })
    h.check_array(hist, function(b) return want[b] end, name .. " histogram")
  end)
end

-- Float sums into a few bins: no native float atomics on OpenCL 1.x, so a compare-and-swap loop on the
-- bits. float64 needs 64-bit atomics (atom_cmpxchg and its extension).
for _, case in ipairs { { "float32", 1e-4, "int", "atomic_cmpxchg" }, { "float64", 1e-12, "long", "atom_cmpxchg" } } do
  local dtype, rtol, bits, cas = table.unpack(case)
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "s[i % 5] = s[i % 5] + a[i] {atomic}",
    { lp.GlobalArg("s", dtype, { shape = { 5 } }), lp.GlobalArg("a", dtype, { shape = "n" }), "..." })
  knl = lp.split_iname(knl, "i", 32, { outer_tag = "g.0", inner_tag = "l.0" })
  local ocl = code_for(knl, "opencl")
  expect_code(ocl, { cas .. "((volatile __global " .. bits .. " *) &(s[", "as_" .. bits .. "(loopy_old_val)" }, dtype)
  h.check((dtype == "float64") == (ocl:find("cl_khr_int64_base_atomics", 1, true) ~= nil), "pragma:\n%s", ocl)
  expect_code(code_for(knl, "c"), { "__atomic_compare_exchange(&(s[", "&loopy_old_val, &loopy_new_val" }, dtype)
  expect_code(code_for(knl, "cuda"), { "atomicAdd(&(s[" }, dtype)
  local a = lp.rand({ n }, dtype, 3)
  local want = { [0] = 0, 0, 0, 0, 0 }
  for i = 0, n - 1 do want[i % 5] = want[i % 5] + a:get(i) end
  on_each_executor(function(ex, name)
    local s = knl(ex, { s = lp.zeros({ 5 }, dtype), a = a })
    h.check_array(s, function(b) return want[b] end, name .. " " .. dtype .. " sums", { rtol = rtol })
  end)
end

-- 64-bit integers, with values beyond 32 bits, and an update that is no sum (a product: compare-and-swap).
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "big[i % 3] = big[i % 3] + w[i] {atomic}",
    "prod[i % 2] = prod[i % 2] * 3 {atomic}",
  }, { lp.GlobalArg("big", "int64", { shape = { 3 } }), lp.GlobalArg("prod", "int64", { shape = { 2 } }),
    lp.GlobalArg("w", "int64", { shape = "n" }), "..." })
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  expect_code(code_for(knl, "opencl"),
    { "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable", "atom_add(&(big[", "atom_cmpxchg(&(prod[" },
    "int64")
  expect_code(code_for(knl, "cuda"), { "atomicAdd((unsigned long long *) &(big[", "atomicCAS((unsigned long long *) &(prod[" },
    "int64")
  local m = 60 -- 3**30 fits in int64
  local w = h.array_from({ m }, "int64", function(i) return (i + 1) * (1 << 33) + i end)
  on_each_executor(function(ex, name)
    local big, prod = knl(ex, { big = lp.zeros({ 3 }, "int64"), w = w, prod = h.array_from({ 2 }, "int64", function() return 1 end) })
    h.check_array(big, function(b)
      local s = 0
      for i = b, m - 1, 3 do s = s + w:get(i) end
      return s
    end, name .. " int64 sums")
    h.check_array(prod, function() return 3 ^ 30 // 1 end, name .. " int64 products")
  end)
end

-- max and min: native on OpenCL's and CUDA's 32-bit integers, compare-and-swap on C and for floats; an
-- atomic store (`atomic=init`).
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "hi[0] = max(hi[0], v[i]) {atomic}",
    "lo[0] = min(lo[0], v[i]) {atomic}",
    "fhi[0] = max(fhi[0], f[i]) {atomic}",
    "u[i % 3] = u[i % 3] | bits[i] {atomic}",
    "mark[i % 4] = 7 {atomic=init}",
  }, { lp.GlobalArg("hi, lo, fhi", nil, { shape = { 1 } }), lp.GlobalArg("u", "uint32", { shape = { 3 } }),
    lp.GlobalArg("bits", "uint32", { shape = "n" }),
    lp.GlobalArg("mark", "uint32", { shape = { 4 } }), lp.GlobalArg("v, f", nil, { shape = "n" }), "..." })
  knl = lp.add_dtypes(knl, { hi = "int32", lo = "int32", v = "int32", fhi = "float32", f = "float32" })
  knl = lp.split_iname(knl, "i", 32, { outer_tag = "g.0", inner_tag = "l.0" })
  expect_code(code_for(knl, "opencl"),
    { "atomic_max(&(hi[0]), ", "atomic_min(&(lo[0]), ", "atomic_or(&(u[", "atomic_xchg(&(mark[",
      "atomic_cmpxchg((volatile __global int *) &(fhi[0])" }, "opencl")
  expect_code(code_for(knl, "c"), { "__atomic_fetch_or(&(u[", "__atomic_store_n(&(mark[" }, "c")
  expect_code(code_for(knl, "cuda"), { "atomicMax(&(hi[0]), ", "atomicOr(&(u[", "atomicExch(&(mark[" }, "cuda")
  local v = h.array_from({ n }, "int32", function(i) return (i * 7919) % 10007 - 5000 end)
  local f = lp.rand({ n }, "float32", 11)
  local vmax, vmin, fmax = -math.huge, math.huge, -math.huge
  for i = 0, n - 1 do
    vmax, vmin, fmax = math.max(vmax, v:get(i)), math.min(vmin, v:get(i)), math.max(fmax, f:get(i))
  end
  on_each_executor(function(ex, name)
    local hi, lo, fhi, u, mark = knl(ex, {
      hi = lp.array({ -100000 }, "int32"), lo = lp.array({ 100000 }, "int32"), v = v, f = f,
      u = lp.zeros({ 3 }, "uint32"), bits = h.array_from({ n }, "uint32", function(i) return 1 << (i % 20) end), mark = lp.zeros({ 4 }, "uint32"), fhi = lp.array({ -1 }, "float32"),
    })
    h.check_equal(hi:get(0), vmax, name .. " max")
    h.check_equal(lo:get(0), vmin, name .. " min")
    h.check_equal(fhi:get(0), fmax, name .. " float max")
    h.check_array(u, function() return (1 << 20) - 1 end, name .. " bit or")
    h.check_array(mark, function() return 7 end, name .. " atomic store")
  end)
end

-- A histogram in local memory: cleared, updated atomically by all work-items of the group (no barrier
-- between the updates), then added to the global histogram. The two barriers are the plain accesses' (the
-- clearing before the updates, the reading after them).
do
  local knl = lp.make_kernel("{ [g, l, k]: 0<=g<ng and 0<=l<16 and 0<=k<4 }", {
    "lh[l] = 0 {id=clear}",
    "lh[bin[64*g + 16*k + l]] = lh[bin[64*g + 16*k + l]] + 1 {id=count, atomic, dep=clear}",
    "hist[l] = hist[l] + lh[l] {id=add, atomic, dep=count}",
  }, { lp.TemporaryVariable("lh", "int32", { shape = { 16 }, address_space = "local" }),
    lp.GlobalArg("hist", "int32", { shape = { 16 } }), lp.GlobalArg("bin", "int32", { shape = "64*ng" }), "..." })
  knl = lp.tag_inames(knl, { g = "g.0", l = "l.0" })
  local ocl = code_for(knl, "opencl")
  h.check_equal(h.count_plain(ocl, "barrier(CLK_LOCAL_MEM_FENCE)"), 2, "local barriers in\n" .. ocl)
  expect_code(ocl, { "atomic_inc(&(lh[bin[", "atomic_add(&(hist[", "/* for lh (count depends on clear) */",
    "/* for lh (add depends on count) */" }, "local histogram")
  local ng = n // 64
  local want = {}
  for b = 0, 15 do want[b] = 0 end
  for i = 0, 64 * ng - 1 do want[bins:get(i)] = want[bins:get(i)] + 1 end
  local bin = h.array_from({ 64 * ng }, "int32", function(i) return bins:get(i) end)
  on_each_executor(function(ex, name)
    local hist = knl(ex, { hist = lp.zeros({ 16 }, "int32"), bin = bin })
    h.check_array(hist, function(b) return want[b] end, name .. " local histogram")
  end)
end

-- Float atomics in local memory, in an unrolled loop, on 0-d arrays and under predicates.
do
  local knl = lp.make_kernel("{ [g,l,k]: 0<=g<8 and 0<=l<32 and 0<=k<4 }", {
    "lacc[l % 4] = 0 {id=clear}",
    "lacc[k] = lacc[k] + a[128*g + 4*l + k] {id=acc, atomic, dep=clear}",
    "total = total + lacc[l] {id=add, atomic, dep=acc, if=l < 4}",
    "big = big + 1 {atomic, if=a[128*g + 4*l + k] > 0.5}",
  }, { lp.GlobalArg("total", "float32", { shape = {} }), lp.GlobalArg("big", "int32", { shape = {} }),
    lp.GlobalArg("a", "float32", { shape = 1024 }),
    lp.TemporaryVariable("lacc", "float32", { shape = { 4 }, address_space = "local" }) })
  knl = lp.tag_inames(knl, { g = "g.0", l = "l.0", k = "unr" })
  local ocl = code_for(knl, "opencl")
  h.check_equal(h.count_plain(ocl, "atomic_cmpxchg((volatile __local int *) &(lacc["), 4, "unrolled local updates in\n" .. ocl)
  expect_code(ocl, { "  if (lid(0) < 4)\n  {\n", "atomic_inc(&(big[0]));" }, "opencl")
  local a = lp.rand({ 1024 }, "float32", 1)
  local sum, above = 0, 0
  for i = 0, 1023 do
    sum = sum + a:get(i)
    if a:get(i) > 0.5 then above = above + 1 end
  end
  on_each_executor(function(ex, name)
    local total, big = knl(ex, { a = a, total = lp.zeros({}, "float32"), big = lp.zeros({}, "int32") })
    h.check(math.abs(total:get() - sum) < 1e-3, "%s: total %g, want %g", name, total:get(), sum)
    h.check_equal(big:get(), above, name .. " count")
  end)
end

-- Two atomic updates of one global array in one device kernel need no global barrier; a plain read of what
-- other groups update atomically does.
do
  local two = lp.make_kernel("{ [i]: 0<=i<n }", {
    "hist[bin[i]] = hist[bin[i]] + 1 {id=one, atomic}",
    "hist[15 - bin[i]] = hist[15 - bin[i]] + 10 {id=two, atomic, dep=one}",
  }, { lp.GlobalArg("hist", "int32", { shape = { 16 } }), lp.GlobalArg("bin", "int32", { shape = "n" }), "..." })
  two = lp.split_iname(two, "i", 64, { outer_tag = "g.0", inner_tag = "l.0" })
  local want = {}
  for b = 0, 15 do want[b] = 0 end
  for i = 0, n - 1 do
    want[bins:get(i)] = want[bins:get(i)] + 1
    want[15 - bins:get(i)] = want[15 - bins:get(i)] + 10
  end
  on_each_executor(function(ex, name)
    local hist = two(ex, { hist = lp.zeros({ 16 }, "int32"), bin = bins })
    h.check_array(hist, function(b) return want[b] end, name .. " two atomic updates")
  end)

  local read = lp.make_kernel("{ [i]: 0<=i<n }", {
    "hist[bin[i]] = hist[bin[i]] + 1 {id=one, atomic}",
    "out[i] = hist[i % 16] {id=two, dep=one}",
  }, { lp.GlobalArg("hist", "int32", { shape = { 16 } }), lp.GlobalArg("bin", "int32", { shape = "n" }), "..." })
  read = lp.split_iname(read, "i", 64, { outer_tag = "g.0", inner_tag = "l.0" })
  h.expect_error("MissingBarrierError", { "two depends on one", "'hist'" }, code_for, read, "opencl")
end

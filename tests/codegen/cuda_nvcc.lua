-- The CUDA text of parallel kernels compiles with nvcc (`nvcc -c`): a vector add, local memory with a
-- barrier, a 2-D tiled matrix product, integer helpers and math on several types, atomics of every kind (in
-- global and shared memory), a kernel split at a global barrier, and an OKL kernel calling a device function. Skipped (exit status 77, CTest's SKIP_RETURN_CODE) without nvcc.
local lp = require("loom")
local h = require("helpers")

local function nvcc_found()
  local pipe = io.popen("command -v nvcc 2>/dev/null")
  local path = pipe:read("a")
  pipe:close()
  return path ~= ""
end

if not nvcc_found() then
  print("SKIP: nvcc not found")
  os.exit(77)
end

local kernels = {}
local function add(knl) kernels[#kernels + 1] = lp.set_options(knl, { target = "cuda" }) end

add(lp.split_iname(lp.make_kernel("{ [i]: 0<=i<n }", "c[i] = a[i] + b[i]",
  { lp.GlobalArg("a, b, c", "float32", { shape = "n" }), "..." }, { name = "vadd" }),
  "i", 128, { outer_tag = "g.0", inner_tag = "l.0" }))

do
  local knl = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}", [[
    <> a_temp[i_inner] = a[16*i_outer + i_inner]  {priority=10}
    out[16*i_outer + i_inner] = sum(k, a_temp[k])
    ]], { lp.GlobalArg("a", "float32", { shape = "n" }), "..." }, { name = "local_sum" })
  knl = lp.tag_inames(knl, { i_outer = "g.0", i_inner = "l.0" })
  add(lp.set_temporary_address_space(knl, "a_temp", "local"))
end

do
  local knl = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<n }", "c[i,j] = sum(k, a[i,k]*b[k,j])",
    { lp.GlobalArg("a, b, c", "float64", { shape = "n, n" }), "..." }, { name = "matmul" })
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.1" })
  add(lp.split_iname(knl, "j", 16, { outer_tag = "g.1", inner_tag = "l.0" }))
end

add(lp.split_iname(lp.make_kernel("{ [i]: 0<=i<n }", {
  "out[i] = sqrt(a[i]) + exp(a[i]) + a[i]**3 + (i // 3) % 5 + abs(x[i]) + min(x[i], 3)",
  "y[i] = x[i] // 7 + x[i] % 3 + max(x[i], u[i])",
}, { lp.GlobalArg("a, out", "float32", { shape = "n" }), lp.GlobalArg("x, y", "int64", { shape = "n" }),
  lp.GlobalArg("u", "int8", { shape = "n" }), "..." }, { name = "mixed" }),
  "i", 64, { outer_tag = "g.0", inner_tag = "l.0" }))

add(lp.split_iname(lp.make_kernel("{ [i]: 0<=i<n }", {
  "hist[bin[i]] = hist[bin[i]] + 1 {atomic}",
  "s[i % 4] = s[i % 4] + a[i] {atomic}",
  "fmx[0] = max(fmx[0], a[i]) {atomic}",
  "t[i % 3] = 0 {atomic=init}",
  "big[i % 5] = big[i % 5] + 7 {atomic}",
  "lo[0] = min(lo[0], v[i]) {atomic}",
  "d[i % 3] = d[i % 3] * 2 {atomic}",
  "dd[i % 3] = dd[i % 3] + w[i] {atomic}",
  "u[i % 3] = max(u[i % 3], uw[i]) {atomic}",
  "ui[i % 3] = ui[i % 3] ^ uiw[i] {atomic}",
  "lf[i % 4] = 0 {id=lclear}",
  "lf[(i + 1) % 4] = lf[(i + 1) % 4] + a[i] {id=lacc, atomic, dep=lclear}",
  "lmax[0] = max(lmax[0], lf[i % 4]) {atomic, dep=lacc}",
}, { lp.TemporaryVariable("lf", "float32", { shape = { 4 }, address_space = "local" }),
  lp.GlobalArg("lmax", "float32", { shape = "1" }), lp.GlobalArg("hist", "int32", { shape = "16" }), lp.GlobalArg("bin", "int32", { shape = "n" }),
  lp.GlobalArg("s, t, fmx", "float32", { shape = "4" }), lp.GlobalArg("a", "float32", { shape = "n" }),
  lp.GlobalArg("big, lo", "int64", { shape = "5" }), lp.GlobalArg("v", "int64", { shape = "n" }),
  lp.GlobalArg("d, dd", "float64", { shape = "3" }), lp.GlobalArg("w", "float64", { shape = "n" }),
  lp.GlobalArg("u", "uint64", { shape = "3" }), lp.GlobalArg("uw", "uint64", { shape = "n" }),
  lp.GlobalArg("ui", "uint32", { shape = "3" }), lp.GlobalArg("uiw", "uint32", { shape = "n" }), "..." },
  { name = "atomics" }), "i", 64, { outer_tag = "g.0", inner_tag = "l.0" }))

add(lp.split_iname(lp.make_kernel("{ [i]: 0<=i<n }", {
  "b[i] = 2*a[i] {id=first, dep=*}",
  "... gbarrier {id=gb, dep=*first}",
  "c[i] = b[n-1-i] + 1 {dep=*gb}",
}, { lp.GlobalArg("a, b, c", "float32", { shape = "n" }), "..." }, { name = "split" }),
  "i", 64, { outer_tag = "g.0", inner_tag = "l.0" }))

-- OKL: float3 lanes and a device function kept as a function (a while loop returning from inside).
add(lp.parse_okl([==[
  float march(const float3 p, const float limit) {
    float t = 0.0f;
    while (t < limit) {
      t += 0.5f * length(p) + 0.01f;
      if (t > 100.0f) return -1.0f;
    }
    return t;
  }
  @kernel void okl_march(const int n, const float3 d, float *out) {
    for (int i = 0; i < n; ++i; @tile(32, @outer, @inner)) out[i] = march(d * (float) i, 4.0f);
  }]==])[1])

local base = os.tmpname()
for _, knl in ipairs(kernels) do
  local code = lp.generate_code(knl)
  local source, object = base .. "_" .. knl.name .. ".cu", base .. "_" .. knl.name .. ".o"
  local f = assert(io.open(source, "w"))
  f:write(code)
  f:close()
  local pipe = assert(io.popen("nvcc -c '" .. source .. "' -o '" .. object .. "' 2>&1"))
  local out = pipe:read("a")
  local ok = pipe:close()
  os.remove(source)
  os.remove(object)
  h.check(ok and out == "", "nvcc rejects kernel '%s':\n%s\n%s", knl.name, out, code)
end
os.remove(base)

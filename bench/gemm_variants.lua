-- recipes.gemm's OpenCL variants (vec runs) and a register-pipelined gemm beside cuBLAS (PyTorch, TF32 off), each
-- checked against the first variant's result; docs/performance.md keeps the numbers.
--
--   LOOM_CL_DEVICE=NVIDIA build/loom bench/gemm_variants.lua [N]      (N a multiple of every tile: default 4096)
--
-- The pipelined kernel loads the next k tile of both operands from global memory into registers before the
-- current tile's arithmetic, and stores them into local memory after it (software pipelining written as a
-- kernel: Loom's barriers come from its dependences). Its domain covers whole tiles only, so N must be a
-- multiple of them; it is an experiment, not a recipe.
local lp = require("loom")
local recipes = require("loom.recipes")
package.path = "bench/peers/?.lua;" .. package.path
local peers = require("peers")
local function gemm_pipelined(o)
  local lx, ly, ri, rj, kt = o.lx, o.ly, o.ri, o.rj, o.kt
  assert(kt % lx == 0 and kt % ly == 0)
  local TI, TJ = ly * ri, lx * rj
  assert(o.n % TI == 0 and o.m % TJ == 0 and o.k % kt == 0, "the sizes must be multiples of the tiles")
  local dom = string.format(
    "{[g1,g0,l1,l0,r,s,fa1,fa0,fb1,fb0,po,pi]: 0<=g1<n/%d and 0<=g0<m/%d and 0<=l1<%d and 0<=l0<%d and 0<=r<%d and 0<=s<%d" ..
    " and 0<=fa1<%d and 0<=fa0<%d and 0<=fb1<%d and 0<=fb0<%d and 0<=po<k/%d and 0<=pi<%d}",
    TI, TJ, ly, lx, ri, rj, ri, kt // lx, kt // ly, rj, kt, kt)
  local A_ROW = string.format("g1*%d + fa1*%d + l1", TI, ly)
  local A_COL = string.format("fa0*%d + l0", lx)
  local B_ROW = string.format("fb1*%d + l1", ly)
  local B_COL = string.format("g0*%d + fb0*%d + l0", TJ, lx)
  local NEXT = string.format("min((po + 1)*%d, k - %d)", kt, kt)
  -- One local buffer: each step stores the tile its registers hold, loads the next one, and computes, with a
  -- barrier after the store and one after the arithmetic. Two buffers: tile po + 1 is stored, after the
  -- arithmetic on tile po, into the buffer that tile is not read from, and Loom's analysis finds one barrier
  -- per step enough (the store and the reads of one step touch different buffers).
  local two = o.buffers == 2
  local READ, WRITE = two and "po % 2, " or "", two and "(po + 1) % 2, " or ""
  local dep = two and { st_a = "ld_a:upd", st_b = "ld_b:upd", ld_a = "st_a0", ld_b = "st_b0", upd = "st_a0:st_b0:ld_a:ld_b" }
    or { st_a = "ld_a0", st_b = "ld_b0", ld_a = "st_a", ld_b = "st_b", upd = "st_a:st_b" }
  local insns = {
    string.format("<%s> ra[fa1, fa0] = a[%s, %s] {id=ld_a0}", o.dtype, A_ROW, A_COL),
    string.format("<%s> rb[fb1, fb0] = b[%s, %s] {id=ld_b0}", o.dtype, B_ROW, B_COL),
    string.format("<%s> acc[r, s] = 0 {id=init, inames=g1:g0:l1:l0:r:s}", o.dtype),
    string.format("a_l[%sfa1*%d + l1, %s] = ra[fa1, fa0] {id=st_a, dep=%s, inames=g1:g0:l1:l0:po:fa1:fa0}", WRITE, ly, A_COL, dep.st_a),
    string.format("b_l[%s%s, fb0*%d + l0] = rb[fb1, fb0] {id=st_b, dep=%s, inames=g1:g0:l1:l0:po:fb1:fb0}", WRITE, B_ROW, lx, dep.st_b),
    string.format("ra[fa1, fa0] = a[%s, %s + %s] {id=ld_a, dep=%s, inames=g1:g0:l1:l0:po:fa1:fa0}", A_ROW, NEXT, A_COL, dep.ld_a),
    string.format("rb[fb1, fb0] = b[%s + %s, %s] {id=ld_b, dep=%s, inames=g1:g0:l1:l0:po:fb1:fb0}", NEXT, B_ROW, B_COL, dep.ld_b),
    string.format("acc[r, s] = acc[r, s] + a_l[%sr*%d + l1, pi] * b_l[%spi, s*%d + l0] {id=upd, dep=init:%s, inames=g1:g0:l1:l0:po:pi:r:s}", READ, ly, READ, lx, dep.upd),
    string.format("c[g1*%d + r*%d + l1, g0*%d + s*%d + l0] = acc[r, s] {dep=upd, inames=g1:g0:l1:l0:r:s}", TI, ly, TJ, lx),
  }
  if two then
    insns[#insns + 1] = string.format("a_l[0, fa1*%d + l1, %s] = ra[fa1, fa0] {id=st_a0, dep=ld_a0, inames=g1:g0:l1:l0:fa1:fa0}", ly, A_COL)
    insns[#insns + 1] = string.format("b_l[0, %s, fb0*%d + l0] = rb[fb1, fb0] {id=st_b0, dep=ld_b0, inames=g1:g0:l1:l0:fb1:fb0}", B_ROW, lx)
  end
  local knl = lp.make_kernel(dom, insns,
    { lp.GlobalArg("a", o.dtype, { shape = "n, k" }), lp.GlobalArg("b", o.dtype, { shape = "k, m" }),
      lp.GlobalArg("c", o.dtype, { shape = "n, m", is_output = true }), lp.ValueArg("n, m, k", "int32"),
      lp.TemporaryVariable("a_l", o.dtype, { shape = two and { 2, TI, kt } or { TI, kt }, address_space = "local" }),
      lp.TemporaryVariable("b_l", o.dtype, { shape = two and { 2, kt, TJ } or { kt, TJ }, address_space = "local" }) },
    { target = "opencl", name = "gemm" })
  knl = lp.tag_inames(knl, { g1 = "g.1", g0 = "g.0", l1 = "l.1", l0 = "l.0", r = "ilp", s = "ilp",
    fa1 = "ilp", fa0 = "ilp", fb1 = "ilp", fb0 = "ilp" })
  knl = lp.prioritize_loops(knl, "po,pi")
  if o.n then knl = lp.fix_parameters(knl, { n = o.n, m = o.m, k = o.k }) end
  return knl
end

local n = tonumber(arg[1]) or 4096
local q = lp.cl.queue{}
print("device: " .. q.device)
local a, b = lp.rand({n, n}, "float32", 1), lp.rand({n, n}, "float32", 2)
local ref
local variants = {
  {"recipe default vec=1", function() return recipes.gemm{n=n, m=n, k=n} end},
  {"recipe vec=2", function() return recipes.gemm{n=n, m=n, k=n, vec=2} end},
  {"recipe vec=4", function() return recipes.gemm{n=n, m=n, k=n, vec=4} end},
  {"recipe 16,16,8,8,16 vec=4", function() return recipes.gemm{n=n, m=n, k=n, lx=16, ly=16, ri=8, rj=8, kt=16, vec=4} end},
  {"recipe 16,16,8,8,16 vec=1", function() return recipes.gemm{n=n, m=n, k=n, lx=16, ly=16, ri=8, rj=8, kt=16} end},
  {"pipelined 16,8,8,16,16", function() return gemm_pipelined{lx=16, ly=8, ri=8, rj=16, kt=16, dtype="float32", n=n, m=n, k=n} end},
  {"pipelined 16,16,8,8,16", function() return gemm_pipelined{lx=16, ly=16, ri=8, rj=8, kt=16, dtype="float32", n=n, m=n, k=n} end},
  {"pipelined 16,8,8,8,16", function() return gemm_pipelined{lx=16, ly=8, ri=8, rj=8, kt=16, dtype="float32", n=n, m=n, k=n} end},
  {"pipelined 32,8,8,8,32", function() return gemm_pipelined{lx=32, ly=8, ri=8, rj=8, kt=32, dtype="float32", n=n, m=n, k=n} end},
  {"pipelined 16,16,4,8,16", function() return gemm_pipelined{lx=16, ly=16, ri=4, rj=8, kt=16, dtype="float32", n=n, m=n, k=n} end},
  {"two buffers 16,8,8,16,16", function() return gemm_pipelined{lx=16, ly=8, ri=8, rj=16, kt=16, dtype="float32", n=n, m=n, k=n, buffers=2} end},
  {"two buffers 32,8,8,8,32", function() return gemm_pipelined{lx=32, ly=8, ri=8, rj=8, kt=32, dtype="float32", n=n, m=n, k=n, buffers=2} end},
  {"two buffers 16,16,8,8,16", function() return gemm_pipelined{lx=16, ly=16, ri=8, rj=8, kt=16, dtype="float32", n=n, m=n, k=n, buffers=2} end},
}
local peer = peers.seconds("torch", "gemm", n, 10, 2)
print(string.format("cuBLAS (torch): %s ms", peer and string.format("%.3f", peer * 1e3) or "n/a"))
for _, v in ipairs(variants) do
  local ok, err = pcall(function()
    local knl = v[2]()
    local c = select(1, knl(q, {a = a, b = b}))
    if not ref then ref = c end
    local same = lp.allclose(c, ref, {rtol = 1e-3, atol = 1e-2})
    local t = lp.time(knl, q, {a = a, b = b}, {warmup = 2, runs = 10})
    print(string.format("%-30s %8.3f ms %8.1f TFLOP/s  ratio %.2f  %s", v[1], t * 1e3, 2 * n^3 / t / 1e12,
      peer and peer / t or 0, same and "equal" or "DIFFERS"))
  end)
  if not ok then print(v[1], "failed: " .. tostring(err)) end
end
peers.cleanup()

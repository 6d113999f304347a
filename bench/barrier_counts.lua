-- Barriers Loom emits for the tutorial's parallel kernels (and the matmul/stencil prefetch examples), to set beside
-- loopy's: python3 bench/loopy_barrier_counts.py prints loopy's counts for the same kernels.
--
--   build/loom bench/barrier_counts.lua
local lp = require("loom")
local function count(knl)
  local code = lp.generate_code(knl)
  local n = 0
  for _ in code:gmatch("barrier%(") do n = n + 1 end
  return n
end
local R = {}
local k = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}", [[
  <> a_temp[i_inner] = a[16*i_outer + i_inner] {priority=10}
  out[16*i_outer + i_inner] = sum(k, a_temp[k])
]])
k = lp.tag_inames(k, {i_outer="g.0", i_inner="l.0"}); k = lp.set_temporary_address_space(k, "a_temp", "local")
R[#R+1] = {"local temporary a_temp", count(lp.add_dtypes(k, {a="float32"}))}
local p = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}", "out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])")
p = lp.add_dtypes(lp.tag_inames(p, {i_outer="g.0", i_inner="l.0"}), {a="float32"})
R[#R+1] = {"prefetch a (no sweep)", count(lp.add_prefetch(p, "a"))}
R[#R+1] = {"prefetch a over i_inner, l.0", count(lp.add_prefetch(p, "a", {"i_inner"}, {default_tag="l.0"}))}
local t = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[j,i] = a[i,j]", {assumptions="n>=1", name="transpose"})
t = lp.split_iname(t, "j", 16, {inner_tag="l.1", outer_tag="g.0"}); t = lp.split_iname(t, "i", 16, {inner_tag="l.0", outer_tag="g.1"})
t = lp.add_dtypes(t, {a="float32"})
lp.set_warnings("ignore")
R[#R+1] = {"transpose, prefetch over i_inner (write race)", count(lp.add_prefetch(t, "a", "i_inner", {default_tag="l.auto"}))}
R[#R+1] = {"transpose, prefetch over i_inner,j_inner", count(lp.add_prefetch(t, "a", "i_inner,j_inner", {default_tag="l.auto"}))}
local m = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<n }", "c[i,j] = sum(k, a[i,k]*b[k,j])", {assumptions="n>=1"})
m = lp.add_dtypes(m, {a="float32", b="float32"})
m = lp.split_iname(m, "i", 16, {outer_tag="g.0", inner_tag="l.1"}); m = lp.split_iname(m, "j", 16, {outer_tag="g.1", inner_tag="l.0"})
m = lp.split_iname(m, "k", 16)
m = lp.add_prefetch(m, "a", "k_inner,i_inner", {default_tag="l.auto"}); m = lp.add_prefetch(m, "b", "j_inner,k_inner", {default_tag="l.auto"})
R[#R+1] = {"matmul, 16x16 tiles, two prefetches", count(m)}
local s = lp.make_kernel("{ [i,j]: 1<=i,j<n-1 }", "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]", {assumptions="n>=3"})
s = lp.add_dtypes(s, {a="float32"})
s = lp.split_iname(s, "i", 16, {outer_tag="g.1", inner_tag="l.1"}); s = lp.split_iname(s, "j", 16, {outer_tag="g.0", inner_tag="l.0"})
s = lp.add_prefetch(s, "a", "i_inner,j_inner", {fetch_bounding_box=true, default_tag="l.auto"})
R[#R+1] = {"5-point stencil, bounding-box prefetch", count(s)}
local b = lp.make_kernel("[] -> {[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}", {[[
  c[i,j,k] = 2*a[i,j,k]
  e[i,j,k] = c[i,j,k+1]+c[i,j,k-1]
]]}, {lp.TemporaryVariable("c", nil, {shape={50,10,99}}), "..."})
b = lp.add_and_infer_dtypes(b, {a="int32"}); b = lp.split_iname(b, "k", 128, {inner_tag="l.0"})
R[#R+1] = {"barrier-counting kernel (c[i,j,k])", count(b)}
for _, r in ipairs(R) do print(string.format("%-48s %d", r[1], r[2])) end

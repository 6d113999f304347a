-- Golden text from the loopy tutorial's "Ordering" section: the dependency listing of transpose_and_dbl, the
-- code of the fused and of the separated transpose-and-double, and the zero-fill nest under
-- prioritize_loops("j,i"). Loopy's text has no final newline; one is tolerated.
local lp = require("loom")

local function check_text(got, want, what)
  got = got:gsub("\n$", "")
  if got ~= want then
    error(string.format("%s differs from loopy's text.\n--- got ---\n%s\n--- want ---\n%s", what, got, want), 2)
  end
end

local function transpose_and_dbl(domain, second, options)
  return lp.make_kernel(domain, "out[j,i] = a[i,j] {id=transpose}\n" .. second .. "  {dep=transpose}",
    { lp.GlobalArg("out", { shape = lp.auto, is_input = false }), "..." }, options)
end

-- The listing with dependencies: the tutorial shows its head and its tail.
do
  local knl = transpose_and_dbl("{ [i,j]: 0<=i,j<n }", "out[i,j] = 2*out[i,j]", { name = "transpose_and_dbl" })
  local text = knl:stringify { with_dependencies = true }:gsub("\n$", "")
  local rule = string.rep("-", 75)
  local head = rule .. "\nKERNEL: transpose_and_dbl\n" .. rule
  local tail = rule .. "\nDEPENDENCIES: (use loopy.show_dependency_graph to visualize)\ninsn : transpose\n" .. rule
  check_text(text:sub(1, #head), head, "the head of stringify{with_dependencies=true}")
  check_text(text:sub(-#tail), tail, "the tail of stringify{with_dependencies=true}")
end

do
  local knl = transpose_and_dbl("{ [i,j]: 0<=i,j<n }", "out[i,j] = 2*out[i,j]", { name = "transpose_and_dbl" })
  knl = lp.prioritize_loops(knl, "i,j")
  check_text((lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))), [[
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) transpose_and_dbl(__global float *__restrict__ out, __global float const *__restrict__ a, int const n)
{
  for (int i = 0; i <= -1 + n; ++i)
    for (int j = 0; j <= -1 + n; ++j)
    {
      out[n * j + i] = a[n * i + j];
      out[n * i + j] = 2.0f * out[n * i + j];
    }
}]], "the fused transpose_and_dbl")
end

do
  local knl = transpose_and_dbl("{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }", "out[ii,jj] = 2*out[ii,jj]")
  knl = lp.prioritize_loops(knl, "i,j")
  knl = lp.prioritize_loops(knl, "ii,jj")
  check_text((lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))), [[
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float *__restrict__ out, __global float const *__restrict__ a, int const n)
{
  for (int i = 0; i <= -1 + n; ++i)
    for (int j = 0; j <= -1 + n; ++j)
      out[n * j + i] = a[n * i + j];
  for (int ii = 0; ii <= -1 + n; ++ii)
    for (int jj = 0; jj <= -1 + n; ++jj)
      out[n * ii + jj] = 2.0f * out[n * ii + jj];
}]], "the separated transpose and double")
end

-- Loop nesting: the tutorial elides all but the first line and the nest.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "a[i,j] = 0")
  knl = lp.prioritize_loops(knl, "j,i")
  local code = lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))
  check_text(code:match("^[^\n]*"), "#define lid(N) ((int) get_local_id(N))", "the first line")
  local nest = [[
  for (int j = 0; j <= -1 + n; ++j)
    for (int i = 0; i <= -1 + n; ++i)
      a[n * i + j] = (float) (0.0f);
]]
  if not code:find(nest, 1, true) then
    error("the zero fill's nest differs from loopy's:\n--- got ---\n" .. code .. "\n--- want ---\n" .. nest)
  end
end

print("tutorial_ordering: ok")

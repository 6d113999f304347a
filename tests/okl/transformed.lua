-- An OKL kernel is an ordinary Kernel: Loom's transformations apply to its inames, and the transformed
-- kernel computes what the original does.
local lp = require("loom")
local T = require("helpers")

-- y = A x with a sequential dot-product loop inside the @inner loop; `k` keeps its C name as its iname.
local matvec = lp.parse_okl([[
  @kernel void matvec(const int rows, const int cols, const float *A, const float *x, float *y) {
    for (int r = 0; r < rows; ++r; @tile(32, @outer, @inner)) {
      float acc = 0;
      for (int k = 0; k < cols; ++k) {
        acc += A[r * cols + k] * x[k];
      }
      y[r] = acc;
    }
  }]]).matvec

-- The inner loop split by 4, its inner part unrolled; and a fixed size unrolled whole.
local split = lp.split_iname(matvec, "k", 4, { inner_tag = "unr" })
T.check_contains(lp.generate_code(split), "k_outer")
local fixed = lp.fix_parameters(matvec, { cols = 8 })
local unrolled = lp.tag_inames(fixed, { k = "unr" })
T.check(not T.contains(lp.generate_code(unrolled), "for (int k"), "the k loop is unrolled away")

local rows, cols = 50, 8
local A, x = lp.rand({ rows * cols }, "float32", 21), lp.rand({ cols }, "float32", 22)
T.on_each_executor(function(exec, name)
  local want = lp.zeros({ rows }, "float32")
  matvec(exec, { rows = rows, cols = cols, A = A, x = x, y = want })
  T.check_array(want, function(r)
    local s = 0
    for k = 0, cols - 1 do s = s + A:get(r * cols + k) * x:get(k) end
    return s
  end, "matvec on " .. name, { rtol = 1e-5 })
  for _, variant in ipairs({ { "split k", split, { cols = cols } }, { "unrolled k", unrolled, {} } }) do
    local got = lp.zeros({ rows }, "float32")
    local args = { rows = rows, A = A, x = x, y = got }
    for key, v in pairs(variant[3]) do args[key] = v end
    variant[2](exec, args)
    T.check_array(got, want, variant[1] .. " on " .. name, { rtol = 1e-6 })
  end
end)

print("okl transformed: ok")

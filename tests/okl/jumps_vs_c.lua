-- OKL's jumps against C itself: kernels whose work-item bodies mix break and continue in nested loops, switch
-- cases that break early, end in a block or an if-else, or continue the loop, and a loop over a variable
-- declared before it. Each body is also compiled as plain C by the system's compiler (the work-items as one
-- loop), and the outputs on every executor must equal that program's, element by element.
local lp = require("loom")
local T = require("helpers")

local bodies = {
-- A loop with a break inside a case that the switch's selector may skip: the loop's flag is set only under
-- the case's predicate, and the loop's exit must not read it elsewhere (reading it unset is undefined; PoCL's
-- compiler then dropped the kernel's store).
[[ int t = r;
   for (int v = 2; v < 3; ++v) { switch (v % 4) { case 2: continue; default: for (int w = 0; w < 5; ++w) { t += 1; if (t > 293) break; } } }
   for (int v = 0; v < 4; ++v) { switch (v % 4) { case 2: continue; default: for (int w = 0; w < 5; ++w) { t += 1; if (t > r + 2) break; } } }
   out[r] = t; ]],
[[ int t = 0;
   for (int c = 0; c < 6; ++c) {
     for (int d = 0; d < 6; ++d) {
       switch (a[r*8 + (c + d) % 8] % 4) {
         case 0: if (d > c) break; t += 1; break;
         case 1: t += 10; continue;
         case 2: { if (c == d) { t += 7; break; } t += 3; break; }
         default: if (d == 5) break; t += 100;
       }
       if (t > 500) break;
       t += 2;
     }
     if (c == 3) continue;
     t *= 2;
     if (t > 3000) break;
   }
   out[r] = t; ]],
[[ int t = 0;
   for (int j = 0; j < 8; ++j) {
     if (a[r*8 + j] % 3 == 0) { t += j; continue; }
     if (a[r*8 + j] % 5 == 0) break;
     t += 10 * a[r*8 + j];
   }
   out[r] = t; ]],
[[ int k; int t = 0;
   for (k = 0; k < 8; ++k) {
     if (a[r*8 + k] == 7) continue;
     switch (a[r*8 + k] & 1) {
       case 0: t += 1; if (k > 4) break; t += 1; break;
       default: if (a[r*8 + k] > 8) { t -= 1; break; } else { t += 5; break; }
     }
     if (t > 20) break;
   }
   out[r] = t * 16 + k; ]],
[[ int t = 0;
   for (int c = 0; c < 8; ++c) {
     int v = a[r*8 + c];
     if (v > 7) { if (v > 9) break; else continue; }
     for (int d = c; d < 8; ++d) { if (a[r*8 + d] == v) { t += d; continue; } if (d > c + 2) break; t -= 1; }
   }
   out[r] = t; ]],
}
local n = 64
local seed = 12345
local values = {}
for i = 1, n * 8 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  values[i] = seed % 12
end

-- The outputs of `body` run as C: one call over n work-items, printed one per line.
local function c_outputs(body)
  local want = T.c_program_numbers("#include <stdio.h>\nstatic void k(int n, const int *a, int *out) { for (int r = 0; r < n; ++r) { "
    .. body .. " } }\nint main(void) { static const int a[] = {" .. table.concat(values, ",") .. "}; int out[" .. n
    .. "]; k(" .. n .. ", a, out); for (int i = 0; i < " .. n .. "; ++i) printf(\"%d\\n\", out[i]); return 0; }\n")
  T.check_equal(#want, n, "outputs of the C reference")
  return want
end

for b, body in ipairs(bodies) do
  local want = c_outputs(body)
  local knl = lp.parse_okl("@kernel void k(const int n, const int *a, int *out) { for (int r = 0; r < n; ++r; "
    .. "@tile(4, @outer, @inner)) { " .. body .. " } }").k
  T.on_each_executor(function(exec, name)
    local a = T.array_from({ n * 8 }, "int32", function(i) return values[i + 1] end)
    local out = lp.zeros({ n }, "int32")
    knl(exec, { n = n, a = a, out = out })
    T.check_array(out, function(r) return want[r + 1] end, string.format("body %d on %s", b, name))
  end)
end
print("okl jumps_vs_c: ok")

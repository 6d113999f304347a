-- The C subset of OKL keeps C's meaning once lowered: each kernel here runs on every executor and is checked
-- against the same computation done in Lua.
local lp = require("loom")
local T = require("helpers")

local function kernel(src, opts) return lp.parse_okl(src, opts)[1] end

-- C's truncating division and remainder, for the reference.
local function cdiv(a, b)
  local q = a // b
  if q < 0 and q * b ~= a then q = q + 1 end
  return q
end
local function cmod(a, b) return a - b * cdiv(a, b) end

-- Integer / and % truncate toward zero for every sign; compound assignments, ++/--, ternary, casts, shifts.
do
  local knl = kernel([==[
    @kernel void ops(const int n, const int *a, const int *b, int *q, int *r, int *m, float *f) {
      for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) {
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
        int x = a[i];
        x += 3;
        x *= 2;
        x -= b[i];
        x++;
        --x;
        x <<= 1;
        x %= 7;
        m[i] = (x > 0 ? x : -x) + (a[i] / 2) * 10 + (i % 3 == 0 ? 1000 : 0);
        f[i] = (float) a[i] / 4 + (float) (a[i] / 4);
      }
    }]==])
  local n = 40
  local a = T.array_from({ n }, "int32", function(i) return (i * 37) % 41 - 20 end)
  local b = T.array_from({ n }, "int32", function(i) return ((i * 13) % 9 - 4 == 0) and 3 or (i * 13) % 9 - 4 end)
  T.on_each_executor(function(exec, name)
    local q, r, m, f = lp.zeros({ n }, "int32"), lp.zeros({ n }, "int32"), lp.zeros({ n }, "int32"), lp.zeros({ n }, "float32")
    knl(exec, { n = n, a = a, b = b, q = q, r = r, m = m, f = f })
    T.check_array(q, function(i) return cdiv(a:get(i), b:get(i)) end, "a / b on " .. name)
    T.check_array(r, function(i) return cmod(a:get(i), b:get(i)) end, "a % b on " .. name)
    T.check_array(m, function(i)
      local x = a:get(i)
      x = ((x + 3) * 2 - b:get(i)) * 2
      x = cmod(x, 7)
      return math.abs(x) + cdiv(a:get(i), 2) * 10 + (i % 3 == 0 and 1000 or 0)
    end, "compound assignments on " .. name)
    T.check_array(f, function(i) return a:get(i) / 4 + cdiv(a:get(i), 4) end, "casts on " .. name, { rtol = 1e-6 })
  end)
end

-- Loops: non-zero starts, steps, decrements, inclusive bounds, bounds on outer indices, a sequential loop with
-- a carried scalar, a loop over the table of a `*=` index; `if` conditions evaluated once before the branch.
do
  local knl = kernel([==[
    #define N 12
    @kernel void loops(const int n, float *out, int *tri, int *flags) {
      for (int g = 1; g <= n; g += 3; @outer) {
        for (int j = N - 1; j >= 0; --j; @inner) {
          float s = 0;
          for (int k = 2; k < 2 * j + 3; k += 2) {
            s += k;
          }
          for (int k = j; k > -4; k -= 3) {
            s = s * 0.5f + k;
          }
          int p = 1;
          for (int d = 1; d <= 16; d *= 2) {
            p += d;
          }
          out[(g - 1) / 3 * N + j] = s + p + g;
          for (int k = 0; k <= j; ++k) {
            tri[((g - 1) / 3 * N + j) * N + k] = g + j - k;
          }
          int c = j;
          if (c < 6) {
            c = 100;
            flags[(g - 1) / 3 * N + j] = c;
          } else {
            flags[(g - 1) / 3 * N + j] = c + 1000;
          }
        }
      }
    }]==])
  local n, N = 10, 12
  local groups = 4 -- g = 1, 4, 7, 10
  T.on_each_executor(function(exec, name)
    local out = lp.zeros({ groups * N }, "float32")
    local tri = lp.zeros({ groups * N * N }, "int32")
    tri:fill(-7)
    local flags = lp.zeros({ groups * N }, "int32")
    knl(exec, { n = n, out = out, tri = tri, flags = flags })
    T.check_array(out, function(x)
      local gi, j = x // N, x % N
      local g = 1 + 3 * gi
      local s = 0.0
      for k = 2, 2 * j + 2, 2 do s = s + k end
      local k = j
      while k > -4 do
        s = s * 0.5 + k
        k = k - 3
      end
      return s + 32 + g
    end, "loops on " .. name, { rtol = 1e-6 })
    T.check_array(tri, function(x)
      local row, k = x // N, x % N
      local gi, j = row // N, row % N
      if k > j then return -7 end
      return 1 + 3 * gi + j - k
    end, "triangular loop on " .. name)
    T.check_array(flags, function(x)
      local j = x % N
      return j < 6 and 100 or j + 1000
    end, "if/else on " .. name)
  end)
end

-- Device functions (a one-line function, one with statements, a void one writing through a pointer),
-- fixed-size local arrays with initializers, local pointer aliases, sizeof, math builtins, typedefs.
do
  local knl = kernel([==[
    typedef float real_t;
    static inline real_t sq(real_t x) { return x * x; }
    int clampi(int v, int lo, int hi);
    int clampi(int v, int lo, int hi) {
      int r = v;
      if (r < lo) r = lo;
      if (r > hi) r = hi;
      return r;
    }
    void put(real_t *dst, int i, real_t v) { dst[i] = v; }

    @kernel void funcs(const int n, const real_t *x, real_t *y, int *z) {
      for (int b = 0; b < n; b += 4; @outer) {
        for (int t = 0; t < 4; ++t; @inner) {
          const int w[4] = {3, -1, 4, 1};
          real_t acc[2] = {0.5f};
          const real_t *row = x + b;
          acc[1] = sq(row[t]) + sqrtf(fabs(row[t])) + w[t] * sizeof(real_t);
          put(y, b + t, acc[0] + acc[1]);
          z[b + t] = clampi(b + t * w[t], 2, 9) + (int) floor(2.5f) + min(t, 2);
        }
      }
    }]==])
  local n = 16
  local x = T.array_from({ n }, "float32", function(i) return i * 0.75 - 5 end)
  local w = { 3, -1, 4, 1 }
  T.on_each_executor(function(exec, name)
    local y, z = lp.zeros({ n }, "float32"), lp.zeros({ n }, "int32")
    knl(exec, { n = n, x = x, y = y, z = z })
    T.check_array(y, function(i)
      local v = x:get(i)
      return 0.5 + v * v + math.sqrt(math.abs(v)) + w[i % 4 + 1] * 4
    end, "device functions on " .. name, { rtol = 1e-6 })
    T.check_array(z, function(i)
      local t = i % 4
      local v = (i - t) + t * w[t + 1]
      v = math.max(2, math.min(9, v))
      return v + 2 + math.min(t, 2)
    end, "int device function on " .. name)
  end)
end

-- @dim and @dimOrder (OCCA's layout: the first index moves fastest), both attribute spellings, typedefs
-- carrying attributes, automatic axes of nested @outer/@inner loops.
do
  local knl = kernel([==[
    typedef float *mat_t @dim(cols, rows);
    [[okl_kernel("")]] void dims(const int rows, const int cols, mat_t a, float *b @dim(rows, cols) @dimOrder(1, 0)) {
      @outer for (int r = 0; r < rows; ++r) {
        [[okl_outer("")]] for (int c0 = 0; c0 < cols; c0 += 4) {
          for (int c = c0; c < c0 + 4; ++c; [[okl_inner("")]]) {
            if (c < cols) {
              b(r, c) = a(c, r) * 2;
            }
          }
        }
      }
    }]==])
  T.check_equal(tostring(knl):match("r: g%.%d"), "r: g.1", "automatic @outer axis of the outer loop")
  local rows, cols = 5, 7
  local a = lp.rand({ rows * cols }, "float32", 8)
  T.on_each_executor(function(exec, name)
    local b = lp.zeros({ rows * cols }, "float32")
    knl(exec, { rows = rows, cols = cols, a = a, b = b })
    -- a(c, r) is a[c + cols*r]; b(r, c) with @dimOrder(1, 0) is b[c + cols*r].
    T.check_array(b, function(k) return 2 * a:get(k) end, "@dim on " .. name, { rtol = 1e-6 })
  end)
end

-- @atomic updates (real atomics on every target), @barrier, @nobarrier and the defines option.
do
  local knl = kernel([==[
    @kernel void hist(const int n, const int *bin, int *counts, int *total, int *sh) {
      for (int b = 0; b < (n + B - 1) / B; ++b; @outer) {
        @shared int local_counts[8];
        @nobarrier for (int t = 0; t < B; ++t; @inner) {
          if (t < 8) local_counts[t] = 0;
        }
        @barrier;
        for (int t = 0; t < B; ++t; @inner) {
          const int i = b * B + t;
          if (i < n) {
            @atomic local_counts[bin[i]] += 1;
            @atomic total[0]++;
          }
        }
        for (int t = 0; t < B; ++t; @inner) {
          if (t < 8) {
            @atomic { counts[t] += local_counts[t]; }
            sh[b * 8 + t] = local_counts[t];
          }
        }
      }
    }]==], { defines = { B = 32 } })
  local n = 300
  local bin = T.array_from({ n }, "int32", function(i) return (i * i + 3 * i) % 8 end)
  T.on_each_executor(function(exec, name)
    local counts, total = lp.zeros({ 8 }, "int32"), lp.zeros({ 1 }, "int32")
    local groups = (n + 31) // 32
    local sh = lp.zeros({ groups * 8 }, "int32")
    knl(exec, { n = n, bin = bin, counts = counts, total = total, sh = sh })
    T.check_array(counts, function(v)
      local c = 0
      for i = 0, n - 1 do if bin:get(i) == v then c = c + 1 end end
      return c
    end, "histogram on " .. name)
    T.check_array(total, function() return n end, "atomic ++ on " .. name)
    T.check_array(sh, function(k)
      local g, v = k // 8, k % 8
      local c = 0
      for i = g * 32, math.min(n, g * 32 + 32) - 1 do if bin:get(i) == v then c = c + 1 end end
      return c
    end, "per-group counts on " .. name)
  end)
  T.check_contains(lp.generate_code(knl), "atomic_add")
end

-- Code before the first @outer loop is scalar setup; consecutive @outer loops run in order (a global barrier).
do
  local knl = kernel([==[
    @kernel void two_phase(const int n, const float *p, float *a, float *b) {
      const float scale = 3.0f;
      int half = n / 2;
      float offset = p[0];
      for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {
        a[i] = i * scale + offset;
      }
      for (int i = 0; i < half; ++i; @tile(16, @outer, @inner)) {
        b[i] = a[n - 1 - i] + a[i] + half - offset;
      }
    }]==])
  local n = 50
  local p = lp.array({ 0.5 }, "float32")
  T.on_each_executor(function(exec, name)
    local a, b = lp.zeros({ n }, "float32"), lp.zeros({ n // 2 }, "float32")
    knl(exec, { n = n, p = p, a = a, b = b })
    T.check_array(b, function(i) return 3 * (n - 1 - i) + 3 * i + n // 2 + 0.5 end, "two @outer loops on " .. name)
  end)
  -- The setup runs again before the second loop, which is exact only if no loop changes what it reads.
  T.expect_error("OKLError", "code before the @outer loops reads 'a', which an @outer loop writes", lp.parse_okl, [==[
    @kernel void k(const int n, float *a) {
      float first = a[0];
      for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { a[i] = i; }
      for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { a[i] += first; }
    }]==])
end

-- @tile with check=false runs the last tile whole; with a step and a start, and @inner loops starting at 1.
do
  local knl = kernel([==[
    @kernel void tiles(const int n, int *a, int *b, int *c) {
      for (int i = 0; i < n; ++i; @tile(16, @outer, @inner, check=false)) { a[i] = i + 1; }
      for (int i = 3; i < n; i += 2; @tile(4, @outer, @inner)) { b[i] = i; }
      for (int g = 0; g < 2; ++g; @outer) {
        for (int t = 1; t <= 16; ++t; @inner) { c[g * 17 + t] = t; }
      }
    }]==])
  local n = 40
  T.on_each_executor(function(exec, name)
    local a, b, c = lp.zeros({ 64 }, "int32"), lp.zeros({ 64 }, "int32"), lp.zeros({ 34 }, "int32")
    knl(exec, { n = n, a = a, b = b, c = c })
    T.check_array(a, function(i) return i < 48 and i + 1 or 0 end, "@tile check=false on " .. name)
    T.check_array(b, function(i) return (i >= 3 and i < n and i % 2 == 1) and i or 0 end, "@tile with a step on " .. name)
    T.check_array(c, function(k) return k % 17 end, "@inner from 1 on " .. name)
  end)
end

-- break and continue in sequential loops: the rest of the body is predicated on a flag the jump sets.
do
  local knl = kernel([==[
    @kernel void jumps(const int n, const int *a, int *first, int *sum_odd) {
      for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) {
        int f = -1;
        for (int k = 0; k < 20; ++k) {
          if (a[i * 20 + k] > 80) {
            f = k;
            break;
          }
        }
        first[i] = f;
        int s = 0;
        for (int k = 0; k < 20; ++k) {
          if (k % 2 == 0) continue;
          for (int m = 0; m < 3; ++m) {
            if (m == 2) break;
            s += a[i * 20 + k];
          }
        }
        sum_odd[i] = s;
      }
    }]==])
  local n = 12
  local a = T.array_from({ n * 20 }, "int32", function(x) return (x * 37 + 11) % 97 end)
  T.on_each_executor(function(exec, name)
    local first, sum_odd = lp.zeros({ n }, "int32"), lp.zeros({ n }, "int32")
    knl(exec, { n = n, a = a, first = first, sum_odd = sum_odd })
    T.check_array(first, function(i)
      for k = 0, 19 do if a:get(i * 20 + k) > 80 then return k end end
      return -1
    end, "break on " .. name)
    T.check_array(sum_odd, function(i)
      local s = 0
      for k = 1, 19, 2 do s = s + 2 * a:get(i * 20 + k) end
      return s
    end, "continue on " .. name)
  end)
end

-- switch: cases ending in break, shared labels, default; the selector read once, before the cases run.
do
  local knl = kernel([==[
    @kernel void sw(const int n, int *a, int *out) {
      for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) {
        int r = 0;
        switch (a[i] % 5) {
          case 0:
            r = 10;
            a[i] = 1;  // does not change which case runs
            break;
          case 1:
          case 3:
            r = 20;
            break;
          default:
            r = 30 + a[i];
        }
        out[i] = r;
      }
    }]==])
  local n = 20
  T.on_each_executor(function(exec, name)
    local a = T.array_from({ n }, "int32", function(i) return i * 3 end)
    local out = lp.zeros({ n }, "int32")
    knl(exec, { n = n, a = a, out = out })
    T.check_array(out, function(i)
      local m = (i * 3) % 5
      if m == 0 then return 10 elseif m == 1 or m == 3 then return 20 else return 30 + i * 3 end
    end, "switch on " .. name)
  end)
  T.expect_error("OKLError", "a switch case must end with 'break'", lp.parse_okl,
    "@kernel void k(int *a) { for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) switch (j) { case 0: a[j] = 1; case 1: a[j] = 2; } }")
end

-- A `break` before the end of a case leaves the switch, not the loop around it (it did, silently: finding 49 of
-- docs/reliability.md); a `continue` in a case is the loop's, also as its last statement; a switch outside any
-- loop may break early too; a case may end in a block or an if-else whose branches break.
do
  local knl = kernel([==[
    @kernel void sw_break(const int n, const int *a, int *out, int *first) {
      for (int r = 0; r < n; ++r; @tile(4, @outer, @inner)) {
        int total = 0;
        for (int c = 0; c < 6; ++c) {
          switch (a[r*6 + c]) {
            case 1:
              if (c > 2) break;
              total += 10;
              break;
            case 3:
              if (c == 0) continue;
              total += 100;
              break;
            case 4:
              total += 5;
              continue;
            default:
              total += 1;
          }
          total += 1000;
          if (a[r*6 + c] == 9) break;
        }
        out[r] = total;
        int f = -1;
        switch (a[r*6]) {
          case 2:
            if (a[r*6 + 1] == 2) break;
            f = 2;
            break;
          case 4: {
            f = 40;
            break;
          }
          case 1:
            if (a[r*6 + 1] == 1) { f = 11; break; } else { f = 12; break; }
          default:
            f = a[r*6];
        }
        first[r] = f;
      }
    }]==])
  local rows = { { 1, 1, 1, 1, 2, 2 }, { 2, 1, 9, 1, 1, 1 }, { 3, 3, 1, 1, 1, 9 }, { 2, 2, 3, 1, 1, 1 },
    { 9, 1, 1, 1, 1, 1 }, { 1, 3, 1, 3, 1, 3 }, { 4, 4, 1, 9, 4, 1 }, { 4, 2, 1, 1, 1, 1 } }
  local function reference(row)
    local total = 0
    for c = 0, 5 do
      local v = row[c + 1]
      local skip = false
      if v == 1 then
        if c <= 2 then total = total + 10 end
      elseif v == 3 then
        if c == 0 then skip = true else total = total + 100 end
      elseif v == 4 then
        total, skip = total + 5, true
      else
        total = total + 1
      end
      if not skip then
        total = total + 1000
        if v == 9 then break end
      end
    end
    local f = row[1]
    if row[1] == 2 then f = row[2] == 2 and -1 or 2 end
    if row[1] == 4 then f = 40 end
    if row[1] == 1 then f = row[2] == 1 and 11 or 12 end
    return total, f
  end
  T.on_each_executor(function(exec, name)
    local a = T.array_from({ 6 * #rows }, "int32", function(k) return rows[k // 6 + 1][k % 6 + 1] end)
    local out, first = lp.zeros({ #rows }, "int32"), lp.zeros({ #rows }, "int32")
    knl(exec, { n = #rows, a = a, out = out, first = first })
    T.check_array(out, function(r) return (reference(rows[r + 1])) end, "break in a switch in a loop on " .. name)
    T.check_array(first, function(r) return select(2, reference(rows[r + 1])) end, "break in a switch on " .. name)
  end)
end

-- Structs: one passed by value is one argument per field (p_x, p_y); a pointer to structs is a flat array.
do
  local knl = kernel([==[
    typedef struct { double x, y; } point;
    struct cell { float v[2]; float w; };
    @kernel void structs(const int n, point p, cell *cells, float *out) {
      for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) {
        cells[i].v[1] = cells[i].w * 2;
        (cells + i)->w = p.x;
        out[i] = cells[i].v[0] + p.y * i;
      }
    }]==])
  local n = 10
  T.on_each_executor(function(exec, name)
    local cells = T.array_from({ 3 * n }, "float32", function(k) return k end)
    local out = lp.zeros({ n }, "float32")
    knl(exec, { n = n, p_x = 0.5, p_y = 2.0, cells = cells, out = out })
    T.check_array(cells, function(k)
      local i, f = k // 3, k % 3
      if f == 1 then return (3 * i + 2) * 2 elseif f == 2 then return 0.5 end
      return k
    end, "struct fields on " .. name)
    T.check_array(out, function(i) return 3 * i + 2 * i end, "struct value parameter on " .. name)
  end)
end

-- Typedefs carrying @shared and @exclusive (the OKL document's examples), @max_inner_dims and @simd_length.
do
  local knl = kernel([==[
    typedef float sh_float32_t @shared;
    typedef float ex_float32_t @exclusive;
    @kernel void typed(float *out) {
      for (int i = 0; i < 4; ++i; @outer @max_inner_dims(8) @simd_length(8)) {
        sh_float32_t b[8];
        ex_float32_t e;
        for (int j = 0; j < 8; ++j; @inner) { e = i * 10 + j; b[j] = e; }
        for (int j = 0; j < 8; ++j; @inner) { out[i * 8 + j] = b[7 - j] + e; }
      }
    }]==])
  T.check_contains(lp.generate_code(knl), "__local float b[8]")
  T.on_each_executor(function(exec, name)
    local out = lp.zeros({ 32 }, "float32")
    knl(exec, { out = out })
    T.check_array(out, function(k) return 20 * (k // 8) + 7 end, "typedef'd @shared/@exclusive on " .. name)
  end)
end

-- @nobarrier waives the barrier the exact analysis would put between its loop and the next @inner loop; the
-- barrier stays where a later loop needs it, and none goes where nothing crosses work-items.
do
  local function barriers(first_loop_attr, second_index)
    local code = lp.generate_code(kernel(([==[
      @kernel void k(float *a) {
        for (int b = 0; b < 4; ++b; @outer) {
          @shared float s[17];
          ATTR for (int t = 0; t < 16; ++t; @inner) { s[t] = t; }
          for (int t = 0; t < 16; ++t; @inner) { a[b * 16 + t] = s[INDEX]; }
        }
      }]==]):gsub("ATTR", first_loop_attr):gsub("INDEX", second_index), nil))
    return T.count_plain(code, "barrier(CLK_LOCAL_MEM_FENCE)")
  end
  T.check_equal(barriers("", "t + 1"), 1, "barriers where a neighbour's value is read")
  T.check_equal(barriers("@nobarrier", "t + 1"), 0, "barriers under @nobarrier")
  T.check_equal(barriers("", "t"), 0, "barriers where each work-item reads its own value")
end

-- `&x` points at the element x: `&a[k]` at a's element k (its index kept, as C does), `&m(i, j)` at m's element
-- with @dim, `&*p` where p points. A kernel's `T&` arguments are values, as OCCA passes them to a device; a
-- device function's `T&` parameter that it assigns is the caller's variable, one it only reads a value.
do
  local knl = kernel([==[
    static void scale(float& x, const int& k) { x *= k; }
    typedef float *Mat @dim(4, 8);
    @kernel void k(const int& n, float *a, Mat m, float *out) {
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
        float *row = &a[2 * i + 1];
        float *at = &m(i % 4, i / 4);
        float *same = &*at;
        float x = row[0] + row[1];
        scale(x, 3);
        out[i] = x + same[0] + *(&out[i]) * 0;
      }
    }]==])
  local n = 32
  local a = T.array_from({ 2 * n + 2 }, "float32", function(k) return k * 0.5 end)
  local m = T.array_from({ n }, "float32", function(k) return 100 + k end)
  T.on_each_executor(function(exec, name)
    local out = lp.zeros({ n }, "float32")
    knl(exec, { n = n, a = a, m = m, out = out })
    T.check_array(out, function(i)
      local x = (a:get(2 * i + 1) + a:get(2 * i + 2)) * 3
      return x + m:get(i % 4 + 4 * (i // 4))
    end, "addresses and references on " .. name)
  end)
  T.expect_error("OKLError", "its argument must be a local float32 variable", lp.parse_okl, [==[
    static void bump(float& x) { x += 1; }
    @kernel void k(float *a) {
      for (int i = 0; i < 8; ++i; @tile(4, @outer, @inner)) { bump(a[i]); }
    }]==])
  T.expect_error("OKLError", "references are supported only as function parameters", lp.parse_okl, [==[
    @kernel void k(float *a) {
      for (int i = 0; i < 8; ++i; @tile(4, @outer, @inner)) { float& r = a[i]; r = 1; }
    }]==])
end

-- @outer loops inside an if (as OCCA's host code guards their launches): every statement of theirs is guarded;
-- the global barrier before a later top-level @outer loop stays unconditional, and the setup code (m) runs again
-- before it, outside the if that reads it.
do
  local k = lp.parse_okl([==[
    @kernel void k(const int n, const int flag, float *a, float *b) {
      int m = 2 * flag;
      m += 1;
      if (flag > 0) {
        for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { a[i] = i + m; }
      }
      if (m > 4) {
        for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { b[i] = a[n - 1 - i] * m; }
      } else {
        for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { b[i] = -1; }
      }
    }]==]).k
  T.on_each_executor(function(exec, name)
    for _, flag in ipairs({ 0, 1, 3 }) do
      local n, m = 10, 2 * flag + 1
      local a, b = lp.zeros({ n }, "float32"), lp.zeros({ n }, "float32")
      k(exec, { n = n, flag = flag, a = a, b = b })
      local function a_ref(i) return flag > 0 and i + m or 0 end
      T.check_array(a, a_ref, "a of @outer loops in an if, flag " .. flag .. ", on " .. name)
      T.check_array(b, function(i) return m > 4 and a_ref(n - 1 - i) * m or -1 end,
        "b of @outer loops in an if and its else, flag " .. flag .. ", on " .. name)
    end
  end)
end

-- A while loop that is a for loop (its variable declared just before, updated last, read by nothing after):
-- lowered as one, an affine loop or, for `d *= 2`, a table of its values; a do-while loop too where its
-- condition holds at the start; also in the code before the @outer loops.
do
  local k = lp.parse_okl([==[
    @kernel void k(const int n, float *a, float *b) {
      float scale = 1;
      int t = 0;
      while (t < 2) { scale *= 2; t++; }
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
        float s = scale - 4;
        int j = 0;
        while (j < 3) {
          s += a[3 * i + j];
          j++;
        }
        int d = 1;
        while (d < 8) { s += d; d *= 2; }
        int r = 0;
        do { s += 10 * r; r++; } while (r < 4);
        b[i] = s;
      }
    }]==]).k
  T.on_each_executor(function(exec, name)
    local n = 6
    local a, b = lp.rand({ 3 * n }, "float32", 3), lp.zeros({ n }, "float32")
    k(exec, { n = n, a = a, b = b })
    T.check_array(b, function(i) return a:get(3 * i) + a:get(3 * i + 1) + a:get(3 * i + 2) + 1 + 2 + 4 + 60 end,
      "sums of while and do-while loops on " .. name, { rtol = 1e-6 })
  end)
end

print("okl semantics: ok")

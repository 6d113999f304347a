-- OpenCL's vector types lowered lane by lane, device functions kept as functions of the program (while loops,
-- returns inside loops), and loops over a variable declared before them: each kernel runs on every executor
-- against the same computation in Lua; what has no place in them is an OKLError naming the line.
local lp = require("loom")
local T = require("helpers")

local function kernel(src, opts) return lp.parse_okl(src, opts)[1] end
local function f32(x) return (string.unpack("f", string.pack("f", x))) end

-- Lanewise arithmetic with scalars converted to the lane type, swizzles (also as places), compound
-- assignments, vector literals, the geometric functions, lanewise math and clamp, vector arguments and a
-- function returning a vector (inlined).
do
  local knl = kernel([==[
    float3 twice(const float3 p) { return 2 * p; }
    @kernel void vecs(const int n, const float3 d, float *out) {
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
        float3 p = (float3)(i, 2*i, 3.0f);
        float3 q;
        q.x = 1.0f;
        q.yz = p.zy;
        p += d * 0.5f;
        p.x -= 1.0f;
        p = p.zxy;
        const float3 r = normalize(twice(p + q));
        out[8*i + 0] = length(p) + dot(p, q);
        out[8*i + 1] = r.x + r.y * r.z;
        out[8*i + 2] = clamp(p, 0.0f, 2.0f).z + cross(p, q).y;
        out[8*i + 3] = sizeof(float3) + distance(p, q);
        out[8*i + 4] = fabs(-p).y + (-q).z;
        out[8*i + 5] = (i > 2 ? p : q).x;
        const int4 v = (int4)(i, -i, 7, i / 2);
        out[8*i + 6] = (v * 3 + 1).y + v.w;
        out[8*i + 7] = max(v, (int4)(0)).y;
      }
    }]==])
  local n, d = 10, { 0.5, -1.5, 2.0 }
  local function ref(i)
    local p = { f32(i), f32(2 * i), 3.0 }
    local q = { 1.0, p[3], p[2] }
    for k = 1, 3 do p[k] = f32(p[k] + f32(d[k] * 0.5)) end
    p[1] = f32(p[1] - 1)
    p = { p[3], p[1], p[2] }
    local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
    local s = { 2 * (p[1] + q[1]), 2 * (p[2] + q[2]), 2 * (p[3] + q[3]) }
    local l = math.sqrt(dot(s, s))
    local r = { s[1] / l, s[2] / l, s[3] / l }
    local diff = { p[1] - q[1], p[2] - q[2], p[3] - q[3] }
    local v = { i, -i, 7, (i - i % 2) // 2 }
    return {
      math.sqrt(dot(p, p)) + dot(p, q),
      r[1] + r[2] * r[3],
      math.min(math.max(p[3], 0), 2) + (p[3] * q[1] - p[1] * q[3]),
      16 + math.sqrt(dot(diff, diff)),
      math.abs(p[2]) - q[3],
      (i > 2 and p or q)[1],
      v[2] * 3 + 1 + v[4],
      math.max(v[2], 0),
    }
  end
  T.on_each_executor(function(exec, name)
    local out = lp.zeros({ 8 * n }, "float32")
    knl(exec, { n = n, d_x = d[1], d_y = d[2], d_z = d[3], out = out })
    T.check_array(out, function(k) return ref(k // 8)[k % 8 + 1] end, "vector arithmetic on " .. name, { rtol = 1e-5, atol = 1e-5 })
  end)
end

-- A device function whose loop runs until a value converges and returns from inside it is kept as a
-- function, with the functions it calls; a loop over a variable declared before it leaves C's value in it
-- (the index of a `break`, else the first index past the end); `continue` still runs the step.
do
  local knl = kernel([==[
    float step_size(const float x) {
      int k = 0;
      do { k++; } while (k * k < x);
      return 1.0f / k;
    }
    float settle(const float2 start, const float limit) {
      float t = start.x;
      int steps = 0;
      while (t < limit) {
        t += step_size(t) + start.y;
        steps++;
        if (steps > 50) return -1.0f;
        if (steps % 2 == 0) continue;
        t += 0.125f;
      }
      for (int j = 0; j < 3; j += 1) {
        if (j == 1) continue;
        t += j;
      }
      return t + steps;
    }
    @kernel void marcher(const int n, const float *a, float *out, int *stop) {
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
        out[i] = settle((float2)(a[i], 0.25f), 6.0f);
        int k;
        for (k = 0; k < 9.5f; ++k) {
          if (k == 1) continue;
          if (k * a[i] > 4) break;
        }
        stop[i] = k;
      }
    }]==])
  local n = 13
  local a = T.array_from({ n }, "float32", function(i) return i * 0.5 - 1 end)
  local function step_size(x)
    local k = 0
    repeat k = k + 1 until not (k * k < x)
    return f32(1 / k)
  end
  local function settle(x, y, limit)
    local t, steps = x, 0
    while t < limit do
      t = f32(t + f32(step_size(t) + y))
      steps = steps + 1
      if steps > 50 then return -1 end
      if steps % 2 ~= 0 then t = f32(t + 0.125) end
    end
    t = f32(t + 0 + 2)
    return f32(t + steps)
  end
  T.on_each_executor(function(exec, name)
    local out, stop = lp.zeros({ n }, "float32"), lp.zeros({ n }, "int32")
    knl(exec, { n = n, a = a, out = out, stop = stop })
    T.check_array(out, function(i) return settle(a:get(i), 0.25, 6) end, "kept functions on " .. name, { rtol = 1e-6 })
    T.check_array(stop, function(i)
      for k = 0, 9 do
        if k ~= 1 and k * a:get(i) > 4 then return k end
      end
      return 10
    end, "the loop variable after the loop on " .. name)
  end)
  T.check_contains(lp.generate_code(knl), "while (t < limit)")
end

-- What a vector or a kept function cannot do is an OKLError at its line.
local function rejects(src, text, line)
  local err = T.expect_error("OKLError", text, lp.parse_okl, src)
  T.check_equal(err.line, line, "line of: " .. text)
end
local loop = "@kernel void k(float *o) {\n  for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) {\n"
rejects(loop .. "    float3 v = (float3)(1, 2, 3);\n    o[v] = 1;\n  }\n}", "a vector (float32 x 3) where a scalar is needed", 4)
rejects(loop .. "    float3 v = (float3)(1, 2, 3);\n    o[j] = (v < v).x;\n  }\n}", "'<' on vectors is not supported", 4)
rejects(loop .. "    float3 v = (float3)(1, 2, 3);\n    o[j] = v.w;\n  }\n}", "'.w' selects no lane of a vector of 3", 4)
rejects(loop .. "    float3 v = (float3)(1, 2, 3);\n    o[j] = 0;\n    float s = v;\n  }\n}", "a vector (float32 x 3) where a scalar is needed", 5)
rejects(loop .. "    float4 v = (float4)(1, 2, 3, 4);\n    float3 w = v;\n  }\n}", "a vector of 4 lanes where 3 are needed", 4)
rejects("@kernel void k(float3 *p) {\n  for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) {}\n}",
  "pointers to vector types are not supported", 1)
local looping = "float f(float *p) {\n  int k = 0;\n  while (p[k] > 0) k++;\n  return k;\n}\n"
rejects(looping .. "@kernel void k(float *o) {\n  for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) o[j] = f(o);\n}",
  "so parameter 'p' must be a number or a vector passed by value", 1)
rejects("float g(const float x);\nfloat f(const float x) {\n  while (x > 1) return g(x / 2);\n  return x;\n}\n" ..
  "float g(const float x) { return f(x); }\n" ..
  "@kernel void k(float *o) {\n  for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) o[j] = f(o[j]);\n}",
  "device function 'f' calls itself: recursion is not supported", 6)
rejects("float3 f(const float x) {\n  while (x > 1) return (float3)(x);\n  return (float3)(0);\n}\n" ..
  "@kernel void k(float *o) {\n  for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) o[j] = f(o[j]).x;\n}",
  "device function 'f' is kept as a function (its control flow has no loop-nest form) and so must return a number", 1)

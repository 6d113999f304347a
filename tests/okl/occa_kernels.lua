-- OCCA's own example kernels (libocca/occa examples/, MIT License, Copyright (c) 2014-2024 David Medina and
-- Tim Warburton), as their host programs build them: each runs and equals a plain-Lua reference, or is
-- rejected with the rule that applies (docs/okl.md lists every file and its outcome).
local lp = require("loom")
local T = require("helpers")

-- examples/cpp/30_device_function/addVectors.okl: a @shared array passed to a device function, @barrier
-- inside an @inner loop.
local device_function = lp.parse_okl([==[
static float add(const float* a,
          int i,
          const float* b,
          int j) {
  return a[i] + b[j];
}

#define BLOCK_SIZE 4

@kernel 
void addVectors(const int N,
                const float* a,
                const float* b,
                float *ab) {

  @outer
  for(int i=0; i < N; i+=BLOCK_SIZE) {
    @shared float s_b[BLOCK_SIZE];
    const float* g_a = a;
    @inner
    for(int j=0; j < BLOCK_SIZE; ++j) {
      s_b[j] = b[i+j];
      @barrier;

      ab[i+j] = add(g_a,i+j,s_b,j);
    }
  }
}
]==]).addVectors

-- examples/cpp/06_shared_memory/reduction.okl, second kernel: @atomic through a pointer.
local atomics = lp.parse_okl([==[
@kernel void reductionWithAtomics(const int entries,
                                  const float *vec,
                                  float *sum) {
  for (int i = 0; i < entries; ++i; @tile(16, @outer, @inner)) {
    @atomic *sum += vec[i];
  }
}
]==]).reductionWithAtomics

-- examples/cpp/18_nonblocking_streams/powerOfPi.okl with the host's defines: a strided sequential loop.
local power = lp.parse_okl([==[
@kernel void powerOfPi(float* x,
                       int entries) {
  for (int g = 0; g < group; g++; @outer) {
    for (int i = 0; i < block; ++i; @inner) {
      for (int j=i+g*block; j < entries; j+=block*group) {
        x[j] = sqrt(pow(3.14159,j));
      }
    }
  }
}
]==], { defines = { block = 64, group = 4 } }).powerOfPi

local n = 1000
local a, b = lp.rand({ n }, "float32", 31), lp.rand({ n }, "float32", 32)
T.on_each_executor(function(exec, name)
  local ab = lp.zeros({ n }, "float32")
  device_function(exec, { N = n, a = a, b = b, ab = ab })
  T.check_array(ab, function(i) return a:get(i) + b:get(i) end, "device function addVectors on " .. name, { rtol = 1e-6 })

  local sum = lp.zeros({ 1 }, "float32")
  atomics(exec, { entries = n, vec = a, sum = sum })
  local want = 0
  for i = 0, n - 1 do want = want + a:get(i) end
  T.check_array(sum, function() return want end, "reductionWithAtomics on " .. name, { rtol = 1e-4 })

  local x = lp.zeros({ 300 }, "float32")
  power(exec, { x = x, entries = 300 })
  T.check_array(x, function(j)
    local v = math.sqrt(3.14159 ^ j) -- computed in double, as C does, then stored to float
    if v < 3.4e38 then return v end
  end, "powerOfPi on " .. name, { rtol = 1e-5 })
  T.check_equal(x:get(299), math.huge, "powerOfPi overflows float on " .. name)
end)

-- examples/cpp/05_custom_types/addVectors.okl: pointers to structs of one scalar type are pointers to that type.
local custom = lp.parse_okl([==[
struct myFloat {
  float value;
};

typedef struct myFloat2_t {
  float x, y;
} myFloat2;

typedef struct {
  float values[4];
} myFloat4;

@kernel void addVectors(const int entries,
                        const myFloat *a,
                        const myFloat2 *b,
                        myFloat4 *ab) {
  for (int i = 0; i < (entries / 4); ++i; @tile(16, @outer, @inner)) {
    ab[i].values[0] = a[4*i + 0].value + b[2*i + 0].x;
    ab[i].values[1] = a[4*i + 1].value + b[2*i + 0].y;
    ab[i].values[2] = a[4*i + 2].value + b[2*i + 1].x;
    ab[i].values[3] = a[4*i + 3].value + b[2*i + 1].y;
  }
}
]==]).addVectors
T.on_each_executor(function(exec, name)
  local ab = lp.zeros({ n }, "float32")
  custom(exec, { entries = n, a = a, b = b, ab = ab })
  T.check_array(ab, function(i) return a:get(i) + b:get(i) end, "custom types on " .. name, { rtol = 1e-6 })
end)

-- examples/cpp/16_mandelbulb/rayMarcher.okl: tests/okl/occa_raymarcher.lua. Mixed-type structs have no flat layout.
local err
T.expect_error("OKLError", "struct pair mixes field types (float32, int32)", lp.parse_okl,
  "struct pair { float x; int n; };\n@kernel void k(pair *p) { for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) p[j].x = 1; }")

-- tests/files/argKernel.okl is for OCCA's serial C++ mode alone (its test builds it with `serial: {include_std:
-- true}`): it prints its arguments, strings among them, and throws.
err = T.expect_error("OKLError", { "a string literal (\"nullPtr: %p\\n\")", "no strings, and so no printf" },
  lp.parse_okl, "@kernel void argKernel(int *mem) {\n  for (int i = 0; i < 1; ++i; @tile(1, @outer, @inner)) {\n" ..
  "    printf(\"nullPtr: %p\\n\", mem);\n  }\n}")
T.check_equal(err.line, 3, "line of the string literal")
err = T.expect_error("OKLError", "'throw' is C++: OKL kernels are C", lp.parse_okl,
  "@kernel void argKernel(char i8) {\n  for (int i = 0; i < 1; ++i; @tile(1, @outer, @inner)) {\n" ..
  "    if (i8 != 3) {\n      throw 1;\n    }\n  }\n}")
T.check_equal(err.line, 4, "line of the throw")

-- examples/cpp/31_oklt_v3_moving_avg/movingAverage.okl needs OCCA's clang-based transpiler (C++ templates).
err = T.expect_error("OKLError", "'template' is not supported by Loom's OKL front end", lp.parse_okl,
  "#define WINDOW 4\ntemplate<class T, int THREADS>\nstruct MovingAverage { T *data; };\n")
T.check_equal(err.line, 2, "line of the template")

print("okl occa kernels: ok")

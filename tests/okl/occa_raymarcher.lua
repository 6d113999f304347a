-- OCCA's examples/cpp/16_mandelbulb/rayMarcher.okl (libocca/occa, MIT License, Copyright (c) 2014-2024 David
-- Medina and Tim Warburton), built as its host program builds it: vector types (float3) lowered lane by lane,
-- a device function with a `while` loop and a `return` inside it (castShadow) kept as a function of the
-- program, a loop over a variable declared before it and read after it. Every executor's image is compared with
-- a plain-C transcription of the kernel compiled by the system's compiler.
local lp = require("loom")
local T = require("helpers")

local source = [==[
#ifndef tFloat
#  define tFloat  float
#  define tFloat3 float3
#endif

#define PI 3.1415926535897932

const int    ITERATIONS     = 10;
const tFloat POWER          = 8;
const tFloat MAX_ITERATIONS = 5000;
const tFloat DEPTH_OF_FIELD = 2.5;
const tFloat EYE_DISTANCE_FROM_NEAR_FIELD = 2.2;
const tFloat DEG_TO_RAD = (PI / 180.0);

tFloat sphere(const tFloat3 pos) {
  return length(pos) - 1.5;
}

tFloat mandelbulb(const tFloat3 pos) {
  tFloat3 z = pos;
  tFloat dr = 1.0;
  tFloat r  = 0.0;

  for (int i = 0; i < ITERATIONS; ++i) {
    r = length(z);
    if (r > DEPTH_OF_FIELD) {
      break;
    }
    const tFloat theta    = POWER * acos(z.z / r);
    const tFloat phi      = POWER * atan2(z.y, z.x);
    const tFloat rPm1     = pow((tFloat) r, (tFloat) POWER - 1);
    const tFloat zr       = r*rPm1;
    const tFloat sinTheta = sin(theta);
    dr = rPm1 * POWER * dr + 1.0;

    z.x = pos.x + zr*(sinTheta * cos(phi));
    z.y = pos.y + zr*(sinTheta * sin(phi));
    z.z = pos.z + zr*(cos(theta));
  }

  return (0.5 * r * log(r) / dr);
}


tFloat castShadow(const tFloat3 rayLocation,
                  const tFloat3 lightDirection,
                  const tFloat min,
                  const tFloat max,
                  const tFloat k) {
  tFloat ret = 1.0f;
  tFloat t = min;

  while (t < max) {
    const tFloat h = SHAPE_FUNCTION(rayLocation - (t * lightDirection));
    if (h < 0.001f)
      return 0.0f;

    const tFloat kht = (k * h / t);
    if (kht < ret)
      ret = kht;

    t += h;
  }

  return ret;
}

@kernel void rayMarcher(char *rgba @dim(4, WIDTH, HEIGHT),
                        const tFloat3 lightDirection,
                        const tFloat3 viewDirectionY,
                        const tFloat3 viewDirectionX,
                        const tFloat3 nearFieldLocation,
                        const tFloat3 eyeLocation) {

  for (int y = 0; y < HEIGHT; ++y; @outer) {
    const tFloat ny = y - (0.5 * HEIGHT);
    const tFloat3 p_viewDirectionY = (ny * PIXEL) * viewDirectionY;

    for (int xg = 0; xg < WIDTH; xg += BATCH_SIZE; @outer) {
      for (int x = xg; x < (xg + BATCH_SIZE); ++x; @inner) {
        const tFloat nx = x - (0.5 * WIDTH);
        const tFloat3 p_viewDirectionX = (nx*PIXEL) * viewDirectionX;

        if (x < WIDTH) {
          tFloat3 rayLocation = (nearFieldLocation + p_viewDirectionY + p_viewDirectionX);
          const tFloat3 rayDirection = normalize(rayLocation - eyeLocation);

          tFloat d, distanceFromCamera;

          int iterations;
          for (iterations = 0; iterations < MAX_ITERATIONS; ++iterations) {
            d = SHAPE_FUNCTION(rayLocation);
            rayLocation += d * rayDirection;
            distanceFromCamera = length(nearFieldLocation - rayLocation);

            if ((d < HALF_PIXEL) || (DEPTH_OF_FIELD <= distanceFromCamera)) {
              break;
            }
          }

          if (distanceFromCamera < DEPTH_OF_FIELD) {
            const tFloat smallStep = 0.01f;
            const tFloat bigStep   = 0.02f;

            tFloat3 leftLoc, rightLoc;

            rayLocation.x -= smallStep;
            leftLoc.x = SHAPE_FUNCTION(rayLocation);
            rayLocation.x += bigStep;
            rightLoc.x = SHAPE_FUNCTION(rayLocation);
            rayLocation.x -= smallStep;

            rayLocation.y -= smallStep;
            leftLoc.y = SHAPE_FUNCTION(rayLocation);
            rayLocation.y += bigStep;
            rightLoc.y = SHAPE_FUNCTION(rayLocation);
            rayLocation.y -= smallStep;

            rayLocation.z -= smallStep;
            leftLoc.z = SHAPE_FUNCTION(rayLocation);
            rayLocation.z += bigStep;
            rightLoc.z = SHAPE_FUNCTION(rayLocation);
            rayLocation.z -= smallStep;

            const tFloat3 normal    = normalize(leftLoc - rightLoc);
            const tFloat3 halfway   = normalize(rayDirection + lightDirection);
            const tFloat3 dotNH     = clamp(halfway * normal, (tFloat) 0.0, (tFloat) 1.0);
            const tFloat dotNL      = clamp((tFloat) dot(lightDirection, normal), (tFloat) 0.0, (tFloat) 1.0);
            const tFloat spec       = pow((tFloat) dotNH.x, (tFloat) 35.0f);
            const tFloat shad       = castShadow(rayLocation, lightDirection, 1.0f, DEPTH_OF_FIELD, 16.0f) + 0.25f;
            const tFloat brightness = (10.0f + (200.0f + spec*45.0f)*shad*dotNL) / 270.0f;

            rgba(0,x,y) = clamp((tFloat) 10 + (380 * brightness), (tFloat) 0, (tFloat) 255);
            rgba(1,x,y) = clamp((tFloat) 10 + (280 * brightness), (tFloat) 0, (tFloat) 255);
            rgba(2,x,y) = clamp((tFloat) 0  + (180 * brightness), (tFloat) 0, (tFloat) 255);
          }
          else {
            rgba(0,x,y) = 155 + clamp((tFloat) 1.5*iterations, (tFloat) 0.0, (tFloat) 100.0);
            rgba(1,x,y) = 205 + clamp((tFloat) 1.5*iterations, (tFloat) 0.0, (tFloat)  50.0);
            rgba(2,x,y) = 255;
          }
        }
      }
    }
  }
}
]==]

-- The scene of main.cpp's updateScene after its first step, in single precision as its tFloat3 holds it.
local function f32(x) return (string.unpack("f", string.pack("f", x))) end
local DEPTH, EYE, DEG = 2.5, 2.2, math.pi / 180
local width, height, batch = 24, 16, 8
local view_angle, light_angle = 151 * DEG, 1 * DEG
local function vec(x, y, z) return { f32(x), f32(y), f32(z) } end
local function scale(s, v) return vec(s * v[1], s * v[2], s * v[3]) end
local function normalize(v) return scale(1 / math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2), v) end
local light = normalize(vec(0.5 * DEPTH * math.cos(light_angle), 0.5 * DEPTH, 0.5 * DEPTH * math.sin(light_angle)))
local near = vec(0.5 * DEPTH * math.cos(view_angle), 0, 0.5 * DEPTH * math.sin(view_angle))
local view = scale(-1, normalize(near))
local inv = 1 / math.sqrt(view[1] ^ 2 + view[3] ^ 2)
local view_x = vec(-inv * view[3], view[2], inv * view[1])
local view_y = vec(view_x[2] * view[3] - view_x[3] * view[2], view_x[3] * view[1] - view_x[1] * view[3],
  view_x[1] * view[2] - view_x[2] * view[1])
local eye = vec(near[1] - EYE * view[1], near[2] - EYE * view[2], near[3] - EYE * view[3])
local pixel = DEPTH / (0.5 * (height + width))
local defines = { WIDTH = width, HEIGHT = height, BATCH_SIZE = batch, SHAPE_FUNCTION = "mandelbulb",
  PIXEL = string.format("%.17g", pixel), HALF_PIXEL = string.format("%.17g", 0.5 * pixel) }

local knl = lp.parse_okl(source, { defines = defines }).rayMarcher
local code = lp.generate_code(knl)
T.check_contains(code, "while (t < max_)")  -- castShadow's loop, in a function of the program
T.check_contains(code, "float castShadow(float rayLocation_x")

-- The plain-C transcription: float3 as a struct, its operations written out, each statement as the OKL one.
local reference_c = [==[
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct { float x, y, z; } float3;
static float3 v3(float x, float y, float z) { float3 v = {x, y, z}; return v; }
static float3 add(float3 a, float3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static float3 sub(float3 a, float3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static float3 mul(float3 a, float3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static float3 scaled(float s, float3 v) { return v3(s * v.x, s * v.y, s * v.z); }
static float dot3(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static float length3(float3 v) { return sqrtf(dot3(v, v)); }
static float3 normalize3(float3 v) { float l = length3(v); return v3(v.x / l, v.y / l, v.z / l); }
static float clampf(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
static float mandelbulb(float3 pos) {
  float3 z = pos; float dr = 1.0; float r = 0.0;
  for (int i = 0; i < 10; ++i) {
    r = length3(z);
    if (r > 2.5f) break;
    const float theta = 8.0f * acosf(z.z / r), phi = 8.0f * atan2f(z.y, z.x);
    const float rPm1 = powf(r, 8.0f - 1), zr = r * rPm1, sinTheta = sinf(theta);
    dr = rPm1 * 8.0f * dr + 1.0;
    z.x = pos.x + zr * (sinTheta * cosf(phi)); z.y = pos.y + zr * (sinTheta * sinf(phi)); z.z = pos.z + zr * cosf(theta);
  }
  return (0.5 * r * logf(r) / dr);
}
static float castShadow(float3 loc, float3 light, float min, float max, float k) {
  float ret = 1.0f, t = min;
  while (t < max) {
    const float h = mandelbulb(sub(loc, scaled(t, light)));
    if (h < 0.001f) return 0.0f;
    const float kht = k * h / t;
    if (kht < ret) ret = kht;
    t += h;
  }
  return ret;
}
int main(int argc, char** argv) {
  float p[15];
  for (int i = 0; i < 15; ++i) p[i] = strtof(argv[i + 1], NULL);
  const float3 light = v3(p[0], p[1], p[2]), vy = v3(p[3], p[4], p[5]), vx = v3(p[6], p[7], p[8]);
  const float3 near = v3(p[9], p[10], p[11]), eye = v3(p[12], p[13], p[14]);
  for (int y = 0; y < HEIGHT; ++y) for (int x = 0; x < WIDTH; ++x) {
    signed char out[3];
    const float ny = y - (0.5 * HEIGHT), nx = x - (0.5 * WIDTH);
    const float3 pvy = scaled((float) (ny * PIXEL), vy), pvx = scaled((float) (nx * PIXEL), vx);
    float3 loc = add(add(near, pvy), pvx);
    const float3 dir = normalize3(sub(loc, eye));
    float d, dist;
    int it;
    for (it = 0; it < 5000; ++it) {
      d = mandelbulb(loc);
      loc = add(loc, scaled(d, dir));
      dist = length3(sub(near, loc));
      if ((d < HALF_PIXEL) || (2.5f <= dist)) break;
    }
    if (dist < 2.5f) {
      float3 left, right;
      loc.x -= 0.01f; left.x = mandelbulb(loc); loc.x += 0.02f; right.x = mandelbulb(loc); loc.x -= 0.01f;
      loc.y -= 0.01f; left.y = mandelbulb(loc); loc.y += 0.02f; right.y = mandelbulb(loc); loc.y -= 0.01f;
      loc.z -= 0.01f; left.z = mandelbulb(loc); loc.z += 0.02f; right.z = mandelbulb(loc); loc.z -= 0.01f;
      const float3 normal = normalize3(sub(left, right)), halfway = normalize3(add(dir, light));
      const float3 nh = mul(halfway, normal);
      const float dotNH = clampf(nh.x, 0.0f, 1.0f), dotNL = clampf(dot3(light, normal), 0.0f, 1.0f);
      const float spec = powf(dotNH, 35.0f), shad = castShadow(loc, light, 1.0f, 2.5f, 16.0f) + 0.25f;
      const float brightness = (10.0f + (200.0f + spec * 45.0f) * shad * dotNL) / 270.0f;
      out[0] = (signed char) (int) clampf(10.0f + (380 * brightness), 0, 255);
      out[1] = (signed char) (int) clampf(10.0f + (280 * brightness), 0, 255);
      out[2] = (signed char) (int) clampf(0.0f + (180 * brightness), 0, 255);
    } else {
      out[0] = (signed char) (int) (155 + clampf((float) 1.5 * it, 0.0f, 100.0f));
      out[1] = (signed char) (int) (205 + clampf((float) 1.5 * it, 0.0f, 50.0f));
      out[2] = (signed char) 255;
    }
    for (int c = 0; c < 3; ++c) printf("%d\n", out[c]);
  }
  return 0;
}
]==]

local params = { light, view_y, view_x, near, eye }
local argv = {}
for _, v in ipairs(params) do for _, c in ipairs(v) do argv[#argv + 1] = string.format("%.9g", c) end end
local want = T.c_program_numbers(string.format("#define WIDTH %d\n#define HEIGHT %d\n#define PIXEL %s\n#define HALF_PIXEL %s\n",
  width, height, defines.PIXEL, defines.HALF_PIXEL) .. reference_c, "-O1 -ffp-contract=off", argv)
T.check_equal(#want, 3 * width * height, "reference pixels")

local args = {}
local names = { "lightDirection", "viewDirectionY", "viewDirectionX", "nearFieldLocation", "eyeLocation" }
for i, name in ipairs(names) do
  args[name .. "_x"], args[name .. "_y"], args[name .. "_z"] = params[i][1], params[i][2], params[i][3]
end

T.on_each_executor(function(exec, name)
  local rgba = lp.zeros({ height, width, 4 }, "int8")
  args.rgba = rgba
  knl(exec, args)
  -- Math functions of other libraries (PoCL's, the GPU's) round differently in the last place, and the
  -- march's step count at a surface can move by one: colors may differ by a little, rarely.
  local far, unequal, hits, background = 0, 0, 0, 0
  for y = 0, height - 1 do
    for x = 0, width - 1 do
      for c = 0, 2 do
        local got, w = rgba:get(y, x, c), want[3 * (y * width + x) + c + 1]
        if math.abs(got - w) > 3 then far = far + 1 end
        if got ~= w then unequal = unequal + 1 end
      end
      if want[3 * (y * width + x) + 3] == -1 then background = background + 1 else hits = hits + 1 end
    end
  end
  T.check(hits > 0 and background > 0, "the scene shows both the shape (%d pixels) and the background (%d)", hits, background)
  T.check(far <= 3 * width * height // 50,
    "rayMarcher on %s: %d of %d colors differ from the C reference by more than 3 (%d differ at all)", name, far,
    3 * width * height, unequal)
end)

-- OCCA's finite-difference example (libocca/occa examples/cpp/15_finite_difference/fd2d.okl, MIT License,
-- Copyright (c) 2014-2024 David Medina and Tim Warburton) with the defines its host program passes: file-scope
-- stencil tables built by macros, a device function, @shared halos and @exclusive registers. One time step
-- against the same step computed in Lua.
local lp = require("loom")
local T = require("helpers")

local source = [==[
#define PI   3.14159265358
#define PI_4 0.78539816339           // PI/4

#define FD_STENCIL_1(D)                         \
  {1.0/(D*D), -2.0/(D*D), 1.0/(D*D)}

#define FD_STENCIL_2(D)                         \
  {-0.0833333/(D*D), 1.33333/(D*D), -2.5/(D*D), \
   1.33333/(D*D), -0.0833333/(D*D)}

#define FD_STENCIL_3(D)                         \
  {0.0111111/(D*D), -0.15/(D*D), 1.5/(D*D),     \
   -2.72222/(D*D), 1.5/(D*D), -0.15/(D*D),      \
   0.0111111/(D*D)}

#define FD_STENCIL_4(D)                             \
  {-0.00178571/(D*D), 0.0253968/(D*D), -0.2/(D*D),  \
   1.6/(D*D), -2.84722/(D*D), 1.6/(D*D),            \
   -0.2/(D*D), 0.0253968/(D*D), -0.00178571/(D*D)}

#define FD_STENCIL_5(D)                                   \
  {0.00031746/(D*D), -0.00496032/(D*D), 0.0396825/(D*D),  \
   -0.238095/(D*D), 1.66667/(D*D), -2.92722/(D*D),        \
   1.66667/(D*D), -0.238095/(D*D), 0.0396825/(D*D),       \
   -0.00496032/(D*D), 0.00031746/(D*D)}

#define FD_STENCIL_6(D)                                     \
  {-6.01251e-05/(D*D), 0.00103896/(D*D), -0.00892857/(D*D), \
   0.0529101/(D*D), -0.267857/(D*D), 1.71429/(D*D),         \
   -2.98278/(D*D), 1.71429/(D*D), -0.267857/(D*D),          \
   0.0529101/(D*D), -0.00892857/(D*D), 0.00103896/(D*D),    \
   -6.01251e-05/(D*D)}

#define FD_STENCIL_7(D)                                     \
  {1.18929e-05/(D*D), -0.000226625/(D*D), 0.00212121/(D*D), \
   -0.0132576/(D*D), 0.0648148/(D*D), -0.291667/(D*D),      \
   1.75/(D*D), -3.02359/(D*D), 1.75/(D*D),                  \
   -0.291667/(D*D), 0.0648148/(D*D), -0.0132576/(D*D),      \
   0.00212121/(D*D), -0.000226625/(D*D), 1.18929e-05/(D*D)}

#define FD_STENCIL2(N,D) FD_STENCIL_##N(D)
#define FD_STENCIL(N,D)  FD_STENCIL2(N,D) // Unwraps N and D

const tFloat tStencil[] = FD_STENCIL(1 , dt);
const tFloat xStencil[] = FD_STENCIL(sr, dx);

// 0.9899*sqrt(8.0*log(10.0))/(PI*freq);
const tFloat hat_t0 = 1.3523661426929/freq;

tFloat hatWavelet(tFloat t);

tFloat hatWavelet(tFloat t) {
  const tFloat pift  = PI*freq*(t - hat_t0);
  const tFloat pift2 = pift*pift;

  return (1.0 - 2.0*pift2)*exp(-pift2);
}

@kernel void fd2d(tFloat *u1,
                  const tFloat *u2,
                  const tFloat *u3,
                  const tFloat currentTime) {
  for (int by = 0; by < h; by += By; @outer) {
    for (int bx = 0; bx < w; bx += Bx; @outer) {
      @shared tFloat Lu[By + 2*sr][Bx + 2*sr];
      @exclusive tFloat r_u2, r_u3;

      for (int ly = 0; ly < By; ++ly; @inner) {
        for (int lx = 0; lx < Bx; ++lx; @inner) {
          const int tx = bx + lx;
          const int ty = by + ly;

          const int id = ty*w + tx;

          r_u2 = u2[id];
          r_u3 = u3[id];

          const int nX1 = (tx - sr + w) % w;
          const int nY1 = (ty - sr + h) % h;

          const int nX2 = (tx + Bx - sr + w) % w;
          const int nY2 = (ty + By - sr + h) % h;

          Lu[ly][lx] = u2[nY1*w + nX1];

          if (lx < 2*sr) {
            Lu[ly][lx + Bx] = u2[nY1*w + nX2];

            if (ly < 2*sr) {
              Lu[ly + By][lx + Bx] = u2[nY2*w + nX2];
            }
          }

          if (ly < 2*sr) {
            Lu[ly + By][lx] = u2[nY2*w + nX1];
          }
        }
      }

      for (int ly = 0; ly < By; ++ly; @inner) {
        for (int lx = 0; lx < Bx; ++lx; @inner) {
          const int tx = bx + lx;
          const int ty = by + ly;

          const int id = ty*w + tx;

          tFloat lap = 0.0;

          for (int i = 0; i < (2*sr + 1); i++) {
            lap += xStencil[i]*Lu[ly + sr][lx + i] + xStencil[i]*Lu[ly + i][lx + sr];
          }

          const tFloat u_n1 = (-tStencil[1]*r_u2 - tStencil[2]*r_u3 + lap)/tStencil[0];

          if ((tx == mX) && (ty == mY)) {
            u1[id] = u_n1 + hatWavelet(currentTime)/tStencil[0];
          } else {
            u1[id] = u_n1;
          }
        }
      }
    }
  }
}
]==]

local sr, w, h, dx, dt, freq, mX, mY, Bx, By = 2, 32, 24, 0.1, 0.01, 10, 5, 7, 16, 8
local knl = lp.parse_okl(source, { defines = { tFloat = "float", sr = sr, w = w, h = h, dx = dx, dt = dt,
  freq = freq, mX = mX, mY = mY, Bx = Bx, By = By } }).fd2d

local function stencil(d)
  local s = { -0.0833333, 1.33333, -2.5, 1.33333, -0.0833333 } -- FD_STENCIL_2
  for i = 1, #s do s[i] = s[i] / (d * d) end
  return s
end
local x_st = stencil(dx)
local t_st = { 1 / (dt * dt), -2 / (dt * dt), 1 / (dt * dt) } -- FD_STENCIL_1
local function hat(t)
  local pift = 3.14159265358 * freq * (t - 1.3523661426929 / freq)
  local pift2 = pift * pift
  return (1 - 2 * pift2) * math.exp(-pift2)
end

local u2 = lp.rand({ w * h }, "float32", 41)
local u3 = lp.rand({ w * h }, "float32", 42)
local time = 0.125
T.on_each_executor(function(exec, name)
  local u1 = lp.zeros({ w * h }, "float32")
  knl(exec, { u1 = u1, u2 = u2, u3 = u3, currentTime = time })
  T.check_array(u1, function(id)
    local ty, tx = id // w, id % w
    local lap = 0
    for i = 0, 2 * sr do
      lap = lap + x_st[i + 1] * u2:get(ty * w + (tx + i - sr) % w) + x_st[i + 1] * u2:get(((ty + i - sr) % h) * w + tx)
    end
    local u = (-t_st[2] * u2:get(id) - t_st[3] * u3:get(id) + lap) / t_st[1]
    if tx == mX and ty == mY then u = u + hat(time) / t_st[1] end
    return u
  end, "fd2d on " .. name, { rtol = 1e-4, atol = 1e-6 })
end)

print("okl fd2d: ok")

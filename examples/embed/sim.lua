-- The particle update of the game loop in host.cpp, which runs this script in a sandbox and calls what it returns
-- once per frame. It is called with the host's own buffers, pos and vel (float32 arrays of shape (n, 2): x and y
-- of each particle, in the host's memory), and the target the host asks for ("c" or "opencl"); it returns
-- update(dt), which moves every particle by one step and returns their kinetic energy.
local pos, vel, target = ...
local lp = require("loom")

-- Gravity along y; a particle whose step would leave the box (y < 0, or x outside [0, 1]) stays and bounces back.
local step = lp.make_kernel("{ [i, j]: 0 <= i < n and 0 <= j < 2 }", [[
  <float32> v = vel[i, j] - if(j == 1, g, 0)*dt  {id=v, dep=*}
  <float32> p = pos[i, j] + dt*v  {id=p, dep=*v}
  vel[i, j] = if(p < 0 or (j == 0 and p > 1), -0.9f*v, v)  {dep=*p}
  pos[i, j] = if(p < 0 or (j == 0 and p > 1), pos[i, j], p)  {dep=*p}
]], {
  lp.GlobalArg("pos, vel", "float32", { shape = "n, 2" }),
  lp.ValueArg("dt, g", "float32"),
  "...",
}, { name = "particle_step", target = target })
step = lp.split_iname(step, "i", 64, { outer_tag = "g.0", inner_tag = "l.0" })

local energy = lp.make_kernel("{ [i]: 0 <= i < n }",
  "e[0] = sum(i, 0.5f*(vel[i, 0]*vel[i, 0] + vel[i, 1]*vel[i, 1]))",
  { lp.GlobalArg("vel", "float32", { shape = "n, 2" }), lp.GlobalArg("e", "float32", { shape = 1 }), "..." },
  { name = "kinetic_energy", target = target })

if target == "opencl" then
  -- The particles live on the device between frames; each frame copies the positions back into the host's buffer
  -- (one transfer), which is what it draws.
  local queue = lp.cl.queue()
  local d_pos, d_vel, d_e = queue:to_device(pos), queue:to_device(vel), lp.cl.zeros(queue, 1, "float32")
  local function update(dt)
    step(queue, { pos = d_pos, vel = d_vel, dt = dt, g = 9.81 })
    energy(queue, { vel = d_vel, e = d_e })
    d_pos:get(pos)
    return d_e:get():get(0)
  end
  update(0)  -- builds the kernels now, while loading, rather than in the first frame
  return update
end

-- On the C target the kernels work on the host's memory itself: no copy at all.
local exec = lp.c.executor()
local e = lp.zeros(1, "float32")
local function update(dt)
  step(exec, { pos = pos, vel = vel, dt = dt, g = 9.81 })
  energy(exec, { vel = vel, e = e })
  return e:get(0)
end
update(0)  -- builds the kernels now, while loading, rather than in the first frame
return update

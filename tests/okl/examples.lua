-- OCCA's classic kernels in examples/okl/, lowered and run on every executor, each checked against a plain-Lua
-- computation of what it should give.
local lp = require("loom")
local T = require("helpers")

local function load(name, opts)
  return lp.load_okl("examples/okl/" .. name .. ".okl", opts)
end

-- Vector add, tiled by @tile(16, @outer, @inner): n is not a multiple of 16, so the check matters.
do
  local knl = load("add_vectors").addVectors
  local n = 1000
  local a, b = lp.rand({ n }, "float32", 1), lp.rand({ n }, "float32", 2)
  T.on_each_executor(function(exec, name)
    local ab = lp.zeros({ n + 8 }, "float32")
    ab:fill(-1)
    knl(exec, { entries = n, a = a, b = b, ab = ab })
    T.check_array(ab, function(i)
      if i >= n then return -1 end -- the tile's check keeps the last group inside the vector
      return a:get(i) + b:get(i)
    end, "addVectors on " .. name, { rtol = 1e-6 })
  end)
end

-- Shared-memory reduction: partial sums of blocks; `block` comes from the defines option.
for _, block in ipairs({ 16, 64 }) do
  local knl = load("reduction", { defines = { block = block } }).reduction
  local n = 1000
  local vec = lp.rand({ n }, "float32", 3)
  local groups = (n + block - 1) // block
  T.on_each_executor(function(exec, name)
    local sums = lp.zeros({ groups }, "float32")
    knl(exec, { entries = n, vec = vec, blockSum = sums })
    T.check_array(sums, function(g)
      local s = 0
      for i = g * block, math.min(n, (g + 1) * block) - 1 do s = s + vec:get(i) end
      return s
    end, "reduction block=" .. block .. " on " .. name, { rtol = 1e-5 })
  end)
end

-- Transpose through a padded @shared tile, on a matrix whose sides are not multiples of the tile.
do
  local knl = load("transpose").transpose
  local rows, cols = 37, 21
  local input = lp.rand({ rows * cols }, "float32", 4)
  T.on_each_executor(function(exec, name)
    local out = lp.zeros({ rows * cols }, "float32")
    knl(exec, { rows = rows, cols = cols, ["in"] = input, out = out })
    T.check_array(out, function(k)
      local r, c = k // rows, k % rows -- out is cols x rows
      return input:get(c * cols + r)
    end, "transpose on " .. name)
  end)
end

-- Finite differences: @exclusive registers carried from one @inner loop to the next, halos in @shared.
do
  local knl = load("finite_difference").fd1d
  local n, c = 100, 0.25
  local u = lp.rand({ n }, "float32", 5)
  T.on_each_executor(function(exec, name)
    local unew = lp.zeros({ n }, "float32")
    knl(exec, { n = n, c = c, u = u, unew = unew })
    T.check_array(unew, function(i)
      if i == 0 or i == n - 1 then return 0 end
      return u:get(i) + c * (u:get(i - 1) - 2 * u:get(i) + u:get(i + 1))
    end, "fd1d on " .. name, { rtol = 1e-5, atol = 1e-6 })
  end)
end

-- Block scan: a `d *= 2` loop run over the table of its values, barriers found by the exact analysis.
do
  local knl = load("scan").block_scan
  local n = 70
  local input = T.array_from({ n }, "int32", function(i) return (i * 7) % 5 - 2 end)
  T.on_each_executor(function(exec, name)
    local out = lp.zeros({ n }, "int32")
    knl(exec, { n = n, ["in"] = input, out = out })
    T.check_array(out, function(i)
      local s = 0
      for k = i - i % 16, i do s = s + input:get(k) end
      return s
    end, "block_scan on " .. name)
  end)
end


-- Sphere tracing with float3 values and a device function kept as a function (its loop runs until the ray
-- converges): each pixel's depth against the same march in Lua, in single precision.
do
  local knl = load("sphere_march").sphereMarch
  local width, height, eye, radius = 24, 12, { 0, 0, -3 }, 1.25
  local function f32(v) return (string.unpack("f", string.pack("f", v))) end
  local function march(x, y)
    local p = { f32(f32(f32(x + 0.5) / width) - 0.5), f32(f32(f32(y + 0.5) / height) - 0.5), 1 }
    local l = f32(math.sqrt(f32(f32(p[1] * p[1]) + f32(p[2] * p[2])) + 1))
    local dir = { f32(p[1] / l), f32(p[2] / l), f32(1 / l) }
    local t = 0
    while t < 10 do
      local q = { f32(eye[1] + f32(t * dir[1])), f32(eye[2] + f32(t * dir[2])), f32(eye[3] + f32(t * dir[3])) }
      local d = f32(f32(math.sqrt(f32(f32(q[1] * q[1]) + f32(q[2] * q[2])) + f32(q[3] * q[3]))) - radius)
      if d < 0.001 then return t end
      t = f32(t + d)
    end
    return -1
  end
  T.on_each_executor(function(exec, name)
    local depth = lp.zeros({ width * height }, "float32")
    knl(exec, { width = width, height = height, eye_x = eye[1], eye_y = eye[2], eye_z = eye[3], radius = radius,
      depth = depth })
    local hits, off = 0, 0
    for y = 0, height - 1 do
      for x = 0, width - 1 do
        local want, got = march(x, y), depth:get(x + width * y)
        if want >= 0 then hits = hits + 1 end
        if math.abs(got - want) > 1e-3 * math.max(1, math.abs(want)) then off = off + 1 end
      end
    end
    -- A ray grazing the sphere may take one step more or less under another rounding of sqrt.
    T.check(hits > 0 and hits < width * height and off <= 2, "sphereMarch on %s: %d hits, %d depths off", name, hits, off)
  end)
end

print("okl examples: ok")

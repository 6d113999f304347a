-- Every Lua code block of docs/*.md runs, in order, as one script per document (blocks build on the ones
-- before them, as a reader does). A block that starts with `-- sketch` shows a shape, not code, and is skipped.
local root = arg[0]:match("^(.*)/tests/") or (arg[0]:match("^tests/") and ".")
assert(root, "run as tests/correctness/docs_code_blocks.lua (from the repository or with its path)")

local function blocks_of(path)
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  local out = {}
  for block in text:gmatch("\n```lua\n(.-)\n```") do
    if not block:match("^%-%- sketch") then out[#out + 1] = block end
  end
  return out
end

local ran = 0
for _, doc in ipairs({ "tutorial.md", "atomics.md", "loop_tags.md", "data.md", "statistics.md", "okl.md", "tune.md" }) do
  local path = root .. "/docs/" .. doc
  local blocks = blocks_of(path)
  -- Quiet: what the blocks print is the documentation's business, not the test log's.
  local env = setmetatable({ print = function() end }, { __index = _G })
  local chunk = assert(load(table.concat(blocks, "\n"), "@" .. path, "t", env))
  chunk()
  ran = ran + #blocks
end
assert(ran >= 40, "expected the tutorial's code blocks, found " .. ran)

-- docs/embedding.md quotes the game-loop example: its sim.lua block is the file, and each line of its host.cpp
-- block is a line of the file.
local function read(path)
  local f = assert(io.open(root .. "/" .. path))
  local text = f:read("a")
  f:close()
  return text
end
local embedding = read("docs/embedding.md")
local sim = embedding:match("\n```lua\n%-%- sketch: examples/embed/sim.lua[^\n]*\n(.-)\n```")
assert(sim and sim .. "\n" == read("examples/embed/sim.lua"), "docs/embedding.md's sim.lua differs from the file")
local host, quoted = read("examples/embed/host.cpp"), embedding:match("\n// quoted from examples/embed/host.cpp\n(.-)\n```")
local lines = {}
for line in host:gmatch("[^\n]+") do lines[line:match("^%s*(.-)%s*$")] = true end
for line in assert(quoted, "no host.cpp block in docs/embedding.md"):gmatch("[^\n]+") do
  assert(lines[line:match("^%s*(.-)%s*$")], "docs/embedding.md quotes a line host.cpp lacks: " .. line)
end
print("docs_code_blocks: " .. ran .. " blocks ran")

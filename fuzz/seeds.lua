-- Extracts seed corpora for the fuzz targets from Lua scripts: the string literals of the first two
-- arguments of every make_kernel call (domains, instructions). Plain Lua 5.4, no Loom needed.
--   lua5.4 fuzz/seeds.lua OUTDIR SCRIPT.lua...
-- writes OUTDIR/domain/*, OUTDIR/instructions/* and OUTDIR/pipeline/* (the directories must exist), in the
-- formats fuzz_domain.cpp, fuzz_instructions.cpp and fuzz_pipeline.cpp read.

-- Lua's short-string escapes (those the tests use).
local escapes = { n = "\n", t = "\t", r = "\r", a = "\a", b = "\b", f = "\f", v = "\v", ["\\"] = "\\",
  ['"'] = '"', ["'"] = "'", ["\n"] = "\n" }

local function unescape(body)
  return (body:gsub("\\(%d%d?%d?)", function(d) return string.char(tonumber(d) % 256) end)
              :gsub("\\x(%x%x)", function(h) return string.char(tonumber(h, 16)) end)
              :gsub("\\z%s*", "")
              :gsub("\\(.)", function(c) return escapes[c] or c end))
end

-- The tokens of a Lua source: {kind = "string"|"name"|"punct", value = ...}; comments and numbers dropped.
local function tokenize(src)
  local tokens, pos = {}, 1
  local function long_bracket(at)  -- [==[ ... ]==] starting at `at`: its body and the position after it
    local eq = src:match("^%[(=*)%[", at)
    if not eq then return nil end
    local open_end = at + #eq + 2
    local close_at, close_end = src:find("]" .. eq .. "]", open_end, true)
    if not close_at then return nil end
    return src:sub(open_end, close_at - 1):gsub("^\r?\n", ""), close_end + 1
  end
  while pos <= #src do
    local c = src:sub(pos, pos)
    if c:match("%s") then
      pos = pos + 1
    elseif src:sub(pos, pos + 1) == "--" then
      local _, after = long_bracket(pos + 2)
      pos = after or (src:find("\n", pos, true) or #src) + 1
    elseif c == '"' or c == "'" then
      local i = pos + 1
      while i <= #src and src:sub(i, i) ~= c do i = i + (src:sub(i, i) == "\\" and 2 or 1) end
      tokens[#tokens + 1] = { kind = "string", value = unescape(src:sub(pos + 1, i - 1)) }
      pos = i + 1
    elseif c == "[" and long_bracket(pos) then
      local body, after = long_bracket(pos)
      tokens[#tokens + 1] = { kind = "string", value = body }
      pos = after
    elseif c:match("[%a_]") then
      local name = src:match("^[%w_]+", pos)
      tokens[#tokens + 1] = { kind = "name", value = name }
      pos = pos + #name
    elseif c:match("%d") then
      pos = pos + #src:match("^[%w_%.]+", pos)
    else
      local op = src:sub(pos, pos + 1) == ".." and ".." or c
      tokens[#tokens + 1] = { kind = "punct", value = op }
      pos = pos + #op
    end
  end
  return tokens
end

local opening = { ["("] = 1, ["{"] = 1, ["["] = 1, [")"] = -1, ["}"] = -1, ["]"] = -1 }

-- The string literals (joined where `..` concatenates them) of each argument of the call whose "(" is
-- tokens[at]: a list of lists.
local function call_strings(tokens, at)
  local args, depth, i = { {} }, 0, at
  repeat
    local t = tokens[i]
    if t.kind == "punct" and opening[t.value] then
      depth = depth + opening[t.value]
    elseif t.kind == "punct" and t.value == "," and depth == 1 then
      args[#args + 1] = {}
    elseif t.kind == "string" then
      local strings = args[#args]
      local prev, prev2 = tokens[i - 1], tokens[i - 2]
      if prev.value == ".." and prev2.kind == "string" and #strings > 0 then
        strings[#strings] = strings[#strings] .. t.value
      else
        strings[#strings + 1] = t.value
      end
    end
    i = i + 1
  until depth == 0 or i > #tokens
  return args
end

local outdir = assert(arg[1], "usage: lua5.4 seeds.lua OUTDIR SCRIPT.lua...")
local written = {}  -- "target/content" -> true
local count = { domain = 0, instructions = 0, pipeline = 0 }

local function write_seed(target, content)
  if content == "" or written[target .. "/" .. content] then return end
  written[target .. "/" .. content] = true
  count[target] = count[target] + 1
  local f = assert(io.open(string.format("%s/%s/seed_%04d", outdir, target, count[target]), "wb"))
  f:write(content)
  f:close()
end

-- Programs for fuzz_pipeline (see its `step`): none; split the first iname by 4 over g.0/l.0; realize the
-- reductions; prefetch the first array over the first iname.
local programs = { "", string.char(0, 5, 3, 0, 3), string.char(7), string.char(8, 0, 0, 0, 0) }

for k = 2, #arg do
  local f = assert(io.open(arg[k], "rb"))
  local tokens = tokenize(f:read("a"))
  f:close()
  for i = 1, #tokens - 1 do
    if tokens[i].value == "make_kernel" and tokens[i + 1].value == "(" then
      local args = call_strings(tokens, i + 1)
      local domains, instructions = table.concat(args[1], "\x1e"), table.concat(args[2] or {}, "\x1e")
      write_seed("domain", domains)
      write_seed("instructions", instructions)
      if domains ~= "" and instructions ~= "" then
        for _, program in ipairs(programs) do
          write_seed("pipeline", domains .. "\0" .. table.concat(args[2], "\n") .. "\0" .. program)
        end
      end
    end
  end
end
print(string.format("seeds: %d domain, %d instructions, %d pipeline", count.domain, count.instructions,
  count.pipeline))

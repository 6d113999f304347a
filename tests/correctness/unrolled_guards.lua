-- Unrolled loops whose copies isl guards (reliability.md 39): each guard is decided once for all the copies,
-- with the copies' numbers symbolic, and each copy evaluates the decision at its numbers (kept, left out, or
-- reduced to the conjuncts the facts do not imply there). A wrong decision drops or adds a copy's store: every
-- element is checked, inside the domain and outside it, on each executor for sizes the tiles do not divide.
local lp = require("loom")
local h = require("helpers")

-- c (of `shape`) is 100 i + j + 1 where `in_domain(i, j, params)`, 0 elsewhere.
local function check_stores(knl, params, shape, in_domain, what)
  h.on_each_executor(function(ex, name)
    local c = lp.zeros(shape, "int32")
    local args = { c = c }
    for p, v in pairs(params) do args[p] = v end
    knl(ex, args)
    h.check_array(c, function(i, j) return in_domain(i, j, params) and 100 * i + j + 1 or 0 end,
      what .. " on " .. name)
  end)
end

local function store(domain, shape)
  return lp.make_kernel(domain, "c[i,j] = 100*i + j + 1", { lp.GlobalArg("c", "int32", { shape = shape }), "..." })
end

-- The shape of finding 39, smaller: i and j split into nested ilp parts and work-item axes.
do
  local k = store("{[i,j]: 0<=i,j<n}", "n, n")
  k = lp.split_iname(k, "i", 1)
  k = lp.split_iname(k, "i_outer", 4, { inner_tag = "ilp" })
  k = lp.split_iname(k, "j", 3, { outer_tag = "l.0" })
  k = lp.split_iname(k, "i_outer_outer", 2, { inner_tag = "ilp" })
  k = lp.split_iname(k, "j_inner", 2, { outer_tag = "ilp", inner_tag = "ilp" })
  k = lp.split_iname(k, "i_outer_outer_outer", 2, { outer_tag = "l.1", inner_tag = "ilp" })
  for _, n in ipairs({ 1, 5, 16, 23 }) do
    check_stores(k, { n = n }, { n, n }, function() return true end, "ilp tiles, n = " .. n)
  end
end

-- Remainders of a parameter (`a0 <= i`): guards with divisions and unions from the loops' max and min.
do
  local k = store("{[i,j]: a0<=i,j<n}", "n, n")
  k = lp.assume(k, "a0 >= 0")
  k = lp.split_iname(k, "i", 3, { inner_tag = "ilp" })
  k = lp.split_iname(k, "i_outer", 2, { inner_tag = "ilp" })
  k = lp.split_iname(k, "j", 4, { outer_tag = "l.0", inner_tag = "ilp" })
  for _, p in ipairs({ { 0, 1 }, { 2, 9 }, { 5, 20 }, { 9, 9 } }) do
    check_stores(k, { a0 = p[1], n = p[2] }, { p[2], p[2] }, function(i, j, q) return i >= q.a0 and j >= q.a0 end,
      string.format("remainders, a0 = %d, n = %d", p[1], p[2]))
  end
end

-- A triangle: j's copies depend on i's, so that some copies of j never run for some copies of i.
do
  local k = store("{[i,j]: 0<=i<n and 0<=j<6 and j<=i}", "n, 6")
  k = lp.split_iname(k, "i", 4, { inner_tag = "ilp" })
  k = lp.split_iname(k, "j", 3, { outer_tag = "ilp", inner_tag = "unr" })
  for _, n in ipairs({ 1, 3, 6, 9 }) do
    check_stores(k, { n = n }, { n, 6 }, function(i, j) return j <= i end, "triangle, n = " .. n)
  end
end

-- A start that is a parameter and a stride: the copies' values are no numbers, and some copies never run.
do
  local k = lp.assume(store("{[i,j]: m<=i<n and 0<=j<n and i mod 3 = 1}", "n, n"), "m >= 0")
  k = lp.split_iname(k, "i", 6, { inner_tag = "unr" })
  k = lp.split_iname(k, "j", 2, { inner_tag = "ilp" })
  for _, p in ipairs({ { 0, 1 }, { 2, 11 }, { 4, 5 }, { 5, 17 } }) do
    check_stores(k, { m = p[1], n = p[2] }, { p[2], p[2] }, function(i, j, q) return i >= q.m and i % 3 == 1 end,
      string.format("strided from a parameter, m = %d, n = %d", p[1], p[2]))
  end
end

-- What loop tags and slabs do to the generated code: slabs give a guard-free bulk loop, assumptions and fixed
-- parameters remove guards, unroll hints become pragmas and unrolled inames copies of the body.
local lp = require("loom")
local h = require("helpers")

local function code(knl, target)
  return (lp.generate_code(lp.set_options(knl, { target = target or "opencl" })))
end

-- The lines of `text`, and the body of the first loop over `iname`: the lines indented deeper after it (inside
-- its braces).
local function lines_of(text)
  local out = {}
  for l in text:gmatch("[^\n]*") do out[#out + 1] = l end
  return out
end

local function loop_body(text, iname)
  local lines, body = lines_of(text), {}
  for n, l in ipairs(lines) do
    if h.contains(l, "for (int " .. iname .. " ") then
      local indent = #l:match("^ *")
      local braced = lines[n + 1] == string.rep(" ", indent) .. "{"
      for m = n + (braced and 2 or 1), #lines do
        local inner = lines[m]
        if inner:match("^%s*$") or #inner:match("^ *") <= indent then break end
        body[#body + 1] = inner
      end
      return table.concat(body, "\n")
    end
  end
  error("no loop over " .. iname .. " in:\n" .. text, 2)
end

local scale = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]",
  { lp.GlobalArg("a", "float32", { shape = "n" }), lp.GlobalArg("out", "float32", { shape = "n" }), "..." })

-- Slabs: a bulk loop without guards, then the tail on its own.
for _, target in ipairs { "opencl", "c", "cuda" } do
  for _, inner_tag in ipairs { "for", "l.0" } do
    local what = "slabs={0,1} inner " .. inner_tag .. " on " .. target
    local text = code(lp.split_iname(scale, "i", 16, { slabs = { 0, 1 }, inner_tag = inner_tag }), target)
    local bulk = loop_body(text, "i_outer")
    h.check(not h.contains(bulk, "if") and not h.contains(bulk, "min("), "%s: the bulk loop has guards:\n%s", what, text)
    h.check(h.count_plain(text, "out[") == 2, "%s: want one statement in the bulk and one in the tail:\n%s", what, text)
  end
end
-- The tutorial's "Avoiding Conditionals": slabs={0,1} with the inner iname unrolled gives a bulk loop of four
-- unguarded copies and the final iteration apart, each under loopy's comment.
do
  local fill = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", { lp.GlobalArg("a", "float32", { shape = "n" }), "..." },
    { assumptions = "n>=0" })
  fill = lp.prioritize_loops(lp.split_iname(fill, "i", 4, { slabs = { 0, 1 }, inner_tag = "unr" }), "i_outer,i_inner")
  local text = code(fill)
  h.check(h.contains(text, "  /* bulk slab for 'i_outer' */\n  for (int i_outer = 0;")
    and h.contains(text, "  /* final slab for 'i_outer' */\n"), "slab comments:\n%s", text)
  local bulk = loop_body(text, "i_outer")
  h.check(not h.contains(bulk, "if") and h.count_plain(bulk, "= (float) (0.0f);") == 4, "four unguarded copies in the bulk:\n%s",
    text)
  h.check(h.count_plain(text, "= (float) (0.0f);") == 8 and h.count_plain(text, "for (") == 1, "the final slab unrolled too:\n%s", text)
  local head = code(lp.split_iname(lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0",
    { lp.GlobalArg("a", "float32", { shape = "n" }), "..." }), "i", 4, { slabs = { 1, 1 } }))
  h.check(text:find("bulk slab") and head:find("initial slab") < head:find("bulk slab")
    and head:find("bulk slab") < head:find("final slab"), "slabs={1,1}: initial, bulk, final in order:\n%s", head)
end
-- The tutorial's unrolled split without slabs: each copy under its own guard, simplified where the loop over
-- i_outer holds (the first copy always runs), as loopy's generate_unroll_loop prints them; none once n is a
-- multiple of 4.
do
  local fill = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", { lp.GlobalArg("a", "float32", { shape = "n" }), "..." },
    { assumptions = "n>=0" })
  fill = lp.prioritize_loops(lp.split_iname(fill, "i", 4, { inner_tag = "unr" }), "i_outer,i_inner")
  local text = code(fill)
  h.check(h.contains(text, [[
  {
    a[4 * i_outer] = (float) (0.0f);
    if (-2 + -4 * i_outer + n >= 0)
      a[1 + 4 * i_outer] = (float) (0.0f);
    if (-3 + -4 * i_outer + n >= 0)
      a[2 + 4 * i_outer] = (float) (0.0f);
    if (-4 + -4 * i_outer + n >= 0)
      a[3 + 4 * i_outer] = (float) (0.0f);
  }
]]), "unrolled copies with loopy's guards:\n%s", text)
  local divisible = code(lp.assume(fill, "n mod 4 = 0"))
  h.check(not h.contains(divisible, "if (") and h.contains(divisible, "    a[3 + 4 * i_outer] = (float) (0.0f);\n"),
    "n mod 4 = 0: unguarded copies:\n%s", divisible)
end
do
  -- Without slabs the last partial tile needs a guard (a bound) inside the only loop.
  local bulk = loop_body(code(lp.split_iname(scale, "i", 16)), "i_outer")
  h.check(h.contains(bulk, "min("), "without slabs the inner loop is bounded by min():\n%s", bulk)
  local text = code(lp.split_iname(scale, "i", 16, { slabs = { 1, 1 } }))
  h.check(h.count_plain(text, "out[") == 3, "slabs={1,1}: head, bulk and tail:\n%s", text)
end

-- Guard quality: the assumption n mod 16 = 0 or a fixed n leaves no conditional at all.
for _, variant in ipairs {
  { "assume n mod 16 = 0", lp.assume(lp.split_iname(scale, "i", 16), "n mod 16 = 0") },
  { "assume n mod 16 = 0, inner l.0", lp.assume(lp.split_iname(scale, "i", 16, { inner_tag = "l.0" }), "n mod 16 = 0 and n >= 16") },
  { "assume n mod 16 = 0, g.0/l.0",
    lp.assume(lp.split_iname(scale, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" }), "n mod 16 = 0 and n >= 16") },
  { "fix_parameters n=48", lp.fix_parameters(lp.split_iname(scale, "i", 16), { n = 48 }) },
} do
  for _, target in ipairs { "opencl", "c" } do
    local text = code(variant[2], target)
    h.check(not h.contains(text, "if (") and not h.contains(text, "min("), "%s on %s: conditionals remain:\n%s",
      variant[1], target, text)
  end
end
do
  local text = code(lp.fix_parameters(lp.split_iname(scale, "i", 16), { n = 48 }))
  h.check(h.contains(text, "i_outer <= 2;") and h.contains(text, "i_inner <= 15;"), "fix_parameters: constant bounds:\n%s",
    text)
  h.check(not h.contains(text, "int const n"), "fix_parameters: n is no argument any more:\n%s", text)
end

-- Unroll hints: a pragma on the loop, in each target's spelling.
for _, case in ipairs {
  { "unr_hint.4", "opencl", "#pragma unroll 4\n" }, { "unr_hint.4", "cuda", "#pragma unroll 4\n" },
  { "unr_hint.4", "c", "#pragma GCC unroll 4\n" }, { "unr_hint", "opencl", "#pragma unroll\n" },
  { "unr_hint", "cuda", "#pragma unroll\n" },
} do
  local text = code(lp.split_iname(scale, "i", 16, { inner_tag = case[1] }), case[2])
  h.check(h.contains(text, case[3] .. "    for (int i_inner"), "%s on %s: want '%s' before the i_inner loop:\n%s", case[1],
    case[2], case[3], text)
  h.check(h.count_plain(text, "#pragma") == 1, "%s on %s: one pragma:\n%s", case[1], case[2], text)
end
do
  -- gcc knows no factor-less unroll pragma: a bare hint on C leaves the choice to the compiler.
  local text = code(lp.split_iname(scale, "i", 16, { inner_tag = "unr_hint" }), "c")
  h.check(not h.contains(text, "#pragma"), "unr_hint on c: no pragma:\n%s", text)
end

-- ILP: unrolled copies of the body, each with its own entry of the privatized temporaries; the reduction
-- loop encloses the copies (ILP nests innermost), as in loopy's output.
do
  local rowsum = lp.make_kernel("{ [i,k]: 0<=i,k<n }", "out[i] = sum(k, a[i,k])")
  local text = code(lp.add_dtypes(lp.split_iname(rowsum, "i", 2, { inner_tag = "ilp" }), { a = "float32" }))
  h.check(h.contains(text, "float acc_k[2];"), "ilp: the accumulator gets an axis over the ILP iname:\n%s", text)
  h.check(h.count_plain(text, "for (int k ") == 1 and not h.contains(text, "i_inner"), "ilp: one k loop, i_inner unrolled:\n%s", text)
  local k_loop = loop_body(text, "k")
  h.check(h.contains(k_loop, "acc_k[0] = acc_k[0] +") and h.contains(k_loop, "acc_k[1] = acc_k[1] +"),
    "ilp: both copies inside the k loop:\n%s", text)
  h.check(text:find("acc_k%[1%] = 0") < text:find("for %(int k "), "ilp: initializations before the k loop:\n%s", text)

  local seq = code(lp.add_dtypes(lp.split_iname(rowsum, "i", 2, { inner_tag = "ilp.seq" }), { a = "float32" }))
  h.check(h.contains(seq, "acc_k[i_inner] = acc_k[i_inner] +"), "ilp.seq: indexed by the ILP iname:\n%s", seq)
  h.check(seq:find("for %(int k ") < seq:find("for %(int i_inner [^\n]*\n[^\n]*acc_k%[i_inner%] = acc_k"),
    "ilp.seq: the ILP loop inside the k loop:\n%s", seq)

  local unr = code(lp.add_dtypes(lp.split_iname(rowsum, "i", 2, { inner_tag = "unr" }), { a = "float32" }))
  h.check(h.count_plain(unr, "for (int k ") == 2 and h.contains(unr, "float acc_k;"),
    "unr: one k loop per copy and a scalar accumulator:\n%s", unr)
end

-- l.auto: the fetch iname that walks a's rows with stride 1 gets local axis 0 (loopy's stride ranking); one
-- longer than its axis is split to fit; one without a free axis is a loop.
do
  local knl = lp.make_kernel(
    "{ [i_outer,i_inner,j_outer,j_inner,f0,f1]: 0<=i_inner,j_inner,f0,f1<16 and 0<=16*i_outer<n and 0<=16*j_outer<n }",
    { "a_fetch[f0, f1] = a[16*i_outer + f0, 16*j_outer + f1]  {id=fetch, inames=i_outer:j_outer:f0:f1}",
      "out[16*j_outer + j_inner, 16*i_outer + i_inner] = a_fetch[i_inner, j_inner]  {dep=fetch}" },
    { lp.GlobalArg("a", "float32", { shape = "n, n" }), lp.GlobalArg("out", "float32", { shape = "n, n" }),
      lp.TemporaryVariable("a_fetch", "float32", { shape = "16, 16" }), "..." },
    { name = "transpose", assumptions = "n mod 16 = 0" })
  knl = lp.tag_inames(knl, { j_outer = "g.0", i_outer = "g.1", j_inner = "l.1", i_inner = "l.0", f0 = "l.auto",
    f1 = "l.auto" })
  local text = code(knl)
  h.check(h.contains(text, "a_fetch[16 * lid(1) + lid(0)] = a[n * (16 * gid(1) + lid(1)) + 16 * gid(0) + lid(0)];"),
    "l.auto: f1 (stride 1) on axis 0, f0 on axis 1:\n%s", text)
  h.check(h.contains(text, "__local float a_fetch"), "l.auto: the fetch buffer is local:\n%s", text)

  local wide = lp.make_kernel("{ [i,j,k]: 0<=i<n and 0<=j<40 and 0<=k<4 }", { "out[i,k] = a[i,k]", "b[i,j] = 2*c[i,j]" },
    { lp.GlobalArg("a", "float32", { shape = "n, 4" }), lp.GlobalArg("out", "float32", { shape = "n, 4" }),
      lp.GlobalArg("c", "float32", { shape = "n, 40" }), lp.GlobalArg("b", "float32", { shape = "n, 40" }), "..." })
  wide = lp.split_iname(wide, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  local split = code(lp.tag_inames(wide, { k = "l.1", j = "l.auto" }))
  h.check(h.contains(split, "reqd_work_group_size(16, 4, 1)") and h.contains(split, "for (int j_outer = 0; j_outer <= 9;")
    and h.contains(split, "4 * j_outer + lid(1)]"), "l.auto: j split to the 4 work-items of axis 1:\n%s", split)
  local loop = code(lp.tag_inames(wide, { j = "l.auto" }))
  h.check(h.contains(loop, "reqd_work_group_size(16, 1, 1)") and h.contains(loop, "for (int j = 0; j <= 39; ++j)"),
    "l.auto: no free axis, a loop:\n%s", loop)
end

print("loop_tags codegen: ok")

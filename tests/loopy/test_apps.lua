-- loopy's test/test_apps.py (inducer/loopy f4d773c), translated to Loom test by test: each block is named
-- after its loopy function and runs on both executors (OpenCL via PoCL and C) where loopy runs the kernel;
-- where loopy only generates code, so does the port. loopy's options="annotate_inames" (comments naming the
-- inames in the generated code) has no counterpart in Loom and is left out.
--
-- Every test is ported. In part: test_rob_stroud_bernstein_full without its pickling round trip (Python-only
-- machinery), and test_sum_factorization up to where loopy marks it an xfail.
local lp = require("loom")
local h = require("helpers")

-- Ported tests that fail because of a Loom defect or a missing feature: kept below, not run, each with its
-- failure. Remove an entry once Loom passes it.
local PENDING = {
}

local port = require("loopy_port")
local test, run = port.suite(PENDING)
local auto_test = port.auto_test

-- loopy: test_convolution: a 7x7 three-colour convolution (f_w = 3) over 128x128 images, with loopy's
-- variant_2: 16x16 work-groups over the image, one feature per g.2, the filter and the image tile prefetched
-- into local memory. loopy leaves variant_0 and variant_1 commented out, so they are not run here either.
test("test_convolution", function()
  local knl = lp.make_kernel("{ [iimg, ifeat, icolor, im_x, im_y, f_x, f_y]: -f_w <= f_x,f_y <= f_w "
    .. "and 0 <= im_x < im_w and 0 <= im_y < im_h and 0<=iimg<=nimgs and 0<=ifeat<nfeats and 0<=icolor<ncolors }",
    [[
    out[iimg, ifeat, im_x, im_y] = sum((f_x, f_y, icolor),
        img[iimg, f_w+im_x-f_x, f_w+im_y-f_y, icolor] * f[ifeat, f_w+f_x, f_w+f_y, icolor])
    ]], {
      lp.GlobalArg("f", "float32", { shape = lp.auto }),
      lp.GlobalArg("img", "float32", { shape = lp.auto }),
      lp.GlobalArg("out", "float32", { shape = lp.auto }),
      "...",
    }, { assumptions = "f_w>=1 and im_w, im_h >= 2*f_w+1 and nfeats>=1 and nimgs>=0" })
  local f_w = 3
  knl = lp.fix_parameters(knl, { f_w = f_w, ncolors = 3 })
  local ref_knl = knl

  knl = lp.split_iname(knl, "im_x", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  knl = lp.split_iname(knl, "im_y", 16, { outer_tag = "g.1", inner_tag = "l.1" })
  knl = lp.tag_inames(knl, { ifeat = "g.2" })
  knl = lp.add_prefetch(knl, "f[ifeat,:,:,:]", nil,
    { fetch_outer_inames = "im_x_outer, im_y_outer, ifeat", default_tag = "l.auto" })
  knl = lp.add_prefetch(knl, "img", "im_x_inner, im_y_inner, f_x, f_y",
    { fetch_outer_inames = "iimg, im_x_outer, im_y_outer, ifeat, icolor", default_tag = "l.auto" })

  auto_test(ref_knl, knl, { parameters = { im_w = 128, im_h = 128, f_w = f_w, nfeats = 3, nimgs = 3 } })
end)

-- loopy: test_convolution_with_nonzero_base: the convolution over a domain that starts at f_w, unsplit
-- (variant_0) and with im_x split onto l.0 (variant_1, whose first block is odd-sized). 4 images of 3 features
-- (nimgs = 3, nfeats = 3, as test_convolution), not loopy's 18 of 12: those took a minute here.
test("test_convolution_with_nonzero_base", function()
  local knl = lp.make_kernel("{ [iimg, ifeat, icolor, im_x, im_y, f_x, f_y]: -f_w <= f_x,f_y <= f_w "
    .. "and f_w <= im_x < im_w-f_w and f_w <= im_y < im_h-f_w and 0<=iimg<=nimgs and 0<=ifeat<nfeats "
    .. "and 0<=icolor<ncolors }",
    [[
    out[iimg, ifeat, im_x-f_w, im_y-f_w] = sum((f_x, f_y, icolor),
        img[iimg, im_x-f_x, im_y-f_y, icolor] * f[ifeat, f_w+f_x, f_w+f_y, icolor])
    ]], {
      lp.GlobalArg("f", "float32", { shape = lp.auto }),
      lp.GlobalArg("img", "float32", { shape = lp.auto }),
      lp.GlobalArg("out", "float32", { shape = lp.auto }),
      "...",
    }, { assumptions = "f_w>=1 and im_w, im_h >= 2*f_w+1 and nfeats>=1 and nimgs>=0" })
  knl = lp.fix_parameters(knl, { ncolors = 3 })
  local ref_knl = knl
  local f_w = 3

  local function variant_0(k)
    return lp.prioritize_loops(k, "iimg,im_x,im_y,ifeat,f_x,f_y")
  end

  local function variant_1(k)
    k = lp.split_iname(k, "im_x", 16, { inner_tag = "l.0" })
    return lp.prioritize_loops(k, "iimg,im_x_outer,im_y,ifeat,f_x,f_y")
  end

  for _, variant in ipairs({ variant_0, variant_1 }) do
    auto_test(ref_knl, variant(knl),
      { parameters = { im_w = 128, im_h = 128, f_w = f_w, nfeats = 3, nimgs = 3 } })
  end
end)

-- loopy: test_rob_stroud_bernstein: Bernstein polynomial evaluation with a triangular (alpha1, alpha2) loop
-- nest, both unrolled, elements split over l.0 and over g.0 with an ilp slab: loopy generates its code.
test("test_rob_stroud_bernstein", function()
  local knl = lp.make_kernel(
    "{[el, i2, alpha1,alpha2]: 0 <= el < nels and 0 <= i2 < nqp1d and 0 <= alpha1 <= deg and 0 <= alpha2 <= deg-alpha1 }",
    [[
    for el,i2
        <> xi = qpts[1, i2]
        <> s = 1-xi
        <> r = xi/s
        <> aind = 0 {id=aind_init}

        for alpha1
            <> w = s**(deg-alpha1) {id=init_w}

            for alpha2
                tmp[el,alpha1,i2] = tmp[el,alpha1,i2] + w * coeffs[aind] {id=write_tmp,dep=init_w:aind_init}
                w = w * r * ( deg - alpha1 - alpha2 ) / (1 + alpha2) {id=update_w,dep=init_w:write_tmp}
                aind = aind + 1 {id=aind_incr,dep=aind_init:write_tmp:update_w}
            end
        end
    end
    ]], {
      -- loopy declares coeffs without a shape, to keep loopy from working it out from coeffs[aind].
      lp.GlobalArg("coeffs", nil, { shape = lp.none }),
      "...",
    }, { assumptions = "deg>=0 and nels>=1" })
  knl = lp.fix_parameters(knl, { nqp1d = 7, deg = 4 })
  knl = lp.split_iname(knl, "el", 16, { inner_tag = "l.0" })
  knl = lp.split_iname(knl, "el_outer", 2, { outer_tag = "g.0", inner_tag = "ilp", slabs = { 0, 1 } })
  knl = lp.tag_inames(knl, { i2 = "l.1", alpha1 = "unr", alpha2 = "unr" })
  knl = lp.add_dtypes(knl, { qpts = "float32", coeffs = "float32", tmp = "float32" })
  local code = lp.generate_code_v2(knl):device_code()
  -- The work-group is el_inner x i2.
  h.check_contains(code, "reqd_work_group_size(16, 7, 1)")
end)

-- loopy: test_rob_stroud_bernstein_full: the evaluation followed by a second sum-factorized stage that reads
-- a private tmp array; loopy generates its code (after a pickling round trip, not ported).
test("test_rob_stroud_bernstein_full", function()
  local knl = lp.make_kernel(
    "{[el, i2, alpha1,alpha2, i1_2, alpha1_2, i2_2]: 0 <= el < nels and 0 <= i2 < nqp1d and "
      .. "0 <= alpha1 <= deg and 0 <= alpha2 <= deg-alpha1 and 0 <= i1_2 < nqp1d and 0 <= alpha1_2 <= deg and "
      .. "0 <= i2_2 < nqp1d }",
    [[
    for el
        for i2
            <> xi = qpts[1, i2]
            <> s = 1-xi
            <> r = xi/s
            <> aind = 0 {id=aind_init}

            for alpha1
                <> w = s**(deg-alpha1) {id=init_w}

                <> tmp[alpha1,i2] = tmp[alpha1,i2] + w * coeffs[aind] {id=write_tmp,dep=init_w:aind_init}
                for alpha2
                    w = w * r * ( deg - alpha1 - alpha2 ) / (1 + alpha2) {id=update_w,dep=init_w:write_tmp}
                    aind = aind + 1 {id=aind_incr,dep=aind_init:write_tmp:update_w}
                end
            end
        end

        for i1_2
            <> xi2 = qpts[0, i1_2] {dep=aind_incr}
            <> s2 = 1-xi2
            <> r2 = xi2/s2
            <> w2 = s2**deg  {id=w2_init}

            for alpha1_2
                for i2_2
                    result[el, i1_2, i2_2] = result[el, i1_2, i2_2] + w2 * tmp[alpha1_2, i2_2]  {id=res2,dep=w2_init}
                end

                w2 = w2 * r2 * (deg-alpha1_2) / (1+alpha1_2)  {id=w2_update, dep=res2}
            end
        end
    end
    ]], {
      lp.GlobalArg("coeffs", nil, { shape = lp.none }),
      "...",
    }, { assumptions = "deg>=0 and nels>=1" })
  knl = lp.fix_parameters(knl, { nqp1d = 7, deg = 4 })
  knl = lp.add_dtypes(knl, { qpts = "float32", tmp = "float32", coeffs = "float32", result = "float32" })
  local code = lp.generate_code_v2(knl):device_code()
  -- tmp is private: one (deg+1) x nqp1d array per element.
  h.check_contains(code, "float tmp[5 * 7]")
end)

-- loopy: test_stencil: a five-point stencil through a substitution rule over a 256x256 grid, 16x16
-- work-groups and the tile's bounding box prefetched into local memory (variant_2; loopy leaves variant_1
-- commented out).
test("test_stencil", function()
  local n = 256
  local knl = lp.make_kernel(string.format("{[i,j]: 0<= i,j < %d}", n), {
    "a_offset(ii, jj) := a[ii+1, jj+1]",
    "z[i,j] = -2*a_offset(i,j) + a_offset(i,j-1) + a_offset(i,j+1) + a_offset(i-1,j) + a_offset(i+1,j)",
  }, {
    lp.GlobalArg("a", "float32", { shape = { n + 2, n + 2 } }),
    lp.GlobalArg("z", "float32", { shape = { n + 2, n + 2 } }),
  })
  local ref_knl = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.1", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "j", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  knl = lp.add_prefetch(knl, "a", { "i_inner", "j_inner" }, { fetch_bounding_box = true, default_tag = "l.auto" })
  knl = lp.prioritize_loops(knl, { "a_dim_0_outer", "a_dim_1_outer" })
  auto_test(ref_knl, knl)
end)

-- loopy: test_stencil_with_overfetch: a nine-point stencil with 16x16 work-groups split with slabs and the
-- bounding box of the tile prefetched. loopy skips it on PoCL (slow to compile there); Loom runs it there too.
test("test_stencil_with_overfetch", function()
  local knl = lp.make_kernel("{[i,j]: 0<= i,j < n}", {
    "a_offset(ii, jj) := a[ii+2, jj+2]",
    "z[i,j] = -2*a_offset(i,j) + a_offset(i,j-1) + a_offset(i,j+1) + a_offset(i-1,j) + a_offset(i+1,j)"
      .. " + a_offset(i,j-2) + a_offset(i,j+2) + a_offset(i-2,j) + a_offset(i+2,j)",
  }, nil, { assumptions = "n>=1" })
  knl = lp.add_and_infer_dtypes(knl, { a = "float32" })
  local ref_knl = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.1", inner_tag = "l.1", slabs = { 1, 1 } })
  knl = lp.split_iname(knl, "j", 16, { outer_tag = "g.0", inner_tag = "l.0", slabs = { 1, 1 } })
  knl = lp.add_prefetch(knl, "a", { "i_inner", "j_inner" }, { fetch_bounding_box = true, default_tag = "l.auto" })
  knl = lp.prioritize_loops(knl, { "a_dim_0_outer", "a_dim_1_outer" })
  auto_test(ref_knl, knl, { parameters = { n = 200 } })
end)

-- loopy: test_sum_factorization: a tensor-product mass matrix from substitution rules. loopy marks the test an
-- xfail right after make_kernel ("extract_subst is currently too stupid for sum factorization") and never
-- reaches its extract_subst calls, so the port stops there too: the kernel and its rules are created.
test("test_sum_factorization", function()
  local knl = lp.make_kernel("{[i,j,ip,jp,k,l]: 0<=i<I and 0<=j<J and 0<=ip<IP and 0<=jp<JP and 0<=k,l<Q}", [[
    phi1(i, x) := x**i
    phi2(i, x) := x**i
    psi1(i, x) := x**i
    psi2(i, x) := x**i
    a(x, y) := 1

    A[i,j,ip,jp] = sum(k,sum(l,
        phi1(i,x[0,k]) * phi2(j,x[1,l])
        * psi1(ip, x[0,k]) * psi2(jp, x[1, l])
        * w[0,k] * w[1,l]
        * a(x[0,k], x[1,l])
    ))
    ]])
  local rules = port.substitution_rules(knl)
  for _, name in ipairs({ "phi1", "phi2", "psi1", "psi2", "a" }) do
    h.check(rules[name] ~= nil, "rule %s in the listing", name)
  end
end)

-- loopy: test_lbm: a D2Q4Q4Q4 lattice Boltzmann step: moments m of the neighbours' f, relaxed, and written
-- back as f_new, in with-blocks that give the instructions id prefixes and dependencies; 16x16 work-groups,
-- the rules i, j expanded and f's bounding box prefetched.
test("test_lbm", function()
  local knl = lp.make_kernel("{[ii,jj]:0<=ii<nx-2 and 0<=jj<ny-2}", [[
    i := ii + 1
    j := jj + 1
    for ii, jj
        with {id_prefix=init_m}
            <> m[0] =   +    f[i-1, j, 0] +    f[i, j-1, 1] + f[i+1, j, 2] +  f[i, j+1, 3]
            m[1] =   + 4.*f[i-1, j, 0] - 4.*f[i+1, j, 2]
            m[2] =   + 4.*f[i, j-1, 1] - 4.*f[i, j+1, 3]
            m[3] =   +    f[i-1, j, 0] -    f[i, j-1, 1] + f[i+1, j, 2] -  f[i, j+1, 3]
            m[4] =   +    f[i-1, j, 4] +    f[i, j-1, 5] + f[i+1, j, 6] +  f[i, j+1, 7]
            m[5] =   + 4.*f[i-1, j, 4] - 4.*f[i+1, j, 6]
            m[6] =   + 4.*f[i, j-1, 5] - 4.*f[i, j+1, 7]
            m[7] =   +    f[i-1, j, 4] -    f[i, j-1, 5] + f[i+1, j, 6] -  f[i, j+1, 7]
            m[8] =   +    f[i-1, j, 8] +    f[i, j-1, 9] + f[i+1, j, 10] + f[i, j+1, 11]
            m[9] =   + 4.*f[i-1, j, 8] - 4.*f[i+1, j, 10]
            m[10] =  + 4.*f[i, j-1, 9] - 4.*f[i, j+1, 11]
            m[11] =  +    f[i-1, j, 8] -    f[i, j-1, 9] + f[i+1, j, 10] - f[i, j+1, 11]
        end

        with {id_prefix=update_m,dep=init_m*}
            m[1] = m[1] + 2.*(m[4] - m[1])
            m[2] = m[2] + 2.*(m[8] - m[2])
            m[3] = m[3]*(1. - 1.5)
            m[5] = m[5] + 1.5*(0.5*(m[0]*m[0]) + (m[4]*m[4])/m[0] - m[5])
            m[6] = m[6] + 1.5*(m[4]*m[8]/m[0] - m[6])
            m[7] = m[7]*(1. - 1.2000000000000000)
            m[9] = m[9] + 1.5*(m[4]*m[8]/m[0] - m[9])
            m[10] = m[10] + 1.5*(0.5*(m[0]*m[0]) + (m[8]*m[8])/m[0] - m[10])
            m[11] = m[11]*(1. - 1.2)
        end

        with {dep=update_m*}
            f_new[i, j, 0] =  + 0.25*m[0] + 0.125*m[1] + 0.25*m[3]
            f_new[i, j, 1] =  + 0.25*m[0] + 0.125*m[2] - 0.25*m[3]
            f_new[i, j, 2] =  + 0.25*m[0] - 0.125*m[1] + 0.25*m[3]
            f_new[i, j, 3] =  + 0.25*m[0] - 0.125*m[2] - 0.25*m[3]
            f_new[i, j, 4] =  + 0.25*m[4] + 0.125*m[5] + 0.25*m[7]
            f_new[i, j, 5] =  + 0.25*m[4] + 0.125*m[6] - 0.25*m[7]
            f_new[i, j, 6] =  + 0.25*m[4] - 0.125*m[5] + 0.25*m[7]
            f_new[i, j, 7] =  + 0.25*m[4] - 0.125*m[6] - 0.25*m[7]
            f_new[i, j, 8] =  + 0.25*m[8] + 0.125*m[9] + 0.25*m[11]
            f_new[i, j, 9] =  + 0.25*m[8] + 0.125*m[10] - 0.25*m[11]
            f_new[i, j, 10] =  + 0.25*m[8] - 0.125*m[9] + 0.25*m[11]
            f_new[i, j, 11] =  + 0.25*m[8] - 0.125*m[10] - 0.25*m[11]
        end
    end
    ]])
  knl = lp.add_and_infer_dtypes(knl, { f = "float32" })
  local ref_knl = knl
  knl = lp.split_iname(knl, "ii", 16, { outer_tag = "g.1", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "jj", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  knl = lp.expand_subst(knl)
  knl = lp.add_prefetch(knl, "f", "ii_inner,jj_inner", { fetch_bounding_box = true, default_tag = "l.auto" })
  auto_test(ref_knl, knl, { parameters = { nx = 20, ny = 20 } })
end)

-- loopy: test_fd_demo: a finite-difference update of float32 u over 16x16 work-groups with u's bounding box
-- prefetched: the generated code holds no double.
test("test_fd_demo", function()
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n}",
    "result[i+1,j+1] = u[i + 1, j + 1]**2 + -1 + (-4)*u[i + 1, j + 1] + u[i + 1 + 1, j + 1] + u[i + 1 + -1, j + 1] "
      .. "+ u[i + 1, j + 1 + 1] + u[i + 1, j + 1 + -1]")
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.1", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "j", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  knl = lp.add_prefetch(knl, "u", { "i_inner", "j_inner" }, { fetch_bounding_box = true, default_tag = "l.auto" })
  knl = lp.set_options(knl, { write_code = true })
  knl = lp.add_and_infer_dtypes(knl, { u = "float32" })
  local code = lp.generate_code(knl)
  h.check(not h.contains(code, "double"), "no 'double' in:\n%s", code)
end)

-- loopy: test_fd_1d: a forward difference whose u accesses become a rule precomputed over i_inner into a
-- sequential ("for") temporary, with n a multiple of 16.
test("test_fd_1d", function()
  local knl = lp.make_kernel("{[i]: 0<=i<n}", "result[i] = u[i+1]-u[i]")
  knl = lp.add_and_infer_dtypes(knl, { u = "float32" })
  local ref_knl = knl
  knl = lp.split_iname(knl, "i", 16)
  knl = lp.extract_subst(knl, "u_acc", "u[j]", "j")
  knl = lp.precompute(knl, "u_acc", "i_inner", { default_tag = "for" })
  knl = lp.assume(knl, "n mod 16 = 0")
  auto_test(ref_knl, knl, { parameters = { n = 2048 } })
end)

-- loopy: test_poisson_fem: FEM stiffness-matrix assembly, the gradients dpsi a simul_reduce rule, precomputed
-- over i and ell (loopy's variant_2; it leaves variant_1 commented out). loopy's parameters name the fixed
-- nbf, sdim and nqp again (with other values), which its call ignores.
test("test_poisson_fem", function()
  local nbf, nqp, sdim = 5, 5, 3
  local knl = lp.make_kernel("{ [c,i,j,k,ell,ell2]: 0 <= c < nels and 0 <= i < nbf and 0 <= j < nbf and "
    .. "0 <= k < nqp and 0 <= ell,ell2 < sdim}", [[
    dpsi(bf,k0,dir) := simul_reduce(sum, ell2, DFinv[c,ell2,dir] * DPsi[bf,k0,ell2] )
    Ael[c,i,j] = J[c] * w[k] * sum(ell, dpsi(i,k,ell) * dpsi(j,k,ell))
    ]], nil, { assumptions = "nels>=1 and nbf >= 1 and nels mod 4 = 0" })
  knl = lp.fix_parameters(knl, { nbf = nbf, sdim = sdim, nqp = nqp })
  local ref_knl = knl
  knl = lp.prioritize_loops(knl, { "c", "j", "i", "k" })
  knl = lp.precompute(knl, "dpsi", "i,ell", { default_tag = "for" })
  -- Deliberate deviation (issue 33): "c,i,j" contradicts "c,j,i,k" above, which loopy resolves silently; Loom
  -- refuses contradictory priorities with the cycle, and the kernel keeps the first.
  h.expect_error("LoopyError", "would nest i outside j outside i", lp.prioritize_loops, knl, "c,i,j")

  local function add_types(k)
    return lp.add_and_infer_dtypes(k, { w = "float32", J = "float32", DPsi = "float32", DFinv = "float32" })
  end
  auto_test(add_types(ref_knl), add_types(knl),
    { parameters = { n = 5, nels = 15, nbf = 5, sdim = 2, nqp = 7 } })
end)

-- loopy: test_domain_tree_nesting: four domains, two of them bounded by private temporaries of the i loop
-- (a_end, b_end): none is nested deeper than one level (loopy issue 78).
test("test_domain_tree_nesting", function()
  local out_map = lp.array({ 1, 2 }, "int32")
  local if_val = lp.array({ -1, 0 }, "int32")
  local vals = lp.array({ 2, 3 }, "int32")
  local num_vals = lp.array({ 2, 4 }, "int32")
  -- numpy's cumsum(num_vals) - num_vals.
  local num_vals_offset = lp.array({ 0, 2 }, "int32")
  local function private_constant(name, initializer)
    return lp.TemporaryVariable(name, nil, { initializer = initializer, read_only = true, address_space = "private" })
  end

  local knl = lp.make_kernel({ "{[i]: 0 <= i < 12}", "{[j]: 0 <= j < 100}", "{[a_count]: 0 <= a_count < a_end}",
    "{[b_count]: 0 <= b_count < b_end}" }, [[
    for j
        for i
            <> a_end = abs(if_val[i])

            <>b_end = num_vals[i]
            <>offset = num_vals_offset[i] {id=offset}
            <>b_sum = 0 {id=b_init}
            for b_count
                <>val = vals[offset + b_count] {dep=offset}
            end
            b_sum = exp(b_sum) {id=b_final}

            out[j,i] =  b_sum {dep=b_final}
        end
    end
    ]], {
      private_constant("out_map", out_map),
      private_constant("if_val", if_val),
      private_constant("vals", vals),
      private_constant("num_vals", num_vals),
      private_constant("num_vals_offset", num_vals_offset),
      lp.GlobalArg("B", "float64", { shape = { 100, 31 } }),
      lp.GlobalArg("out", "float64", { shape = { 100, 12 } }),
    }, { name = "nested_domain" })

  local parents = port.parents_per_domain(knl)
  h.check_equal(#parents, 4, "domain count")
  local function depth(d)
    if parents[d] == false then return 0 end
    return 1 + depth(parents[d] + 1)
  end
  for d = 1, #parents do
    h.check(depth(d) < 2, "domain %d is nested %d deep", d - 1, depth(d))
  end
end)

-- loopy: test_prefetch_through_indirect_access: prefetching map1[:, j], whose first index comes through
-- indirect[i], is a LoopyError.
test("test_prefetch_through_indirect_access", function()
  local knl = lp.make_kernel("{[i, j, k]: 0 <= i,k < 10 and 0<=j<2}", [[
    for i, j, k
        a[map1[indirect[i], j], k] = 2
    end
    ]], {
      lp.GlobalArg("a", "int64", { strides = { 2, 1 } }),
      lp.GlobalArg("map1", "int64", { shape = { 10, 10 } }),
      "...",
    }, { target = "c" })
  knl = lp.prioritize_loops(knl, "i,j,k")
  h.expect_error("LoopyError", {}, lp.add_prefetch, knl, "map1[:, j]", nil, { default_tag = "l.auto" })
end)

-- loopy: test_unsigned_types_to_mod: i % c with c unsigned needs no loopy_mod helper.
test("test_unsigned_types_to_mod", function()
  local knl = lp.make_kernel("{[i]: 0<=i<10}", [[
    <> c = b[i] {id=init,dup=i}
    a[i] = i % c {dep=init}
    ]], {
      lp.GlobalArg("a", "uint32", { shape = { 10 } }),
      lp.GlobalArg("b", "uint32", { shape = { 10 } }),
    })
  local code = lp.generate_code_v2(knl):device_code()
  h.check(not h.contains(code, "loopy_mod"), "no 'loopy_mod' in:\n%s", code)
end)

-- loopy: test_abs_as_index: a[abs(5-i)] is an index: loopy generates its code.
test("test_abs_as_index", function()
  local knl = lp.make_kernel({ "{[i]: 0<=i<10}" }, "b[i] = a[abs(5-i)]",
    { lp.GlobalArg("a", "float32", { shape = lp.none }), "..." })
  local code = lp.generate_code_v2(knl):device_code()
  h.check_contains(code, "abs(")
end)

-- loopy: test_sumpy_p2p_reduced: a domain bounded by a temporary (isrc_box_end) and a one-point domain that
-- constrains inner, with arguments that are never accessed: loopy generates its code.
test("test_sumpy_p2p_reduced", function()
  local knl = lp.make_kernel({
    "{[itgt_box]: 0<=itgt_box<5 }",
    "{[isrc_box]: 0<=isrc_box<isrc_box_end }",
    "{[inner]: 0 <=inner<=31 }",
    "{[itgt_offset_outer]: itgt_offset_outer=0 }",
    "{[isrc_prefetch_inner]: isrc_prefetch_inner=0 and 0<=inner<=25 }",
  }, [[
    <> isrc_box_end = source_box_starts[itgt_box + 1] {inames=inner:itgt_box}
    <> itgt_offset = inner {inames=inner:itgt_box}
    <> isrc_prefetch = isrc_prefetch_inner*32 + inner {inames=isrc_prefetch_inner:inner:isrc_box:itgt_box}
    ]], {
      lp.GlobalArg("box_target_starts", "int32", { shape = lp.none }),
      lp.GlobalArg("box_target_counts_nonchild", "int32", { shape = lp.none }),
      lp.GlobalArg("box_source_starts", "int32", { shape = lp.none }),
      lp.GlobalArg("box_source_counts_nonchild", "int32", { shape = lp.none }),
      lp.GlobalArg("source_box_starts", "int32", { shape = lp.none }),
      lp.GlobalArg("source_box_lists", "int32", { shape = lp.none }),
    }, { silenced_warnings = "unused_inames" })
  lp.generate_code_v2(knl):device_code()
end)

run()

-- More of OCCA's own example kernels (libocca/occa examples/, MIT License, Copyright (c) 2014-2024 David Medina
-- and Tim Warburton): the iso3dfd stencils (plain, with a device function, with a @shared halo), smallTranspose,
-- 6_dtypes and powerOfPi2. Each runs and equals a plain-Lua reference, or is rejected with the rule that applies
-- (docs/okl.md lists every file and its outcome).
local lp = require("loom")
local T = require("helpers")

-- examples/cpp/23_iso3dfd_okl/isokernel.okl: `int&` arguments, @tile with @outer only, an @inner loop over n1.
local iso_plain = [==[
@kernel void iso_kernel(float* ptr_next,
                        float* ptr_prev,
                        float* ptr_vel,
                        float* coeff,
                        int& n1,
                        int& n2,
                        int& n3){
  for (int iz = 0; iz < n3; ++iz; @tile(16, @outer)) {
    for (int iy = 0; iy < n2; ++iy; @tile(16, @outer)) {
      for (int ix = 0; ix < n1; ++ix; @inner) {
        const int dimn1n2 = n1 * n2;
        if (
          ix >= 8 && ix < (n1-8)
          && iy >= 8 && iy < (n2-8)
          && iz >= 8 && iz < (n3-8)
        ){
          int offset = iz*dimn1n2 + iy * n1 + ix;
          float value = 0.0;
          value += ptr_prev[offset]*coeff[0];
          for (int ir = 1; ir <= 8; ir++) {
            value += coeff[ir] * (ptr_prev[offset + ir] + ptr_prev[offset - ir]);// horizontal
            value += coeff[ir] * (ptr_prev[offset + ir * n1] + ptr_prev[offset - ir * n1]);// vertical
            value += coeff[ir] * (ptr_prev[offset + ir*dimn1n2] + ptr_prev[offset - ir*dimn1n2]); // in front / behind
          }
          ptr_next[offset] = 2.0f* ptr_prev[offset] - ptr_next[offset] + value*ptr_vel[offset];
        }
      }
    }
  }
}
]==]

-- examples/cpp/24_iso3dfd_okl_device_function/isokernel.okl: the neighbours are summed in a device function
-- that takes `value` by value, so (in C, and so in OCCA) they never reach the caller's `value`.
local iso_function = [==[
void iso_kernel_impl(float* ptr_next,
                        float* ptr_prev,
                        float* ptr_vel,
                        float* coeff,
                        int n1,
                        int n2,
                        int n3,
			const int ix,
			const int iy,
			const int iz,
			const int dimn1n2,
			int offset,
			float value){
          for (int ir = 1; ir <= 8; ir++) {
            value += coeff[ir] * (ptr_prev[offset + ir] + ptr_prev[offset - ir]);// horizontal
            value += coeff[ir] * (ptr_prev[offset + ir * n1] + ptr_prev[offset - ir * n1]);// vertical
            value += coeff[ir] * (ptr_prev[offset + ir*dimn1n2] + ptr_prev[offset - ir*dimn1n2]); // in front / behind
	  }
}

@kernel void iso_kernel(float* ptr_next,
                        float* ptr_prev,
                        float* ptr_vel,
                        float* coeff,
                        int& n1,
                        int& n2,
                        int& n3){
  for (const int iz = 0; iz < n3; ++iz; @tile(16, @outer)) {
    for (const int iy = 0; iy < n2; ++iy; @tile(16, @outer)) {
      for (const int ix = 0; ix < n1; ++ix; @tile(16, @outer, @inner)) {
        const int dimn1n2 = n1 * n2;
        if (
          ix >= 8 && ix < (n1-8)
          && iy >= 8 && iy < (n2-8)
          && iz >= 8 && iz < (n3-8)
        ){
	  int offset = iz*dimn1n2 + iy * n1 + ix;
          float value = 0.0;
          value += ptr_prev[offset]*coeff[0];
	  iso_kernel_impl(ptr_next, ptr_prev, ptr_vel, coeff, n1, n2, n3, ix, iy, iz, dimn1n2, offset, value);
          ptr_next[offset] = 2.0f* ptr_prev[offset] - ptr_next[offset] + value*ptr_vel[offset];
        }
      }
    }
  }
}
]==]

-- examples/cpp/25_iso3dfd_okl_shared/isokernel.okl (its host defines WGSX, the work-group size, and passes
-- n1 = WGSX): each row's x neighbours come from a @shared halo, the arrays are padded by halfpad on each side
-- of x and reached through `&ptr[halfpad]`, and the @inner loops are inside an `if`.
local iso_shared = [==[
@kernel void iso_kernel(float* ptr_next,
                        float* ptr_prev,
                        float* ptr_vel,
                        float* coeff,
                        int& n1,
                        int& n2,
                        int& n3,
                        int& halfpad){
    for (int iz = 0; iz < n3; ++iz; @outer) {
    @shared float xs[WGSX+16];
    //Compute local index for item in x dimension
    
    for (int iy = 0; iy < n2; ++iy; @tile(4, @outer)) {
      if (
          iy >= 8 && iy < (n2-8)
          && iz >= 8 && iz < (n3-8)
        ){

	float *ptr_nextp = &ptr_next[halfpad];
	 float *ptr_prevp = &ptr_prev[halfpad];
	 float *ptr_velp = &ptr_vel[halfpad];

      const int dimn1n2 = (n1+2*halfpad) * n2;
      //Handle copy of data in the local array on X
      for (int ix = 0; ix < n1; ++ix; @inner) {
        int offset = iz*dimn1n2 + iy * (n1+2*halfpad) + ix;
        int xloc = ix % WGSX;
        //check if we need to get few elements before/after in the local array
	if(xloc==0){
		for(int i=-8; i<=0; i++){
                        xs[xloc + i + 8] = ptr_prevp[offset+i];
                }
	}
	else if(xloc == WGSX-1){
		for(int i=0; i<=8; i++){
                        xs[xloc + i + 8] = ptr_prevp[offset+i];
                }
	}else{
		xs[xloc + 8] = ptr_prevp[offset];
	}
      }
      for (int ix = 0; ix < n1; ++ix; @inner) {

          int offset = iz*dimn1n2 + iy * (n1+2*halfpad) + ix;
          int xloc = ix % WGSX;
          float value = 0.0f;
          value += ptr_prevp[offset]*coeff[0];
          for (int ir = 1; ir <= 8; ir++) {
            value += coeff[ir] * (xs[xloc + ir + 8] + xs[xloc - ir + 8]);// horizontal
            value += coeff[ir] * (ptr_prevp[offset + ir * (n1+2*halfpad)] + ptr_prevp[offset - ir * (n1+2*halfpad)]);// vertical
            value += coeff[ir] * (ptr_prevp[offset + ir*dimn1n2] + ptr_prevp[offset - ir*dimn1n2]); // in front / behind
          }
          ptr_nextp[offset] = 2.0f* ptr_prevp[offset] - ptr_nextp[offset] + value*ptr_velp[offset];
	}
      }
    }
  }
}
]==]

local n1, n2, n3, halfpad = 24, 20, 18, 8

-- One time step as the kernel computes it at each point it updates; `pad` is the x padding on each side, and
-- `horizontal`, `neighbours` say what reaches `value`.
local function reference(prev, next0, vel, coeff, pad, neighbours)
  local row = n1 + 2 * pad
  local plane = row * n2
  local want = {}
  for k = 0, #next0 - 1 do want[k] = next0:get(k) end
  for iz = 8, n3 - 9 do
    for iy = 8, n2 - 9 do
      for ix = (pad > 0 and 0 or 8), (pad > 0 and n1 - 1 or n1 - 9) do
        local o = pad + iz * plane + iy * row + ix
        local value = prev:get(o) * coeff:get(0)
        if neighbours then
          for ir = 1, 8 do
            value = value + coeff:get(ir) * (prev:get(o + ir) + prev:get(o - ir))
            value = value + coeff:get(ir) * (prev:get(o + ir * row) + prev:get(o - ir * row))
            value = value + coeff:get(ir) * (prev:get(o + ir * plane) + prev:get(o - ir * plane))
          end
        end
        want[o] = 2 * prev:get(o) - next0:get(o) + value * vel:get(o)
      end
    end
  end
  return function(k) return want[k] end
end

-- `fixed`: the sizes are fixed when the kernel is built (parse_okl's `parameters`: true for all, or a table of
-- some), else passed to the call; `assumption`, if any, is assumed of them (lp.assume).
local function run(src, pad, neighbours, fixed, what, assumption)
  local params = {n1 = n1, n2 = n2, n3 = n3}
  if pad > 0 then params.halfpad = pad end
  local knl = lp.parse_okl(src, {parameters = fixed == true and params or fixed or nil, defines = {WGSX = n1}}).iso_kernel
  if assumption then knl = lp.assume(knl, assumption) end
  local size = (n1 + 2 * pad) * n2 * n3
  local prev, vel = lp.rand({size}, "float32", 41), lp.rand({size}, "float32", 42)
  local next0 = lp.rand({size}, "float32", 43)
  local coeff = T.array_from({9}, "float32", function(k) return 1 / (k + 2) end)
  local want = reference(prev, next0, vel, coeff, pad, neighbours)
  T.on_each_executor(function(exec, name)
    local nxt = next0:copy()
    local args = {ptr_next = nxt, ptr_prev = prev, ptr_vel = vel, coeff = coeff, n1 = n1, n2 = n2, n3 = n3}
    if pad > 0 then args.halfpad = pad end
    knl(exec, args)
    T.check_array(nxt, want, what .. " on " .. name, {rtol = 1e-4})
  end)
end

-- With the sizes passed to the call, the flat index iz*n1*n2 + iy*n1 + ix is read in the radix (n1, n2): its
-- digits ix and iy are within n1 and n2 on every point updated, so the work-items touch different points.
for _, fixed in ipairs({true, false}) do
  local sizes = fixed and " (sizes fixed)" or " (sizes passed)"
  run(iso_plain, 0, true, fixed, "iso3dfd" .. sizes)
  run(iso_function, 0, false, fixed, "iso3dfd with a device function" .. sizes)
end
run(iso_shared, halfpad, true, true, "iso3dfd with a @shared halo")
-- With the sizes passed, its index halfpad + iz*(n1 + 2*halfpad)*n2 + iy*(n1 + 2*halfpad) + ix is read in the
-- radix (n1 + 2*halfpad, n2), the row's digit ix + halfpad in the window [halfpad, halfpad + n1 + 2*halfpad)
-- that every access of ptr_next shares: the work-items touch different points where halfpad >= 0. (n1 is the
-- work-group size, fixed as OCCA's host fixes WGSX.)
run(iso_shared, halfpad, true, {n1 = n1}, "iso3dfd with a @shared halo (n2, n3, halfpad passed)", "halfpad >= 0")
-- A negative halfpad makes the rows overlap, and nothing else rules it out: a race, so no code.
T.expect_error("MissingBarrierError", {"ptr_next", "global barrier"}, lp.generate_code,
  lp.parse_okl(iso_shared, {defines = {WGSX = n1}}).iso_kernel)

-- examples/cpp/6_arrays/smallTranspose.okl: @dim and @dimOrder views, each work-item (j, i) with i < j swapping
-- a pair no other work-item touches (the predicate i < j is part of the barrier analysis, and A(i,j), that is
-- A[i + entries*j], is read in the radix (entries)).
local transpose_text = [==[
typedef int *iMatrix  @dim(entries, entries);
typedef int *iTMatrix @dim(entries, entries) @dimOrder(1,0);

@kernel void smallTranspose(const int entries,
                            iMatrix  A,
                            iTMatrix B) {
  for (int j = 0; j < entries; ++j; @outer) {
    for (int i = 0; i < entries; ++i; @inner) {
      if (i < j) {
        const int Aij = A(i,j);
        A(i,j)        = A(j,i);
        A(j,i)        = Aij;

        const int Bij = B(i,j);
        B(i,j)        = B(j,i);
        B(j,i)        = Bij;
      }
    }
  }
}
]==]
for _, options in ipairs({{parameters = {entries = 16}}, {}}) do
  local transpose = lp.parse_okl(transpose_text, options).smallTranspose
  T.on_each_executor(function(exec, name)
    local A = T.array_from({256}, "int32", function(k) return k end)
    local B = T.array_from({256}, "int32", function(k) return 1000 + k end)
    transpose(exec, {entries = 16, A = A, B = B})
    -- A(i,j) is A[i + 16 j]; B(i,j) with @dimOrder(1,0) is B[16 i + j]: both come out transposed.
    T.check_array(A, function(k) return 16 * (k % 16) + k // 16 end, "smallTranspose A on " .. name)
    T.check_array(B, function(k) return 1000 + 16 * (k % 16) + k // 16 end, "smallTranspose B on " .. name)
  end)
end

-- examples/cpp/6_dtypes/addVectors.okl: structs without typedefs (C++ names them by their tags).
local dtypes = lp.parse_okl([==[
struct myFloat {
  float value;
};

struct myFloat2 {
  float x, y;
};

struct myFloat4 {
  float values[4];
};

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
-- examples/cpp/19_stream_tags/powerOfPi2.okl with its host's defines: x[j] = pi^x[j] over a strided loop.
local power2 = lp.parse_okl([==[
@kernel void powerOfPi2(float* x,
                        int entries) {
  for (int g = 0; g < group; g++; @outer) {
    for (int i = 0; i < block; ++i; @inner) {
      for (int j=i+g*block; j < entries; j+=block*group) {
        x[j] = pow(3.14159f,x[j]);
      }
    }
  }
}
]==], {defines = {block = 64, group = 4}}).powerOfPi2
local n = 1000
local a, b = lp.rand({n}, "float32", 51), lp.rand({n}, "float32", 52)
T.on_each_executor(function(exec, name)
  local ab = lp.zeros({n}, "float32")
  dtypes(exec, {entries = n, a = a, b = b, ab = ab})
  T.check_array(ab, function(i) return a:get(i) + b:get(i) end, "6_dtypes addVectors on " .. name, {rtol = 1e-6})
  local x = lp.rand({300}, "float32", 53)
  local x0 = x:copy()
  power2(exec, {x = x, entries = 300})
  T.check_array(x, function(j) return 3.14159 ^ x0:get(j) end, "powerOfPi2 on " .. name, {rtol = 1e-5})
end)

print("okl occa iso3dfd and others: ok")

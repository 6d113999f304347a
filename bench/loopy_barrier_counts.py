# Barriers loopy (pip install loopy pyopencl) emits for the kernels of bench/barrier_counts.lua, for comparison.
#   python3 bench/loopy_barrier_counts.py
import numpy as np, loopy as lp, warnings
warnings.filterwarnings("ignore")
lp.set_caching_enabled(False)
def count(k):
    try:
        code = lp.generate_code_v2(k).device_code()
    except Exception as e:
        return "error: " + str(e)[:90]
    return code.count("barrier(")
R=[]
k = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}", """
  <> a_temp[i_inner] = a[16*i_outer + i_inner] {priority=10}
  out[16*i_outer + i_inner] = sum(k, a_temp[k])
""")
k = lp.tag_inames(k, dict(i_outer="g.0", i_inner="l.0")); k = lp.set_temporary_address_space(k, "a_temp", "local")
R.append(("local temporary a_temp", count(lp.add_dtypes(k, dict(a=np.float32)))))
p = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}", "out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])")
p = lp.add_dtypes(lp.tag_inames(p, dict(i_outer="g.0", i_inner="l.0")), dict(a=np.float32))
R.append(("prefetch a (no sweep)", count(lp.add_prefetch(p, "a"))))
R.append(("prefetch a over i_inner, l.0", count(lp.add_prefetch(p, "a", ["i_inner"], default_tag="l.0"))))
t = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[j,i] = a[i,j]", assumptions="n>=1", name="transpose")
t = lp.split_iname(t, "j", 16, inner_tag="l.1", outer_tag="g.0"); t = lp.split_iname(t, "i", 16, inner_tag="l.0", outer_tag="g.1")
t = lp.add_dtypes(t, dict(a=np.float32))
R.append(("transpose, prefetch over i_inner (write race)", count(lp.add_prefetch(t, "a", "i_inner", default_tag="l.auto"))))
R.append(("transpose, prefetch over i_inner,j_inner", count(lp.add_prefetch(t, "a", "i_inner,j_inner", default_tag="l.auto"))))
m = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<n }", "c[i,j] = sum(k, a[i,k]*b[k,j])", assumptions="n>=1")
m = lp.add_dtypes(m, dict(a=np.float32, b=np.float32))
m = lp.split_iname(m, "i", 16, outer_tag="g.0", inner_tag="l.1"); m = lp.split_iname(m, "j", 16, outer_tag="g.1", inner_tag="l.0")
m = lp.split_iname(m, "k", 16)
m = lp.add_prefetch(m, "a", "k_inner,i_inner", default_tag="l.auto"); m = lp.add_prefetch(m, "b", "j_inner,k_inner", default_tag="l.auto")
R.append(("matmul, 16x16 tiles, two prefetches", count(lp.add_inames_for_unused_hw_axes(m))))
s = lp.make_kernel("{ [i,j]: 1<=i,j<n-1 }", "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]", assumptions="n>=3")
s = lp.add_dtypes(s, dict(a=np.float32))
s = lp.split_iname(s, "i", 16, outer_tag="g.1", inner_tag="l.1"); s = lp.split_iname(s, "j", 16, outer_tag="g.0", inner_tag="l.0")
s = lp.add_prefetch(s, "a", "i_inner,j_inner", fetch_bounding_box=True, default_tag="l.auto")
R.append(("5-point stencil, bounding-box prefetch", count(lp.add_inames_for_unused_hw_axes(s))))
b = lp.make_kernel("[] -> {[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}", ["""
  c[i,j,k] = 2*a[i,j,k]
  e[i,j,k] = c[i,j,k+1]+c[i,j,k-1]
"""], [lp.TemporaryVariable("c", dtype=None, shape=(50, 10, 99)), "..."])
b = lp.add_and_infer_dtypes(b, dict(a=np.int32)); b = lp.split_iname(b, "k", 128, inner_tag="l.0")
R.append(("barrier-counting kernel (c[i,j,k])", count(b)))
for n, c in R: print("%-48s %s" % (n, c))

"""loopy's codegen latency for the kernels of bench/codegen_latency.lua (which runs this script and prints both).

What is timed: process CPU time (time.process_time, as os.clock in the Lua bench, so that load from other
processes does not skew the ratio) of one make_kernel -> transformations -> add_dtypes ->
generate_code_v2(...).device_code() run, caching off. Each kernel is built once untimed first (a warm-up: lazy
imports and first-use setup inside loopy, pymbolic and islpy), unless that run alone exceeded the time budget,
in which case it is the one sample; then runs are repeated until `runs` samples or `budget` seconds, at least one.

usage: python3 bench/loopy_codegen_latency.py [runs [budget_seconds [kernel_to_skip ...]]]   (defaults 10 and 5)

Prints one line per kernel: "name runs p50_ms p90_ms" (nearest-rank percentiles), or "name n/a reason" where
loopy cannot build the kernel (the reason is the first line of its error).
"""
import contextlib
import io
import math
import sys
import time
import warnings

import numpy as np
import loopy as lp

lp.set_caching_enabled(False)
warnings.filterwarnings("ignore")

F32 = np.float32


# The tutorial's kernels.

def double():
    knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
    return lp.add_dtypes(knl, {"a": F32})


def transpose_dbl():
    knl = lp.make_kernel(
        "{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }",
        """
        out[j,i] = a[i,j] {id=transpose}
        out[ii,jj] = 2*out[ii,jj]  {dep=transpose}
        """,
        [lp.GlobalArg("out", shape=lp.auto, is_input=False), ...])
    knl = lp.prioritize_loops(knl, "i,j")
    knl = lp.prioritize_loops(knl, "ii,jj")
    return lp.add_dtypes(knl, {"a": F32})


def zero_fill():
    knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "a[i,j] = 0")
    knl = lp.prioritize_loops(knl, "j,i")
    return lp.add_dtypes(knl, {"a": F32})


def triangular():
    knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<=i }", "out[i,j] = 2*a[i,j]")
    return lp.add_dtypes(knl, {"a": F32})


def matvec():
    knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "out[i] = sum(k, a[i,k]*x[k])")
    return lp.add_dtypes(knl, {"a": F32, "x": F32})


def split_tile():
    knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i,j] = a[j,i]",
                         assumptions="n mod 16 = 0 and n >= 1")
    knl = lp.split_iname(knl, "i", 16)
    knl = lp.split_iname(knl, "j", 16)
    knl = lp.prioritize_loops(knl, "i_outer,j_outer,i_inner,j_inner")
    return lp.add_dtypes(knl, {"a": F32})


def split_unroll():
    knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", assumptions="n>=0 and n mod 4 = 0")
    knl = lp.split_iname(knl, "i", 4)
    knl = lp.tag_inames(knl, {"i_inner": "unr"})
    knl = lp.prioritize_loops(knl, "i_outer,i_inner")
    return lp.add_dtypes(knl, {"a": F32})


def split_gl():
    knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", assumptions="n>=0")
    knl = lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0")
    return lp.add_dtypes(knl, {"a": F32})


# Tuned kernels: register tiles (ilp), prefetches, bounding boxes.

def matmul(**options):
    knl = lp.make_kernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", **options)
    return lp.add_dtypes(knl, {"a": F32, "b": F32})


def register_tiled_gemm(t):
    """t x t outputs per work-item of a 16x16 work-group, a and b prefetched into local memory (issue 9's form)."""
    k = matmul(assumptions=f"n mod {16 * t} = 0 and n>={16 * t}")
    k = lp.split_iname(k, "i", 16 * t, outer_tag="g.0")
    k = lp.split_iname(k, "j", 16 * t, outer_tag="g.1")
    k = lp.split_iname(k, "i_inner", 16, outer_tag="ilp", inner_tag="l.0")
    k = lp.split_iname(k, "j_inner", 16, outer_tag="ilp", inner_tag="l.1")
    k = lp.split_iname(k, "k", 16)
    k = lp.add_prefetch(k, "a", "i_inner_outer, i_inner_inner, k_inner", default_tag="l.auto")
    return lp.add_prefetch(k, "b", "k_inner, j_inner_outer, j_inner_inner", default_tag="l.auto")


def gemm_8x8():
    return register_tiled_gemm(8)


def gemm_4x4():
    return register_tiled_gemm(4)


def sgemm_cl_4x8():
    """A 4x8 tile of consecutive outputs per work-item, 16x16 work-items; both fetches inside every group axis."""
    k = matmul(assumptions="n mod 128 = 0 and n>=128")
    k = lp.split_iname(k, "i", 64, outer_tag="g.1")
    k = lp.split_iname(k, "j", 128, outer_tag="g.0")
    k = lp.split_iname(k, "i_inner", 4, outer_tag="l.1", inner_tag="ilp")
    k = lp.split_iname(k, "j_inner", 8, outer_tag="l.0", inner_tag="ilp")
    k = lp.split_iname(k, "k", 16)
    outer = "i_outer, j_outer, k_outer"
    k = lp.add_prefetch(k, "a", "i_inner_outer, i_inner_inner, k_inner", fetch_outer_inames=outer,
                        default_tag="l.auto")
    return lp.add_prefetch(k, "b", "k_inner, j_inner_outer, j_inner_inner", fetch_outer_inames=outer,
                           default_tag="l.auto")


def sgemm_c_4x4():
    """A 4x4 register tile on the C target (loops only: plain C has no hardware axes)."""
    k = matmul(assumptions="n mod 4 = 0 and n>=4", target=lp.CTarget())
    k = lp.split_iname(k, "i", 4, inner_tag="ilp")
    k = lp.split_iname(k, "j", 4, inner_tag="ilp")
    return lp.prioritize_loops(k, "i_outer,j_outer,k")


def conv():
    knl = lp.make_kernel("{[b,x,fx,c]: 0<=b<2 and 0<=x<8 and 0<=fx<3 and 0<=c<2}",
                         "out[b,x] = sum((fx, c), img[b, x+fx, c] * w[fx, c])")
    k = lp.tag_inames(knl, {"x": "l.0"})
    k = lp.add_prefetch(k, "w[:,:]", default_tag="l.auto")
    k = lp.add_prefetch(k, "img", "x, fx", fetch_outer_inames="b, c", default_tag="l.auto")
    return lp.add_dtypes(k, {"img": F32, "w": F32})


def stencil_3d():
    """7-point Laplacian on a 4x8x8 work-group, the input's bounding box per work-group in local memory."""
    knl = lp.make_kernel(
        "{[i,j,k]: 0<=i,j,k<n}",
        "out[i+1,j+1,k+1] = a[i,j+1,k+1] + a[i+2,j+1,k+1] + a[i+1,j,k+1] + a[i+1,j+2,k+1]"
        " + a[i+1,j+1,k] + a[i+1,j+1,k+2] - 6*a[i+1,j+1,k+1]",
        assumptions="n mod 8 = 0 and n>=8")
    k = lp.split_iname(knl, "i", 4, outer_tag="g.2", inner_tag="l.2")
    k = lp.split_iname(k, "j", 8, outer_tag="g.1", inner_tag="l.1")
    k = lp.split_iname(k, "k", 8, outer_tag="g.0", inner_tag="l.0")
    k = lp.add_prefetch(k, "a", "i_inner,j_inner,k_inner", fetch_bounding_box=True, default_tag="l.auto")
    return lp.add_dtypes(k, {"a": F32})


def batched_8x8():
    knl = lp.make_kernel("{[e,i,j,k]: 0<=e<nelements and 0<=i,j,k<8}", "c[e,i,j] = sum(k, a[e,i,k]*b[e,k,j])",
                         assumptions="nelements>=1")
    k = lp.split_iname(knl, "e", 32, outer_tag="g.0", inner_tag="l.0")
    k = lp.tag_inames(k, {"i": "ilp"})
    return lp.add_dtypes(k, {"a": F32, "b": F32})


KERNELS = [double, transpose_dbl, zero_fill, triangular, matvec, split_tile, split_unroll, split_gl,
           gemm_8x8, gemm_4x4, sgemm_cl_4x8, sgemm_c_4x4, conv, stencil_3d, batched_8x8]


def percentile(sorted_times, q):
    """Nearest-rank percentile, as the Lua bench computes it."""
    return sorted_times[max(0, math.ceil(q * len(sorted_times)) - 1)]


def timed_build(build):
    start = time.process_time()
    lp.generate_code_v2(build()).device_code()
    return time.process_time() - start


def measure(build, runs, budget):
    """Sorted samples in milliseconds; the first run raises where loopy cannot build the kernel."""
    with contextlib.redirect_stdout(io.StringIO()):  # loopy prints the whole kernel before some errors
        first = timed_build(build)
    if first > budget:
        return [first * 1e3]
    times, spent = [], 0.0
    while len(times) < runs and (not times or spent < budget):
        t = timed_build(build)
        times.append(t * 1e3)
        spent += t
    return sorted(times)


def first_line(err):
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}"


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    skip = set(sys.argv[3:])
    timed_build(double)  # first use of loopy, so that no kernel's single over-budget sample carries it
    for build in KERNELS:
        if build.__name__ in skip:
            continue
        try:
            times = measure(build, runs, budget)
        except Exception as err:  # noqa: BLE001 -- any failure is loopy's answer for this kernel
            print(f"{build.__name__} n/a {first_line(err)}", flush=True)
            continue
        print(f"{build.__name__} {len(times)} {percentile(times, 0.5):.3f} {percentile(times, 0.9):.3f}",
              flush=True)


if __name__ == "__main__":
    main()

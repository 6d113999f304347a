"""loopy's codegen latency for the kernels of bench/codegen_latency.lua.

Prints one line per kernel, "name p50_ms p90_ms": milliseconds from lp.make_kernel to device code
(lp.generate_code_v2(...).device_code() after lp.add_dtypes), caching off. Times are process CPU time, as
os.clock gives the Lua bench, so that load from other processes does not skew the ratio. Kernels named on the command line
(after the run count) are skipped, so that both benches measure the same set.
"""
import math
import sys
import time
import warnings

import numpy as np
import loopy as lp

lp.set_caching_enabled(False)
warnings.filterwarnings("ignore")


def double():
    knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
    return lp.add_dtypes(knl, {"a": np.float32})


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
    return lp.add_dtypes(knl, {"a": np.float32})


def zero_fill():
    knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "a[i,j] = 0")
    knl = lp.prioritize_loops(knl, "j,i")
    return lp.add_dtypes(knl, {"a": np.float32})


def triangular():
    knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<=i }", "out[i,j] = 2*a[i,j]")
    return lp.add_dtypes(knl, {"a": np.float32})


def matvec():
    knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "out[i] = sum(k, a[i,k]*x[k])")
    return lp.add_dtypes(knl, {"a": np.float32, "x": np.float32})


def split_tile():
    knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i,j] = a[j,i]",
                         assumptions="n mod 16 = 0 and n >= 1")
    knl = lp.split_iname(knl, "i", 16)
    knl = lp.split_iname(knl, "j", 16)
    knl = lp.prioritize_loops(knl, "i_outer,j_outer,i_inner,j_inner")
    return lp.add_dtypes(knl, {"a": np.float32})


def split_unroll():
    knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", assumptions="n>=0 and n mod 4 = 0")
    knl = lp.split_iname(knl, "i", 4)
    knl = lp.tag_inames(knl, {"i_inner": "unr"})
    knl = lp.prioritize_loops(knl, "i_outer,i_inner")
    return lp.add_dtypes(knl, {"a": np.float32})


def split_gl():
    knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", assumptions="n>=0")
    knl = lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0")
    return lp.add_dtypes(knl, {"a": np.float32})


KERNELS = [double, transpose_dbl, zero_fill, triangular, matvec, split_tile, split_unroll, split_gl]


def percentile(sorted_times, q):
    """Nearest-rank percentile, as the Lua bench computes it."""
    return sorted_times[max(0, math.ceil(q * len(sorted_times)) - 1)]


def measure(build, runs):
    def build_and_generate():
        return lp.generate_code_v2(build()).device_code()

    build_and_generate()  # warm-up: lazy imports and first-use setup inside loopy, pymbolic and islpy
    times = []
    for _ in range(runs):
        start = time.process_time()
        build_and_generate()
        times.append((time.process_time() - start) * 1e3)
    times.sort()
    return percentile(times, 0.5), percentile(times, 0.9)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    skip = set(sys.argv[2:])
    for build in KERNELS:
        if build.__name__ in skip:
            continue
        p50, p90 = measure(build, runs)
        print(f"{build.__name__} {p50:.3f} {p90:.3f}", flush=True)


if __name__ == "__main__":
    main()

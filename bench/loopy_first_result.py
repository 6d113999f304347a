"""The child process of bench/first_result.lua on loopy's side: builds the same kernel with the same schedule as
the Loom child, runs it once on the first OpenCL device and checks the first element of the result. The caller
times the whole process and chooses the cache directories (XDG_CACHE_HOME) and whether caching is off
(LOOPY_NO_CACHE, PYOPENCL_NO_CACHE).

usage: python3 bench/loopy_first_result.py
"""
import math
import warnings

import numpy as np
import loopy as lp
import pyopencl as cl
import pyopencl.array as cla

warnings.filterwarnings("ignore")

ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
queue = cl.CommandQueue(ctx)
knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + sin(a[i])")
knl = lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0")
a = cla.to_device(queue, np.arange(1 << 16, dtype=np.float32))
_, (out,) = knl(queue, a=a)
assert abs(out.get()[1] - (2 + math.sin(1))) < 1e-5, "wrong result"

"""The per-call overhead of loopy/PyOpenCL for the calls of bench/call_overhead.lua (which runs this script and
prints both): a built kernel out[i] = 2*a[i] on n float32 elements, called again and again.

Each kernel is called through its executor (knl.executor(...)), as a loop of calls should: calling the
translation unit itself looks the executor up again on every call (milliseconds here).

What is timed: `calls` calls after a warm-up, divided by `calls`: process CPU time (time.process_time) for the C
target, wall-clock time (time.perf_counter) on OpenCL, as in the Lua bench. Calls on device arrays are enqueued
and the queue is waited for once at the end, as a loop of such calls runs.

usage: python3 bench/loopy_call_overhead.py [calls [n]]   (defaults 20000 and 16)

Prints one line per case, "name microseconds_per_call", or "name n/a reason".
"""
import sys
import time
import warnings

import numpy as np
import loopy as lp
import pyopencl as cl
import pyopencl.array as cla

warnings.filterwarnings("ignore")

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
N = int(sys.argv[2]) if len(sys.argv) > 2 else 16


def kernel(target=None):
    knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]",
                         [lp.GlobalArg("a, out", np.float32, shape="n"), lp.ValueArg("n", np.int32)],
                         target=target)
    return lp.set_options(knl, skip_arg_checks=False)


def per_call_us(call, finish=lambda: None, calls=CALLS, clock=time.perf_counter):
    for _ in range(3):
        call()
    finish()
    start = clock()
    for _ in range(calls):
        call()
    finish()
    return (clock() - start) / calls * 1e6


def report(name, measure):
    try:
        print(name, "%.3f" % measure(), flush=True)
    except Exception as e:  # a case loopy cannot run here is reported, not fatal
        print(name, "n/a", str(e).splitlines()[0] if str(e) else type(e).__name__, flush=True)


a_host = np.random.rand(N).astype(np.float32)
out_host = np.zeros(N, np.float32)


def c_host():
    ex = kernel(lp.ExecutableCTarget()).executor()
    return per_call_us(lambda: ex(a=a_host, out=out_host), clock=time.process_time)


report("c_host", c_host)

ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
cl_ex = kernel().executor(ctx)
a_dev = cla.to_device(queue, a_host)
out_dev = cla.zeros(queue, N, np.float32)

report("opencl_device", lambda: per_call_us(lambda: cl_ex(queue, a=a_dev, out=out_dev), queue.finish))
report("opencl_host", lambda: per_call_us(lambda: cl_ex(queue, a=a_host, out=out_host), calls=max(CALLS // 10, 1)))


# The floor under those: PyOpenCL's own launch of the same kernel (arguments set once), and a round trip of the
# host arrays (copy in, launch, copy out, wait).
def raw_prg():
    src = "__kernel void k(__global const float *a, __global float *out) { out[get_global_id(0)] = 2*a[get_global_id(0)]; }"
    return cl.Program(ctx, src).build().k


def raw_enqueue():
    k = raw_prg()
    k.set_args(a_dev.data, out_dev.data)
    return per_call_us(lambda: cl.enqueue_nd_range_kernel(queue, k, (N,), None), queue.finish)


def raw_round_trip():
    k = raw_prg()
    k.set_args(a_dev.data, out_dev.data)

    def call():
        cl.enqueue_copy(queue, a_dev.data, a_host, is_blocking=False)
        cl.enqueue_nd_range_kernel(queue, k, (N,), None)
        cl.enqueue_copy(queue, out_host, out_dev.data, is_blocking=True)

    return per_call_us(call, calls=max(CALLS // 10, 1))


report("raw_enqueue", raw_enqueue)
report("raw_round_trip", raw_round_trip)

"""Per-call overhead of the Python binding over the C call it makes.

    WEFT_LIBRARY=build/rel/lib/libweft.so python3 bench/python/binding_overhead.py

One process (backend self), a tiny float32 tensor, so that the C call itself costs little:
  floor       a ctypes call of weft_abi_version (what any ctypes call costs),
  c_execute   weft_plan_execute through ctypes with DLTensors built once (the C call),
  execute     Plan.execute(x, out) (the binding: views, checks, the same C call),
  redistribute weft.redistribute(x, src, dst, out) against weft_redistribute the same way;
  and Plan.execute(x) allocating its output (np.empty included).
The binding's overhead is execute - c_execute (and redistribute - c_redistribute). Each figure
is the median of several repeats of many calls.
"""

import ctypes
import statistics
import time
from typing import Callable

import numpy as np

import weft
from weft import _dlpack, _lib


def per_call_us(fn: Callable[[], object], calls: int = 20000, repeats: int = 7) -> float:
    for _ in range(calls // 10):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def main() -> None:
    with weft.Context(backend="self") as ctx:
        mesh = weft.DeviceMesh(ctx, (1,))
        src = weft.Layout(mesh, (4, 4), np.float32, [weft.Shard(0)])
        dst = weft.Layout(mesh, (4, 4), np.float32, [weft.Shard(1)])
        plan = weft.Plan(src, dst)
        x, out = np.ones((4, 4), np.float32), np.empty((4, 4), np.float32)
        lib = _lib.lib()
        vin, vout = _dlpack.view(x, "x"), _dlpack.view(out, "out", writable=True)
        pin, pout = ctypes.byref(vin.tensor), ctypes.byref(vout.tensor)
        h, hs, hd = plan.handle, src.handle, dst.handle
        rows = {
            "floor (ctypes call of weft_abi_version)": per_call_us(lib.weft_abi_version),
            "c_execute (weft_plan_execute via ctypes)":
                per_call_us(lambda: lib.weft_plan_execute(h, pin, pout, None, None, None)),
            "execute (Plan.execute)": per_call_us(lambda: plan.execute(x, out)),
            "execute, output allocated (Plan.execute(x))": per_call_us(lambda: plan.execute(x)),
            "c_redistribute (weft_redistribute via ctypes)":
                per_call_us(lambda: lib.weft_redistribute(hs, pin, hd, pout, None, None, None)),
            "redistribute (weft.redistribute)": per_call_us(lambda: weft.redistribute(x, src, dst,
                                                                                       out)),
        }
        for name, us in rows.items():
            print(f"{name:48s} {us:7.2f} us")
        us = list(rows.values())
        print(f"binding overhead, execute:      {us[2] - us[1]:.2f} us")
        print(f"binding overhead, redistribute: {us[5] - us[4]:.2f} us")
        print(f"libweft: {weft.library_path()}")


if __name__ == "__main__":
    main()

"""Device arrays from Python against the numpy round trip (docs/bench/python_device_arrays.txt).
On the GPU machine, with the module built by scripts/device_python.sh and CuPy + PyTorch installed:
    PYTHONPATH=/tmp/sf/pydev python3 scripts/experiments/device_arrays_bench.py"""
import time

import cupy as cp
import numpy as np
import torch

import sarfuse

p, sc = sarfuse.default_scene()
rng = np.random.default_rng(1)
for na, nr in ((4096, 4096), (8192, 8192)):
    raw = (rng.standard_normal((na, nr)) + 1j * rng.standard_normal((na, nr))).astype(np.complex64)
    plan = sarfuse.Plan(p, backend="cuda", shape=(na, nr))
    d = cp.asarray(raw)
    t = torch.from_numpy(raw).cuda()

    def med(f, n=15):
        f()
        f()
        ts = []
        for _ in range(n):
            cp.cuda.Device().synchronize()
            a = time.perf_counter()
            f()
            ts.append(time.perf_counter() - a)
        return sorted(ts)[n // 2]

    out = cp.empty_like(d)
    th = med(lambda: plan.focus(raw))
    tdev = med(lambda: plan.focus(d, out=out))
    tnew = med(lambda: plan.focus(d))
    tt = med(lambda: plan.focus(t))
    print(f"{na}x{nr}: host numpy in/out {th*1e3:.2f} ms; cupy in, out= {tdev*1e3:.2f} ms; cupy in, new cupy out "
          f"{tnew*1e3:.2f} ms; torch in/out {tt*1e3:.2f} ms; plan focus (kernels) {plan.last_times['total']*1e3:.2f} ms; "
          f"host/device {th/tdev:.1f}x")
    assert np.array_equal(cp.asnumpy(plan.focus(d)), plan.focus(raw))

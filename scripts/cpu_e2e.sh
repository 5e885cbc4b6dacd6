#!/bin/sh
# The 2-core targets of docs/performance.md, in one run: `sarfuse focus` (CPU backend, 2 threads,
# 4096 x 4096 complex64, linear) as a process, its report's focusing time, and the four FFT passes
# alone (2 range + 2 azimuth, scipy.fft with 2 workers on the same complex64 array).
#   scripts/cpu_e2e.sh [runs]     (needs build/sarfuse and python3 with numpy and scipy)
set -eu
RUNS=${1:-5}
B=${B:-build/sarfuse}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
$B bench e2e --size 4096x4096 --input c64 --backend cpu --threads 2 --repeats "$RUNS" --dir "$D/e2e" --json "$D/e2e.json" \
  | grep -E "process wall|I/O floor|ratio|fixed per process"
${PYTHON:-/usr/bin/python3} - "$D/e2e.json" "$RUNS" <<'PY'
import json, sys, time
import numpy as np, scipy.fft as sf
e = json.load(open(sys.argv[1])); runs = int(sys.argv[2])
rng = np.random.default_rng(1)
a = (rng.standard_normal((4096, 4096)) + 1j * rng.standard_normal((4096, 4096))).astype(np.complex64)
def passes():
    b = sf.fft(a, axis=1, workers=2); b = sf.ifft(b, axis=1, workers=2)
    b = sf.fft(b, axis=0, workers=2); sf.ifft(b, axis=0, workers=2)
passes()
t = []
for _ in range(runs):
    t0 = time.perf_counter(); passes(); t.append(time.perf_counter() - t0)
fft = sorted(t)[len(t) // 2]
med = lambda v: sorted(v)[len(v) // 2]
wall, focus = e["wall_s"], med(e["focus_s"])
ratio = med([w / f for w, f in zip(e["walls_s"], e["focus_s"])])  # each process against its own report
print(f"four FFT passes (scipy.fft, 2 workers, median of {runs}): {fft:.3f} s")
print(f"focus (reports, median): {focus:.3f} s; process wall (median): {wall:.3f} s")
print(f"process wall / its focus (median of the runs) = {ratio:.2f} (target <= 1.2); "
      f"process wall / FFT passes = {wall / fft:.2f} (target <= 1.5)")
PY

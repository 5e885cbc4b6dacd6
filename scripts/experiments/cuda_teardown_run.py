"""Each mode of cuda_teardown.cu as a process, median wall of 5 (docs/bench/e2e/teardown_experiment.txt)."""
import subprocess, time, sys, statistics
b = sys.argv[1]
for args in (["0"], ["1"], ["1", "x"], ["2"], ["2","x"], ["3"], ["5"], ["4"]):
    ws = []; out = ""
    for _ in range(5):
        t = time.perf_counter(); r = subprocess.run([b] + args, capture_output=True, text=True); ws.append(time.perf_counter() - t); out = r.stdout.strip()
    print(" ".join(args), "wall median %.3f" % statistics.median(ws), "min %.3f" % min(ws), "|", out)

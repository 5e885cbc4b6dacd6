# Where a `sarfuse focus` process's time goes outside its report: the report's wall (from the focus
# call's start), when its stdout arrives (main flushes it just before _exit) and when the process has
# gone. Usage: exit_cost.py SARFUSE RAW PARAMS OUT_DIR RUNS [focus options...]
import json, os, subprocess, sys, time

sarfuse, raw, params, out_dir, runs, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:]
os.makedirs(out_dir, exist_ok=True)
product, report = os.path.join(out_dir, "slc.npy"), os.path.join(out_dir, "report.json")
for k in range(runs):
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    os.sync()
    t0 = time.perf_counter()
    p = subprocess.Popen([sarfuse, "focus", raw, "--params", params, "-o", product, "--report", report, *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdout.read(1)
    t1 = time.perf_counter()
    p.stdout.read()
    p.wait()
    t2 = time.perf_counter()
    wall = json.load(open(report))["timings_s"]["wall"]
    print(f"process {t2 - t0:.3f} s: until stdout {t1 - t0:.3f}, then exit {t2 - t1:.3f}; report wall {wall:.3f} "
          f"(so start + return from focus {t1 - t0 - wall:.3f})")

#!/usr/bin/env python3
"""Per-pass floors of the whole-RDA chains from scripts/device_counts.sh's CSV (Nsight Compute, one
`sarfuse bench --backend cuda` run).

For each chain (fp32 / fp16-storage at the power-of-two and at the nice range FFT length) and pass:
the measured time, the warp instructions it issued, the time those need at one instruction per
scheduler per cycle (the issue floor: 4 schedulers per SM), the DRAM bytes and the time they need at the
copy rate (the memory floor), and the FP32 floor: its FP32 arithmetic instructions alone (FFMA, FADD,
FMUL) at one warp instruction per scheduler per cycle, the FP32 pipes' rate. A pass can be no faster than
the larger floor; the chain's ratio can be no better than the ratio of the sums of those maxima. Both
modes do the same FP32 arithmetic, so with every other instruction removed the ratio could still be no
better than the ratio of the sums of max(FP32 floor, DRAM floor); nor, if every FMUL were fused into an
FFMA as well (the most better instruction selection could do), than the same with FADD + FFMA only.

Usage: scripts/kernel_counts.py counts.csv [copy GB/s, default 3839: the bench's copy of the scene]
"""
import csv
import re
import sys

SMS = 132
SCHEDULERS = 4


SCALE = {"": 1.0, "inst": 1.0, "%": 1.0, "register/thread": 1.0, "ns": 1e-9, "us": 1e-6, "usecond": 1e-6,
         "ms": 1e-3, "msecond": 1e-3, "s": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
         "hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9}


def load(path):
    """One dict per kernel launch, every metric in SI units (seconds, bytes, cycles per second)."""
    rows = list(csv.reader(open(path, newline="")))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    names, units = rows[head], rows[head + 1]
    out = []
    for r in rows[head + 2:]:
        if len(r) != len(names):
            continue
        d = {}
        for n, u, v in zip(names, units, r):
            try:
                d[n] = float(v.replace(",", "")) * SCALE[u] if u in SCALE else v
            except ValueError:
                d[n] = v
        out.append(d)
    return out


def template_args(name, kernel):
    m = re.search(kernel + r"<([^>]*)>", name)
    if not m:
        return None
    args = [a.strip() for a in m.group(1).split(",")]
    norm = {"(bool)0": "false", "(bool)1": "true", "0": "false", "1": "true"}
    return [re.sub(r"^\(int\)", "", a) if i == 0 else norm.get(a, a) for i, a in enumerate(args)]


def chains(ks):
    """The launches of each whole-RDA run, by its pass-3 kernel (FP32 butterflies, no tensor cores):
    pass 1 is the range kernel before it, pass 2 what ran between them, pass 4 as many launches after
    it as pass 2 had (the azimuth IFFT, the same engine)."""
    name = [k["Kernel Name"] for k in ks]
    found = {}
    for i, n in enumerate(name):
        a = template_args(n, "range_doppler_kernel")
        if not a or len(a) < 4 or a[2] != "false" or a[3] != "false":
            continue
        key = ("fp32" if a[1] == "float2" else "fp16-storage", int(a[0]))
        j = i - 1
        while j >= 0 and "range_kernel<" not in name[j]:
            j -= 1
        e = i + 1 + (i - j - 1)  # the azimuth IFFT: as many launches as the azimuth FFT
        found.setdefault(key, []).append([[ks[j]], ks[j + 1:i], [ks[i]], ks[i + 1:e]])
    return found


def main():
    ks = load(sys.argv[1])
    copy = float(sys.argv[2]) if len(sys.argv) > 2 else 3839.0
    res = {}
    print(f"{'chain':24} {'pass':5} {'ms':>7} {'Minst':>8} {'issue%':>7} {'issue floor':>11} {'DRAM MB':>8} "
          f"{'DRAM floor':>10} {'GFLOP32':>8} {'FP32 floor':>10} {'regs':>5}")
    for key, runs in sorted(chains(ks).items()):
        passes = runs[min(3, len(runs) - 1)]  # the bench's timed run: after its three warm-ups
        tot = [0.0, 0.0, 0.0, 0.0, 0.0]
        for p, launches in enumerate(passes, 1):
            t = sum(k["gpu__time_duration.sum"] for k in launches) * 1e3  # ms
            inst = sum(k["smsp__inst_executed.sum"] for k in launches)
            clk = max(k["sm__cycles_elapsed.avg.per_second"] for k in launches)  # cycles / s
            issue_floor = inst / (SMS * SCHEDULERS * clk) * 1e3
            b = sum(k["dram__bytes_read.sum"] + k["dram__bytes_write.sum"] for k in launches)
            dram_floor = b / (copy * 1e9) * 1e3
            fl = sum(2 * k["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] +
                     k["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"] +
                     k["smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"] for k in launches)
            fp32_inst = sum(k["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] +
                            k["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"] +
                            k["smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"] for k in launches) / 32
            fp32_floor = fp32_inst / (SMS * SCHEDULERS * clk) * 1e3
            fused_floor = (fp32_inst - sum(k["smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"]
                                           for k in launches) / 32) / (SMS * SCHEDULERS * clk) * 1e3
            act = sum(k["smsp__issue_active.avg.pct_of_peak_sustained_active"] * k["gpu__time_duration.sum"]
                      for k in launches) / max(1e-9, sum(k["gpu__time_duration.sum"] for k in launches))
            regs = max(k["launch__registers_per_thread"] for k in launches)
            print(f"{key[0] + ' ' + str(key[1]):24} {p:5} {t:7.3f} {inst / 1e6:8.1f} {act:7.1f} {issue_floor:11.3f} "
                  f"{b / 1e6:8.1f} {dram_floor:10.3f} {fl / 1e9:8.2f} {fp32_floor:10.3f} {regs:5.0f}")
            tot[0] += t
            tot[1] += max(issue_floor, dram_floor)
            tot[2] += dram_floor
            tot[3] += max(fp32_floor, dram_floor)
            tot[4] += max(fused_floor, dram_floor)
        res[key] = tot
        print(f"{key[0] + ' ' + str(key[1]):24} {'all':5} {tot[0]:7.3f}   sum of max(issue, DRAM floor) {tot[1]:.3f} ms, "
              f"DRAM floors {tot[2]:.3f} ms, sum of max(FP32, DRAM floor) {tot[3]:.3f} ms")
    for length in sorted({k[1] for k in res}):
        a, b = res.get(("fp32", length)), res.get(("fp16-storage", length))
        if a and b:
            print(f"range FFT {length}: fp16-storage vs fp32 measured {a[0] / b[0]:.2f}x; ceiling with these "
                  f"instruction counts {a[1] / b[1]:.2f}x; with only the FP32 arithmetic left {a[3] / b[3]:.2f}x "
                  f"({a[4] / b[4]:.2f}x with every FMUL fused away too); "
                  f"bytes alone {a[2] / b[2]:.2f}x")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Chart of `sarfuse bench fft --json` results: each variant's speed relative to cuFFT (same run) for
contiguous lines and for columns (the azimuth FFTs). Usage: plot_fft_bench.py OUT.png BENCH_FFT.json"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out, path = sys.argv[1], sys.argv[2]
run = json.load(open(path))
fig, ax = plt.subplots(1, 2, figsize=(13, 4.8))
for panel, key, title in ((0, "results", "contiguous lines (batch: 512 MiB)"),
                          (1, "columns", "columns of a row-major array (azimuth FFTs)")):
    rows = [r for r in run.get(key, []) if r["variant"] != "cufft"]
    sizes = sorted({r["n"] for r in rows})
    variants = sorted({r["variant"] for r in rows}, key=lambda v: [r["variant"] for r in rows].index(v))
    w = 0.8 / max(1, len(variants))
    for k, v in enumerate(variants):
        xs, ys = [], []
        for i, n in enumerate(sizes):
            hit = [r for r in rows if r["n"] == n and r["variant"] == v]
            if hit:
                xs.append(i - 0.4 + w * (k + 0.5))
                ys.append(hit[0]["speed_vs_cufft"])
        ax[panel].bar(xs, ys, w, label=v, color=plt.get_cmap("tab20")(k % 20))  # one colour per variant
    ax[panel].axhline(1.0, color="black", lw=0.8)
    ax[panel].set_xticks(range(len(sizes)), [str(n) for n in sizes], rotation=30)
    ax[panel].set_xlabel("FFT length n")
    ax[panel].set_ylabel("speed relative to cuFFT (same run)")
    ax[panel].set_title(title)
    ax[panel].legend(fontsize=7, ncol=2)
fig.suptitle(f'sarfuse bench fft on {run.get("device", "?")}')
fig.tight_layout()
fig.savefig(out, dpi=110)

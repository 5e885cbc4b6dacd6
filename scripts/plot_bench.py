#!/usr/bin/env python3
"""Chart of `sarfuse bench --backend cuda --json` results: speedup over cufft-unfused and fraction of
the device-to-device copy bandwidth, per size. Usage: plot_bench.py OUT.png BENCH.json..."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out, files = sys.argv[1], sys.argv[2:]
runs = [json.load(open(f)) for f in files]
labels, rc_speed, rc_vk, rda_speed, rc_frac, rda_frac = [], [], [], [], [], []
for r in runs:
    rc = r["range_compression"]
    labels.append(f'{r["size"][0]}x{r["size"][1]}\n{rc["mode"]} RC {rc["fft_length"]}')
    rc_speed.append(rc["speedup_vs_cufft_unfused"])
    rc_vk.append(rc.get("speedup_vs_vkfft_alone") or 0)
    rc_frac.append(100 * rc["fused_fraction_of_copy"])
    rda = r["rda"]
    rda_speed.append(rda["speedup"])
    total_bytes = sum(s["bytes"] for s in rda["stages"])
    rda_frac.append(100 * total_bytes / (rda["fused_ms"] * 1e-3) / (r["copy"]["gb_s"] * 1e9))
fig, ax = plt.subplots(1, 2, figsize=(13, 4.8))
x = range(len(labels))
w = 0.27
ax[0].bar([i - w for i in x], rc_speed, w, label="range compression vs cufft-unfused")
ax[0].bar(list(x), rc_vk, w, label="range compression vs VkFFT convolution alone")
ax[0].bar([i + w for i in x], rda_speed, w, label="whole RDA vs cufft-unfused chain")
ax[0].axhline(1, color="k", lw=0.8)
ax[0].set_ylabel("speedup of the fused kernels (same run)")
ax[0].set_xticks(list(x), labels, fontsize=8)
ax[0].legend(fontsize=8)
w = 0.38
ax[1].bar([i - w / 2 for i in x], rc_frac, w, label="fused range compression")
ax[1].bar([i + w / 2 for i in x], rda_frac, w, label="whole RDA, bytes of its 4 passes")
ax[1].set_ylabel("% of device-to-device copy bandwidth")
ax[1].set_xticks(list(x), labels, fontsize=8)
ax[1].legend(fontsize=8)
fig.suptitle(f'sarfuse CUDA backend on {runs[0]["device"]}: median of {runs[0]["repeats"]} runs, CUDA events')
fig.tight_layout()
fig.savefig(out, dpi=110)

#!/usr/bin/env python3
"""The sharpness of `sarfuse focus --doppler auto` against fixed centroids, on a real block:
    scripts/doppler_scan.py SARFUSE RAW PARAMS FIRST_HZ LAST_HZ STEP_HZ
Focuses RAW (linear azimuth processing, the default) with --doppler auto and with every centroid of the
scan, and prints the intensity contrast (std / mean of |pixel|^2) of each product, over the whole
product and over the zero-Doppler rows every product holds (the same ground: the product's rows move
with the centroid's beam-centre offset), with the ratio of auto to the scan's best."""
import json, subprocess, sys, tempfile, os
import numpy as np

sarfuse, raw, params, first, last, step = sys.argv[1:7]
tmp = tempfile.mkdtemp()


def focus(args, name):
    out = os.path.join(tmp, name + ".npy")
    r = subprocess.run([sarfuse, "focus", raw, "--params", params, "-o", out] + args, capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stderr)
    g = json.load(open(out + ".json"))
    return np.load(out), g["geometry"]["eta_first_s"], g["geometry"]["azimuth_spacing_s"], g, r.stderr


def contrast(x):
    p = np.abs(x.astype(np.complex128)) ** 2
    return p.std() / p.mean()


products = {"auto": focus(["--doppler", "auto"], "auto")}
for f in np.arange(float(first), float(last) + 1e-9, float(step)):
    products[f"{f:.0f}"] = focus(["--doppler-centroid", f"{f}"], f"f{f:.0f}")
t0 = max(p[1] for p in products.values())
t1 = min(p[1] + p[2] * (p[0].shape[0] - 1) for p in products.values())
rows = {}
for k, (x, eta, dt, g, err) in products.items():
    i0, i1 = int(round((t0 - eta) / dt)), int(round((t1 - eta) / dt)) + 1
    rows[k] = (contrast(x), contrast(x[i0:i1]), g["radar"]["doppler_centroid_hz"])
est = products["auto"][3]["processing"]["doppler_estimate"]
print(f"auto: {est['centroid_hz']:.1f} Hz, ambiguity {est['ambiguity']} by {est['ambiguity_source']}, "
      f"confidence {est['confidence']:.2f}; common rows: {int(round((t1 - t0) / products['auto'][2])) + 1}")
print(f"{'centroid':>10} {'Hz':>9} {'whole':>7} {'common':>7}")
for k, (w, c, hz) in rows.items():
    print(f"{k:>10} {hz:9.1f} {w:7.2f} {c:7.2f}")
scan = {k: v for k, v in rows.items() if k != "auto"}
bw, bc = max(v[0] for v in scan.values()), max(v[1] for v in scan.values())
print(f"auto / best of the scan: whole product {rows['auto'][0] / bw:.3f}, common rows {rows['auto'][1] / bc:.3f}")

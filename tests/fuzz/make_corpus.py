#!/usr/bin/env python3
"""Writes the fuzz seed corpus (tests/fuzz/corpus/{npy,params,mat}): small valid files of every
supported kind and broken ones, so libFuzzer starts from both sides of every check. Needs numpy."""
import json
import pathlib
import struct
import zlib

import numpy as np

root = pathlib.Path(__file__).resolve().parent / "corpus"
for d in ("npy", "params", "mat"):
    (root / d).mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(1)

# ---- .npy ----
c64 = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))).astype(np.complex64)
np.save(root / "npy/c64_4x6.npy", c64)
np.save(root / "npy/c128_3x5.npy", c64[:3, :5].astype(np.complex128))
np.save(root / "npy/i8_4x6x2.npy", rng.integers(-20, 20, (4, 6, 2), dtype=np.int8))
np.save(root / "npy/i16_4x6x2.npy", rng.integers(-300, 300, (4, 6, 2), dtype=np.int16))
np.save(root / "npy/f4_4x4.npy", np.ones((4, 4), np.float32))
np.save(root / "npy/fortran.npy", np.asfortranarray(c64))
np.save(root / "npy/bigendian.npy", c64.astype(">c8"))
np.save(root / "npy/i8_bad_last_dim.npy", np.zeros((4, 6, 3), np.int8))
full = (root / "npy/c64_4x6.npy").read_bytes()
(root / "npy/truncated_data.npy").write_bytes(full[:-20])
(root / "npy/truncated_header.npy").write_bytes(full[:30])
(root / "npy/bad_magic.npy").write_bytes(b"\x93NUMPZ" + full[6:])
(root / "npy/huge_shape.npy").write_bytes(
    b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) +
    b"{'descr': '<c8', 'fortran_order': False, 'shape': (4000000000, 4000000000), }".ljust(117) + b"\n" + b"\0" * 64)
v2 = bytearray(full)
(root / "npy/version9.npy").write_bytes(bytes(v2[:6]) + b"\x09\x00" + bytes(v2[8:]))

# ---- parameters JSON ----
radar = {"carrier_frequency_hz": 5.3e9, "range_sampling_rate_hz": 32.317e6, "chirp_rate_hz_per_s": -0.72135e12,
         "pulse_duration_s": 41.75e-6, "prf_hz": 1256.98, "effective_velocity_m_s": 7062,
         "near_range_m": 990383.964, "doppler_centroid_hz": -6900, "antenna_length_m": 15.0}
scene = {"azimuth_lines": 64, "range_samples": 128, "snr_db": 20, "seed": 3,
         "targets": [{"range_m": 991000.0, "azimuth_time_s": 0.0, "amplitude": 1.0, "phase_rad": 0.5}]}
(root / "params/radar.json").write_text(json.dumps({"radar": radar}))
(root / "params/scene.json").write_text(json.dumps({"radar": radar, "scene": scene}))
(root / "params/sidecar.json").write_text(json.dumps({"geometry": {"eta_first_s": -0.5}}))
(root / "params/negative_prf.json").write_text(json.dumps({"radar": dict(radar, prf_hz=-1)}))
(root / "params/missing_field.json").write_text(json.dumps({"radar": {k: v for k, v in radar.items() if k != "prf_hz"}}))
(root / "params/wrong_type.json").write_text(json.dumps({"radar": dict(radar, prf_hz="fast")}))
(root / "params/not_object.json").write_text("[1, 2, 3]")
(root / "params/broken.json").write_text('{"radar": {"prf_hz": 1')
(root / "params/nan.json").write_text(json.dumps({"radar": radar}).replace("1256.98", "NaN"))


# ---- MATLAB v5 ----
def element(dtype, payload):
    pad = (8 - len(payload) % 8) % 8
    return struct.pack("<II", dtype, len(payload)) + payload + b"\0" * pad


def matrix(name, re, im, mx_class, mi_type):
    flags = element(6, struct.pack("<II", mx_class | (0x0800 if im is not None else 0), 0))
    dims = element(5, struct.pack("<ii", *re.shape))
    body = flags + dims + element(1, name.encode()) + element(mi_type, re.T.tobytes())
    if im is not None:
        body += element(mi_type, im.T.tobytes())
    return struct.pack("<II", 14, len(body)) + body


header = b"MATLAB 5.0 MAT-file, sarfuse fuzz corpus".ljust(116) + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"
z = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6)))
(root / "mat/single.mat").write_bytes(header + matrix("data", z.real.astype(np.float32), z.imag.astype(np.float32), 7, 7))
(root / "mat/double.mat").write_bytes(header + matrix("data", z.real, z.imag, 6, 9))
i8 = rng.integers(-20, 20, (2, 4, 6)).astype(np.int8)
(root / "mat/int8.mat").write_bytes(header + matrix("data", i8[0], i8[1], 8, 1))
i16 = rng.integers(-300, 300, (2, 4, 6)).astype(np.int16)
(root / "mat/int16.mat").write_bytes(header + matrix("data", i16[0], i16[1], 10, 3))
(root / "mat/real_only.mat").write_bytes(header + matrix("data", z.real, None, 6, 9))
packed = zlib.compress(matrix("data", z.real.astype(np.float32), z.imag.astype(np.float32), 7, 7))
(root / "mat/compressed.mat").write_bytes(header + struct.pack("<II", 15, len(packed)) + packed)
(root / "mat/truncated.mat").write_bytes((root / "mat/single.mat").read_bytes()[:200])
(root / "mat/header_only.mat").write_bytes(header)
(root / "mat/not_mat.mat").write_bytes(b"this is not a MAT-file at all" * 8)
print("corpus written to", root)

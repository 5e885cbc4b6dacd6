#!/usr/bin/env python3
"""Writes the fuzz seed corpus (tests/fuzz/corpus/{npy,params,mat}): small valid files of every
supported kind and broken ones, so libFuzzer starts from both sides of every check. Needs numpy."""
import json
import pathlib
import struct
import zlib

import numpy as np

root = pathlib.Path(__file__).resolve().parent / "corpus"
for d in ("npy", "params", "mat", "level0", "s1_decoders"):
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

# ---- Sentinel-1 Level-0 packets (S1-IF-ASD-PL-0007: 68 header bytes, then the four channels) ----
BRC0 = ["0", "10", "110", "111"]


def channel_bits(mode, nq, channel, brc_thidx):
    bits = ""
    for b in range(0, nq, 128):
        n = min(128, nq - b)
        if mode >= 12:
            if channel == 0:
                bits += "000"  # BRC 0
            if channel == 2:
                bits += format(brc_thidx, "08b")
            bits += "".join(str(rng.integers(0, 2)) + BRC0[rng.integers(0, 4)] for _ in range(n))
        elif mode in (3, 4, 5):
            if channel == 2:
                bits += format(brc_thidx, "08b")
            bits += "".join(format(int(rng.integers(0, 2 ** mode)), "0%db" % mode) for _ in range(n))
    if mode == 0:
        bits = "".join(format(int(rng.integers(0, 1024)), "010b") for _ in range(nq))
    return bits + "0" * (-len(bits) % 16)


def packet(mode, nq, count, thidx=20, signal=0):
    bits = "".join(channel_bits(mode, nq, c, thidx) for c in range(4))
    bits += "0" * (-len(bits) % 32)
    user = int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""
    length = 68 + len(user) - 7
    h = struct.pack(">HHH", (1 << 11) | (65 << 4) | 12, (3 << 14) | (count & 0x3FFF), length)
    h += struct.pack(">IH", 1276273467, 61863) + struct.pack(">IIBBI", 0x352EF853, 87747936, 13, 0, 1)
    h += struct.pack(">BH", 25, 0xBEA3) + struct.pack(">II", count, 4427 + count)
    h += bytes([mode, 31, 0, 4, 12]) + struct.pack(">HH", 34770, 12970) + (1658).to_bytes(3, "big")
    h += bytes([10]) + b"".join(v.to_bytes(3, "big") for v in (19499, 5271, 12178))
    h += (0x7C2000).to_bytes(3, "big") + ((2 << 16) | (signal << 12) | 2).to_bytes(3, "big")
    h += struct.pack(">H", nq) + b"\0"
    assert len(h) == 68
    return h + user


seeds = {"fdbaq": packet(12, 300, 0), "baq5_noise": packet(5, 200, 1, 3, 1), "baq3": packet(3, 130, 2, 40),
         "bypass": packet(0, 40, 3)}
for name, p in seeds.items():
    (root / f"level0/{name}.dat").write_bytes(p)
    mode = p[37] & 0x1F
    (root / f"s1_decoders/{name}.bin").write_bytes(bytes([[0, 3, 4, 5, 12, 13, 14].index(mode)]) + p[65:67] + p[68:])
(root / "level0/three_packets.dat").write_bytes(seeds["fdbaq"] + packet(12, 300, 5) + seeds["baq3"])
(root / "level0/truncated.dat").write_bytes(seeds["fdbaq"][:500])
(root / "level0/header_only.dat").write_bytes(seeds["fdbaq"][:68])
(root / "s1_decoders/fdbaq_short.bin").write_bytes(bytes([4]) + seeds["fdbaq"][65:67] + seeds["fdbaq"][68:200])
print("corpus written to", root)

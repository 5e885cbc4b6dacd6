"""The Python API: parameters, simulate -> focus -> analyze, equality with the CLI, bad input, GIL."""
import json
import os
import pathlib
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import sarfuse


@pytest.fixture(scope="module")
def scene():
    params, sc = sarfuse.default_scene()
    raw = sarfuse.simulate(params, sc)
    return params, sc, raw


def test_params_round_trip_and_files(source_dir, tmp_path):
    p = sarfuse.RadarParams.from_json(source_dir / "examples" / "radarsat1_scene5.json")
    assert p.doppler_centroid_hz == -6900
    assert p.prf_hz == pytest.approx(1256.98)
    d = p.to_dict()
    assert sarfuse.RadarParams.from_dict(d).to_dict() == d
    assert sarfuse.RadarParams.from_dict({"radar": d}).to_dict() == d
    params, sc = sarfuse.default_scene()
    sarfuse.save_params(tmp_path / "p.json", params, sc)
    p2, sc2 = sarfuse.load_params(tmp_path / "p.json")
    assert p2.to_dict() == params.to_dict() and sc2 == sc


def test_bad_parameters_raise(source_dir):
    d = sarfuse.RadarParams.from_json(source_dir / "examples" / "radarsat1_scene5.json").to_dict()
    with pytest.raises(ValueError, match="prf_hz"):
        sarfuse.RadarParams.from_dict(dict(d, prf_hz=-1.0))
    with pytest.raises(ValueError, match="carrier_frequency_hz"):
        sarfuse.RadarParams.from_dict({k: v for k, v in d.items() if k != "carrier_frequency_hz"})
    with pytest.raises(ValueError):
        sarfuse.RadarParams.from_dict("not a dict")
    with pytest.raises(OSError, match="no such file"):
        sarfuse.RadarParams.from_json("/nonexistent/params.json")
    params, _ = sarfuse.default_scene()
    with pytest.raises(ValueError, match="range_window"):
        sarfuse.Plan(params, range_window="blackman")
    with pytest.raises(ValueError, match="unknown option"):
        sarfuse.Plan(params, colour="red")
    with pytest.raises(ValueError, match="backend: expected auto, cpu or cuda"):
        sarfuse.Plan(params, backend="tpu")
    with pytest.raises(ValueError, match="params"):
        sarfuse.Plan({"prf_hz": 1})
    with pytest.raises(ValueError, match="precision: expected fp32, fp64, fp16-storage, fp16 or tf32x3"):
        sarfuse.Plan(params, precision="fp8")
    with pytest.raises(ValueError, match="a GPU mode"):  # the FP16 modes are CUDA only
        sarfuse.Plan(params, backend="cpu", precision="fp16-storage", shape=(1024, 1024))
    sarfuse.Plan(params, backend="cpu", wisdom="-")  # the wisdom file option is accepted (CUDA uses it)


def test_five_target_quality_through_analyze(scene):
    params, sc, raw = scene
    plan = sarfuse.Plan(params, backend="cpu")
    slc = plan.focus(raw)
    assert slc.dtype == np.complex64 and slc.shape == raw.shape
    assert plan.backend == "cpu" and plan.last_times["total"] > 0
    q = sarfuse.analyze(slc, params, targets=sc)
    assert len(q) == len(sc["targets"]) == 5
    for t in q:
        assert abs(t["row_error_px"]) < 0.05 and abs(t["col_error_px"]) < 0.05, t
        assert t["range"]["pslr_db"] == pytest.approx(-13.26, abs=0.3)
        assert t["azimuth"]["pslr_db"] == pytest.approx(-13.26, abs=0.3)
        assert t["snr_db"] > 30
    # The same targets given as a list, and the brightest peaks without targets.
    assert len(sarfuse.analyze(slc, params, targets=sc["targets"])) == 5
    assert len(sarfuse.analyze(slc, params, peaks=3)) == 3


def test_python_equals_cli_bit_for_bit(scene, cli, tmp_path):
    params, sc, raw = scene
    sarfuse.save_params(tmp_path / "p.json", params, sc)
    iq = np.clip(np.round(np.stack([raw.real, raw.imag], axis=-1) * 20), -127, 127).astype(np.int8)
    for name, data in (("c64", raw), ("int8", iq)):
        np.save(tmp_path / f"{name}.npy", data)
        out = tmp_path / f"{name}_slc.npy"
        r = subprocess.run([cli, "focus", "--azimuth", "circular", str(tmp_path / f"{name}.npy"), "--params", str(tmp_path / "p.json"),
                            "-o", str(out), "--backend", "cpu"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        ours = sarfuse.Plan(params, backend="cpu").focus(data)
        assert np.array_equal(np.load(out), ours), name


def test_focus_file_equals_cli_bit_for_bit(scene, cli, tmp_path):
    params, sc, raw = scene
    sarfuse.save_params(tmp_path / "p.json", params, sc)
    np.save(tmp_path / "raw.npy", raw)
    for k, (ext, extra) in enumerate(((".npy", {}), (".h5", {"sample_format": "cint16", "compression": "fast"}),
                       (".npy", {"sample_format": "complex32"}), (".tif", {"compression": "fast"}))):
        cli_out, py_out = tmp_path / f"cli{k}{ext}", tmp_path / f"py{k}{ext}"
        flags = [a for k, v in extra.items() for a in ("--" + k.replace("_", "-"), v)]
        r = subprocess.run([cli, "focus", "--azimuth", "circular", str(tmp_path / "raw.npy"), "--params", str(tmp_path / "p.json"),
                            "-o", str(cli_out), "--backend", "cpu", "--report", str(tmp_path / "cli.json")] + flags,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        report = sarfuse.focus_file(tmp_path / "raw.npy", params=params.to_dict(), output=py_out, azimuth="circular",
                                    backend="cpu", **extra)
        assert report["output"] == str(py_out)
        assert report["timings_s"]["focus"]["total"] > 0 and report["timings_s"]["wall"] > 0
        assert report["product"]["sample_format"] == extra.get("sample_format", "complex64")
        assert cli_out.read_bytes() == py_out.read_bytes(), ext
    # Several inputs into a folder, the parameters as a file.
    (tmp_path / "d").mkdir()
    np.save(tmp_path / "b.npy", raw)
    reports = sarfuse.focus_file([tmp_path / "raw.npy", tmp_path / "b.npy"], params=tmp_path / "p.json",
                                 output_dir=tmp_path / "d", azimuth="circular", backend="cpu")
    assert [r["plan_reused"] for r in reports] == [False, True]
    assert (tmp_path / "d" / "raw.npy").read_bytes() == (tmp_path / "cli0.npy").read_bytes()
    assert np.array_equal(np.load(tmp_path / "d" / "b.npy"), np.load(tmp_path / "cli0.npy"))
    with pytest.raises(OSError, match="missing.npy"):
        sarfuse.focus_file(tmp_path / "missing.npy", params=params.to_dict(), output=tmp_path / "x.npy")
    assert not (tmp_path / "x.npy").exists()
    with pytest.raises(ValueError, match="sample_format: expected"):
        sarfuse.focus_file(tmp_path / "raw.npy", params=params.to_dict(), output=tmp_path / "x.npy", sample_format="c8")


def test_python_m_sarfuse_runs_the_cli(scene, cli, tmp_path):
    params, sc, raw = scene
    sarfuse.save_params(tmp_path / "p.json", params, sc)
    np.save(tmp_path / "raw.npy", raw)
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-m", "sarfuse", "focus", "--azimuth", "circular", str(tmp_path / "raw.npy"), "--params",
                        str(tmp_path / "p.json"), "-o", str(tmp_path / "py.npy"), "--backend", "cpu"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    r2 = subprocess.run([cli, "focus", "--azimuth", "circular", str(tmp_path / "raw.npy"), "--params", str(tmp_path / "p.json"), "-o",
                         str(tmp_path / "cli.npy"), "--backend", "cpu"], capture_output=True, text=True)
    assert r2.returncode == 0, r2.stderr
    assert np.array_equal(np.load(tmp_path / "py.npy"), np.load(tmp_path / "cli.npy"))
    bad = subprocess.run([sys.executable, "-m", "sarfuse", "focus", str(tmp_path / "missing.npy"), "--params",
                          str(tmp_path / "p.json"), "-o", str(tmp_path / "x.npy")], capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.npy" in bad.stderr
    assert not (tmp_path / "x.npy").exists()


def test_bad_arrays_raise_and_odd_layouts_work(scene):
    params, sc, raw = scene
    plan = sarfuse.Plan(params, backend="cpu")
    with pytest.raises(TypeError, match="dtype"):
        plan.focus(raw.real.astype(np.float32))
    with pytest.raises(TypeError, match="numpy array"):
        plan.focus(raw.tolist())
    with pytest.raises(ValueError, match="2-D"):
        plan.focus(raw.ravel())
    with pytest.raises(ValueError, match="I/Q"):
        plan.focus(np.zeros((4, 8, 3), np.int8))
    with pytest.raises(ValueError, match="empty"):
        plan.focus(np.zeros((0, 8), np.complex64))
    nan = raw.copy()
    nan[3, 7] = np.nan
    with pytest.raises(ValueError, match="line 3, column 7"):
        plan.focus(nan)
    with pytest.raises(ValueError, match="too|lines|samples|shorter|replica"):
        plan.focus(raw[:, :100])  # shorter than the replica: the library's shape check
    ref = plan.focus(raw)
    ro = raw.copy()
    ro.flags.writeable = False
    assert np.array_equal(plan.focus(ro), ref)
    fortran = np.asfortranarray(raw)
    assert np.array_equal(plan.focus(fortran), ref)
    wide = np.zeros((raw.shape[0], 2 * raw.shape[1]), np.complex64)
    wide[:, ::2] = raw
    assert np.array_equal(plan.focus(wide[:, ::2]), ref)
    assert np.array_equal(plan.focus(raw.astype(">c8")), ref)  # big-endian: converted
    half = plan.focus(raw[:512])  # another shape: the plan is remade
    assert half.shape == (512, raw.shape[1])


def test_focus_releases_the_gil(scene):
    params, sc, raw = scene
    big = np.tile(raw, (2, 2))
    plan = sarfuse.Plan(params, backend="cpu", shape=big.shape)
    done = threading.Event()
    errors = []

    def work():
        try:
            plan.focus(big)
        except Exception as e:  # reported below; the loop must end either way
            errors.append(e)
        finally:
            done.set()

    worker = threading.Thread(target=work)
    counted = 0
    start = time.perf_counter()
    worker.start()
    while not done.is_set() and time.perf_counter() - start < 60:
        counted += 1
    worker.join(60)
    assert not errors, errors
    elapsed = time.perf_counter() - start
    # With the GIL held by focus() this loop would stall for the whole focus.
    assert counted > 1000, f"main thread ran {counted} iterations in {elapsed:.3f} s"


def test_estimate_doppler():
    params, sc = sarfuse.default_scene()
    params.doppler_centroid_hz = 0.2 * params.prf_hz
    raw = sarfuse.simulate(params, sc)
    e = sarfuse.estimate_doppler(raw, params)
    # The binding, not the accuracy (tests/integration/test_doppler.cpp holds that to 1 % of the PRF
    # on scenes built for it; here part of the squinted apertures falls outside the short record).
    assert abs(e["centroid_hz"] - params.doppler_centroid_hz) < 0.05 * params.prf_hz, e["centroid_hz"]
    assert e["ambiguity_source"] in ("mlcc+mlbf", "mlcc", "mlbf", "sharpness") and len(e["blocks"]) == 16
    assert 0 <= e["confidence"] <= 1 and {"mlbf_centroid_hz", "mlcc_sigma_hz", "candidates"} <= e.keys()
    checked = sarfuse.estimate_doppler(raw, params, check="always")
    assert checked["ambiguity_source"] in ("sharpness", "mlcc", "mlbf") and len(checked["candidates"]) >= 3
    assert all({"ambiguity", "centroid_hz", "sharpness", "proposed_by"} <= c.keys() for c in checked["candidates"])
    forced = sarfuse.estimate_doppler(raw, params, ambiguity=3)
    assert forced["ambiguity"] == 3 and forced["ambiguity_source"] == "forced"
    with pytest.raises(ValueError, match="auto, always or never"):
        sarfuse.estimate_doppler(raw, params, check="sometimes")
    with pytest.raises(ValueError, match="range blocks"):
        sarfuse.estimate_doppler(raw, params, range_blocks=0)


def test_devices_and_the_gpu_path(scene):
    devs = sarfuse.devices()
    assert isinstance(devs, list)
    if not devs:
        pytest.skip("no CUDA device: GPU path skipped")
    assert devs[0]["memory_bytes"] > 0 and devs[0]["name"]
    params, sc, raw = scene
    gpu = sarfuse.Plan(params, backend="cuda")
    slc = gpu.focus(raw)
    assert gpu.backend == "cuda"
    ref = sarfuse.Plan(params, backend="cpu", precision="fp64", range_fft_size=gpu.range_fft_size).focus(raw)
    err = np.linalg.norm(slc - ref) / np.linalg.norm(ref)
    assert err < 1e-5


def test_device_arrays_are_focused_where_they_lie(scene):
    """CuPy / PyTorch device arrays in, device arrays out: equal bit for bit to the host path of the same
    plan (the same kernels on the same samples), int8 I/Q too; bad device arrays refused clearly."""
    params, sc, raw = scene
    libs = []
    for name in ("cupy", "torch"):
        try:
            libs.append(__import__(name))
        except ImportError:
            pass
    if not sarfuse.devices() or not libs:
        pytest.skip("device arrays: needs a CUDA device and CuPy or PyTorch")
    gpu = sarfuse.Plan(params, backend="cuda")
    ref = gpu.focus(raw)
    iq = np.stack([np.round(raw.real * 40), np.round(raw.imag * 40)], axis=-1).clip(-127, 127).astype(np.int8)
    ref_iq = gpu.focus(iq)
    for lib in libs:
        if lib.__name__ == "cupy":
            to_dev, to_host = lib.asarray, lib.asnumpy
        else:
            to_dev = lambda a, t=lib: t.from_numpy(np.ascontiguousarray(a)).cuda()
            to_host = lambda a: a.cpu().numpy()
        d = to_dev(raw)
        out = gpu.focus(d)
        assert type(out) is type(d), lib.__name__
        assert np.array_equal(to_host(out), ref), lib.__name__
        assert np.array_equal(to_host(gpu.focus(to_dev(iq))), ref_iq), lib.__name__
        into = to_dev(np.zeros_like(ref))
        assert gpu.focus(d, out=into) is into and np.array_equal(to_host(into), ref)
        with pytest.raises(ValueError, match="C-contiguous"):
            gpu.focus(d[:, ::2])
        with pytest.raises(ValueError, match="out: expected"):
            gpu.focus(d, out=to_dev(np.zeros((3, 3), np.complex64)))
        with pytest.raises(ValueError, match="CUDA plan"):
            sarfuse.Plan(params, backend="cpu").focus(d)
    # Our own device array, for consumers of __cuda_array_interface__.
    dev = to_dev(raw)  # held while the plan reads it
    own = gpu._plan.focus_device(*sarfuse._device_raw(dev), 0)
    assert isinstance(own, sarfuse.DeviceArray) and own.shape == ref.shape
    assert own.__cuda_array_interface__["typestr"] == "<c8"
    if libs[0].__name__ == "cupy":
        assert np.array_equal(libs[0].asnumpy(libs[0].asarray(own)), ref)


def test_docs_example_runs(source_dir, tmp_path, monkeypatch):
    text = (source_dir / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "docs/python.md has no python example"
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "docs/python.md", "exec"), {"__name__": "__docs__"})


def test_read_sentinel1_matches_esa_decoding(source_dir):
    data = pathlib.Path(os.environ.get("SARFUSE_TEST_DATA", source_dir.parent / "shared" / "data")) / "sentinel1"
    if not (data / "000408-echo.dat").exists():
        pytest.skip(f"Sentinel-1 test packets not found in {data} (see the README there)")
    lines, info = sarfuse.read_sentinel1(data / "000408-echo.dat")
    ref = np.load(data / "000408-echo.esa_reference.npy")
    assert lines.shape == (1, ref.size) and lines.dtype == np.complex64
    assert np.abs(lines[0] - ref).max() <= 1e-5 * np.abs(ref).max()
    rcs = info["headers"][0]["secondary_header"]["radar_configuration_support"]
    assert rcs["baq_mode"] == 12 and rcs["swst"] == 5271 and info["packet_index"] == [0]
    with pytest.raises(ValueError, match="no noise packets"):
        sarfuse.read_sentinel1(data / "000408-echo.dat", signal="noise")
    with pytest.raises(ValueError, match="signal: expected echo, noise, txcal or all"):
        sarfuse.read_sentinel1(data / "000408-echo.dat", signal="radio")
    with pytest.raises(OSError):
        sarfuse.read_sentinel1(data / "nope.dat")

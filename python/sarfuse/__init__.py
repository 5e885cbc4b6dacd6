"""sarfuse: SAR raw data -> focused complex images (Range-Doppler), on the CPU or a CUDA GPU.

The library itself (not a subprocess): plans made once and reused, the GIL released while focusing,
errors as ValueError (bad parameters, shapes, data) or OSError (files).

    import sarfuse
    params, scene = sarfuse.default_scene()
    raw = sarfuse.simulate(params, scene)
    plan = sarfuse.Plan(params, backend="auto")
    slc = plan.focus(raw)
    for t in sarfuse.analyze(slc, params, targets=scene):
        print(t["snr_db"], t["range"]["pslr_db"])
"""
from __future__ import annotations

import json as _json
import os as _os

import numpy as _np

try:
    from . import _sarfuse
except ImportError as _e:  # a clearer word than "partially initialized module"
    import sys as _sys

    raise ImportError(
        f"sarfuse: the compiled module _sarfuse could not be loaded into Python "
        f"{_sys.version_info.major}.{_sys.version_info.minor} from {_os.path.dirname(__file__)} ({_e}); "
        "it is built for one Python version: rebuild (make, or pip install .) with this interpreter") from _e
from ._sarfuse import DeviceArray, RadarParams, devices

__version__ = _sarfuse.__version__
__all__ = ["RadarParams", "Plan", "DeviceArray", "simulate", "analyze", "estimate_doppler", "devices", "default_scene", "load_params",
           "save_params", "focus_file", "read_sentinel1"]

_RADAR_FIELDS = (
    "carrier_frequency_hz", "range_sampling_rate_hz", "chirp_rate_hz_per_s", "pulse_duration_s", "prf_hz",
    "effective_velocity_m_s", "near_range_m", "doppler_centroid_hz", "antenna_length_m",
)


def _radar_from_dict(d: dict) -> RadarParams:
    """RadarParams from the parameters file's "radar" object (or a whole file's dict with "radar")."""
    if not isinstance(d, dict):
        raise ValueError(f"RadarParams.from_dict: expected a dict, got {type(d).__name__}")
    whole = d if "radar" in d else {"radar": d}
    radar, _ = _sarfuse._parse_params(whole, "dict")
    return radar


def _radar_from_json(path: str | _os.PathLike) -> RadarParams:
    """RadarParams from a parameters JSON file (its "radar" object)."""
    radar, _ = _sarfuse._load_params(_os.fspath(path))
    return radar


def _radar_to_dict(self: RadarParams) -> dict:
    return _sarfuse._params_dict(self)["radar"]


def _radar_repr(self: RadarParams) -> str:
    return "RadarParams(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in _RADAR_FIELDS) + ")"


RadarParams.from_dict = staticmethod(_radar_from_dict)
RadarParams.from_json = staticmethod(_radar_from_json)
RadarParams.to_dict = _radar_to_dict
RadarParams.__repr__ = _radar_repr


def _scene_object(radar: RadarParams, scene):
    """The library's scene from a dict (the parameters file's "scene" object) or a file path."""
    if scene is None:
        return None
    if isinstance(scene, (str, _os.PathLike)):
        _, s = _sarfuse._load_params(_os.fspath(scene))
        if s is None:
            raise ValueError(f"{_os.fspath(scene)}: no \"scene\" object")
        return s
    if isinstance(scene, dict):
        whole = {"radar": radar.to_dict(), "scene": scene}
        _, s = _sarfuse._parse_params(whole, "scene dict")
        return s
    if isinstance(scene, _sarfuse._Scene):
        return scene
    raise ValueError(f"scene: expected a dict or a parameters file path, got {type(scene).__name__}")


def _scene_to_dict(radar: RadarParams, scene) -> dict:
    return _sarfuse._params_dict(radar, scene)["scene"]


def default_scene() -> tuple[RadarParams, dict]:
    """The demonstration scene: (RadarParams, scene dict) -- 1024 x 1024, 5 targets, 20 dB SNR."""
    radar, scene = _sarfuse._default_scene()
    return radar, _scene_to_dict(radar, scene)


def load_params(path: str | _os.PathLike) -> tuple[RadarParams, dict | None]:
    """A parameters file: (RadarParams, scene dict or None)."""
    radar, scene = _sarfuse._load_params(_os.fspath(path))
    return radar, (_scene_to_dict(radar, scene) if scene is not None else None)


def save_params(path: str | _os.PathLike, params: RadarParams, scene=None) -> None:
    """Writes a parameters file (the CLI's --params format): params, and the scene dict if given."""
    _check_params(params)
    s = _scene_object(params, scene)
    text = _json.dumps(_sarfuse._params_dict(params, s), indent=2) + "\n"
    with open(_os.fspath(path), "w", encoding="utf-8") as f:
        f.write(text)


def simulate(params: RadarParams, scene=None, threads: int = 0) -> _np.ndarray:
    """Raw echoes of the scene's point targets: complex64 array (azimuth_lines, range_samples).

    scene: dict (the parameters file's "scene" object) or a parameters file path; None: the default
    scene. Deterministic for a seed, whatever the thread count (0: all cores)."""
    _check_params(params)
    s = _scene_object(params, scene) if scene is not None else _sarfuse._default_scene()[1]
    return _sarfuse._simulate(params, s, int(threads))


def _check_params(params) -> None:
    if not isinstance(params, RadarParams):
        raise ValueError(f"params: expected sarfuse.RadarParams, got {type(params).__name__}")


_RAW_DTYPES = (_np.complex64, _np.complex128, _np.int8, _np.int16)


_DEVICE_RAW_TYPES = {"<c8": ("complex64", 2, 8), "<c16": ("complex128", 2, 16), "|i1": ("int8", 3, 1),
                     "<i1": ("int8", 3, 1), "<i2": ("int16", 3, 2)}


def _device_lib(name):
    import importlib
    return importlib.import_module(name)


def _c_contiguous(cai, itemsize):
    strides = cai.get("strides")
    if strides is None:
        return True
    expect = itemsize
    for n, s in zip(reversed(cai["shape"]), reversed(strides)):
        if n > 1 and s != expect:
            return False
        expect *= n
    return True


def _device_raw(raw):
    """(pointer, sample type, Na, Nr) of a device array, from its __cuda_array_interface__."""
    cai = raw.__cuda_array_interface__
    shape, typestr = tuple(cai["shape"]), cai["typestr"]
    if typestr not in _DEVICE_RAW_TYPES:
        raise TypeError(f"raw: device dtype '{typestr}' unsupported; expected complex64 or complex128 (Na, Nr), "
                        "or int8/int16 I/Q (Na, Nr, 2)")
    kind, ndim, itemsize = _DEVICE_RAW_TYPES[typestr]
    if len(shape) != ndim or (ndim == 3 and shape[2] != 2):
        raise ValueError(f"raw: a {kind} device array must have shape " + ("(Na, Nr)" if ndim == 2 else "(Na, Nr, 2)") +
                         f", got {shape}")
    if shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"raw: empty array, shape {shape}")
    if not _c_contiguous(cai, itemsize):
        raise ValueError("raw: the device array must be C-contiguous (copy it, e.g. cupy.ascontiguousarray)")
    return int(cai["data"][0]), kind, int(shape[0]), int(shape[1])


def _device_out(out, na, nr):
    cai = getattr(out, "__cuda_array_interface__", None)
    if cai is None:
        raise TypeError(f"out: expected a device array, got {type(out).__name__}")
    if cai["typestr"] != "<c8" or tuple(cai["shape"]) != (na, nr) or not _c_contiguous(cai, 8):
        raise ValueError(f"out: expected a C-contiguous complex64 device array of shape ({na}, {nr}), got "
                         f"'{cai['typestr']}' {tuple(cai['shape'])}")
    if cai["data"][1]:
        raise ValueError("out: the device array is read-only")
    return int(cai["data"][0])


def _raw_array(raw) -> _np.ndarray:
    """The raw array as the library reads it: C-contiguous, one of its dtypes, finite (copied only
    when the layout or byte order requires it; read-only arrays are read in place)."""
    if not isinstance(raw, _np.ndarray):
        raise TypeError(f"raw: expected a numpy array, got {type(raw).__name__}")
    if raw.dtype.type not in _RAW_DTYPES:
        raise TypeError(f"raw: dtype {raw.dtype} unsupported; expected complex64 or complex128 (Na, Nr), "
                        "or int8/int16 I/Q (Na, Nr, 2)")
    if raw.dtype.kind == "c" and raw.ndim != 2:
        raise ValueError(f"raw: complex arrays must be 2-D (Na, Nr), got shape {raw.shape}")
    if raw.dtype.kind == "i" and (raw.ndim != 3 or raw.shape[2] != 2):
        raise ValueError(f"raw: integer I/Q arrays must have shape (Na, Nr, 2), got {raw.shape}")
    if raw.shape[0] == 0 or raw.shape[1] == 0:
        raise ValueError(f"raw: empty array, shape {raw.shape}")
    a = _np.ascontiguousarray(raw, dtype=raw.dtype.newbyteorder("="))
    if a.dtype.kind == "c" and not _np.isfinite(a).all():
        bad = int(_np.argmax(~_np.isfinite(a).ravel()))
        raise ValueError(f"raw: non-finite sample (NaN or Inf) at line {bad // a.shape[1]}, column {bad % a.shape[1]}")
    return a


class Plan:
    """A focusing plan (like FFTW's): filters, FFT plans and buffers made once, reused by focus().

    Plan(params, backend="auto", precision="fp32", **options) with options as the CLI's focus options:
    range_window, azimuth_window ("kaiser:2.5", "hamming", "none"), azimuth_bandwidth_hz, rcmc_taps,
    src ("auto"/"on"/"off"), threads, fft_planning ("estimate"/"measure"), wisdom (the wisdom file of
    fft_planning="measure" on CUDA; "-" for none), precision ("fp32", "fp64", "fp16-storage", "fp16", "tf32x3"), pipeline (CUDA: "fused",
    "cufft-unfused", "cufft-callback", "vkfft-conv"), range_fft_size, max_gpu_memory_bytes (CUDA: the
    device memory the plan may use), shape=(Na, Nr) to plan now
    instead of at the first focus(). The plan is remade if focus() sees another shape."""

    _STRING_OPTIONS = ("backend", "precision", "pipeline", "src", "range_window", "azimuth_window", "fft_planning",
                       "wisdom")
    _NUMBER_OPTIONS = ("azimuth_bandwidth_hz", "rcmc_taps", "threads", "range_fft_size", "max_gpu_memory_bytes")

    def __init__(self, params: RadarParams, backend: str = "auto", precision: str = "fp32", shape=None, **options):
        _check_params(params)
        o = _sarfuse._FocusOptions()
        o.set("backend", str(backend))
        o.set("precision", str(precision))
        for key, value in options.items():
            if key in self._STRING_OPTIONS:
                o.set(key, str(value))
            elif key in self._NUMBER_OPTIONS:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ValueError(f"{key}: expected a number, got {value!r}")
                setattr(o, key, value)
            else:
                known = ", ".join(self._STRING_OPTIONS[2:] + self._NUMBER_OPTIONS)
                raise ValueError(f"unknown option '{key}' (known: {known})")
        self._plan = _sarfuse._Plan(params, o)
        if shape is not None:
            na, nr = (int(x) for x in shape)
            self._plan.prepare(na, nr)

    def focus(self, raw, out=None):
        """Focuses raw data (complex64/complex128 (Na, Nr) or int8/int16 I/Q (Na, Nr, 2)) into a complex64
        SLC (Na, Nr). The GIL is released while the library works.

        A device array (CuPy, PyTorch, anything with __cuda_array_interface__; C-contiguous) is focused
        where it lies, with a CUDA plan: the SLC is a device array too (CuPy in, CuPy out; PyTorch in,
        PyTorch out; else a sarfuse.DeviceArray that CuPy or PyTorch can wrap without a copy), or `out`,
        a complex64 (Na, Nr) device array to write into. Nothing crosses to the host."""
        if hasattr(raw, "__cuda_array_interface__"):
            return self._focus_device(raw, out)
        if out is not None:
            raise ValueError("out: applies to device arrays (the host SLC is returned as a new array)")
        return self._plan.focus(_raw_array(raw))

    def _focus_device(self, raw, out):
        ptr, kind, na, nr = _device_raw(raw)
        lib = type(raw).__module__.split(".")[0]
        if lib in ("cupy", "torch") and not bool(_device_lib(lib).isfinite(raw).all()):
            raise ValueError("raw: non-finite sample (NaN or Inf) in the device array")
        if out is None and lib == "cupy":
            out = _device_lib(lib).empty((na, nr), dtype=_device_lib(lib).complex64)
        elif out is None and lib == "torch":
            out = _device_lib(lib).empty((na, nr), dtype=_device_lib(lib).complex64, device=raw.device)
        if out is None:
            return self._plan.focus_device(ptr, kind, na, nr, 0)
        self._plan.focus_device(ptr, kind, na, nr, _device_out(out, na, nr))
        return out

    def _made(self):
        if not self._plan.made:
            raise ValueError("plan: not made yet (call focus() first, or pass shape=)")
        return self._plan

    backend = property(lambda self: self._made().backend, doc="'cpu' or 'cuda', as resolved")
    range_fft_size = property(lambda self: self._made().range_fft_size)
    threads = property(lambda self: self._made().threads)
    notes = property(lambda self: self._made().notes, doc="where the plan departs from its own kernels")
    last_times = property(lambda self: self._made().last_times, doc="seconds per stage of the last focus()")
    geometry = property(lambda self: self._made().geometry, doc="product geometry (zero-Doppler grid)")


def analyze(slc: _np.ndarray, params: RadarParams, targets=None, peaks: int = 5, eta_first_s: float | None = None):
    """Point-target analysis: a list of dicts (position, 3 dB widths, PSLR, ISLR, SNR, phase).

    targets: a scene dict (its "targets"), a list of target dicts ({"range_m", "azimuth_time_s", ...}),
    or None to analyse the `peaks` brightest peaks. eta_first_s: zero-Doppler time of row 0 (default
    -Na / (2 PRF), the plan's grid)."""
    _check_params(params)
    a = _np.asarray(slc)
    if a.ndim != 2 or a.dtype.kind not in "cf":
        raise ValueError(f"slc: expected a 2-D complex array, got shape {a.shape} dtype {a.dtype}")
    scene = None
    if targets is not None:
        if isinstance(targets, list):
            targets = {"azimuth_lines": a.shape[0], "range_samples": a.shape[1], "targets": targets}
        if isinstance(targets, dict):
            targets = dict(targets, azimuth_lines=a.shape[0], range_samples=a.shape[1])
        scene = _scene_object(params, targets)
    eta = float("nan") if eta_first_s is None else float(eta_first_s)
    return _sarfuse._analyze(a, params, scene, int(peaks), eta)["targets"]


def estimate_doppler(raw, params: RadarParams, range_blocks: int = 16, degree: int = 1, ambiguity: int | None = None,
                     check: str = "auto", azimuth: str = "linear"):
    """Doppler centroid of raw data, as `sarfuse doppler`: ACCC fraction per range block, polynomial in
    range; ambiguity by MLCC and MLBF and, where they disagree or are unsure (check="auto"; or "always",
    "never"), by the sharpest focus of a patch per candidate (focused with `azimuth` processing, "linear"
    or "circular"); or `ambiguity` forced. Returns a dict: centroid_hz (absolute, mid-swath),
    fractional_hz, ambiguity, ambiguity_source, confidence, low_confidence, candidates (with their
    sharpness), mlcc_/mlbf_centroid_hz and their sigmas, polynomial, blocks."""
    _check_params(params)
    if azimuth not in ("linear", "circular"):
        raise ValueError(f"estimate_doppler: azimuth must be 'linear' or 'circular' (got {azimuth!r})")
    return (_sarfuse._estimate_doppler(params, _raw_array(raw), int(range_blocks), int(degree), ambiguity,
                                         str(check), azimuth == "circular"))


def focus_file(raw, params, output=None, **options):
    """Raw file(s) to product(s) on disk, as `sarfuse focus` does (the same library call: the product
    is the CLI's, bit for bit). Returns the processing report as a dict (a list of them for a list of
    inputs).

    raw: a path, or a list of paths (then output_dir="DIR" and optionally format="npy|tif|h5").
    params: a parameters JSON path or its dict. output: the product's path (.npy, .tif, .h5).
    options: the CLI's flags by name, dashes as underscores, e.g. backend="cpu", sample_format="cint16",
    compression="fast", azimuth="circular", png="q.png", doppler="auto", dc_offset=True."""
    paths = [raw] if isinstance(raw, (str, _os.PathLike)) else list(raw)
    args = [_os.fspath(p) for p in paths]
    params_dict = None
    if isinstance(params, dict):
        params_dict = params if "radar" in params else {"radar": params}
    elif isinstance(params, RadarParams):
        params_dict = _sarfuse._params_dict(params)
    else:
        args += ["--params", _os.fspath(params)]
    if output is not None:
        args += ["-o", _os.fspath(output)]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        else:
            args += [flag, _os.fspath(value) if isinstance(value, _os.PathLike) else str(value)]
    reports = _sarfuse._focus_file(args, params_dict)
    return reports[0] if isinstance(raw, (str, _os.PathLike)) else reports


def read_sentinel1(product, signal: str = "echo", polarization: str | None = None, threads: int = 0):
    """Decodes a Sentinel-1 Level-0 product (a .SAFE folder or a measurement .dat file), as `sarfuse
    decode`: returns (lines, info), lines a complex64 array (lines, samples) in acquisition order,
    zero-filled to the longest line; info a dict with every line's header fields ("headers"), their
    packet indices, the missing packets and the source file. signal: "echo", "noise", "txcal" or
    "all"; polarization: "VV", "VH", "HH", "HV" (needed when the product has several)."""
    return _sarfuse._read_sentinel1(_os.fspath(product), str(signal), "" if polarization is None else str(polarization),
                                    int(threads))

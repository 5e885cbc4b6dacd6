// sarfuse._sarfuse: the library seen from Python (pybind11). The Python package (python/sarfuse)
// wraps this with the documented API; this file only converts types, moves results into numpy arrays
// without copies, releases the GIL while focusing and simulating, and maps errors to exceptions.
#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sarfuse/doppler.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/params.hpp"
#include "sarfuse/plan.hpp"
#include "sarfuse/quality.hpp"
#include "sarfuse/sentinel1.hpp"
#include "sarfuse/simulate.hpp"

namespace sarfuse::cli {
int run(int argc, char** argv);  // apps/sarfuse/cli.cpp: the whole command line
// apps/sarfuse/cmd_focus.cpp: `focus` options as argv, run through the library, reports as JSON.
std::vector<std::string> focus_command_reports(const std::vector<std::string>& argv,
                                               const std::optional<std::string>& params_json);
}

namespace py = pybind11;
using namespace sarfuse;

namespace {

// The library's JSON values as Python objects and back: dicts, lists, str, int, float, bool, None.
// (Python never sees JSON text: the library's records arrive as dicts.)
py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = to_python(v);
      return std::move(d);
    }
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& v : j) l.append(to_python(v));
      return std::move(l);
    }
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    default: return py::none();
  }
}

nlohmann::json from_python(py::handle o, const std::string& where) {
  if (o.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
  if (py::isinstance<py::int_>(o)) return o.cast<long long>();
  if (py::isinstance<py::float_>(o)) return o.cast<double>();
  if (py::isinstance<py::str>(o)) return o.cast<std::string>();
  if (py::isinstance<py::dict>(o)) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : o.cast<py::dict>()) {
      const std::string key = py::str(k);
      j[key] = from_python(v, where + "." + key);
    }
    return j;
  }
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    nlohmann::json j = nlohmann::json::array();
    std::size_t i = 0;
    for (const auto& v : o) j.push_back(from_python(v, where + "[" + std::to_string(i++) + "]"));
    return j;
  }
  try {  // numpy scalars and other numbers
    return o.cast<double>();
  } catch (const py::cast_error&) {
    throw Error(where + ": expected a number, string, bool, list or dict (got " +
                std::string(py::str(o.get_type().attr("__name__"))) + ")");
  }
}

// A complex image handed to numpy: the array's base owns the image, so no copy is made.
py::array_t<std::complex<float>> to_numpy(ComplexImage&& img) {
  auto* owned = new ComplexImage(std::move(img));
  py::capsule base(owned, [](void* p) { delete static_cast<ComplexImage*>(p); });
  const auto lines = static_cast<py::ssize_t>(owned->lines()), samples = static_cast<py::ssize_t>(owned->samples());
  return py::array_t<std::complex<float>>({lines, samples},
                                          {samples * static_cast<py::ssize_t>(sizeof(std::complex<float>)),
                                           static_cast<py::ssize_t>(sizeof(std::complex<float>))},
                                          owned->data(), base);
}

// A raw-data view of a numpy array the caller has made C-contiguous with a supported dtype (the Python
// layer does that, copying only when it must). Checked again here through the buffer protocol (whose
// layout does not change between numpy versions): a wrong array must not crash.
RawView raw_view(const py::array& a, py::buffer_info& info) {
  info = py::buffer(a).request();
  const std::string& f = info.format;
  const char code = f.empty() ? '?' : f.back();
  const bool complex = f.find('Z') != std::string::npos;
  RawView v;
  if (complex && (info.itemsize == 8 || info.itemsize == 16)) {
    if (info.ndim != 2) throw Error("raw data: complex arrays must be 2-D (Na, Nr), got " + std::to_string(info.ndim) + "-D");
    v.type = info.itemsize == 8 ? SampleType::complex64 : SampleType::complex128;
  } else if (!complex && ((code == 'b' && info.itemsize == 1) || (code == 'h' && info.itemsize == 2))) {
    if (info.ndim != 3 || info.shape[2] != 2) throw Error("raw data: integer I/Q arrays must have shape (Na, Nr, 2)");
    v.type = info.itemsize == 1 ? SampleType::int8_iq : SampleType::int16_iq;
  } else {
    throw Error("raw data: dtype must be complex64, complex128, int8 or int16 I/Q (buffer format '" + f + "')");
  }
  // C order, no gaps.
  py::ssize_t expect = info.itemsize;
  for (py::ssize_t d = info.ndim - 1; d >= 0; --d) {
    if (info.shape[d] > 1 && info.strides[d] != expect)
      throw Error("raw data: array must be C-contiguous (the Python layer makes it so)");
    expect *= info.shape[d];
  }
  v.data = info.ptr;
  v.lines = static_cast<std::size_t>(info.shape[0]);
  v.samples = static_cast<std::size_t>(info.shape[1]);
  return v;
}

ComplexImage image_from(const py::array_t<std::complex<float>, py::array::c_style | py::array::forcecast>& a) {
  if (a.ndim() != 2) throw Error("image: expected a 2-D complex array (Na, Nr), got " + std::to_string(a.ndim()) + "-D");
  ComplexImage img(static_cast<std::size_t>(a.shape(0)), static_cast<std::size_t>(a.shape(1)));
  std::copy(a.data(), a.data() + img.size(), img.data());
  return img;
}

SampleType parse_device_type(const std::string& t) {
  if (t == "complex64") return SampleType::complex64;
  if (t == "complex128") return SampleType::complex128;
  if (t == "int8") return SampleType::int8_iq;
  if (t == "int16") return SampleType::int16_iq;
  throw Error("raw data: device dtype must be complex64, complex128, int8 or int16 I/Q (got " + t + ")");
}

// Focusing with a plan made on first use and remade when the raw shape changes.
class PyPlan {
 public:
  PyPlan(const RadarParams& radar, const FocusOptions& options) : radar_(radar), options_(options) {
    validate(radar_, "parameters");
  }
  // Makes the plan now for a known shape (so errors and planning time come before focus()).
  void prepare(std::size_t lines, std::size_t samples) {
    if (plan_ && plan_->lines() == lines && plan_->samples() == samples) return;
    py::gil_scoped_release unlocked;
    plan_.reset();
    plan_ = std::make_unique<Plan>(make_plan(radar_, lines, samples, options_));
  }
  py::array_t<std::complex<float>> focus(const py::array& raw) {
    py::buffer_info info;  // holds the buffer while the library reads it
    const RawView v = raw_view(raw, info);
    prepare(v.lines, v.samples);
    ComplexImage slc;
    {
      py::gil_scoped_release unlocked;  // the array stays alive: `raw` holds a reference
      plan_->focus(v, slc);
    }
    return to_numpy(std::move(slc));
  }
  // Device arrays (the Python layer read their __cuda_array_interface__): into `out` when it is given
  // (a device pointer to lines x samples complex64), else into a new DeviceImage.
  std::optional<DeviceImage> focus_device(std::uintptr_t raw, const std::string& type, std::size_t lines,
                                          std::size_t samples, std::uintptr_t out) {
    const RawView v{parse_device_type(type), reinterpret_cast<const void*>(raw), lines, samples};
    prepare(lines, samples);
    if (plan_->backend() != Backend::cuda) plan_->focus_on_device(v, nullptr);  // refuses, saying why
    std::optional<DeviceImage> made;
    py::gil_scoped_release unlocked;
    if (!out) made.emplace(lines, samples);
    plan_->focus_on_device(v, out ? reinterpret_cast<std::complex<float>*>(out) : made->data());
    return made;
  }
  const Plan& plan() const {
    if (!plan_) throw Error("plan: not made yet (call focus() or prepare() first)");
    return *plan_;
  }

 private:
  RadarParams radar_;
  FocusOptions options_;
  std::unique_ptr<Plan> plan_;
};

}  // namespace

PYBIND11_MODULE(_sarfuse, m) {
  m.doc() = "sarfuse: SAR raw data -> focused SLC (Range-Doppler), simulation and quality analysis";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const FileError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  py::class_<RadarParams>(m, "RadarParams")
      .def(py::init<>())
      .def_readwrite("carrier_frequency_hz", &RadarParams::carrier_frequency_hz)
      .def_readwrite("range_sampling_rate_hz", &RadarParams::range_sampling_rate_hz)
      .def_readwrite("chirp_rate_hz_per_s", &RadarParams::chirp_rate_hz_per_s)
      .def_readwrite("pulse_duration_s", &RadarParams::pulse_duration_s)
      .def_readwrite("prf_hz", &RadarParams::prf_hz)
      .def_readwrite("effective_velocity_m_s", &RadarParams::effective_velocity_m_s)
      .def_readwrite("near_range_m", &RadarParams::near_range_m)
      .def_readwrite("doppler_centroid_hz", &RadarParams::doppler_centroid_hz)
      .def_readwrite("antenna_length_m", &RadarParams::antenna_length_m)
      .def_readwrite("doppler_centroid_reference_range_m", &RadarParams::doppler_centroid_reference_range_m)
      .def_readwrite("doppler_centroid_range_coefficients", &RadarParams::doppler_centroid_range_coefficients)
      .def("doppler_centroid_at", &RadarParams::doppler_centroid_at, py::arg("range_m"))
      .def_property_readonly("wavelength_m", &RadarParams::wavelength_m)
      .def_property_readonly("range_spacing_m", &RadarParams::range_spacing_m)
      .def_property_readonly("replica_length", &RadarParams::replica_length);

  py::class_<SceneParams>(m, "_Scene")
      .def_readonly("azimuth_lines", &SceneParams::azimuth_lines)
      .def_readonly("range_samples", &SceneParams::range_samples);

  // {"radar": {...}, "scene": {...}} as a dict <-> (RadarParams, scene or None).
  m.def("_parse_params", [](const py::dict& params, const std::string& source) {
    const ParamsFile p = parse_params(from_python(params, source).dump(), source);
    return py::make_tuple(p.radar, p.scene ? py::cast(*p.scene) : py::none());
  });
  m.def("_load_params", [](const std::string& path) {
    const ParamsFile p = load_params(path);
    return py::make_tuple(p.radar, p.scene ? py::cast(*p.scene) : py::none());
  });
  m.def("_params_dict", [](const RadarParams& r, std::optional<SceneParams> scene) {
    ParamsFile p{r, scene};
    return to_python(nlohmann::json::parse(to_json_text(p, -1)));
  }, py::arg("radar"), py::arg("scene") = std::nullopt);
  m.def("_validate", [](const RadarParams& r, const std::string& source) { validate(r, source); });
  m.def("_default_scene", [] {
    const ParamsFile p = default_scene();
    return py::make_tuple(p.radar, *p.scene);
  });

  m.def("_simulate", [](const RadarParams& r, const SceneParams& s, int threads) {
    ComplexImage raw;
    {
      py::gil_scoped_release unlocked;
      raw = simulate(r, s, threads);
    }
    return to_numpy(std::move(raw));
  });

  py::class_<FocusOptions>(m, "_FocusOptions")
      .def(py::init<>())
      .def("set", [](FocusOptions& o, const std::string& key, const std::string& value) {
        // String-valued options, parsed by the same functions as the CLI's (same messages).
        if (key == "backend") o.backend = parse_backend(value);
        else if (key == "precision") o.precision = parse_precision(value);
        else if (key == "pipeline") o.pipeline = parse_pipeline(value);
        else if (key == "src") o.src = parse_src_mode(value);
        else if (key == "range_window" || key == "azimuth_window") {
          try {
            (key == "range_window" ? o.range_window : o.azimuth_window) = Window::parse(value);
          } catch (const Error& e) {
            throw Error(key + ": " + e.what());
          }
        }
        else if (key == "fft_planning") {
          try {
            o.fft_planning = parse_fft_planning(value);
          } catch (const Error& e) {
            throw Error("fft_planning: expected estimate or measure (got '" + value + "')");
          }
        } else if (key == "wisdom") {
          o.wisdom_path = value;
        } else {
          throw Error("unknown option '" + key + "'");
        }
      })
      .def_readwrite("azimuth_bandwidth_hz", &FocusOptions::azimuth_bandwidth_hz)
      .def_readwrite("rcmc_taps", &FocusOptions::rcmc_taps)
      .def_readwrite("threads", &FocusOptions::threads)
      .def_readwrite("range_fft_size", &FocusOptions::range_fft_size)
      .def_readwrite("max_gpu_memory_bytes", &FocusOptions::max_gpu_memory_bytes);

  // The SLC of a device focus, in device memory: CuPy, PyTorch and Numba take it through
  // __cuda_array_interface__ (version 3; stream None: it is complete when handed over).
  py::class_<DeviceImage>(m, "DeviceArray")
      .def_property_readonly("shape", [](const DeviceImage& d) { return py::make_tuple(d.lines(), d.samples()); })
      .def_property_readonly("__cuda_array_interface__", [](const DeviceImage& d) {
        py::dict cai;
        cai["shape"] = py::make_tuple(d.lines(), d.samples());
        cai["typestr"] = "<c8";
        cai["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(d.data()), false);
        cai["strides"] = py::none();
        cai["stream"] = py::none();
        cai["version"] = 3;
        return cai;
      });

  py::class_<PyPlan>(m, "_Plan")
      .def(py::init<const RadarParams&, const FocusOptions&>())
      .def("prepare", &PyPlan::prepare)
      .def("focus", &PyPlan::focus)
      .def("focus_device", &PyPlan::focus_device)
      .def_property_readonly("made", [](const PyPlan& p) {
        try {
          p.plan();
          return true;
        } catch (const Error&) {
          return false;
        }
      })
      .def_property_readonly("backend", [](const PyPlan& p) { return std::string(to_string(p.plan().backend())); })
      .def_property_readonly("range_fft_size", [](const PyPlan& p) { return p.plan().range_fft_size(); })
      .def_property_readonly("notes", [](const PyPlan& p) { return p.plan().notes(); })
      .def_property_readonly("threads", [](const PyPlan& p) { return p.plan().options().threads; })
      .def_property_readonly("last_times", [](const PyPlan& p) {
        const StageTimes& t = p.plan().last_times();
        py::dict d;
        d["range_compress"] = t.range_compress;
        d["azimuth_fft"] = t.azimuth_fft;
        d["range_doppler"] = t.range_doppler;
        d["azimuth_ifft"] = t.azimuth_ifft;
        d["total"] = t.total;
        return d;
      })
      .def_property_readonly("geometry", [](const PyPlan& p) {
        const ProductGeometry& g = p.plan().geometry();
        py::dict d;
        d["eta_first_s"] = g.eta_first_s;
        d["azimuth_spacing_s"] = g.azimuth_spacing_s;
        d["near_range_m"] = g.near_range_m;
        d["range_spacing_m"] = g.range_spacing_m;
        d["first_full_column"] = g.first_full_column;
        d["last_full_column"] = g.last_full_column;
        d["src_applied"] = g.src_applied;
        return d;
      });

  m.def("_analyze", [](const py::array_t<std::complex<float>, py::array::c_style | py::array::forcecast>& slc,
                       const RadarParams& r, std::optional<SceneParams> targets, int peaks, double eta_first) {
    const ComplexImage img = image_from(slc);
    AnalysisOptions o;
    o.eta_first_s = eta_first;
    std::vector<TargetQuality> q;
    {
      py::gil_scoped_release unlocked;
      q = targets ? analyze_targets(img, r, targets->targets, o) : analyze_peaks(img, r, peaks, o);
    }
    return to_python(nlohmann::json::parse(quality_to_json(q, -1)));
  });
  m.def("_estimate_doppler", [](const RadarParams& r, const py::array& raw, int blocks, int degree,
                                std::optional<int> ambiguity, const std::string& check, bool circular) {
    py::buffer_info info;
    const RawView v = raw_view(raw, info);
    DopplerOptions o;
    o.range_blocks = blocks;
    o.poly_degree = degree;
    o.ambiguity = ambiguity;
    o.check = parse_doppler_check(check);
    o.circular = circular;
    DopplerEstimate e;
    {
      py::gil_scoped_release unlocked;
      e = estimate_doppler(r, v, o);
    }
    return to_python(nlohmann::json::parse(doppler_to_json(e, -1)));
  });
  m.def("devices", [] {
    py::list out;
    for (const DeviceInfo& d : cuda_devices()) {
      py::dict e;
      e["index"] = d.index;
      e["name"] = d.name;
      e["memory_bytes"] = d.memory_bytes;
      e["compute_capability"] = py::make_tuple(d.compute_major, d.compute_minor);
      e["multiprocessors"] = d.multiprocessors;
      out.append(e);
    }
    return out;
  }, "CUDA devices this build can use: a list of dicts (empty without the CUDA backend or a device).");

  m.def("_focus_file", [](const std::vector<std::string>& args, std::optional<py::dict> params) {
    std::optional<std::string> params_json;
    if (params) params_json = from_python(*params, "params").dump();
    std::vector<std::string> reports;
    {
      py::gil_scoped_release unlocked;
      reports = cli::focus_command_reports(args, params_json);
    }
    py::list out;
    for (const std::string& r : reports) out.append(to_python(nlohmann::json::parse(r)));
    return out;
  });
  m.def("_read_sentinel1", [](const std::string& product, const std::string& signal, const std::string& polarisation,
                              int threads) {
    sentinel1::DecodeOptions o;
    o.signal = signal;
    o.polarisation = polarisation;
    o.threads = threads;
    std::unique_ptr<sentinel1::DecodedLines> d;
    {
      py::gil_scoped_release unlocked;
      d = std::make_unique<sentinel1::DecodedLines>(sentinel1::decode_lines(product, o));
    }
    py::object info = to_python(nlohmann::json::parse(sentinel1::decoded_lines_json(*d, o)));
    auto* owned = d.release();
    py::capsule base(owned, [](void* p) { delete static_cast<sentinel1::DecodedLines*>(p); });
    const auto lines = static_cast<py::ssize_t>(owned->lines), samples = static_cast<py::ssize_t>(owned->samples);
    py::array_t<std::complex<float>> a({lines, samples},
                                       {samples * static_cast<py::ssize_t>(sizeof(std::complex<float>)),
                                        static_cast<py::ssize_t>(sizeof(std::complex<float>))},
                                       owned->data.data(), base);
    return py::make_tuple(a, info);
  });
  m.def("_cli_main", [](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    py::gil_scoped_release unlocked;
    return cli::run(static_cast<int>(args.size()), argv.data());
  });
  m.attr("__version__") = "0.1.0";
}

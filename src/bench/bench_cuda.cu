// `sarfuse bench --backend cuda`: speed only (the GPU tests check correctness). One file of about 600
// lines on purpose: one report whose sections (range compression and its peers, the chains, the
// precision modes, host transfers) share the scene's device buffers, the timing helper and the JSON.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "core/filters.hpp"
#include "cuda/backend.hpp"
#include "cuda/check.hpp"
#include "cuda/cufft_library.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/kernels.hpp"
#include "cuda/range_compress.hpp"
#include "cuda/rda_cuda.hpp"
#include "cuda/vkfft_conv.hpp"
#include "bench/bench.hpp"
#include "bench/cufftdx_range.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse {

namespace {

using cuda::DeviceBuffer;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median time (ms) of f(i) over `repeats` runs after 3 warm-ups, CUDA events around each run.
double time_ms(int repeats, cudaStream_t s, const std::function<void(int)>& f) {
  cudaEvent_t a, b;
  SARFUSE_CUDA(cudaEventCreate(&a));
  SARFUSE_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f(i);
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    SARFUSE_CUDA(cudaEventRecord(a, s));
    f(i);
    SARFUSE_CUDA(cudaEventRecord(b, s));
    SARFUSE_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    SARFUSE_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  SARFUSE_CUDA(cudaEventDestroy(a));
  SARFUSE_CUDA(cudaEventDestroy(b));
  return median(t);
}

std::vector<float2> random_samples(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float2> v(n);
  for (auto& x : v) x = make_float2(d(g) + 1e-3f, d(g));
  return v;
}


}  // namespace

std::string bench_cuda(const CudaBenchOptions& o) {
  if (cuda::device_count() == 0) throw Error("bench --backend cuda: no CUDA device");
  const std::size_t na = o.lines, nr = o.samples;
  cudaDeviceProp prop{};
  SARFUSE_CUDA(cudaGetDeviceProperties(&prop, 0));
  RadarParams radar = default_scene().radar;
  radar.doppler_centroid_hz = 0.3 * radar.prf_hz;  // squinted: SRC and RCMC all run
  if (o.azimuth_bandwidth_hz < 0 || o.azimuth_bandwidth_hz > radar.prf_hz)
    throw Error("bench --azimuth-bandwidth: expected a value in (0, PRF = " + std::to_string(radar.prf_hz) + " Hz]");
  const int L = radar.replica_length();
  std::size_t nfft_lin = 1;
  while (nfft_lin < nr + L - 1) nfft_lin *= 2;
  const std::size_t nfft_rc = o.circular ? nr : nfft_lin;
  if (!cuda::RangeCompressor::supports(static_cast<int>(nfft_rc)))
    throw Error("bench --backend cuda: range FFT length " + std::to_string(nfft_rc) + " is not a power of two in 256.." +
                std::to_string(cuda::RangeCompressor::kMaxFourStep));

  cudaStream_t s;
  SARFUSE_CUDA(cudaStreamCreate(&s));
  const std::size_t scene = na * nr;
  // Three input buffers, rotated, so L2 (50 MB) never holds the input of a run.
  std::vector<DeviceBuffer<float2>> inputs;
  for (int k = 0; k < 3; ++k) {
    inputs.emplace_back(scene);
    const auto h = random_samples(scene, 11 + k);
    SARFUSE_CUDA(cudaMemcpy(inputs.back().get(), h.data(), scene * 8, cudaMemcpyHostToDevice));
  }
  nlohmann::json js;
  js["device"] = prop.name;
  js["size"] = {na, nr};
  js["repeats"] = o.repeats;
  js["azimuth_bandwidth_hz"] = o.azimuth_bandwidth_hz > 0 ? o.azimuth_bandwidth_hz : radar.prf_hz;
  std::ostringstream out;
  char line[1024];
  std::snprintf(line, sizeof line,
                "sarfuse bench: CUDA backend on %s, %zu x %zu complex64, median of %d (CUDA events); RDA processed "
                "band %.0f Hz of a %.0f Hz PRF\n",
                prop.name, na, nr, o.repeats, o.azimuth_bandwidth_hz > 0 ? o.azimuth_bandwidth_hz : radar.prf_hz,
                radar.prf_hz);
  out << line;

  // Device-to-device copy of the scene: the bandwidth ceiling (bytes read + written).
  DeviceBuffer<float2> copy_dst(scene);
  const double t_copy = time_ms(o.repeats, s, [&](int i) {
    SARFUSE_CUDA(cudaMemcpyAsync(copy_dst.get(), inputs[i % 3].get(), scene * 8, cudaMemcpyDeviceToDevice, s));
  });
  const double copy_gbs = 2.0 * scene * 8 / (t_copy * 1e-3) / 1e9;
  std::snprintf(line, sizeof line, "device-to-device copy of the scene: %.3f ms = %.0f GB/s (read + write)\n\n", t_copy,
                copy_gbs);
  out << line;
  js["copy"] = {{"ms", t_copy}, {"gb_s", copy_gbs}};

  // ---- range compression alone: fused kernel vs cuFFT unfused, same FFT length ----
  std::string callback_unavailable, vkfft_unavailable = cuda::VkfftConv::unavailable_reason();
  {
    const int n = static_cast<int>(nfft_rc), a = static_cast<int>(na), c = static_cast<int>(nr);
    DeviceBuffer<float2> d_h(n), d_out(scene), pad(na * nfft_rc);
    const auto h64 = core::range_matched_filter(radar, nfft_rc, Window{});
    std::vector<float2> hh(n);
    for (int i = 0; i < n; ++i) hh[i] = make_float2(float(h64[i].real()), float(h64[i].imag()));
    SARFUSE_CUDA(cudaMemcpy(d_h.get(), hh.data(), n * 8, cudaMemcpyHostToDevice));
    const cuda::RangeCompressor fused(n, a, h64);
    const double t_fused = time_ms(o.repeats, s, [&](int i) {
      fused.run(SampleType::complex64, inputs[i % 3].get(), a, c, d_out.get(), c, c, s);
    });
    cufftHandle p;
    int dims[1] = {n};
    SARFUSE_CUFFT(cuda::cufft().PlanMany(&p, 1, dims, dims, 1, n, dims, 1, n, CUFFT_C2C, a));
    SARFUSE_CUFFT(cuda::cufft().SetStream(p, s));
    auto* pc = reinterpret_cast<cufftComplex*>(pad.get());
    // What a careful cuFFT user writes: circular, the forward FFT out of place from the input into
    // the output, the multiply and the inverse there in place (three passes); linear, the zero-padding
    // copy first (four).
    const double t_unfused = time_ms(o.repeats, s, [&](int i) {
      if (o.circular) {
        auto* in = reinterpret_cast<cufftComplex*>(const_cast<float2*>(inputs[i % 3].get()));
        auto* oc = reinterpret_cast<cufftComplex*>(d_out.get());
        SARFUSE_CUFFT(cuda::cufft().ExecC2C(p, in, oc, CUFFT_FORWARD));
        cuda::launch_multiply_rows(d_out.get(), a, n, n, d_h.get(), s);
        SARFUSE_CUFFT(cuda::cufft().ExecC2C(p, oc, oc, CUFFT_INVERSE));
        return;
      }
      cuda::launch_convert_pad(SampleType::complex64, inputs[i % 3].get(), a, c, pad.get(), n, s);
      SARFUSE_CUFFT(cuda::cufft().ExecC2C(p, pc, pc, CUFFT_FORWARD));
      cuda::launch_multiply_rows(pad.get(), a, n, n, d_h.get(), s);
      SARFUSE_CUFFT(cuda::cufft().ExecC2C(p, pc, pc, CUFFT_INVERSE));
    });
    // cufft-callback: the multiply fused into the forward FFT's store by an LTO callback, where the
    // toolkit can JIT-link it (NaN and the reason otherwise).
    DeviceBuffer<unsigned long long> cb_info(2);
    double t_callback = std::nan("");
    try {
      cufftHandle pcb = cuda::make_filter_callback_plan(n, a, d_h.get(), cb_info.get(), s);
      t_callback = time_ms(o.repeats, s, [&](int i) {
        cuda::launch_convert_pad(SampleType::complex64, inputs[i % 3].get(), a, c, pad.get(), n, s);
        SARFUSE_CUFFT(cuda::cufft().ExecC2C(pcb, pc, pc, CUFFT_FORWARD));
        SARFUSE_CUFFT(cuda::cufft().ExecC2C(p, pc, pc, CUFFT_INVERSE));
      });
      SARFUSE_CUFFT(cuda::cufft().Destroy(pcb));
    } catch (const Error& e) {
      callback_unavailable = e.what();
    }
    // Four-step: every split of the line into 2..16-point columns of one-block rows, timed.
    std::vector<std::pair<int, double>> splits;
    if (fused.four_step())
      for (int n2 = cuda::RangeCompressor::kMaxOneBlock; n2 >= 256 && n / n2 <= 16; n2 /= 2) {
        if (n / n2 < 2) continue;
        const cuda::RangeCompressor alt(n, a, h64, n2);
        splits.emplace_back(n2, time_ms(o.repeats, s, [&](int i) {
          alt.run(SampleType::complex64, inputs[i % 3].get(), a, c, d_out.get(), c, c, s);
        }));
      }
    // vkfft-conv: VkFFT's convolution in place on lines staged at pitch n (the staging copy counted,
    // as a VkFFT user must do it; VkFFT alone beside it). Where the module is missing: NaN and why.
    double t_vkfft = std::nan(""), t_vkfft_alone = std::nan("");
    if (vkfft_unavailable.empty()) {
      try {
        cuda::VkfftConv vk(n, a, c, true, h64, s);  // VkFFT's best case: its own zero padding
        t_vkfft = time_ms(o.repeats, s, [&](int i) {
          cuda::launch_convert_pad(SampleType::complex64, inputs[i % 3].get(), a, c, pad.get(), n, s);
          vk.run(pad.get());
        });
        t_vkfft_alone = time_ms(o.repeats, s, [&](int) { vk.run(pad.get()); });
      } catch (const Error& e) {
        vkfft_unavailable = e.what();
      }
    }
    // cufftdx: the same fusion from NVIDIA's device FFT library (circular: its lines are the scene's
    // lines), every configuration built for this length timed, the fastest kept; its output checked
    // against the fused kernel's (relative L2) on the same input, poisoned first.
    double t_dx = std::nan(""), dx_l2 = std::nan("");
    std::string dx_config, dx_unavailable;
    std::vector<std::pair<std::string, double>> dx_all;
    const std::vector<bench::CufftdxRange> dx_configs = o.circular ? bench::cufftdx_range_configs(n)
                                                                   : std::vector<bench::CufftdxRange>{};
    if (!o.circular) dx_unavailable = "circular mode only (--range-mode-circular): the peer reads the FFT length";
    else if (!bench::have_cufftdx()) dx_unavailable = "built without MathDx's cuFFTDx headers";
    else if (dx_configs.empty()) dx_unavailable = "no configuration built for this length";
    else {
      DeviceBuffer<float2> dx_out(scene);
      for (const auto& cfg : dx_configs) {
        const double t = time_ms(o.repeats, s, [&](int i) { cfg.run(inputs[i % 3].get(), dx_out.get(), d_h.get(), a, s); });
        dx_all.emplace_back(cfg.config, t);
        if (std::isnan(t_dx) || t < t_dx) {
          t_dx = t;
          dx_config = cfg.config;
          SARFUSE_CUDA(cudaMemsetAsync(dx_out.get(), 0xFF, dx_out.bytes(), s));  // NaN poison
          cfg.run(inputs[0].get(), dx_out.get(), d_h.get(), a, s);
          fused.run(SampleType::complex64, inputs[0].get(), a, c, d_out.get(), c, c, s);
          SARFUSE_CUDA(cudaStreamSynchronize(s));
          std::vector<float2> x(scene), y(scene);
          SARFUSE_CUDA(cudaMemcpy(x.data(), dx_out.get(), scene * 8, cudaMemcpyDeviceToHost));
          SARFUSE_CUDA(cudaMemcpy(y.data(), d_out.get(), scene * 8, cudaMemcpyDeviceToHost));
          double num = 0, den = 0;
          for (std::size_t k = 0; k < scene; ++k) {
            num += std::pow(double(x[k].x) - y[k].x, 2) + std::pow(double(x[k].y) - y[k].y, 2);
            den += double(y[k].x) * y[k].x + double(y[k].y) * y[k].y;
          }
          dx_l2 = std::sqrt(num / den);  // NaN where a sample was left unwritten
        }
      }
    }
    // The cuFFT pair alone (no padding copy, no multiply): the vendor FFT floor at this length.
    const double t_cufft_pair = time_ms(o.repeats, s, [&](int) {
      SARFUSE_CUFFT(cuda::cufft().ExecC2C(p, pc, pc, CUFFT_FORWARD));
      SARFUSE_CUFFT(cuda::cufft().ExecC2C(p, pc, pc, CUFFT_INVERSE));
    });
    SARFUSE_CUFFT(cuda::cufft().Destroy(p));
    const double bytes = 2.0 * scene * 8;  // one read + one write of the scene
    const double fused_gbs = bytes / (t_fused * 1e-3) / 1e9;
    std::snprintf(line, sizeof line,
                  "range compression (%s, FFT length %d; floor = one read + one write of the scene)\n"
                  "  %-38s %9.3f ms %8.0f GB/s %6.1f %% of copy\n"
                  "  %-38s %9.3f ms   fused is %.2fx faster\n",
                  o.circular ? "circular" : "linear, zero-padded", n,
                  fused.four_step() ? "fused (four-step, three passes)" : "fused (one kernel)", t_fused, fused_gbs,
                  100.0 * fused_gbs / copy_gbs, o.circular ? "cufft-unfused (FFT, x, IFFT)" : "cufft-unfused (pad, FFT, x, IFFT)", t_unfused, t_unfused / t_fused);
    out << line;
    if (callback_unavailable.empty())
      std::snprintf(line, sizeof line, "  %-38s %9.3f ms   fused is %.2fx faster\n",
                    "cufft-callback (pad, FFT x H by callback, IFFT)", t_callback, t_callback / t_fused);
    else
      std::snprintf(line, sizeof line, "  %-38s unavailable: %s\n", "cufft-callback", callback_unavailable.c_str());
    out << line;
    for (const auto& [n2, t] : splits) {
      std::snprintf(line, sizeof line, "    four-step split %2d x %-5d%s %9.3f ms\n", n / n2, n2,
                    n2 == fused.row_length() ? " (default)" : "          ", t);
      out << line;
    }
    if (vkfft_unavailable.empty())
      std::snprintf(line, sizeof line,
                    "  %-38s %9.3f ms   fused is %.2fx faster\n  %-38s %9.3f ms   fused is %.2fx faster\n",
                    "vkfft-conv (stage at pitch n, VkFFT conv)", t_vkfft, t_vkfft / t_fused,
                    "vkfft-conv, VkFFT convolution alone", t_vkfft_alone, t_vkfft_alone / t_fused);
    else
      std::snprintf(line, sizeof line, "  %-38s unavailable: %s\n", "vkfft-conv", vkfft_unavailable.c_str());
    out << line;
    if (dx_unavailable.empty()) {
      const double dx_gbs = bytes / (t_dx * 1e-3) / 1e9;
      std::snprintf(line, sizeof line,
                    "  %-38s %9.3f ms %8.0f GB/s   fused is %.2fx faster (%s; rel. L2 vs fused %.1e)\n",
                    "cufftdx (one kernel: FFT, x H, IFFT)", t_dx, dx_gbs, t_dx / t_fused, dx_config.c_str(), dx_l2);
      out << line;
      for (const auto& [cfg, t] : dx_all) {
        std::snprintf(line, sizeof line, "    cufftdx %-48s %9.3f ms\n", cfg.c_str(), t);
        out << line;
      }
    } else {
      std::snprintf(line, sizeof line, "  %-38s unavailable: %s\n", "cufftdx", dx_unavailable.c_str());
      out << line;
    }
    std::snprintf(line, sizeof line, "  %-38s %9.3f ms   (cuFFT forward + inverse only)\n\n", "cufft FFT+IFFT alone",
                  t_cufft_pair);
    out << line;
    js["range_compression"] = {{"fft_length", n},
                               {"mode", o.circular ? "circular" : "linear"},
                               {"fused_ms", t_fused},
                               {"fused_gb_s", fused_gbs},
                               {"fused_fraction_of_copy", fused_gbs / copy_gbs},
                               {"cufft_unfused_ms", t_unfused},
                               {"cufft_pair_ms", t_cufft_pair},
                               {"cufft_callback_ms", std::isnan(t_callback) ? nlohmann::json() : nlohmann::json(t_callback)},
                               {"speedup_vs_cufft_callback", t_callback / t_fused},
                               {"speedup_vs_cufft_unfused", t_unfused / t_fused},
                               {"four_step", fused.four_step()},
                               {"four_step_splits_ms", [&] {
                                  nlohmann::json j = nlohmann::json::object();
                                  for (const auto& [n2, t] : splits) j[std::to_string(n / n2) + "x" + std::to_string(n2)] = t;
                                  return j;
                                }()},
                               {"vkfft_conv_ms", std::isnan(t_vkfft) ? nlohmann::json() : nlohmann::json(t_vkfft)},
                               {"vkfft_alone_ms", std::isnan(t_vkfft_alone) ? nlohmann::json() : nlohmann::json(t_vkfft_alone)},
                               {"speedup_vs_vkfft_alone", t_vkfft_alone / t_fused},
                               {"cufftdx_ms", std::isnan(t_dx) ? nlohmann::json() : nlohmann::json(t_dx)},
                               {"cufftdx_config", dx_config},
                               {"cufftdx_rel_l2_vs_fused", std::isnan(dx_l2) ? nlohmann::json() : nlohmann::json(dx_l2)},
                               {"speedup_vs_cufftdx", t_dx / t_fused}};
  }

  // ---- whole RDA, fused vs cufft-unfused ----
  FocusOptions fo;
  fo.backend = Backend::cuda;
  fo.src = SrcMode::on;
  fo.threads = 1;
  fo.azimuth_bandwidth_hz = o.azimuth_bandwidth_hz;
  // 6: fused, --precision fp16; 7: fused at the nice range FFT length; 8: tf32x3; 9: fp16-storage at the
  // nice length (the length `focus` gives both modes at this shape); 10: cufft-unfused at the nice length
  // (a careful user may pad to that length too: cuFFT takes 2^a 3^b 5^c 7^d).
  std::vector<StageTimes> med(11);
  std::string measured_azimuth, measure_note;  // the sixth run: fused, fp32, --plan measure (no wisdom file)
  std::string fused_azimuth;                    // the first run's azimuth engine
  bool transposed = false, baseline_transposed = false, range_by_cufft = false;
  // The fifth run: the fused pipeline with --precision fp16-storage (where it applies).
  const bool fp16_applies = cuda::own_fft_supports(static_cast<int>(nfft_lin)) && cuda::column_fft_supports(static_cast<int>(na));
  const Pipeline pipes[11] = {Pipeline::fused, Pipeline::cufft_unfused, Pipeline::cufft_callback, Pipeline::vkfft_conv,
                              Pipeline::fused, Pipeline::fused, Pipeline::fused, Pipeline::fused, Pipeline::fused,
                              Pipeline::fused, Pipeline::cufft_unfused};
  const bool tensor_applies = nfft_lin >= 512 && cuda::own_fft_supports(static_cast<int>(nfft_lin));
  // The eighth run: the fused FP32 chain at the smallest nice range FFT length (which `focus` takes
  // where it is at most 0.8 of the power of two, or where --plan measure finds it faster).
  FocusOptions fused32;
  fused32.backend = Backend::cuda;
  const std::size_t nfft_nice = cuda::smallest_nice_length(nr + L - 1, fused32);
  const bool nice_applies = nfft_nice != 0 && nfft_nice < nfft_lin;
  for (int pi = 0; pi < 11; ++pi) {
    if ((pi == 2 && !callback_unavailable.empty()) || (pi == 3 && !vkfft_unavailable.empty()) ||
        ((pi == 4 || pi == 6) && !fp16_applies) || ((pi == 7 || pi == 10) && !nice_applies) ||
        (pi == 8 && !tensor_applies) || (pi == 9 && !(nice_applies && fp16_applies)))
      continue;
    fo.pipeline = pipes[pi];
    fo.precision = pi == 4 || pi == 9 ? Precision::fp16_storage
                   : pi == 6 ? Precision::fp16
                   : pi == 8 ? Precision::tf32x3
                             : Precision::fp32;
    fo.fft_planning = pi == 5 ? FftPlanning::measure : FftPlanning::estimate;
    fo.wisdom_path = "-";
    cuda::CudaRda rda(radar, na, nr, fo, pi == 7 || pi == 9 || pi == 10 ? nfft_nice : nfft_lin);
    if (pi == 5) {
      measured_azimuth = rda.azimuth_fft_name();
      const std::size_t at = rda.notes.find("azimuth FFTs: ");
      if (at != std::string::npos) measure_note = rda.notes.substr(at, rda.notes.find('\n', at) - at);
    }
    if (pi == 0) {
      fused_azimuth = rda.azimuth_fft_name();
      transposed = rda.azimuth_transposed();
      range_by_cufft = rda.range_by_cufft();
    }
    if (pi == 1) baseline_transposed = rda.azimuth_transposed();
    std::vector<StageTimes> runs;
    for (int i = -3; i < o.repeats; ++i) {
      rda.run(SampleType::complex64, inputs[(i + 3) % 3].get(), rda.device_output());
      SARFUSE_CUDA(cudaStreamSynchronize(rda.stream()));
      if (i >= 0) runs.push_back(rda.elapsed());
    }
    auto m = [&](double StageTimes::*f) {
      std::vector<double> v;
      for (const auto& t : runs) v.push_back(t.*f);
      return median(v);
    };
    med[pi] = {m(&StageTimes::range_compress), m(&StageTimes::azimuth_fft), m(&StageTimes::range_doppler),
               m(&StageTimes::azimuth_ifft), m(&StageTimes::total)};
  }
  const double w = static_cast<double>(na * nfft_lin) * 8, sc = static_cast<double>(scene) * 8;
  struct Stage {
    const char* name;
    double StageTimes::*f;
    double bytes;
    const char* engine;
  } stages[] = {{"1 range FFT x H_r", &StageTimes::range_compress, sc + w, range_by_cufft ? "cuFFT + kernels" : "own kernel"},
                {"2 azimuth FFT", &StageTimes::azimuth_fft, 2 * w, fused_azimuth.c_str()},
                {"3 SRC, IFFT, RCMC, az filter", &StageTimes::range_doppler, w + sc, range_by_cufft ? "cuFFT + kernels" : "own kernel"},
                {"4 azimuth IFFT", &StageTimes::azimuth_ifft, 2 * sc, fused_azimuth.c_str()}};
  std::snprintf(line, sizeof line,
                "whole RDA (range FFT %zu, SRC on): fused pipeline vs cufft-unfused (cufft-callback total below)\n",
                nfft_lin);
  out << line;
  std::snprintf(line, sizeof line, "  %-30s %-16s %9s %9s %8s %7s %10s %8s\n", "stage", "engine", "fused ms", "MB",
                "GB/s", "% copy", "unfused ms", "speedup");
  out << line;
  nlohmann::json jst = nlohmann::json::array();
  double total_bytes = 0;
  for (const Stage& st : stages) {
    const double tf = med[0].*(st.f) * 1e3, tu = med[1].*(st.f) * 1e3;
    const double gbs = st.bytes / (tf * 1e-3) / 1e9;
    total_bytes += st.bytes;
    std::snprintf(line, sizeof line, "  %-30s %-16s %9.3f %9.1f %8.0f %7.1f %10.3f %8.2f\n", st.name, st.engine, tf,
                  st.bytes / 1e6, gbs, 100 * gbs / copy_gbs, tu, tu / tf);
    out << line;
    jst.push_back({{"stage", st.name}, {"engine", st.engine}, {"fused_ms", tf}, {"bytes", st.bytes}, {"gb_s", gbs},
                   {"fraction_of_copy", gbs / copy_gbs}, {"cufft_unfused_ms", tu}});
  }
  const double tf = med[0].total * 1e3, tu = med[1].total * 1e3;
  const double floor_ms = total_bytes / (copy_gbs * 1e9) * 1e3;
  std::snprintf(line, sizeof line,
                "  %-30s %-16s %9.3f %9.1f %8.0f %7.1f %10.3f %8.2f\n"
                "  (bytes-moved floor of the four passes at the copy bandwidth: %.3f ms)\n",
                "total", "", tf, total_bytes / 1e6, total_bytes / (tf * 1e-3) / 1e9,
                100 * total_bytes / (tf * 1e-3) / 1e9 / copy_gbs, tu, tu / tf, floor_ms);
  out << line;
  if (transposed)
    out << "  (azimuth lines not a power of two: azimuth FFTs as transpose + contiguous cuFFT + transpose, both\n"
           "   pipelines; the bytes column counts one read + one write per stage, the transposes move 3x that)\n";
  else if (baseline_transposed)
    out << "  (azimuth lines not a power of two: cufft-unfused's azimuth FFTs as transpose + contiguous cuFFT +\n"
           "   transpose, the fused pipeline's as above; the bytes column counts one read + one write per stage)\n";
  const double tcb = callback_unavailable.empty() ? med[2].total * 1e3 : std::nan("");
  if (callback_unavailable.empty()) {
    std::snprintf(line, sizeof line, "  cufft-callback chain total %.3f ms: fused is %.2fx faster\n", tcb, tcb / tf);
    out << line;
  } else {
    out << "  cufft-callback chain: unavailable (see above)\n";
  }
  const double tvk = vkfft_unavailable.empty() ? med[3].total * 1e3 : std::nan("");
  if (vkfft_unavailable.empty()) {
    std::snprintf(line, sizeof line,
                  "  vkfft-conv chain total %.3f ms (range compression %.3f ms, the rest as cufft-unfused plus a\n"
                  "  range FFT pair around SRC): fused is %.2fx faster\n",
                  tvk, med[3].range_compress * 1e3, tvk / tf);
    out << line;
  } else {
    out << "  vkfft-conv chain: unavailable (see above)\n";
  }
  if (range_by_cufft)
    out << "  (range FFT above 16384: the fused pipeline's range steps ran through cuFFT, as the plan notes)\n";
  js["rda"] = {{"range_fft", nfft_lin}, {"azimuth_transposed", transposed}, {"range_by_cufft", range_by_cufft},
               {"vkfft_conv_ms", std::isnan(tvk) ? nlohmann::json() : nlohmann::json(tvk)},
               {"cufft_callback_ms", std::isnan(tcb) ? nlohmann::json() : nlohmann::json(tcb)}, {"stages", jst}, {"fused_ms", tf}, {"cufft_unfused_ms", tu},
               {"speedup", tu / tf}, {"floor_ms", floor_ms}};
  std::snprintf(line, sizeof line, "  fused with --plan measure (azimuth FFTs: %s): total %.3f ms (%.2fx the estimate plan)\n",
                measured_azimuth.c_str(), med[5].total * 1e3, tf / (med[5].total * 1e3));
  out << line;
  if (!measure_note.empty()) out << "    " << measure_note << "\n";
  js["rda"]["plan_measure"] = {{"azimuth_fft", measured_azimuth}, {"fused_ms", med[5].total * 1e3}, {"note", measure_note}};
  if (nice_applies) {
    std::snprintf(line, sizeof line,
                  "  fused at the smallest nice range FFT length %zu instead of %zu: total %.3f ms (%.2fx); "
                  "stages %.3f / %.3f / %.3f / %.3f ms\n",
                  nfft_nice, nfft_lin, med[7].total * 1e3, tf / (med[7].total * 1e3), med[7].range_compress * 1e3,
                  med[7].azimuth_fft * 1e3, med[7].range_doppler * 1e3, med[7].azimuth_ifft * 1e3);
    out << line;
    std::snprintf(line, sizeof line,
                  "  cufft-unfused at the same nice length %zu: total %.3f ms (%.2fx its power-of-two chain); fused "
                  "at %zu is %.2fx faster\n",
                  nfft_nice, med[10].total * 1e3, tu / (med[10].total * 1e3), nfft_nice,
                  med[10].total / med[7].total);
    out << line;
    js["rda"]["nice_length"] = {{"range_fft", nfft_nice}, {"fused_ms", med[7].total * 1e3},
                                {"cufft_unfused_ms", med[10].total * 1e3},
                                {"stages_ms", {med[7].range_compress * 1e3, med[7].azimuth_fft * 1e3,
                                               med[7].range_doppler * 1e3, med[7].azimuth_ifft * 1e3}},
                                {"speedup_vs_pow2", tf / (med[7].total * 1e3)}};
  }
  if (tensor_applies) {
    std::snprintf(line, sizeof line,
                  "  --precision tf32x3 (range FFTs' radix-16 DFTs on the tensor cores, split TF32): total %.3f ms "
                  "(%.2fx fp32); stages %.3f / %.3f / %.3f / %.3f ms\n",
                  med[8].total * 1e3, tf / (med[8].total * 1e3), med[8].range_compress * 1e3, med[8].azimuth_fft * 1e3,
                  med[8].range_doppler * 1e3, med[8].azimuth_ifft * 1e3);
    out << line;
    js["rda"]["tf32x3"] = {{"fused_ms", med[8].total * 1e3},
                           {"stages_ms", {med[8].range_compress * 1e3, med[8].azimuth_fft * 1e3,
                                          med[8].range_doppler * 1e3, med[8].azimuth_ifft * 1e3}},
                           {"speedup_vs_fp32", tf / (med[8].total * 1e3)}};
  }
  // ---- precision modes: fp32 vs fp16-storage, same run ----
  if (fp16_applies) {
    const double wh = w / 2, sh = sc / 2;  // FP16 work array; the raw input and the SLC stay complex64
    const double bytes16[4] = {sc + wh, 2 * wh, wh + sh, sh + sc};
    double total16 = 0;
    out << "precision modes (fused pipeline, complex64 in and out): fp32 vs fp16-storage (FP16 between passes)\n";
    std::snprintf(line, sizeof line, "  %-30s %9s %9s %9s %8s %7s %8s %9s\n", "stage", "fp32 ms", "fp16s ms", "fp16s MB",
                  "GB/s", "% copy", "speedup", "fp16 ms");
    out << line;
    nlohmann::json jp = nlohmann::json::array();
    for (int k = 0; k < 4; ++k) {
      const double t32 = med[0].*(stages[k].f) * 1e3, t16 = med[4].*(stages[k].f) * 1e3;
      const double gbs = bytes16[k] / (t16 * 1e-3) / 1e9;
      total16 += bytes16[k];
      const double tm = med[6].*(stages[k].f) * 1e3;
      std::snprintf(line, sizeof line, "  %-30s %9.3f %9.3f %9.1f %8.0f %7.1f %8.2f %9.3f\n", stages[k].name, t32, t16,
                    bytes16[k] / 1e6, gbs, 100 * gbs / copy_gbs, t32 / t16, tm);
      out << line;
      jp.push_back({{"stage", stages[k].name}, {"fp32_ms", t32}, {"fp16_storage_ms", t16}, {"fp16_storage_bytes", bytes16[k]},
                    {"gb_s", gbs}, {"fp16_ms", tm}});
    }
    const double t16 = med[4].total * 1e3;
    const double tm = med[6].total * 1e3;
    std::snprintf(line, sizeof line,
                  "  %-30s %9.3f %9.3f %9.1f %8.0f %7.1f %8.2f %9.3f\n  (fp16-storage floor at the copy bandwidth: %.3f "
                  "ms; fp16 = FP16 storage + FFT butterflies in FP16 arithmetic: %.2fx fp32)\n",
                  "total", tf, t16, total16 / 1e6, total16 / (t16 * 1e-3) / 1e9,
                  100 * total16 / (t16 * 1e-3) / 1e9 / copy_gbs, tf / t16, tm, total16 / (copy_gbs * 1e9) * 1e3, tf / tm);
    out << line;
    js["precision"] = {{"stages", jp}, {"fp32_ms", tf}, {"fp16_storage_ms", t16}, {"speedup", tf / t16},
                       {"fp16_ms", tm}, {"fp16_speedup", tf / tm},
                       {"fp16_storage_floor_ms", total16 / (copy_gbs * 1e9) * 1e3}};
    if (nice_applies) {  // both modes at the nice length, as `focus` runs them at this shape
      const double t32n = med[7].total * 1e3, t16n = med[9].total * 1e3;
      std::snprintf(line, sizeof line,
                    "  at the nice range FFT length %zu: fp32 %.3f ms, fp16-storage %.3f ms (%.2fx); fp16-storage "
                    "stages %.3f / %.3f / %.3f / %.3f ms\n",
                    nfft_nice, t32n, t16n, t32n / t16n, med[9].range_compress * 1e3, med[9].azimuth_fft * 1e3,
                    med[9].range_doppler * 1e3, med[9].azimuth_ifft * 1e3);
      out << line;
      js["precision"]["nice_length"] = {{"range_fft", nfft_nice}, {"fp32_ms", t32n}, {"fp16_storage_ms", t16n},
                                        {"speedup", t32n / t16n},
                                        {"fp16_storage_stages_ms", {med[9].range_compress * 1e3, med[9].azimuth_fft * 1e3,
                                                                    med[9].range_doppler * 1e3, med[9].azimuth_ifft * 1e3}}};
    }
  } else {
    out << "precision modes: fp16-storage does not apply to this shape (power-of-two lines 256..16384 and a one-block "
           "range FFT)\n";
  }
  // ---- host to host: successive scenes through two plans, upload / compute / download overlapped ----
  {
    fo.precision = Precision::fp32;
    fo.fft_planning = FftPlanning::estimate;
    const int scenes = 8;
    fo.pipeline = Pipeline::fused;
    nlohmann::json jh = nlohmann::json::array();
    out << "\nhost to host (pinned memory; scene s+1 uploads and scene s-1 downloads while scene s computes)\n";
    for (SampleType type : {SampleType::complex64, SampleType::int8_iq}) {
      const std::size_t in_bytes = scene * bytes_per_sample(type), out_bytes = scene * 8;
      void* h_in = nullptr;
      void* h_out[2] = {nullptr, nullptr};
      SARFUSE_CUDA(cudaMallocHost(&h_in, in_bytes));
      for (auto& p : h_out) SARFUSE_CUDA(cudaMallocHost(&p, out_bytes));
      {  // random non-zero samples of the type
        std::mt19937 g(5);
        if (type == SampleType::int8_iq) {
          auto* b = static_cast<std::int8_t*>(h_in);
          for (std::size_t k = 0; k < 2 * scene; ++k) b[k] = static_cast<std::int8_t>(2 * static_cast<int>(g() % 16) - 15);
        } else {
          const auto v = random_samples(scene, 9);
          std::memcpy(h_in, v.data(), in_bytes);
        }
      }
      cuda::CudaRda plans[2] = {cuda::CudaRda(radar, na, nr, fo, nfft_lin), cuda::CudaRda(radar, na, nr, fo, nfft_lin)};
      cudaStream_t up, down;
      SARFUSE_CUDA(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
      SARFUSE_CUDA(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
      cudaEvent_t uploaded[2], computed[2], downloaded[2], t0, t1;
      for (int b = 0; b < 2; ++b) {
        SARFUSE_CUDA(cudaEventCreateWithFlags(&uploaded[b], cudaEventDisableTiming));
        SARFUSE_CUDA(cudaEventCreateWithFlags(&computed[b], cudaEventDisableTiming));
        SARFUSE_CUDA(cudaEventCreateWithFlags(&downloaded[b], cudaEventDisableTiming));
        SARFUSE_CUDA(cudaEventRecord(computed[b], plans[b].stream()));
        SARFUSE_CUDA(cudaEventRecord(downloaded[b], down));
      }
      SARFUSE_CUDA(cudaEventCreate(&t0));
      SARFUSE_CUDA(cudaEventCreate(&t1));
      auto pipeline = [&](int count) {
        for (int sc = 0; sc < count; ++sc) {
          const int b = sc % 2;
          cuda::CudaRda& p = plans[b];
          SARFUSE_CUDA(cudaStreamWaitEvent(up, computed[b]));  // its raw buffer is free again
          SARFUSE_CUDA(cudaMemcpyAsync(p.device_raw(), h_in, in_bytes, cudaMemcpyHostToDevice, up));
          SARFUSE_CUDA(cudaEventRecord(uploaded[b], up));
          SARFUSE_CUDA(cudaStreamWaitEvent(p.stream(), uploaded[b]));
          SARFUSE_CUDA(cudaStreamWaitEvent(p.stream(), downloaded[b]));  // its output buffer is free again
          p.run(type, p.device_raw(), p.device_output());
          SARFUSE_CUDA(cudaEventRecord(computed[b], p.stream()));
          SARFUSE_CUDA(cudaStreamWaitEvent(down, computed[b]));
          SARFUSE_CUDA(cudaMemcpyAsync(h_out[b], p.device_output(), out_bytes, cudaMemcpyDeviceToHost, down));
          SARFUSE_CUDA(cudaEventRecord(downloaded[b], down));
        }
      };
      pipeline(2);  // warm-up
      SARFUSE_CUDA(cudaDeviceSynchronize());
      SARFUSE_CUDA(cudaEventRecord(t0, up));
      pipeline(scenes);
      SARFUSE_CUDA(cudaStreamWaitEvent(up, downloaded[(scenes - 1) % 2]));
      SARFUSE_CUDA(cudaEventRecord(t1, up));
      SARFUSE_CUDA(cudaEventSynchronize(t1));
      float ms_total = 0;
      SARFUSE_CUDA(cudaEventElapsedTime(&ms_total, t0, t1));
      // The PCIe floor, measured in the same run: one pinned upload and one download alone.
      const double t_up = time_ms(5, up, [&](int) {
        SARFUSE_CUDA(cudaMemcpyAsync(plans[0].device_raw(), h_in, in_bytes, cudaMemcpyHostToDevice, up));
      });
      const double t_down = time_ms(5, down, [&](int) {
        SARFUSE_CUDA(cudaMemcpyAsync(h_out[0], plans[0].device_output(), out_bytes, cudaMemcpyDeviceToHost, down));
      });
      const double per_scene = ms_total / scenes;
      std::snprintf(line, sizeof line,
                    "  %-10s %8.3f ms per scene (%d scenes); upload %.3f ms (%.1f GB/s), download %.3f ms "
                    "(%.1f GB/s): floor max(up, down) %.3f ms, %.0f %% of it\n",
                    to_string(type), per_scene, scenes, t_up, in_bytes / (t_up * 1e-3) / 1e9, t_down,
                    out_bytes / (t_down * 1e-3) / 1e9, std::max(t_up, t_down),
                    100.0 * std::max(t_up, t_down) / per_scene);
      out << line;
      jh.push_back({{"input", to_string(type)}, {"ms_per_scene", per_scene}, {"upload_ms", t_up},
                    {"download_ms", t_down}, {"floor_ms", std::max(t_up, t_down)}});
      for (int b = 0; b < 2; ++b) {
        cudaEventDestroy(uploaded[b]);
        cudaEventDestroy(computed[b]);
        cudaEventDestroy(downloaded[b]);
      }
      cudaEventDestroy(t0);
      cudaEventDestroy(t1);
      cudaStreamDestroy(up);
      cudaStreamDestroy(down);
      cudaFreeHost(h_in);
      for (auto* p : h_out) cudaFreeHost(p);
    }
    js["host_to_host"] = jh;
  }
  SARFUSE_CUDA(cudaStreamDestroy(s));
  if (!o.json_path.empty()) write_text_file(o.json_path, js.dump(2) + "\n");
  return out.str();
}

}  // namespace sarfuse

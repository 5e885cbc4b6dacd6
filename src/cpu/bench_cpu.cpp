#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "core/fft.hpp"
#include "core/threads.hpp"
#include "sarfuse/bench.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double time_median(int repeats, F&& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return median(t);
}

}  // namespace

std::string bench_cpu(const BenchOptions& o) {
  const int threads = core::resolve_threads(o.threads);
  const std::size_t na = o.lines, nr = o.samples;
  // The demo radar with a squinted beam, so every step (SRC included) runs.
  RadarParams radar = default_scene().radar;
  radar.doppler_centroid_hz = 0.3 * radar.prf_hz;
  FocusOptions fo;
  fo.backend = Backend::cpu;
  fo.threads = threads;
  fo.fft_planning = o.fft_planning;
  fo.src = SrcMode::on;

  // Random non-zero raw data.
  ComplexImage raw(na, nr);
  std::uint64_t x = 0x12345678u;
  for (std::size_t k = 0; k < raw.size(); ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    raw.data()[k] = {static_cast<float>(static_cast<std::int32_t>(x >> 32)) * 1e-9f + 1e-3f,
                     static_cast<float>(static_cast<std::int32_t>(x)) * 1e-9f};
  }

  const auto tp = Clock::now();
  Plan plan = make_plan(radar, na, nr, fo);
  const double plan_s = std::chrono::duration<double>(Clock::now() - tp).count();
  ComplexImage slc(na, nr);
  std::vector<StageTimes> runs;
  plan.focus(view_of(raw), slc);  // warm-up
  for (int r = 0; r < o.repeats; ++r) {
    plan.focus(view_of(raw), slc);
    runs.push_back(plan.last_times());
  }
  auto med = [&](double StageTimes::*m) {
    std::vector<double> v;
    for (const auto& t : runs) v.push_back(t.*m);
    return median(v);
  };
  const std::size_t nfft = plan.range_fft_size();

  // The FFTs alone: the same four transforms with FFTW's own threading, in the same run.
  const int n = static_cast<int>(nfft), a = static_cast<int>(na), c = static_cast<int>(nr);
  AlignedBuffer<std::complex<float>> buf(na * nfft);
  for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = raw.data()[k % raw.size()];
  using core::FftDirection;
  using core::FftPlan;
  FftPlan<float> rg_f({n, a, 1, n}, FftDirection::forward, buf.data(), buf.data(), o.fft_planning, threads);
  FftPlan<float> az_f({a, n, n, 1}, FftDirection::forward, buf.data(), buf.data(), o.fft_planning, threads);
  FftPlan<float> rg_i({n, a, 1, n}, FftDirection::inverse, buf.data(), buf.data(), o.fft_planning, threads);
  FftPlan<float> az_i({a, c, n, 1}, FftDirection::inverse, buf.data(), buf.data(), o.fft_planning, threads);
  for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = raw.data()[k % raw.size()];
  const double t_rg_f = time_median(o.repeats, [&] { rg_f.execute(buf.data(), buf.data()); });
  const double t_az_f = time_median(o.repeats, [&] { az_f.execute(buf.data(), buf.data()); });
  const double t_rg_i = time_median(o.repeats, [&] { rg_i.execute(buf.data(), buf.data()); });
  const double t_az_i = time_median(o.repeats, [&] { az_i.execute(buf.data(), buf.data()); });
  const double fft_total = t_rg_f + t_az_f + t_rg_i + t_az_i;

  const double bpc = 8.0;
  auto gbs = [](double bytes, double s) { return bytes / s / 1e9; };
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line,
                "sarfuse bench: CPU backend, %zu x %zu (range FFT %zu), %s, %d threads, FFTW planning %s, "
                "median of %d after a warm-up\nplan time %.3f s\n\n",
                na, nr, nfft, "fp32", threads,
                o.fft_planning == FftPlanning::measure ? "measure" : "estimate", o.repeats, plan_s);
  out << line;
  std::snprintf(line, sizeof line, "%-38s %10s %10s %12s\n", "stage", "time ms", "GB/s", "FFT alone ms");
  out << line;
  const double in_bytes = static_cast<double>(na * nr) * 8.0;
  const double wk = static_cast<double>(na * nfft) * bpc;
  const double out_bytes = static_cast<double>(na * nr) * 8.0;
  struct Row {
    const char* name;
    double t, bytes, fft;
  } rows[] = {
      {"range compression (FFT, x filter)", med(&StageTimes::range_compress), in_bytes + wk, t_rg_f},
      {"azimuth FFT", med(&StageTimes::azimuth_fft), 2 * wk, t_az_f},
      {"range-Doppler (SRC, IFFT, RCMC, az)", med(&StageTimes::range_doppler), wk + wk * nr / nfft, t_rg_i},
      {"azimuth IFFT", med(&StageTimes::azimuth_ifft), wk * nr / nfft + out_bytes, t_az_i},
  };
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-38s %10.2f %10.2f %12.2f\n", r.name, r.t * 1e3, gbs(r.bytes, r.t), r.fft * 1e3);
    out << line;
  }
  const double total = med(&StageTimes::total);
  std::snprintf(line, sizeof line, "%-38s %10.2f %10s %12.2f\n", "total RDA", total * 1e3, "", fft_total * 1e3);
  out << line;
  std::snprintf(line, sizeof line, "\nRDA / FFTs alone = %.2f  (target <= 1.5)\n", total / fft_total);
  out << line;
  return out.str();
}

}  // namespace sarfuse

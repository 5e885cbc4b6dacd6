#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "core/fft.hpp"
#include "core/threads.hpp"
#include "bench/bench.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
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
  const std::size_t nfft = plan.range_fft_size();

  // The FFTs alone: the RDA's four transforms as contiguous batched FFTW plans with FFTW's own
  // threads. Azimuth transforms are timed as if their data were already transposed, so this is a
  // floor: the FFT arithmetic without any data reorganisation.
  const int n = static_cast<int>(nfft), a = static_cast<int>(na), c = static_cast<int>(nr);
  AlignedBuffer<std::complex<float>> buf(na * nfft);
  using core::FftDirection;
  using core::FftPlan;
  FftPlan<float> rg_f({n, a, 1, n}, FftDirection::forward, buf.data(), buf.data(), o.fft_planning, threads);
  FftPlan<float> az_f({a, n, 1, a}, FftDirection::forward, buf.data(), buf.data(), o.fft_planning, threads);
  FftPlan<float> rg_i({n, a, 1, n}, FftDirection::inverse, buf.data(), buf.data(), o.fft_planning, threads);
  FftPlan<float> az_i({a, c, 1, a}, FftDirection::inverse, buf.data(), buf.data(), o.fft_planning, threads);
  // And as a user holding the scene row-major would call FFTW: azimuth transforms strided.
  FftPlan<float> az_f_rm({a, n, n, 1}, FftDirection::forward, buf.data(), buf.data(), o.fft_planning, threads);
  FftPlan<float> az_i_rm({a, c, n, 1}, FftDirection::inverse, buf.data(), buf.data(), o.fft_planning, threads);
  for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = raw.data()[k % raw.size()];
  auto seconds = [](auto&& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };

  // RDA and FFTs alone alternate, so both see the same machine load; one warm-up round first.
  std::vector<StageTimes> runs;
  std::vector<double> f_rg_f, f_az_f, f_rg_i, f_az_i, f_total, f_az_f_rm, f_az_i_rm, f_total_rm;
  for (int r = -1; r < o.repeats; ++r) {
    plan.focus(view_of(raw), slc);
    const double t1 = seconds([&] { rg_f.execute(buf.data(), buf.data()); });
    const double t2 = seconds([&] { az_f.execute(buf.data(), buf.data()); });
    const double t3 = seconds([&] { rg_i.execute(buf.data(), buf.data()); });
    const double t4 = seconds([&] { az_i.execute(buf.data(), buf.data()); });
    const double t5 = seconds([&] { az_f_rm.execute(buf.data(), buf.data()); });
    const double t6 = seconds([&] { az_i_rm.execute(buf.data(), buf.data()); });
    if (r < 0) continue;
    f_az_f_rm.push_back(t5);
    f_az_i_rm.push_back(t6);
    f_total_rm.push_back(t1 + t5 + t3 + t6);
    runs.push_back(plan.last_times());
    f_rg_f.push_back(t1);
    f_az_f.push_back(t2);
    f_rg_i.push_back(t3);
    f_az_i.push_back(t4);
    f_total.push_back(t1 + t2 + t3 + t4);
  }
  auto med = [&](double StageTimes::*m) {
    std::vector<double> v;
    for (const auto& t : runs) v.push_back(t.*m);
    return median(v);
  };
  const double t_rg_f = median(f_rg_f), t_az_f = median(f_az_f), t_rg_i = median(f_rg_i), t_az_i = median(f_az_i);
  const double fft_total = median(f_total), fft_total_rm = median(f_total_rm);
  const double t_az_f_rm = median(f_az_f_rm), t_az_i_rm = median(f_az_i_rm);
  const double bpc = 8.0;
  auto gbs = [](double bytes, double s) { return bytes / s / 1e9; };
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line,
                "sarfuse bench: CPU backend, %zu x %zu (range FFT %zu), %s, %d threads, FFTW planning %s, "
                "median of %d after a warm-up\nplan time %.3f s\n\n",
                na, nr, nfft, "fp32", threads,
                to_string(o.fft_planning), o.repeats, plan_s);
  out << line;
  std::snprintf(line, sizeof line, "%-38s %9s %7s %14s %14s\n", "stage", "time ms", "GB/s", "FFT floor ms",
                "FFTW rowmaj ms");
  out << line;
  const double in_bytes = static_cast<double>(na * nr) * 8.0;
  const double wk = static_cast<double>(na * nfft) * bpc;
  const double out_bytes = static_cast<double>(na * nr) * 8.0;
  struct Row {
    const char* name;
    double t, bytes, fft, fft_rm;
  } rows[] = {
      {"range compression (FFT, x filter)", med(&StageTimes::range_compress), in_bytes + wk, t_rg_f, t_rg_f},
      {"azimuth FFT", med(&StageTimes::azimuth_fft), 2 * wk, t_az_f, t_az_f_rm},
      {"range-Doppler (SRC, IFFT, RCMC, az)", med(&StageTimes::range_doppler), wk + wk * nr / nfft, t_rg_i, t_rg_i},
      {"azimuth IFFT", med(&StageTimes::azimuth_ifft), wk * nr / nfft + out_bytes, t_az_i, t_az_i_rm},
  };
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-38s %9.2f %7.2f %14.2f %14.2f\n", r.name, r.t * 1e3, gbs(r.bytes, r.t),
                  r.fft * 1e3, r.fft_rm * 1e3);
    out << line;
  }
  const double total = med(&StageTimes::total);
  std::snprintf(line, sizeof line, "%-38s %9.2f %7s %14.2f %14.2f\n", "total RDA", total * 1e3, "", fft_total * 1e3,
                fft_total_rm * 1e3);
  out << line;
  std::snprintf(line, sizeof line,
                "\nRDA / FFTs alone, row-major scene as FFTW is called on it (strided azimuth) = %.2f  (target <= 1.5)\n"
                "RDA / FFT floor (contiguous transforms, transposes free)                 = %.2f\n",
                total / fft_total_rm, total / fft_total);
  out << line;
  return out.str();
}

}  // namespace sarfuse

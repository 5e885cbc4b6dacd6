#include "sarfuse/blocks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/geometry.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse {

namespace {

// Ranges at which the support is evaluated: the swath's ends and middle (the FM rate falls with range,
// the beam-centre offset grows with it, and a range-dependent centroid may peak anywhere).
std::vector<double> support_ranges(const RadarParams& r, std::size_t samples) {
  std::vector<double> out;
  for (int i = 0; i <= 8; ++i) out.push_back(r.range_of_column((static_cast<double>(samples) - 1) * i / 8.0));
  return out;
}

}  // namespace

Window linear_azimuth_window(const FocusOptions& o) {
  if (o.azimuth_window.kind != Window::Kind::none) return o.azimuth_window;
  Window w;
  w.kind = Window::Kind::tukey;
  w.param = kLinearTaper;
  return w;
}

double linear_azimuth_bandwidth(const RadarParams& r, std::size_t samples, const FocusOptions& o) {
  double lo = 1e300, hi = -1e300;
  for (double range : support_ranges(r, samples)) {
    lo = std::min(lo, r.doppler_centroid_at(range));
    hi = std::max(hi, r.doppler_centroid_at(range));
  }
  // The antenna's 3-dB Doppler bandwidth flat, the taper beyond it.
  const double taper = o.azimuth_window.kind == Window::Kind::none ? kLinearTaper : 0.0;
  const double b = o.azimuth_bandwidth_hz > 0 ? o.azimuth_bandwidth_hz
                   : r.antenna_length_m > 0   ? 0.886 * 2.0 * r.effective_velocity_m_s / r.antenna_length_m / (1 - taper)
                                              : r.prf_hz;
  return std::min({b, r.prf_hz, r.prf_hz - (hi - lo)});
}

std::string BlockLayout::to_string() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%zu lines in %zu block(s) of %zu lines (%zu product rows each; support %zu lines, aperture %zu, "
                "zero padding %zu at each end; %.1f Hz processed): %zu product rows from zero-Doppler time %.6f s",
                take_lines, blocks, block_lines, step, support_lines, aperture_lines, pad_lines, bandwidth_hz, rows,
                eta_first_s);
  return buf;
}

BlockLayout plan_azimuth_blocks(const RadarParams& r, std::size_t lines, std::size_t samples, const FocusOptions& o,
                                std::size_t block_lines) {
  validate(r, "parameters");
  validate_shape(r, lines, samples, "raw data");
  BlockLayout b;
  b.take_lines = lines;
  b.bandwidth_hz = linear_azimuth_bandwidth(r, samples, o);
  const double prf = r.prf_hz, lambda = r.wavelength_m(), v = r.effective_velocity_m_s;
  // Support of one product row: the processed band's time extent at the slowest FM rate (that of the
  // band edge farthest from zero Doppler), +30 % and 64 lines for the tails of the filter's impulse
  // response (measured, tests/integration/test_blocks.cpp: +10 % left 5e-5 between blocks and one piece).
  // Aperture: the time extent of the band's flat part (without the default taper: the antenna's 3-dB
  // Doppler bandwidth), what a target needs in the take to be fully illuminated.
  const double flat = o.azimuth_window.kind == Window::Kind::none ? b.bandwidth_hz * (1 - kLinearTaper) : b.bandwidth_hz;
  long half = 0, half_ap = 0, off_min = 0, off_max = 0;
  bool first = true;
  for (double range : support_ranges(r, samples)) {
    RadarParams local = r;
    local.doppler_centroid_hz = r.doppler_centroid_at(range);
    local.doppler_centroid_range_coefficients.clear();
    const double f_edge = std::abs(local.doppler_centroid_hz) + 0.5 * b.bandwidth_hz;
    const double ka = core::azimuth_fm_rate(f_edge, range, lambda, v);
    half = std::max(half, static_cast<long>(std::ceil(0.65 * b.bandwidth_hz / ka * prf)) + 64);
    half_ap = std::max(half_ap, static_cast<long>(std::ceil(0.5 * flat / ka * prf)));
    const double offset = beam_centre_offset_s(local, range) * prf;  // lines from zero Doppler to the beam centre
    const long lo = static_cast<long>(std::floor(offset)), hi = static_cast<long>(std::ceil(offset));
    off_min = first ? lo : std::min(off_min, lo);
    off_max = first ? hi : std::max(off_max, hi);
    first = false;
  }
  b.support_lines = static_cast<std::size_t>(2 * half + 1 + (off_max - off_min));
  b.aperture_lines = static_cast<std::size_t>(2 * half_ap + 1 + (off_max - off_min));
  b.pad_lines = static_cast<std::size_t>(half - half_ap);
  if (lines < b.aperture_lines + 1)
    throw Error("the take has " + std::to_string(lines) + " lines, fewer than the synthetic aperture (" +
                std::to_string(b.aperture_lines) + " lines at " + std::to_string(flat) +
                " Hz): nothing is fully illuminated. Use circular azimuth processing, or a smaller azimuth_bandwidth_hz");
  b.block_lines = block_lines ? block_lines : fft_friendly_size(lines + 2 * b.pad_lines);
  if (b.block_lines < b.support_lines + 1)
    throw Error("block_lines " + std::to_string(b.block_lines) + ": expected at least " +
                std::to_string(b.support_lines + 1) + " (the azimuth support of one product row plus one)");
  // Zero-Doppler line eta of the take reads raw lines [eta + off_min - half, eta + off_max + half]; the
  // take is padded with pad_lines zero lines at both ends, so a product row's support may leave it.
  b.first_valid = half - off_min;
  b.step = b.block_lines - b.support_lines + 1;
  b.rows = lines - b.aperture_lines + 1;
  b.blocks = (b.rows + b.step - 1) / b.step;
  b.eta_first_s = (static_cast<double>(half_ap - off_min) - 0.5 * static_cast<double>(lines)) / prf;
  return b;
}

std::size_t block_lines_for_memory(const RadarParams& r, std::size_t lines, std::size_t samples,
                                   const FocusOptions& o, std::size_t max_host, std::size_t max_device) {
  const BlockLayout whole = plan_azimuth_blocks(r, lines, samples, o, 0);
  FocusOptions po = o;
  po.azimuth_bandwidth_hz = whole.bandwidth_hz;
  po.azimuth_window = linear_azimuth_window(o);
  auto fits = [&](std::size_t n, PlanMemory* m) {
    *m = plan_memory(r, n, samples, po);
    // Two raw blocks and a second SLC block (the plan's figure has one) in flight in focus_file.
    m->host_bytes += 3 * n * samples * sizeof(std::complex<float>);
    return (max_host == 0 || m->host_bytes <= max_host) && (max_device == 0 || m->device_bytes <= max_device);
  };
  PlanMemory m;
  if (fits(whole.block_lines, &m)) return whole.block_lines;
  // Longest fitting friendly length between the shortest block and the whole take (memory grows with n).
  std::size_t lo = whole.support_lines + 1, hi = whole.block_lines;
  PlanMemory at_lo;
  if (!fits(fft_friendly_size(lo), &at_lo))
    throw Error(std::string("max_memory_bytes / max_gpu_memory_bytes: the shortest azimuth block (") +
                std::to_string(fft_friendly_size(lo)) + " lines, the support of one product row) needs " +
                format_bytes(double(at_lo.host_bytes)) + " of host and " + format_bytes(double(at_lo.device_bytes)) +
                " of device memory; the budget allows " + (max_host ? format_bytes(double(max_host)) : "any") +
                " and " + (max_device ? format_bytes(double(max_device)) : "any"));
  std::size_t best = fft_friendly_size(lo);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2, n = fft_friendly_size(mid);
    if (n < hi && fits(n, &m)) {
      best = std::max(best, n);
      lo = n + 1;
    } else {
      hi = mid;
    }
  }
  return best;
}

std::size_t pipeline_block_lines(const RadarParams& r, std::size_t lines, std::size_t samples, const FocusOptions& o,
                                 std::size_t max_host, std::size_t max_device, bool gpu) {
  const BlockLayout whole = plan_azimuth_blocks(r, lines, samples, o, 0);
  // Without budgets nothing limits the block (and the backend need not be asked).
  const std::size_t fit = max_host || max_device ? block_lines_for_memory(r, lines, samples, o, max_host, max_device)
                                                 : whole.block_lines;
  const std::size_t support = whole.support_lines, padded = lines + 2 * whole.pad_lines;
  std::size_t n = 0;
  if (gpu) {
    n = 1;  // a power of two: the azimuth FFTs' fastest kernels, nothing to measure at plan time
    while (n < std::max(2 * support, padded / 8 + support)) n *= 2;
  } else {
    n = fft_friendly_size(std::max(6 * support, padded / 3 + support));
  }
  return n < fit ? n : fit;
}

Plan make_block_plan(const RadarParams& radar, std::size_t samples, const FocusOptions& options, const BlockLayout& b) {
  FocusOptions o = options;
  o.azimuth_bandwidth_hz = b.bandwidth_hz;
  o.azimuth_window = linear_azimuth_window(options);
  return make_plan(radar, b.block_lines, samples, o);
}

void focus_in_blocks(Plan& plan, const BlockLayout& b, const RowReader& read, const RowWriter& write,
                     StageTimes* times) {
  if (plan.lines() != b.block_lines)
    throw Error("focus_in_blocks: the plan has " + std::to_string(plan.lines()) + " lines, the blocks " +
                std::to_string(b.block_lines));
  const std::size_t samples = plan.samples();
  ComplexImage raw(b.block_lines, samples), slc;
  if (times) *times = StageTimes{};
  const long bl = static_cast<long>(b.block_lines);
  std::size_t written = 0;
  for (std::size_t k = 0; k < b.blocks; ++k) {
    throw_if_interrupted();
    // The block's first line, in the take (negative: in the zero padding before it); its row
    // first_valid is product row k step.
    const long start = static_cast<long>(k * b.step) - static_cast<long>(b.pad_lines);
    const long from = std::max(start, 0L), to = std::min(start + bl, static_cast<long>(b.take_lines));
    // Zero only the padding around the lines read (before the take's start, after its end).
    const std::size_t head = static_cast<std::size_t>(std::min(std::max(from - start, 0L), bl));
    const std::size_t tail = static_cast<std::size_t>(std::clamp(to - start, static_cast<long>(head), bl));
    std::fill(raw.data(), raw.row(head), std::complex<float>(0));
    std::fill(raw.row(tail), raw.data() + raw.size(), std::complex<float>(0));
    if (to > from) read(static_cast<std::size_t>(from), static_cast<std::size_t>(to - from), raw.row(head));
    plan.focus(view_of(raw), slc);
    if (times) {
      const StageTimes& t = plan.last_times();
      times->range_compress += t.range_compress;
      times->azimuth_fft += t.azimuth_fft;
      times->range_doppler += t.range_doppler;
      times->azimuth_ifft += t.azimuth_ifft;
      times->total += t.total;
    }
    // Kept rows in runs that do not wrap around the block's end.
    const std::size_t n = std::min(b.step, b.rows - written);
    std::size_t done = 0;
    while (done < n) {
      const long eta = ((b.first_valid + static_cast<long>(done)) % bl + bl) % bl;
      const std::size_t run = std::min(n - done, static_cast<std::size_t>(bl - eta));
      write(slc.row(static_cast<std::size_t>(eta)), run);
      done += run;
    }
    written += n;
  }
  if (written != b.rows)
    throw Error("azimuth blocks: wrote " + std::to_string(written) + " of " + std::to_string(b.rows) + " rows");
}

}  // namespace sarfuse

// The correlations behind the Doppler estimators (doppler_parts.hpp).
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/fft.hpp"
#include "core/filters.hpp"
#include "core/raw_rows.hpp"
#include "core/threads.hpp"
#include "focus/doppler_parts.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse::doppler {

using cf = std::complex<float>;

Sums& Sums::operator+=(const Sums& o) {
  for (std::size_t b = 0; b < block_accc.size(); ++b) {
    block_accc[b] += o.block_accc[b];
    block_power[b] += o.block_power[b];
  }
  upper += o.upper;
  lower += o.lower;
  beat += o.beat;
  return *this;
}

Sums& Sums::operator-=(const Sums& o) {
  for (std::size_t b = 0; b < block_accc.size(); ++b) {
    block_accc[b] -= o.block_accc[b];
    block_power[b] -= o.block_power[b];
  }
  upper -= o.upper;
  lower -= o.lower;
  beat -= o.beat;
  return *this;
}

Correlations measure_correlations(const RadarParams& radar, const RawView& raw, const DopplerOptions& o) {
  const std::size_t na = raw.lines, nr = raw.samples;
  const int nb = o.range_blocks;
  const std::size_t nfft = fft_friendly_size(nr + static_cast<std::size_t>(radar.replica_length()) - 1);
  const auto h = core::range_matched_filter(radar, nfft, Window{});
  const double fs = radar.range_sampling_rate_hz, band = radar.chirp_bandwidth_hz();
  // The looks: baseband frequencies [0, B/2) and [-B/2, 0), each moved to the start of a shorter
  // spectrum (a constant modulation in range, which the azimuth correlations do not see).
  std::size_t up = 0, down = 0;
  for (std::size_t m = 0; m < nfft; ++m) {
    const double f = (m < (nfft + 1) / 2 ? static_cast<double>(m) : static_cast<double>(m) - nfft) * fs / nfft;
    if (f >= 0 && f < band / 2) up = m + 1;
    if (f < 0 && f >= -band / 2) down = std::max(down, nfft - m);
  }
  const std::size_t nlook = fft_friendly_size(std::max<std::size_t>({up, down, 2}));
  // Look sample k sits at column k * nfft / nlook; only those inside the record count.
  const std::size_t look_columns = std::min(nlook, (nr * nlook + nfft - 1) / nfft);
  std::vector<int> block_of(look_columns);
  for (std::size_t k = 0; k < look_columns; ++k)
    block_of[k] = static_cast<int>(std::min<std::size_t>(k * nfft / nlook, nr - 1) * nb / nr);

  Correlations c;
  c.look_separation_hz = band / 2;
  // MLBF lag: long for precision, but a target may walk in range over it (at 8.5 PRF, lambda x 4.25 per
  // line) by at most 1/8 of a look's resolution c / B: faster-walking (higher-Doppler) parts of the
  // aperture would decorrelate more and bias the beat towards zero. That also keeps the beat of
  // centroids up to +-8.5 PRF within +-PRF/2.
  c.lag = std::clamp(static_cast<int>(radar.carrier_frequency_hz / (34.0 * band)), 1, 16);
  for (int b = 0; b < nb; ++b) {
    const std::size_t j0 = static_cast<std::size_t>(b) * nr / nb, j1 = static_cast<std::size_t>(b + 1) * nr / nb;
    c.block_first_column.push_back(j0);
    c.block_range_m.push_back(radar.range_of_column(0.5 * (static_cast<double>(j0) + static_cast<double>(j1) - 1)));
  }
  c.block_first_column.push_back(nr);

  // Line groups: the centred run of lines used, cut into consecutive groups. (Groups spread over the
  // take would see each target through a few parts of its aperture only, which biases the ACCC.)
  const std::size_t used = std::min(na, std::max<std::size_t>(o.max_lines, 2 * static_cast<std::size_t>(c.lag) + 4));
  const std::size_t groups = std::clamp<std::size_t>(used / 64, 2, 16);
  const std::size_t per_group = used / groups;
  c.lines_used = per_group * groups;
  const std::size_t first_line = (na - c.lines_used) / 2;
  c.groups.assign(groups, Sums(nb));

  std::vector<cf> hf(nfft);
  for (std::size_t m = 0; m < nfft; ++m) hf[m] = cf(h[m]);
  std::vector<cf> probe(std::max(nfft, nlook));
  const core::FftShape line{static_cast<int>(nfft), 1, 1, static_cast<int>(nfft)};
  const core::FftShape look{static_cast<int>(nlook), 1, 1, static_cast<int>(nlook)};
  const core::FftPlan<float> fwd(line, core::FftDirection::forward, probe.data(), probe.data(), FftPlanning::estimate);
  const core::FftPlan<float> inv(look, core::FftDirection::inverse, probe.data(), probe.data(), FftPlanning::estimate);
  const int threads = static_cast<int>(std::min<std::size_t>(core::resolve_threads(o.threads), groups));
  const std::size_t ring = static_cast<std::size_t>(c.lag) + 1, stride = (nlook + 7) / 8 * 8;

#pragma omp parallel num_threads(threads)
  {
    std::vector<cf> spec(nfft);
    // The last lag + 1 lines of each look, as a ring; lines 64 bytes apart, the alignment FFTW planned for.
    std::vector<cf> hi(ring * stride), lo(ring * stride);
#pragma omp for schedule(dynamic, 1)
    for (std::size_t g = 0; g < groups; ++g) {
      if (interrupted()) continue;
      Sums& s = c.groups[g];
      const std::size_t first = first_line + g * per_group;
      for (std::size_t n = 0; n < per_group; ++n) {
        std::fill(spec.begin(), spec.end(), cf(0));
        core::convert_row<float>(raw, first + n, spec.data());
        fwd.execute(spec.data(), spec.data());
        cf* h_now = hi.data() + (n % ring) * stride;
        cf* l_now = lo.data() + (n % ring) * stride;
        std::fill(h_now, h_now + nlook, cf(0));
        std::fill(l_now, l_now + nlook, cf(0));
        for (std::size_t m = 0; m < up; ++m) h_now[m] = spec[m] * hf[m];
        for (std::size_t m = 0; m < down; ++m) l_now[m] = spec[nfft - down + m] * hf[nfft - down + m];
        inv.execute(h_now, h_now);
        inv.execute(l_now, l_now);
        if (n >= 1) {
          const cf* h_prev = hi.data() + ((n - 1) % ring) * stride;
          const cf* l_prev = lo.data() + ((n - 1) % ring) * stride;
          for (std::size_t k = 0; k < look_columns; ++k) {
            const cd a = cd(h_now[k]) * std::conj(cd(h_prev[k])), b = cd(l_now[k]) * std::conj(cd(l_prev[k]));
            s.block_accc[block_of[k]] += a + b;
            s.block_power[block_of[k]] +=
                0.5 * (std::norm(cd(h_now[k])) + std::norm(cd(h_prev[k])) + std::norm(cd(l_now[k])) + std::norm(cd(l_prev[k])));
            s.upper += a;
            s.lower += b;
          }
        }
        if (n >= static_cast<std::size_t>(c.lag)) {
          const cf* h_then = hi.data() + ((n - c.lag) % ring) * stride;
          const cf* l_then = lo.data() + ((n - c.lag) % ring) * stride;
          for (std::size_t k = 0; k < look_columns; ++k) {
            const cd now = cd(h_now[k]) * std::conj(cd(l_now[k])), then = cd(h_then[k]) * std::conj(cd(l_then[k]));
            s.beat += now * std::conj(then);
          }
        }
      }
    }
  }
  throw_if_interrupted();
  c.total = Sums(nb);
  for (const Sums& s : c.groups) c.total += s;
  return c;
}

}  // namespace sarfuse::doppler

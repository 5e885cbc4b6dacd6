// The Doppler estimator's decisive check: a patch of the data focused as the product will be.
#include <algorithm>
#include <cmath>

#include "core/raw_rows.hpp"
#include "focus/doppler_parts.hpp"
#include "sarfuse/blocks.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/quality.hpp"

namespace sarfuse::doppler {

namespace {

FocusOptions patch_options(const DopplerOptions& o) {
  FocusOptions f = o.focus;
  f.backend = Backend::cpu;  // small and many: no device context, the same answer on every machine
  if (f.precision != Precision::fp64) f.precision = Precision::fp32;
  f.threads = o.threads;
  f.fft_planning = FftPlanning::estimate;
  return f;
}

}  // namespace

Patch choose_patch(const RadarParams& radar, const RawView& raw, const Correlations& c, const DopplerOptions& o) {
  const std::size_t na = raw.lines, nr = raw.samples;
  Patch p;
  // Range: the replica plus at least 1024 columns (the fully compressed ones), where the power is.
  const std::size_t replica = static_cast<std::size_t>(radar.replica_length());
  const std::size_t columns = std::min(nr, replica + std::max<std::size_t>(1024, 2 * replica));
  double best = -1;
  const int nb = static_cast<int>(c.block_range_m.size());
  for (int b = 0; b < nb; ++b) {
    const std::size_t start = std::min(c.block_first_column[b], nr - columns);
    double power = 0;
    for (int q = 0; q < nb; ++q)  // blocks inside [start, start + columns)
      if (c.block_first_column[q] >= start && c.block_first_column[q + 1] <= start + columns)
        power += c.total.block_power[q];
    if (power > best) {
      best = power;
      p.first_column = start;
    }
  }
  // Azimuth, centred: twice the aperture for the circular candidates, and for the linear refinement
  // a few hundred rows common to centroids 0.15 PRF apart (whose beam centres are that far apart).
  std::size_t lines = na;
  try {
    const BlockLayout l = plan_azimuth_blocks(radar, na, nr, patch_options(o));
    const double r = radar.range_of_column(0.5 * static_cast<double>(nr));
    RadarParams moved = radar;
    moved.doppler_centroid_hz += 0.3 * radar.prf_hz;
    const double shift = std::abs(beam_centre_offset_s(moved, r) - beam_centre_offset_s(radar, r)) * radar.prf_hz;
    lines = std::max<std::size_t>({2 * l.aperture_lines, 512, l.support_lines + 384 + static_cast<std::size_t>(shift)});
  } catch (const Error&) {  // a take shorter than the support: all of it
  }
  lines = std::min(na, lines);
  p.first_line = (na - lines) / 2;
  p.raw = ComplexImage(lines, columns);
  std::vector<std::complex<float>> row(nr);
  for (std::size_t i = 0; i < lines; ++i) {
    core::convert_row<float>(raw, p.first_line + i, row.data());
    std::copy(row.begin() + static_cast<long>(p.first_column), row.begin() + static_cast<long>(p.first_column + columns),
              p.raw.row(i));
  }
  p.radar = radar;
  p.radar.near_range_m = radar.range_of_column(static_cast<double>(p.first_column));
  return p;
}

std::pair<double, double> patch_rows_span(const Patch& p, const RadarParams& radar, const DopplerOptions& o) {
  RadarParams r = radar;
  r.near_range_m = p.radar.near_range_m;
  try {
    const BlockLayout l = plan_azimuth_blocks(r, p.raw.lines(), p.raw.samples(), patch_options(o));
    return {l.eta_first_s, l.eta_first_s + static_cast<double>(l.rows - 1) / radar.prf_hz};
  } catch (const Error&) {
    return {1, 0};
  }
}

double patch_sharpness(const Patch& p, const RadarParams& radar, const DopplerOptions& o, bool circular, double eta_from,
                       double eta_to) {
  RadarParams r = radar;
  r.near_range_m = p.radar.near_range_m;
  const FocusOptions f = patch_options(o);
  const std::size_t lines = p.raw.lines(), columns = p.raw.samples();
  ComplexImage slc;
  ProductGeometry g;
  if (circular) {
    Plan plan = make_plan(r, lines, columns, f);
    plan.focus(view_of(p.raw), slc);
    g = plan.geometry();
  } else {
    const BlockLayout layout = plan_azimuth_blocks(r, lines, columns, f);
    Plan plan = make_block_plan(r, columns, f, layout);
    const auto row_of = [&](double eta) { return (eta - layout.eta_first_s) * r.prf_hz; };
    const long from = std::max(0L, static_cast<long>(std::ceil(row_of(eta_from) - 1e-6)));
    const long to = std::min(static_cast<long>(layout.rows) - 1, static_cast<long>(std::floor(row_of(eta_to) + 1e-6)));
    if (to < from) throw Error("Doppler check: no common rows in the patch");
    slc = ComplexImage(static_cast<std::size_t>(to - from + 1), columns);
    long row = 0;
    focus_in_blocks(
        plan, layout,
        [&](std::size_t first, std::size_t count, std::complex<float>* dst) {
          std::copy(p.raw.row(first), p.raw.row(first) + count * columns, dst);
        },
        [&](const std::complex<float>* rows, std::size_t count) {
          for (std::size_t k = 0; k < count; ++k, ++row)
            if (row >= from && row <= to) std::copy(rows + k * columns, rows + (k + 1) * columns, slc.row(row - from));
        });
    g = plan.geometry();
  }
  return intensity_contrast(slc, g.first_full_column, g.last_full_column);
}

}  // namespace sarfuse::doppler

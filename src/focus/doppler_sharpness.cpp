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
  // Range: the replica plus at least 512 columns (the fully compressed ones), where the power is.
  const std::size_t replica = static_cast<std::size_t>(radar.replica_length());
  const std::size_t columns = std::min(nr, replica + std::max<std::size_t>(512, replica));
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
  // Azimuth: enough lines for a few hundred product rows of linear processing (or, circular, twice
  // the aperture), centred.
  std::size_t lines = na;
  try {
    const BlockLayout l = plan_azimuth_blocks(radar, na, nr, patch_options(o));
    lines = o.circular ? std::max<std::size_t>(2 * l.aperture_lines, 512) : l.support_lines + 384;
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

double patch_sharpness(const Patch& p, const RadarParams& centroid, const DopplerOptions& o) {
  RadarParams r = centroid;
  r.near_range_m = p.radar.near_range_m;
  const FocusOptions f = patch_options(o);
  const std::size_t lines = p.raw.lines(), columns = p.raw.samples();
  ComplexImage slc;
  ProductGeometry g;
  if (o.circular) {
    Plan plan = make_plan(r, lines, columns, f);
    plan.focus(view_of(p.raw), slc);
    g = plan.geometry();
  } else {
    const BlockLayout layout = plan_azimuth_blocks(r, lines, columns, f);
    Plan plan = make_block_plan(r, columns, f, layout);
    slc = ComplexImage(layout.rows, columns);
    std::size_t written = 0;
    focus_in_blocks(
        plan, layout,
        [&](std::size_t first, std::size_t count, std::complex<float>* dst) {
          std::copy(p.raw.row(first), p.raw.row(first) + count * columns, dst);
        },
        [&](const std::complex<float>* rows, std::size_t count) {
          std::copy(rows, rows + count * columns, slc.row(written));
          written += count;
        });
    g = plan.geometry();
  }
  return intensity_contrast(slc, g.first_full_column, g.last_full_column);
}

}  // namespace sarfuse::doppler

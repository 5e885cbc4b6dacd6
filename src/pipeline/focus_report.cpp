#include "pipeline/focus_report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/simd_clones.hpp"
#include "core/threads.hpp"
#include "io/sample_encoding.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/corrections.hpp"
#include "sarfuse/quality.hpp"

namespace sarfuse::pipeline {

namespace {
constexpr long kHalfWindow = 64;  // point-target windows: 129 x 129 around the expected position
}

ProductRows::ProductRows(const FocusRequest& r, const RadarParams& radar, std::size_t samples, std::size_t rows)
    : r_(r), radar_(radar), samples_(samples), rows_(rows) {
  if (r.range_spreading) spreading_ = range_spreading_weights(radar, samples);
  if (r.keep_image) image_ = ComplexImage(rows, samples);
}

void ProductRows::start(const ProductGeometry& g) {
  geometry_ = g;
  if (!r_.scene || r_.report_path.empty()) return;
  for (const Target& tg : r_.scene->targets) {
    const long row = std::lround((tg.azimuth_time_s - g.eta_first_s) * radar_.prf_hz);
    const long col = std::lround((tg.range_m - radar_.near_range_m) / radar_.range_spacing_m());
    TargetWindow w;
    w.row0 = std::clamp(row - kHalfWindow, 0L, std::max(0L, static_cast<long>(rows_) - 2 * kHalfWindow - 1));
    w.col0 = std::clamp(col - kHalfWindow, 0L, std::max(0L, static_cast<long>(samples_) - 2 * kHalfWindow - 1));
    w.image = ComplexImage(std::min<std::size_t>(2 * kHalfWindow + 1, rows_),
                           std::min<std::size_t>(2 * kHalfWindow + 1, samples_));
    windows_.push_back(std::move(w));
  }
}

const std::complex<float>* ProductRows::add(const std::complex<float>* rows, std::size_t count) {
  const auto t = std::chrono::steady_clock::now();
  const std::size_t n = count * samples_;
  if (!spreading_.empty()) {
    scratch_.assign(rows, rows + n);
    for (std::size_t k = 0; k < n; ++k) scratch_[k] *= spreading_[k % samples_];
    rows = scratch_.data();
  }
  const PowerSums sums = power_sums(rows, n, r_.options.threads);
  power_ += sums.power;
  power2_ += sums.power2;
  peak_ = std::max(peak_, sums.peak);
  if (image_.size()) std::copy(rows, rows + n, image_.row(written_));
  for (TargetWindow& w : windows_)
    for (std::size_t k = 0; k < count; ++k) {
      const long g = static_cast<long>(written_ + k) - w.row0;
      if (g >= 0 && g < static_cast<long>(w.image.lines()))
        std::copy_n(rows + k * samples_ + w.col0, w.image.samples(), w.image.row(static_cast<std::size_t>(g)));
    }
  written_ += count;
  encode_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  return rows;
}

// Known before start(): the target windows it makes are counted as needed from the request.
bool ProductRows::needs_rows() const {
  return !spreading_.empty() || image_.size() || (r_.scene && !r_.report_path.empty() && !r_.scene->targets.empty());
}

void ProductRows::add_counted(const PowerSums& sums, std::size_t count) {
  if (needs_rows()) throw Error("focus_file: rows counted where they are needed themselves (a bug)");
  power_ += sums.power;
  power2_ += sums.power2;
  peak_ = std::max(peak_, sums.peak);
  written_ += count;
}

namespace {

// Sums of |z|^2, |z|^4 and the peak over I/Q pairs, in kLanes independent accumulators: one chain of
// additions would wait on each add's latency and cannot be vectorised (FP addition does not reorder).
struct PowerLanes {
  static constexpr std::size_t kLanes = 8;
  double power[kLanes] = {}, power2[kLanes] = {}, peak[kLanes] = {};

  SARFUSE_SIMD_CLONES void add(const float* iq, std::size_t n) {
    std::size_t k = 0;
    for (; k + kLanes <= n; k += kLanes)
      for (std::size_t l = 0; l < kLanes; ++l) lane(l, iq[2 * (k + l)], iq[2 * (k + l) + 1]);
    for (std::size_t l = 0; k < n; ++k, ++l) lane(l, iq[2 * k], iq[2 * k + 1]);
  }
  void lane(std::size_t l, double x, double y) {
    const double q = x * x + y * y;
    power[l] += q;
    power2[l] += q * q;
    peak[l] = peak[l] > q ? peak[l] : q;
  }
  PowerSums total() const {
    PowerSums s;
    for (std::size_t l = 0; l < kLanes; ++l) {
      s.power += power[l];
      s.power2 += power2[l];
      s.peak = std::max(s.peak, peak[l]);
    }
    return s;
  }
};

constexpr std::size_t kPiece = 4096;  // samples a thread takes at a time (complex32: decoded on the stack)

// Pieces 0..pieces-1 over the threads; add_piece(p, lanes) adds piece p.
template <class AddPiece>
PowerSums power_sums_in_pieces(std::size_t pieces, int threads, AddPiece add_piece) {
  const long n = static_cast<long>(pieces);
  double power = 0, power2 = 0, peak = 0;
#pragma omp parallel num_threads(core::resolve_threads(threads)) reduction(+ : power, power2) reduction(max : peak)
  {
    PowerLanes lanes;
#pragma omp for schedule(static)
    for (long p = 0; p < n; ++p) add_piece(static_cast<std::size_t>(p), lanes);
    const PowerSums t = lanes.total();
    power += t.power;
    power2 += t.power2;
    peak = std::max(peak, t.peak);
  }
  return {power, power2, peak};
}

}  // namespace

PowerSums power_sums(const std::complex<float>* samples, std::size_t n, int threads) {
  return power_sums(samples, 1, n, n, threads);
}

PowerSums power_sums(const std::complex<float>* rows, std::size_t count, std::size_t samples, std::size_t pitch,
                     int threads) {
  const float* iq = reinterpret_cast<const float*>(rows);
  const std::size_t per_row = (samples + kPiece - 1) / kPiece;
  return power_sums_in_pieces(count * per_row, threads, [=](std::size_t p, PowerLanes& lanes) {
    const std::size_t row = p / per_row, from = p % per_row * kPiece;
    lanes.add(iq + 2 * (row * pitch + from), std::min(kPiece, samples - from));
  });
}

PowerSums power_sums(const std::uint16_t* halves, std::size_t n, int threads) {
  return power_sums_in_pieces((n + kPiece - 1) / kPiece, threads, [halves, n](std::size_t p, PowerLanes& lanes) {
    const std::size_t from = p * kPiece, count = std::min(kPiece, n - from);
    float v[2 * kPiece];
    io::half_to_floats(halves + 2 * from, v, 2 * count);
    lanes.add(v, count);
  });
}

void ProductRows::finish(FocusReport& rep) {
  const double n = static_cast<double>(rows_ * samples_), mean = power_ / n;
  rep.mean_power = mean;
  rep.peak_amplitude = std::sqrt(peak_);
  rep.intensity_contrast = std::sqrt(std::max(0.0, power2_ / n - mean * mean)) / mean;
  if (image_.size()) rep.image = std::move(image_);
  if (windows_.empty()) return;
  std::vector<TargetQuality> q;
  for (std::size_t i = 0; i < windows_.size(); ++i) {  // each target in its window's own geometry
    AnalysisOptions ao;
    ao.eta_first_s = geometry_.eta_first_s + static_cast<double>(windows_[i].row0) / radar_.prf_hz;
    RadarParams local = radar_;
    local.near_range_m = radar_.range_of_column(static_cast<double>(windows_[i].col0));
    TargetQuality t = analyze_targets(windows_[i].image, local, {r_.scene->targets[i]}, ao).front();
    t.index = static_cast<int>(i);
    t.expected_row += static_cast<double>(windows_[i].row0);  // back to product pixels
    t.row += static_cast<double>(windows_[i].row0);
    t.expected_col += static_cast<double>(windows_[i].col0);
    t.col += static_cast<double>(windows_[i].col0);
    q.push_back(t);
  }
  rep.target_table = format_quality_table(q);
  rep.targets_json = quality_to_json(q);
}

std::string report_json(const FocusRequest& r, const FocusReport& p, bool input_streamed, std::size_t nfft) {
  nlohmann::json j;
  const FocusTimings& t = p.timings;
  j["timings_s"] = {{"open", t.open},
                    {"read", t.read},
                    {"convert", t.convert},
                    {"plan", t.plan},
                    {"upload", t.upload},
                    {"download", t.download},
                    {"encode", t.encode},
                    {"write", t.write},
                    {"sync", t.sync},
                    {"write_commit", t.sync},
                    {"wall", t.wall}};
  j["timeline_s"] = {{"first_block_read", t.at_first_block_read}, {"plan_ready", t.at_plan_ready},
                     {"first_block_focused", t.at_first_block_focused}, {"first_rows_written", t.at_first_rows_written}, {"last_rows_written", t.at_last_rows_written},
                     {"done", t.wall}};
  for (const FocusTimings::BlockStages& b : t.blocks)
    j["timeline_s"]["blocks"].push_back({{"read", {b.read[0], b.read[1]}},
                                         {"focus", {b.focus[0], b.focus[1]}},
                                         {"write", {b.write[0], b.write[1]}},
                                         {"steps", {{"upload", b.plan.upload},
                                                    {"range_compression", b.plan.range_compress},
                                                    {"azimuth_fft", b.plan.azimuth_fft},
                                                    {"range_doppler", b.plan.range_doppler},
                                                    {"azimuth_ifft", b.plan.azimuth_ifft},
                                                    {"download", b.plan.download}}}});
  if (r.dc_offset || r.iq_balance) j["timings_s"]["correction_statistics"] = t.correction_statistics;
  if (p.doppler) j["timings_s"]["doppler_estimation"] = t.doppler_estimation;
  j["timings_s"]["focus"] = {{"range_compression", t.focus.range_compress}, {"azimuth_fft", t.focus.azimuth_fft},
                             {"range_doppler", t.focus.range_doppler},      {"azimuth_ifft", t.focus.azimuth_ifft},
                             {"total", t.focus.total},                     {"wall_with_io", t.wall}};
  j["plan_reused"] = p.plan_reused;
  j["slc_transfer"] = p.slc_transfer;
  j["input_access"] = p.input_access;
  j["stages_overlapped"] = r.overlap;
  if (!r.gain_path.empty() || r.dc_offset || r.iq_balance)
    j["corrections"] = {{"gain_file", r.gain_path},
                        {"gain_first_line", r.gain_first_line},
                        {"gain_db_range", {p.corrections.gain_db_min, p.corrections.gain_db_max}},
                        {"dc_offset", r.dc_offset},
                        {"dc_i", p.corrections.dc_i},
                        {"dc_q", p.corrections.dc_q},
                        {"iq_balance", r.iq_balance},
                        {"q_over_i_rms", p.corrections.q_over_i}};
  if (p.doppler) {
    j["doppler_estimate"] = nlohmann::json::parse(doppler_to_json(*p.doppler));
    j["doppler_estimate"]["lines_used"] = {p.doppler_lines.first, p.doppler_lines.second};
  }
  j["input"] = r.input;
  j["output"] = r.output;
  j["product_bytes"] = p.product_bytes;
  j["parameters_given"] = nlohmann::json::parse(to_json_text(ParamsFile{r.radar, std::nullopt}))["radar"];
  j["product"] = nlohmann::json::parse(p.product_metadata);
  const BlockLayout& b = p.blocks;
  j["block_layout"] = {{"azimuth_processing", r.circular ? "circular" : "linear"}, {"summary", p.layout},
                       {"lines", p.lines}, {"range_samples", p.samples}, {"product_rows", p.rows},
                       {"range_fft_size", nfft}, {"input_streamed", input_streamed}, {"blocks", b.blocks},
                       {"block_lines", b.block_lines}};
  if (!r.circular)
    j["block_layout"].update({{"rows_per_block", b.step}, {"support_lines", b.support_lines},
                              {"processed_bandwidth_hz", b.bandwidth_hz}, {"eta_first_s", b.eta_first_s}});
  j["peak_host_memory_bytes"] = static_cast<double>(p.peak_host_memory_bytes);
  j["output_statistics"] = {{"mean_power", p.mean_power}, {"peak_amplitude", p.peak_amplitude},
                            {"intensity_contrast", p.intensity_contrast}};
  if (!p.targets_json.empty()) j["point_targets"] = nlohmann::json::parse(p.targets_json)["targets"];
  return j.dump(2) + "\n";
}

}  // namespace sarfuse::pipeline

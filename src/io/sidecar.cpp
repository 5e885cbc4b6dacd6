// The JSON sidecar of a focused product: what a downstream tool needs to place every pixel.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sarfuse/doppler.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse {

std::string product_sidecar_json(const RadarParams& r, const FocusOptions& o, const ProductGeometry& g,
                                 std::size_t lines, std::size_t samples, const std::string& input) {
  using nlohmann::json;
  const json params = json::parse(to_json_text(ParamsFile{r, std::nullopt}));
  json j;
  j["product"] = "sarfuse SLC";
  j["version"] = "0.1.0";
  j["input"] = input;
  j["shape"] = {lines, samples};
  j["dtype"] = "complex64";
  j["radar"] = params["radar"];
  j["geometry"] = {{"zero_doppler", true},
                   {"eta_first_s", g.eta_first_s},
                   {"azimuth_spacing_s", g.azimuth_spacing_s},
                   {"azimuth_pixel_spacing_m", r.effective_velocity_m_s / r.prf_hz},
                   {"range_of_column_0_m", g.near_range_m},
                   {"range_pixel_spacing_m", g.range_spacing_m},
                   {"doppler_centroid_hz", r.doppler_centroid_hz},
                   {"fully_compressed_columns", {g.first_full_column, g.last_full_column}}};
  j["processing"] = {{"algorithm", "range-doppler"},
                     {"backend", to_string(o.backend)},
                     {"pipeline", o.backend == Backend::cuda ? to_string(o.pipeline) : "n/a"},
                     {"range_fft_size", o.range_fft_size},
                     {"precision", to_string(o.precision)},
                     {"range_window", o.range_window.to_string()},
                     {"azimuth_window", o.azimuth_window.to_string()},
                     {"azimuth_bandwidth_hz", o.azimuth_bandwidth_hz > 0 ? o.azimuth_bandwidth_hz : r.prf_hz},
                     {"rcmc_taps", o.rcmc_taps},
                     {"src", g.src_applied},
                     {"azimuth_processing", g.azimuth_processing},
                     {"threads", o.threads}};
  return j.dump(2) + "\n";
}

std::string with_doppler_estimate(const std::string& sidecar_json, const DopplerEstimate& e) {
  auto j = nlohmann::json::parse(sidecar_json);
  auto d = nlohmann::json::parse(doppler_to_json(e));
  d.erase("blocks");  // the per-block table stays in the report
  j["processing"]["doppler_estimate"] = d;
  return j.dump(2) + "\n";
}

std::optional<double> read_sidecar_eta_first(const std::string& product_path) {
  const std::string side = product_path + ".json";
  std::error_code ec;
  if (!std::filesystem::exists(side, ec)) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(read_text_file(side));
    return j.at("geometry").at("eta_first_s").get<double>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace sarfuse

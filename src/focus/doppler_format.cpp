// The Doppler estimate as JSON, as a table, and as a warning.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sarfuse/doppler.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse {

const char* to_string(DopplerCheck c) {
  switch (c) {
    case DopplerCheck::when_unsure: return "auto";
    case DopplerCheck::always: return "always";
    case DopplerCheck::never: return "never";
  }
  return "?";
}

DopplerCheck parse_doppler_check(const std::string& s) {
  if (s == "auto") return DopplerCheck::when_unsure;
  if (s == "always") return DopplerCheck::always;
  if (s == "never") return DopplerCheck::never;
  throw Error("doppler_check: expected auto, always or never (got '" + s + "')");
}

std::string DopplerEstimate::warning() const {
  if (!low_confidence()) return {};
  std::ostringstream s;
  char buf[160];
  std::snprintf(buf, sizeof buf, "the Doppler ambiguity is uncertain (confidence %.2f): chose %d (%.1f Hz, by %s)", confidence,
                ambiguity, centroid_hz, ambiguity_source.c_str());
  s << buf;
  bool first = true;
  for (const Candidate& c : candidates)
    if (c.ambiguity != ambiguity) {
      std::snprintf(buf, sizeof buf, "%s%d (%.1f Hz, sharpness %.3f)", first ? "; alternatives: " : ", ", c.ambiguity,
                    c.centroid_hz, c.sharpness);
      s << buf;
      first = false;
    }
  if (candidates.empty()) {
    std::snprintf(buf, sizeof buf, "; MLCC says %.1f Hz, MLBF %.1f Hz", mlcc_centroid_hz, mlbf_centroid_hz);
    s << buf;
  }
  s << "; force one with ambiguity = N (--doppler-ambiguity N; centroid = fraction + N x PRF)";
  return s.str();
}

std::string doppler_to_json(const DopplerEstimate& e, int indent) {
  nlohmann::json j;
  j["centroid_hz"] = e.centroid_hz;
  j["fractional_hz"] = e.fractional_hz;
  j["ambiguity"] = e.ambiguity;
  j["ambiguity_source"] = e.ambiguity_source;
  j["confidence"] = e.confidence;
  j["low_confidence"] = e.low_confidence();
  j["method"] = "ACCC fraction; ambiguity by MLCC and MLBF" +
                std::string(e.candidates.empty() ? "" : ", decided by the sharpest patch focus (intensity contrast)");
  j["accc_fractional_hz"] = e.accc_fractional_hz;
  j["fractional_sigma_hz"] = e.fractional_sigma_hz;
  j["refined"] = e.refined;
  j["mlcc_centroid_hz"] = e.mlcc_centroid_hz;
  j["mlcc_sigma_hz"] = e.mlcc_sigma_hz;
  j["mlbf_centroid_hz"] = e.mlbf_centroid_hz;
  j["mlbf_sigma_hz"] = e.mlbf_sigma_hz;
  j["mlbf_lag_lines"] = e.mlbf_lag;
  nlohmann::json cands = nlohmann::json::array();
  for (const auto& c : e.candidates)
    cands.push_back({{"ambiguity", c.ambiguity}, {"centroid_hz", c.centroid_hz}, {"sharpness", c.sharpness},
                     {"proposed_by", c.proposed_by}});
  j["candidates"] = cands;
  if (!e.candidates.empty())
    j["check"] = {{"first_line", e.patch.first_line}, {"lines", e.patch.lines}, {"first_column", e.patch.first_column},
                  {"columns", e.patch.columns}, {"focuses", e.patch.focuses}, {"seconds", e.patch.seconds},
                  {"sharpness", "intensity contrast (std / mean of |pixel|^2) over the fully compressed columns"}};
  j["polynomial"] = {{"coefficients_hz", e.poly}, {"range_ref_m", e.range_ref_m}, {"range_scale_m", e.range_scale_m},
                     {"form", "sum_i c_i ((r - range_ref_m) / range_scale_m)^i"}};
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : e.blocks)
    blocks.push_back({{"range_m", b.range_m}, {"fractional_hz", b.fractional_hz}, {"coherence", b.coherence},
                      {"fitted_hz", e.at_range(b.range_m)}});
  j["blocks"] = blocks;
  return j.dump(indent);
}

std::string format_doppler_table(const DopplerEstimate& e) {
  std::ostringstream s;
  char line[320];
  std::snprintf(line, sizeof line, "%12s %14s %10s %14s\n", "range_m", "ACCC_frac_Hz", "coherence", "fitted_abs_Hz");
  s << line;
  for (const auto& b : e.blocks) {
    std::snprintf(line, sizeof line, "%12.1f %14.2f %10.3f %14.2f\n", b.range_m, b.fractional_hz, b.coherence,
                  e.at_range(b.range_m));
    s << line;
  }
  std::snprintf(line, sizeof line,
                "ACCC fraction %.2f +- %.2f Hz; MLCC %.1f +- %.1f Hz; MLBF (lag %d lines) %.1f +- %.1f Hz\n",
                e.accc_fractional_hz, e.fractional_sigma_hz, e.mlcc_centroid_hz, e.mlcc_sigma_hz, e.mlbf_lag,
                e.mlbf_centroid_hz, e.mlbf_sigma_hz);
  s << line;
  if (!e.candidates.empty()) {
    std::snprintf(line, sizeof line, "check: %d patch focuses of %zu lines x %zu columns (from line %zu, column %zu), %.2f s\n",
                  e.patch.focuses, e.patch.lines, e.patch.columns, e.patch.first_line, e.patch.first_column,
                  e.patch.seconds);
    s << line;
    std::snprintf(line, sizeof line, "%10s %14s %11s  %s\n", "ambiguity", "centroid_Hz", "sharpness", "proposed by");
    s << line;
    for (const auto& c : e.candidates) {
      std::snprintf(line, sizeof line, "%10d %14.1f %11.3f  %s\n", c.ambiguity, c.centroid_hz, c.sharpness,
                    c.proposed_by.c_str());
      s << line;
    }
  }
  std::snprintf(line, sizeof line,
                "Doppler centroid at mid-swath: %.2f Hz (fraction %.2f Hz%s, ambiguity %d from %s, confidence %.2f)\n",
                e.centroid_hz, e.fractional_hz, e.refined ? ", refined to the sharpest" : "", e.ambiguity,
                e.ambiguity_source.c_str(), e.confidence);
  s << line;
  return s.str();
}

}  // namespace sarfuse

// Option values as text: parsed once, here, for the CLI, Python and the library's own messages.
#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "sarfuse/error.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

std::pair<std::size_t, std::size_t> parse_size_pair(const std::string& text, const std::string& what,
                                                    const std::string& example) {
  const auto x = text.find('x');
  std::size_t a_end = 0, b_end = 0;
  try {
    if (x == std::string::npos || x == 0 || text[0] == '-' || text[x + 1] == '-') throw std::invalid_argument(text);
    const std::size_t a = std::stoul(text.substr(0, x), &a_end), b = std::stoul(text.substr(x + 1), &b_end);
    if (a_end != x || b_end != text.size() - x - 1) throw std::invalid_argument(text);
    return {a, b};
  } catch (const std::exception&) {
    throw Error(what + ": expected " + example + " (got '" + text + "')");
  }
}

std::size_t parse_byte_size(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "kib") scale = 1024.0;
  else if (unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else if (unit == "tb") scale = 1e12;
  if (used == 0 || scale == 0 || !(value > 0) || value * scale > 1e18)
    throw Error(what + ": expected a positive size such as 8GiB, 512MiB, 2GB or 4096 (got '" + text + "')");
  return static_cast<std::size_t>(value * scale);
}

std::string format_bytes(double bytes) {
  char buf[64];
  if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  return buf;
}

const char* to_string(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "?";
}
const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::fp64: return "fp64";
    case Precision::fp16_storage: return "fp16-storage";
    case Precision::fp16: return "fp16";
    case Precision::tf32x3: return "tf32x3";
  }
  return "?";
}

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::automatic;
  if (s == "cpu") return Backend::cpu;
  if (s == "cuda") return Backend::cuda;
  throw Error("backend: expected auto, cpu or cuda (got '" + s + "')");
}
Precision parse_precision(const std::string& s) {
  if (s == "fp32") return Precision::fp32;
  if (s == "fp64") return Precision::fp64;
  if (s == "fp16-storage") return Precision::fp16_storage;
  if (s == "fp16") return Precision::fp16;
  if (s == "tf32x3") return Precision::tf32x3;
  throw Error("precision: expected fp32, fp64, fp16-storage, fp16 or tf32x3 (got '" + s + "')");
}
const char* to_string(Pipeline p) {
  switch (p) {
    case Pipeline::fused: return "fused";
    case Pipeline::cufft_unfused: return "cufft-unfused";
    case Pipeline::cufft_callback: return "cufft-callback";
    case Pipeline::vkfft_conv: return "vkfft-conv";
  }
  return "?";
}
Pipeline parse_pipeline(const std::string& s) {
  if (s == "fused") return Pipeline::fused;
  if (s == "cufft-unfused") return Pipeline::cufft_unfused;
  if (s == "cufft-callback") return Pipeline::cufft_callback;
  if (s == "vkfft-conv") return Pipeline::vkfft_conv;
  throw Error("pipeline: expected fused, cufft-unfused, cufft-callback or vkfft-conv (got '" + s + "')");
}

SrcMode parse_src_mode(const std::string& s) {
  if (s == "auto") return SrcMode::automatic;
  if (s == "on") return SrcMode::on;
  if (s == "off") return SrcMode::off;
  throw Error("src: expected auto, on or off (got '" + s + "')");
}

FftPlanning parse_fft_planning(const std::string& s) {
  if (s == "estimate") return FftPlanning::estimate;
  if (s == "measure") return FftPlanning::measure;
  throw Error("fft_planning: expected estimate or measure (got '" + s + "')");
}

const char* to_string(FftPlanning p) { return p == FftPlanning::measure ? "measure" : "estimate"; }

}  // namespace sarfuse

// The FFT wisdom file: the variant (or range FFT length) measured fastest per device and descriptor, as
// JSON under $XDG_CACHE_HOME/sarfuse (FftPlanning::measure reads and extends it).
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse::gpu {

std::string FftWisdom::default_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::string base = xdg && *xdg ? xdg : std::string(home && *home ? home : ".") + "/.cache";
  return base + "/sarfuse/wisdom.json";
}

FftWisdom::FftWisdom(std::string path) : path_(std::move(path)), json_("{}") {
  std::error_code ec;
  if (path_.empty() || !std::filesystem::exists(path_, ec)) return;
  const std::string text = read_text_file(path_);
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object()) throw Error("");
    for (const auto& [device, entries] : j.items()) {
      if (!entries.is_object()) throw Error("");
      for (const auto& [key, e] : entries.items()) {
        if (e.contains("length")) {
          if (e.at("length").get<int>() < 1) throw Error("");
        } else {
          parse_fft_variant(e.at("variant").get<std::string>());
        }
        (void)e.at("ms").get<double>();
      }
    }
  } catch (const std::exception&) {
    throw Error(path_ + ": not a sarfuse wisdom file (expected {\"device\": {\"n=...\": {\"variant\": ..., \"ms\": ...}}}); "
                "delete it or pass another wisdom file");
  }
  json_ = text;
}

bool FftWisdom::lookup(const std::string& device, const FftDesc& d, FftVariant* variant) const {
  const auto j = nlohmann::json::parse(json_);
  if (!j.contains(device) || !j[device].contains(d.key())) return false;
  *variant = parse_fft_variant(j[device][d.key()]["variant"].get<std::string>());
  return true;
}

void FftWisdom::remember(const std::string& device, const FftDesc& d, FftVariant variant, double ms) {
  auto j = nlohmann::json::parse(json_);
  j[device][d.key()] = {{"variant", to_string(variant)}, {"ms", ms}};
  json_ = j.dump(2);
}

bool FftWisdom::lookup_length(const std::string& device, const std::string& key, int* length) const {
  const auto j = nlohmann::json::parse(json_);
  if (!j.contains(device) || !j[device].contains(key) || !j[device][key].contains("length")) return false;
  *length = j[device][key]["length"].get<int>();
  return true;
}

void FftWisdom::remember_length(const std::string& device, const std::string& key, int length, double ms) {
  auto j = nlohmann::json::parse(json_);
  j[device][key] = {{"length", length}, {"ms", ms}};
  json_ = j.dump(2);
}

void FftWisdom::save() const {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  write_text_file(path_, json_ + "\n");
}

}  // namespace sarfuse::gpu

// The host side of sarfuse::gpu FFT plans: names, descriptors, the variants per size, the wisdom file.
// (The plans and kernels: src/cuda/fft/fft_plan.cu; without CUDA, the plan constructors say so.)
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cuda/fft/fft_math.hpp"  // mixed_radix_schedule (host and device)
#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse::gpu {

const char* to_string(FftVariant v) {
  switch (v) {
    case FftVariant::automatic: return "auto";
    case FftVariant::stockham16: return "stockham16";
    case FftVariant::stockham8: return "stockham8";
    case FftVariant::stockham4: return "stockham4";
    case FftVariant::mixed_radix: return "mixed";
    case FftVariant::cufft: return "cufft";
    case FftVariant::tensor_fp16: return "tensor-fp16";
    case FftVariant::tensor_tf32: return "tensor-tf32";
    case FftVariant::tensor_tf32x3: return "tensor-3xtf32";
    case FftVariant::ct_dif_split: return "ct-dif-split";
    case FftVariant::four_step: return "four-step";
    case FftVariant::tensor_fp64: return "tensor-fp64";
    case FftVariant::tensor_bf16: return "tensor-bf16";
  }
  return "?";
}

FftVariant parse_fft_variant(const std::string& s) {
  for (FftVariant v : {FftVariant::automatic, FftVariant::stockham16, FftVariant::stockham8, FftVariant::stockham4,
                       FftVariant::mixed_radix, FftVariant::cufft, FftVariant::tensor_fp16, FftVariant::tensor_tf32,
                       FftVariant::tensor_tf32x3, FftVariant::ct_dif_split, FftVariant::four_step, FftVariant::tensor_fp64,
                       FftVariant::tensor_bf16})
    if (s == to_string(v)) return v;
  throw Error("FFT variant '" + s +
              "': expected auto, stockham16, stockham8, stockham4, ct-dif-split, mixed, four-step, cufft, tensor-fp16, "
              "tensor-bf16, tensor-tf32, tensor-3xtf32 or tensor-fp64");
}

std::string FftDesc::key() const {
  return "n=" + std::to_string(n) + " batch=" + std::to_string(batch) + " stride=" + std::to_string(stride) +
         " dist=" + std::to_string(dist) + " inverse=" + std::to_string(inverse ? 1 : 0);
}

std::vector<FftVariant> fft_variants_for(const FftDesc& d) {
  std::vector<FftVariant> v;
  const bool pow2 = d.n >= 64 && d.n <= 16384 && (d.n & (d.n - 1)) == 0;
  if (pow2) {
    v.push_back(FftVariant::stockham16);
    if (d.n / 8 <= 1024) v.push_back(FftVariant::stockham8);
    if (d.n / 4 <= 1024) v.push_back(FftVariant::stockham4);
    v.push_back(FftVariant::ct_dif_split);
  } else if (d.n > 16384 && d.n <= (1 << 22) && (d.n & (d.n - 1)) == 0) {
    const int dist = d.dist ? d.dist : (d.stride == 1 ? d.n : 1);
    if (d.stride == 1 && dist == d.n) v.push_back(FftVariant::four_step);  // contiguous lines
  } else {
    int radices[32];
    if ((d.n >= 2 && d.n <= 12288 && cuda::fft::mixed_radix_schedule(d.n, radices) > 0) || cuda::fft::is_nice_row_size(d.n))
      v.push_back(FftVariant::mixed_radix);
  }
  v.push_back(FftVariant::cufft);
  return v;
}

std::vector<FftVariant> tensor_variants_for(const FftDesc& d) {
  const int dist = d.dist ? d.dist : d.n;
  if (d.n != 256 || d.stride != 1 || dist != 256) return {};
  return {FftVariant::tensor_fp16, FftVariant::tensor_bf16, FftVariant::tensor_tf32, FftVariant::tensor_tf32x3,
          FftVariant::tensor_fp64};
}

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
                "delete it or pass another --wisdom");
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

#if !SARFUSE_HAVE_CUDA
class FftPlan::Impl {};
FftPlan::FftPlan(const FftDesc&, const FftPlanOptions&) {
  throw Error("GPU FFT plans: this build has no CUDA backend (nvcc was not found at build time)");
}
FftPlan::FftPlan(FftPlan&&) noexcept = default;
FftPlan& FftPlan::operator=(FftPlan&&) noexcept = default;
FftPlan::~FftPlan() = default;
void FftPlan::execute(const std::complex<float>*, std::complex<float>*, void*) const {}
FftVariant FftPlan::variant() const { return FftVariant::automatic; }
const FftDesc& FftPlan::desc() const { throw Error("GPU FFT plans: no CUDA backend"); }
const std::string& FftPlan::how_chosen() const { throw Error("GPU FFT plans: no CUDA backend"); }
#endif

}  // namespace sarfuse::gpu

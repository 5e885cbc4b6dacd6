#include "cuda/vkfft_conv.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "core/fft.hpp"
#include "cuda/vkfft/vkfft_plugin_abi.h"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

namespace {

struct Module {
  decltype(&sarfuse_vkfft_conv_create) create = nullptr;
  decltype(&sarfuse_vkfft_conv_run) run = nullptr;
  decltype(&sarfuse_vkfft_conv_destroy) destroy = nullptr;
  std::string error;  // why loading failed
};

// Looks beside the binary that holds this code (executable or Python extension), then its parent
// directory, then the loader's search path; SARFUSE_VKFFT_MODULE overrides all of them.
const Module& module() {
  static Module m;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* name = "libsarfuse_vkfft.so";
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("SARFUSE_VKFFT_MODULE")) {
      candidates.push_back(env);
    } else {
      Dl_info info{};
      if (dladdr(reinterpret_cast<void*>(&module), &info) && info.dli_fname) {
        const auto dir = std::filesystem::absolute(info.dli_fname).parent_path();
        candidates.push_back((dir / name).string());
        candidates.push_back((dir.parent_path() / name).string());
      }
      candidates.push_back(name);
    }
    std::string tried;
    for (const auto& c : candidates) {
      void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        tried += "\n  " + c + ": " + dlerror();
        continue;
      }
      m.create = reinterpret_cast<decltype(m.create)>(dlsym(h, "sarfuse_vkfft_conv_create"));
      m.run = reinterpret_cast<decltype(m.run)>(dlsym(h, "sarfuse_vkfft_conv_run"));
      m.destroy = reinterpret_cast<decltype(m.destroy)>(dlsym(h, "sarfuse_vkfft_conv_destroy"));
      if (m.create && m.run && m.destroy) return;
      tried += "\n  " + c + ": lacks the sarfuse_vkfft_conv_* entry points";
      m = Module{};
    }
    m.error = "vkfft-conv: the VkFFT module could not be loaded (built when vkFFT.h from libvkfft-dev is "
              "found; set SARFUSE_VKFFT_MODULE to its path); tried:" + tried;
  });
  return m;
}

}  // namespace

std::string VkfftConv::unavailable_reason() { return module().error; }

VkfftConv::VkfftConv(int n, int lines, int nr, bool zero_pad_columns, const std::vector<std::complex<double>>& filter,
                     cudaStream_t stream) {
  const Module& m = module();
  if (!m.create) throw Error(m.error);
  // VkFFT multiplies the data spectrum by conj(FFT(k)) and divides by n; our filter H has 1/n folded
  // in, so k = IFFT_unnormalised(conj(H)) gives conj(FFT(k)) / n = H exactly (up to float rounding).
  std::vector<std::complex<double>> k(filter.size());
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::conj(filter[i]);
  core::FftPlan<double> inv({n, 1, 1, n}, core::FftDirection::inverse, k.data(), k.data(), FftPlanning::estimate);
  inv.execute(k.data(), k.data());
  std::vector<float> kf(2 * k.size());
  for (std::size_t i = 0; i < k.size(); ++i) {
    kf[2 * i] = static_cast<float>(k[i].real());
    kf[2 * i + 1] = static_cast<float>(k[i].imag());
  }
  char err[512] = {};
  handle_ = m.create(n, lines, nr, zero_pad_columns ? 1 : 0, kf.data(), stream, err, sizeof err);
  if (!handle_) throw Error(err[0] ? err : "vkfft-conv: plan creation failed");
}

VkfftConv::~VkfftConv() {
  if (handle_) module().destroy(handle_);
}

void VkfftConv::run(float2* data) {
  char err[512] = {};
  if (module().run(handle_, data, err, sizeof err) != 0) throw Error(err);
}

}  // namespace sarfuse::cuda

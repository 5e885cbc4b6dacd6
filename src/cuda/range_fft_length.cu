// The CUDA chain's range FFT length: which lengths it runs, the built-in choice between the power of
// two and a shorter nice length, and --plan measure's timing of both (remembered in the wisdom file).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda/backend.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fft/fft_math.hpp"
#include "cuda/rda_cuda.hpp"
#include "sarfuse/gpu_fft.hpp"

namespace sarfuse::cuda {

namespace {
// Whether a nice (non-power-of-two) range FFT length can run: the row kernels with FP32 butterflies
// (the FP32 chain's and fp16-storage's) are compiled for them, and cuFFT takes any length. FP16
// butterflies (--precision fp16) and the tensor-core passes are powers of two only.
bool nice_length_runs(int n, const FocusOptions& o) {
  if (!fft::is_nice_row_size(n)) return false;
  if (o.precision == Precision::fp16_storage) return o.pipeline == Pipeline::fused;
  return o.precision == Precision::fp32 && (o.pipeline == Pipeline::fused || o.pipeline == Pipeline::cufft_unfused ||
                                            o.pipeline == Pipeline::cufft_callback);
}
// The power-of-two range FFT length for a linear convolution of `linear` samples (at least 256).
std::size_t pow2_range_length(std::size_t linear) {
  std::size_t p = 256;
  while (p < linear) p *= 2;
  return p;
}
}  // namespace

std::string nice_sizes_text() {
  std::string t;
  for (int n : fft::kNiceRowSizes) t += (t.empty() ? "" : ", ") + std::to_string(n);
  return t;
}

std::size_t smallest_nice_length(std::size_t linear, const FocusOptions& o) {
  const std::size_t p = pow2_range_length(linear);
  for (int n : fft::kNiceRowSizes)  // ascending
    if (static_cast<std::size_t>(n) >= linear && static_cast<std::size_t>(n) < p && nice_length_runs(n, o))
      return static_cast<std::size_t>(n);
  return 0;
}

std::size_t measure_range_fft_length(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                     const FocusOptions& o, std::string* note) {
  const std::size_t linear = samples + static_cast<std::size_t>(radar.replica_length()) - 1;
  const std::size_t p = pow2_range_length(linear);
  const std::size_t nice = smallest_nice_length(linear, o);
  if (nice == 0) return range_fft_length(linear, o);
  cudaDeviceProp prop{};
  int dev = 0;
  SARFUSE_CUDA(cudaGetDevice(&dev));
  SARFUSE_CUDA(cudaGetDeviceProperties(&prop, dev));
  const std::string key = "range-fft lines=" + std::to_string(lines) + " samples=" + std::to_string(samples) +
                          " replica=" + std::to_string(radar.replica_length()) + " pipeline=" + to_string(o.pipeline);
  const bool use_wisdom = o.wisdom_path != "-";
  gpu::FftWisdom wisdom(use_wisdom ? (o.wisdom_path.empty() ? gpu::FftWisdom::default_path() : o.wisdom_path) : "");
  int remembered = 0;
  if (use_wisdom && wisdom.lookup_length(prop.name, key, &remembered)) {
    *note = "range FFT length " + std::to_string(remembered) + " (wisdom " + wisdom.path() + ")\n";
    return static_cast<std::size_t>(remembered);
  }
  // Each candidate as a whole plan (azimuth FFTs by the estimate), on zero samples: median of 5 runs.
  FocusOptions each = o;
  each.fft_planning = FftPlanning::estimate;
  auto time_chain = [&](std::size_t n) {
    CudaRda rda(radar, lines, samples, each, n);
    DeviceBuffer<float2> raw(lines * samples);
    SARFUSE_CUDA(cudaMemsetAsync(raw.get(), 0, raw.bytes(), rda.stream()));
    std::vector<double> t;
    for (int i = -1; i < 5; ++i) {
      rda.run(SampleType::complex64, raw.get(), rda.device_output());
      SARFUSE_CUDA(cudaStreamSynchronize(rda.stream()));
      if (i >= 0) t.push_back(rda.elapsed().total);
    }
    std::sort(t.begin(), t.end());
    return t[2] * 1e3;
  };
  const double t_nice = time_chain(nice), t_pow2 = time_chain(p);
  const std::size_t chosen = t_nice < t_pow2 ? nice : p;
  char line[200];
  std::snprintf(line, sizeof line, "range FFT length %zu (fft_planning measure: %zu %.3f ms, %zu %.3f ms)\n", chosen, nice,
                t_nice, p, t_pow2);
  *note = line;
  if (use_wisdom) {
    wisdom.remember_length(prop.name, key, static_cast<int>(chosen), std::min(t_nice, t_pow2));
    wisdom.save();
  }
  return chosen;
}

bool range_length_runs(std::size_t n, const FocusOptions& o) {
  return (n >= 256 && (n & (n - 1)) == 0) || (n <= 16384 && nice_length_runs(static_cast<int>(n), o));
}

// A nice length costs more per point than a power of two (an odd-radix pass, radix-16 passes at partial
// occupancy), so it pays only when clearly shorter: the built-in choice takes one at <= 0.8 of the power
// of two (the measurements: docs/performance.md, "Choices made from measurements"); --plan measure
// times both.
constexpr double kNiceLengthPays = 0.8;

std::size_t range_fft_length(std::size_t linear, const FocusOptions& o) {
  const std::size_t p = pow2_range_length(linear), nice = smallest_nice_length(linear, o);
  return nice != 0 && static_cast<double>(nice) <= kNiceLengthPays * static_cast<double>(p) ? nice : p;
}

}  // namespace sarfuse::cuda

// sarfuse: benchmarks (speed only; correctness lives in the tests).
#pragma once
#include <cstddef>
#include <string>

#include "sarfuse/plan.hpp"

namespace sarfuse {

struct BenchOptions {
  std::size_t lines = 4096, samples = 4096;
  int threads = 0;
  int repeats = 7;
  FftPlanning fft_planning = FftPlanning::estimate;
};

// Times the whole CPU RDA per stage (median of `repeats` after a warm-up) on random non-zero data,
// and, in the same run, the FFTs alone (FFTW, the same four transforms, same threads). Returns a
// printable report.
std::string bench_cpu(const BenchOptions& options);

struct CudaBenchOptions {
  std::size_t lines = 4096, samples = 4096;
  int repeats = 50;
  bool circular = false;      // range compression compared at FFT length Nr (the Apple M1 system's case)
  double azimuth_bandwidth_hz = 0;  // the whole RDA's processed Doppler band (0: the PRF, as focus)
  std::string json_path;      // also write every figure as JSON
};

// The CUDA backend on device-resident data (CUDA events, median of `repeats` after warm-up, rotating
// input buffers): fused range compression vs cuFFT, the whole chain fused vs cufft-unfused, each
// beside the device-to-device copy bandwidth measured in the same run. Throws without CUDA.
std::string bench_cuda(const CudaBenchOptions& options);

struct Level0BenchOptions {
  std::size_t lines = 50000, samples = 20000;
  int threads = 0;
  int repeats = 5;
  std::string dir;        // where the file goes ("" = a temporary folder, removed)
  std::string json_path;  // also write every figure as JSON
};

// `sarfuse bench level0`: a Sentinel-1 FDBAQ measurement file of lines x samples made by our encoder,
// decoded by decode_lines (median of `repeats`, page cache warm) beside a plain sequential read of it.
std::string bench_level0(const Level0BenchOptions& options);

}  // namespace sarfuse

namespace sarfuse::gpu {

// `sarfuse bench fft`: every variant and cuFFT, every power of two 256..16384 and three
// non-powers of two (1536, 6000, 7680), batch so the data is >= min_bytes: time
// (CUDA events, median), GFLOPS (5 N log2 N), GB/s, relative L2 vs float64, ratio to cuFFT.
struct FftBenchOptions {
  int repeats = 20;
  std::size_t min_bytes = std::size_t{512} << 20;
  std::string json_path;
};
std::string bench_fft(const FftBenchOptions& options);

}  // namespace sarfuse::gpu

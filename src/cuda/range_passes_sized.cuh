// The bodies of range_passes_sized.hpp, included by each length's generated translation unit only.
#pragma once
#include <string>

#include "cuda/range_pass_kernels.cuh"
#include "cuda/range_passes_sized.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

template <int N>
void launch_range_spectrum_sized(SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                 const float2* tw, float2* out, cudaStream_t stream, bool tensor) {
  steps::dispatch_type(type, [&]<SampleType S>() {
    steps::with_butterflies<N, steps::TensorButterflies>(tensor, [&]<class B>() {
      constexpr int E = spectrum_row_elems<N, B, steps::Fp32Rows>;
      const auto kernel = &range_spectrum_kernel<N, S, B, steps::Fp32Rows>;
      steps::set_smem<N, 1, E>(reinterpret_cast<const void*>(kernel));
      kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes, stream>>>(
          raw, lines, nr, filter, tw, out, nullptr, nullptr);
      SARFUSE_LAUNCHED("range_spectrum");
    });
  });
}

// The first-step pass takes one line a block (from 256 threads a line: shorter lines share blocks).
template <int N>
constexpr bool first_step_runs =
    BlockShape<N, spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>>::lines == 1;

// The first-step pass's launch: clusters of 16 blocks (a non-portable size, allowed explicitly).
template <int N, SampleType S>
cudaLaunchConfig_t first_step_config(const void* kernel, int lines, cudaStream_t stream, cudaLaunchAttribute& cluster) {
  constexpr int E = spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>;
  steps::set_smem<N, 1, E>(kernel);
  SARFUSE_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(lines));
  config.blockDim = steps::block_for<N, E>();
  config.dynamicSmemBytes = static_cast<std::size_t>(BlockShape<N, E>::smem_bytes);
  config.stream = stream;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kAzimuthFirstStepRadix;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return config;
}

template <int N>
bool range_spectrum_first_step_fits_sized() {
  if constexpr (!first_step_runs<N>) {
    return false;
  } else {
    const auto kernel = &range_spectrum_first_step_kernel<N, SampleType::complex64>;
    cudaLaunchAttribute cluster{};
    const cudaLaunchConfig_t config = first_step_config<N, SampleType::complex64>(
        reinterpret_cast<const void*>(kernel), kAzimuthFirstStepRadix, nullptr, cluster);
    int clusters = 0;
    SARFUSE_CUDA(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    return clusters > 0;
  }
}

template <int N>
void launch_range_spectrum_first_step_sized(SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                            const float2* tw, const float2* az_tw, float2* out, cudaStream_t stream) {
  if (!first_step_runs<N> || lines % kAzimuthFirstStepRadix != 0)
    throw Error("range spectrum with the azimuth FFT's first step: lines must be a multiple of 16 and the range FFT"
                " one line a block, not " + std::to_string(lines) + " lines at " + std::to_string(N));
  if constexpr (first_step_runs<N>) steps::dispatch_type(type, [&]<SampleType S>() {
    const auto kernel = &range_spectrum_first_step_kernel<N, S>;
    cudaLaunchAttribute cluster{};
    const cudaLaunchConfig_t config = first_step_config<N, S>(reinterpret_cast<const void*>(kernel), lines, stream, cluster);
    SARFUSE_CUDA(cudaLaunchKernelEx(&config, kernel, raw, lines, nr, filter, tw, out, az_tw));
    SARFUSE_LAUNCHED("range_spectrum_first_step");
  });
}

template <int N>
void launch_range_doppler_rows_sized(float2* work, int lines, int nr, const core::DopplerRow* rows, double df,
                                     SincTableView sinc, AzimuthBandView band, const float2* tw,
                                     cudaStream_t stream, bool tensor) {
  steps::with_butterflies<N, steps::TensorButterflies>(tensor, [&]<class B>() {
    const auto kernel = &range_doppler_kernel<N, B, steps::Fp32Rows>;
    constexpr int E = doppler_row_elems<N, B, steps::Fp32Rows>;
    steps::set_smem<N, 1, E>(reinterpret_cast<const void*>(kernel));
    kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes, stream>>>(
        work, lines, nr, rows, df, sinc, band, tw, nullptr, nullptr);
    SARFUSE_LAUNCHED("range_doppler_rows");
  });
}

}  // namespace sarfuse::cuda

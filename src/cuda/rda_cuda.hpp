// The CUDA Range-Doppler plan (see docs/design.md for its passes).
#pragma once
#include <cuda_runtime.h>
#include <cufft.h>

#include <vector>

#include "core/filters.hpp"
#include "core/plan_impl.hpp"
#include "cuda/device_buffer.hpp"

namespace sarfuse::cuda {

class CudaRda final : public PlanImpl {
 public:
  CudaRda(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options,
          std::size_t nfft);
  ~CudaRda() override;

  void focus(const RawView& raw, ComplexImage& slc) override;

  // The chain on device-resident data: raw (lines x samples of `type`) in, the SLC to out_ (or `out`).
  // Records the stage events; does not synchronise.
  void run(SampleType type, const void* d_raw, float2* d_out);
  // Stage times (s) of the last run(), after the stream has been synchronised.
  StageTimes elapsed() const;

  cudaStream_t stream() const { return stream_; }
  float2* device_output() const { return out_.get(); }
  std::byte* device_raw() const { return raw_.get(); }
  const float2* range_filter() const { return filter_.get(); }
  const float2* twiddles() const { return twiddles_.get(); }
  std::size_t device_bytes() const;

 private:
  void run_fused(SampleType type, const void* d_raw, float2* d_out);
  void run_cufft_unfused(SampleType type, const void* d_raw, float2* d_out);

  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_[5] = {};
  cufftHandle az_fwd_ = 0, az_inv_ = 0, rg_fwd_ = 0, rg_inv_ = 0;
  bool have_rg_plans_ = false;
  DeviceBuffer<std::byte> raw_;
  DeviceBuffer<float2> work_, out_, tmp_, filter_, twiddles_;
  DeviceBuffer<core::DopplerRow> rows_;
  DeviceBuffer<float> sinc_;
  int taps_ = 8, fractions_ = 2048;
  bool src_any_ = false;
};

}  // namespace sarfuse::cuda

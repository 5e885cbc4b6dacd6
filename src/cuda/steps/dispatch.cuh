// From runtime sizes and sample types to the row kernels' template arguments.
#pragma once
#include "cuda/fft/block_fft.cuh"
#include "sarfuse/image.hpp"

namespace sarfuse::cuda::steps {

// The row kernels' sizes: powers of two (fft::dispatch_pow2).
template <class F>
void dispatch_size(int n, F&& f) {
  fft::dispatch_pow2<256, 16384>(n, "CUDA FFT: size", f);
}

// The FP32 chain's row kernels (passes 1 and 3) also take the nice lengths.
template <class F>
void dispatch_row_size(int n, F&& f) {
  if (!fft::dispatch_nice(n, f)) dispatch_size(n, f);
}

template <class F>
void dispatch_type(SampleType t, F&& f) {
  switch (t) {
    case SampleType::complex64: f.template operator()<SampleType::complex64>(); break;
    case SampleType::complex128: f.template operator()<SampleType::complex128>(); break;
    case SampleType::int8_iq: f.template operator()<SampleType::int8_iq>(); break;
    case SampleType::int16_iq: f.template operator()<SampleType::int16_iq>(); break;
  }
}

}  // namespace sarfuse::cuda::steps

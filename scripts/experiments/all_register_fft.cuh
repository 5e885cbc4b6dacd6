// Experiments (issue 20): a nice-length block FFT with every pass on the registers, for 256-thread lines
// (9216 = 4^5 x 9 at 36 points a thread, 10240 = 8^3 x 4 x 5 at 40), so that two blocks fit a SM where
// the product's shapes (9 / 16 points a thread: 1024 / 576 threads) leave one.
#pragma once
#include "cuda/fft/block_fft.cuh"

namespace sarfuse::cuda::experiments {

using fft::C32;

// The forward FFT of N = 2^a x m by N / E threads (the power-of-two radix R2 and m both divide E):
// passes of R2 (the last power-of-two pass takes what remains), then m, chained through the exchange X.
// Contract as fft::block_fft_forward's: v[q] = x[tid + q N/E] in, X[tid + q N/E] out.
template <int N, int E, int P = 0, int ns = 1, class X = fft::Exchange<>>
__device__ __forceinline__ void all_register_forward(C32 (&v)[E], C32* s, const float2* __restrict__ tw, int tid) {
  constexpr int p2 = N & -N, m = N / p2;
  constexpr int R2 = E % 16 == 0 ? 16 : E % 8 == 0 ? 8 : E % 4 == 0 ? 4 : 2;
  static_assert(E % m == 0 && E % R2 == 0, "every pass on the registers");
  if constexpr (ns < p2) {
    constexpr int R = p2 / ns >= R2 ? R2 : p2 / ns;
    fft::register_pass<N, E, R, ns, P, m == 1 && ns * R == p2, float, false, X>(v, s, tw, tid, nullptr);
    all_register_forward<N, E, P + 1, ns * R, X>(v, s, tw, tid);
  } else if constexpr (m > 1) {
    fft::register_pass<N, E, m, ns, P, true, float, false, X>(v, s, tw, tid, nullptr);
  }
}

}  // namespace sarfuse::cuda::experiments

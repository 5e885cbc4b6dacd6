// Loads of a line into a thread group's registers: raw samples of any sample type converted to float
// with the FFT's zero padding by predicate, or a stored row (FP32 or scaled FP16); and the L2 prefetch
// of the line a later block will read.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/storage.cuh"
#include "sarfuse/image.hpp"

namespace sarfuse::cuda::steps {

using fft::BlockShape;
using fft::C32;

// The device type of one raw sample of type S.
template <SampleType S>
using RawSample = std::conditional_t<S == SampleType::complex64, float2,
                                     std::conditional_t<S == SampleType::complex128, double2,
                                                        std::conditional_t<S == SampleType::int8_iq, char2, short2>>>;

// Sample `index` of raw data of type S, converted to float.
template <SampleType S>
__device__ __forceinline__ C32 load_raw(const void* raw, std::size_t index) {
  const RawSample<S>* p = static_cast<const RawSample<S>*>(raw) + index;
  if constexpr (S == SampleType::complex64) {
    return fft::to_c32(__ldg(p));
  } else if constexpr (S == SampleType::int8_iq) {
    const char2 c = *p;
    return {static_cast<float>(c.x), static_cast<float>(c.y)};
  } else {
    const RawSample<S> c = __ldg(p);
    return {static_cast<float>(c.x), static_cast<float>(c.y)};
  }
}

// Samples tid + q T (q < E, T = N / E) of raw line `line` (nr samples), zero at and beyond nr and for an
// inactive group. Coalesced, straight into the first FFT pass's registers; one base index, so each
// load's address is the base plus a constant (per-load 64-bit addresses spilled).
template <int N, SampleType S, int E>
__device__ __forceinline__ void load_raw_line(C32 (&v)[E], const void* raw, int line, int nr, int tid, bool active) {
  constexpr int T = N / E;
  const std::size_t base = static_cast<std::size_t>(line) * nr + tid;
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = (active && tid + q * T < nr) ? load_raw<S>(raw, base + q * T) : C32{0.f, 0.f};
}

// Elements tid + q T of a stored row (float2, or __half2 times `factor`). Every load unconditional: loads
// behind a branch were issued one at a time, each waited for.
template <int N, int E, class Io>
__device__ __forceinline__ void load_row(C32 (&v)[E], const Io* row, int tid, float factor) {
  constexpr int T = N / E;
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::load_scaled(row + tid + q * T, factor);
}

// Pulls the line kPrefetchBlocks blocks later into L2 (128-byte lines spread over the group's threads),
// after this group's own loads are issued, so the block that reads it waits on L2 rather than DRAM.
// Blocks start in order, so a fixed distance ahead is a fixed lead in time; 32 blocks is a few
// microseconds and a few MB of L2, where a whole wave ahead evicted the lines before their use
// (docs/performance.md, "Choices made from measurements").
constexpr int kPrefetchBlocks = 32;
// ahead: the distance in lines, where the blocks' lines are not in block order.
template <int N, int E = fft::kElems<N>>
__device__ __forceinline__ void prefetch_ahead_l2(const void* base, int line, int lines, std::size_t line_bytes,
                                                  int tid, int ahead = kPrefetchBlocks * BlockShape<N, E>::lines) {
  if (line + ahead >= lines) return;
  const char* p = static_cast<const char*>(base) + static_cast<std::size_t>(line + ahead) * line_bytes;
  for (std::size_t b = static_cast<std::size_t>(tid) * 128; b < line_bytes; b += static_cast<std::size_t>(N / E) * 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + b));
}

// The same for a line's record (pass 3's DopplerRow), by the group's first thread: a block reads its
// record before anything else, so without it every block began with a wait on DRAM.
template <int Lines, class Record>
__device__ __forceinline__ void prefetch_record_ahead_l2(const Record* records, int line, int lines, int tid) {
  const int ahead = kPrefetchBlocks * Lines;
  if (tid == 0 && line + ahead < lines) asm volatile("prefetch.global.L2 [%0];" ::"l"(records + line + ahead));
}

}  // namespace sarfuse::cuda::steps

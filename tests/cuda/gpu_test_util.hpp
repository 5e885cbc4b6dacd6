// What the GPU tests share: includes, the skip rule, host <-> device copies, poisoning, option and
// comparison helpers. Each test skips (reported as skipped, never passed) without a CUDA device.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "core/fft.hpp"
#include "core/filters.hpp"
#include "cuda/backend.hpp"
#include "cuda/check.hpp"
#include "cuda/fft/storage.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"
#include "cuda/range_compress.hpp"
#include "cuda/rda_cuda.hpp"
#include "cuda/vkfft_conv.hpp"
#include "scenes.hpp"
#include "sarfuse/blocks.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/plan.hpp"
#include "sarfuse/quality.hpp"
#include "sarfuse/simulate.hpp"
#include "test_util.hpp"

using namespace sarfuse;
using cuda::DeviceBuffer;

#define REQUIRE_GPU()                                                        \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU test skipped"

inline std::vector<float2> to_f2(const std::vector<std::complex<double>>& v) {
  std::vector<float2> o(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) o[i] = make_float2(float(v[i].real()), float(v[i].imag()));
  return o;
}

template <class T>
inline DeviceBuffer<T> to_device(const std::vector<T>& h) {
  DeviceBuffer<T> d(h.size());
  SARFUSE_CUDA(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
inline std::vector<T> to_host(const DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  SARFUSE_CUDA(cudaMemcpy(h.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost));
  return h;
}


inline void poison(DeviceBuffer<float2>& d) { SARFUSE_CUDA(cudaMemset(d.get(), 0xFF, d.bytes())); }  // NaN pattern

inline void expect_all_finite(const std::vector<float2>& v, const char* what) {
  std::size_t bad = 0;
  for (const auto& x : v) bad += !std::isfinite(x.x) || !std::isfinite(x.y);
  EXPECT_EQ(bad, 0u) << what << ": elements left unwritten (NaN poison) or non-finite";
}

inline FocusOptions cuda_options(Pipeline p = Pipeline::fused) {
  FocusOptions o;
  o.backend = Backend::cuda;
  o.pipeline = p;
  return o;
}

// Every point target of p's scene in slc against ref: SNR within db, PSLR / ISLR (range and azimuth)
// within lobe_db, position (row, column) within px.
inline void expect_targets_match(const ComplexImage& slc, const ComplexImage& ref, const ParamsFile& p, double db,
                          double lobe_db, double px) {
  const auto q = analyze_targets(slc, p.radar, p.scene->targets);
  const auto qc = analyze_targets(ref, p.radar, p.scene->targets);
  ASSERT_EQ(q.size(), qc.size());
  for (std::size_t t = 0; t < q.size(); ++t) {
    SCOPED_TRACE("target " + std::to_string(t));
    EXPECT_NEAR(q[t].snr_db, qc[t].snr_db, db);
    EXPECT_NEAR(q[t].range.pslr_db, qc[t].range.pslr_db, lobe_db);
    EXPECT_NEAR(q[t].azimuth.pslr_db, qc[t].azimuth.pslr_db, lobe_db);
    EXPECT_NEAR(q[t].range.islr_db, qc[t].range.islr_db, lobe_db);
    EXPECT_NEAR(q[t].azimuth.islr_db, qc[t].azimuth.islr_db, lobe_db);
    EXPECT_NEAR(q[t].row, qc[t].row, px);
    EXPECT_NEAR(q[t].col, qc[t].col, px);
  }
}

inline ComplexImage focus_with(const RadarParams& r, const RawView& raw, const FocusOptions& o) {
  Plan plan = make_plan(r, raw.lines, raw.samples, o);
  ComplexImage slc(raw.lines, raw.samples);
  for (std::size_t k = 0; k < slc.size(); ++k) slc.data()[k] = {NAN, NAN};
  plan.focus(raw, slc);
  return slc;
}

// GPU focus of `raw` with `o` through the plan class, output poisoned, every element checked written.
inline ComplexImage focus_poisoned(const RadarParams& r, const ComplexImage& raw, const FocusOptions& o, std::size_t nfft) {
  cuda::CudaRda gpu(r, raw.lines(), raw.samples(), o, nfft);
  SARFUSE_CUDA(cudaMemset(gpu.device_output(), 0xFF, raw.size() * sizeof(float2)));
  ComplexImage slc(raw.lines(), raw.samples());
  gpu.focus(view_of(raw), slc);
  std::size_t bad = 0;
  for (std::size_t k = 0; k < slc.size(); ++k)
    bad += !std::isfinite(slc.data()[k].real()) || !std::isfinite(slc.data()[k].imag());
  EXPECT_EQ(bad, 0u) << "elements unwritten (NaN poison) or non-finite";
  return slc;
}

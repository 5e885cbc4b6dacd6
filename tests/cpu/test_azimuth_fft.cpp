// The CPU plan's azimuth steps on their own: the FFT stores only the Doppler rows the azimuth filter
// passes, and the IFFT reads zeros for the others, against a float64 FFT of the same columns.
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "core/fft.hpp"
#include "cpu/azimuth_fft.hpp"
#include "cpu/scene_rows.hpp"
#include "test_util.hpp"

using namespace sarfuse;

namespace {

constexpr std::size_t kLines = 200, kSamples = 70, kNfft = 80;  // 70 columns: a partial column block

// Column c of rows [0, kLines) of `scene`, in float64.
std::vector<std::complex<double>> column(cpu::SceneRows<float>& scene, std::size_t c) {
  std::vector<std::complex<double>> v(kLines);
  for (std::size_t i = 0; i < kLines; ++i) v[i] = scene.row(i)[c];
  return v;
}

void fill_random(cpu::SceneRows<float>& scene, std::uint64_t seed) {
  const auto x = test::random_complex(kLines * scene.stride, seed);
  for (std::size_t i = 0; i < kLines * scene.stride; ++i) scene.work[i] = std::complex<float>(x[i]);
}

std::vector<std::complex<double>> dft(std::vector<std::complex<double>> v, core::FftDirection d) {
  core::FftPlan<double> p({static_cast<int>(v.size())}, d, v.data(), v.data(), FftPlanning::estimate);
  p.execute(v.data(), v.data());
  return v;
}

bool passed(const cpu::RowRuns& runs, std::size_t i) {
  for (const cpu::RowRun& r : runs)
    if (i >= r.first && i < r.end) return true;
  return false;
}

}  // namespace

TEST(CpuAzimuthFft, TheFftStoresOnlyPassedRowsAndTheIfftReadsZerosElsewhere) {
  // Two runs and a gap at each end: the band of a Doppler centroid near PRF / 2 wraps around.
  const cpu::RowRuns runs{{0, 31}, {90, 150}, {188, kLines}};
  for (int threads : {1, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    cpu::SceneRows<float> scene(kLines, kSamples, kNfft, threads);
    fill_random(scene, 11);
    const cpu::SceneRows<float> before = [&] {
      cpu::SceneRows<float> b(kLines, kSamples, kNfft, threads);
      for (std::size_t i = 0; i < kLines * scene.stride; ++i) b.work[i] = scene.work[i];
      return b;
    }();
    cpu::AzimuthFft<float> fft(core::FftDirection::forward, FftPlanning::estimate, scene);
    std::vector<std::vector<std::complex<double>>> want(kNfft);
    for (std::size_t c = 0; c < kNfft; ++c) want[c] = dft(column(scene, c), core::FftDirection::forward);
    fft.run(scene, kNfft, runs, nullptr);
    for (std::size_t c = 0; c < kNfft; ++c) {
      const auto got = column(scene, c);
      for (std::size_t i = 0; i < kLines; ++i) {
        if (passed(runs, i)) {
          EXPECT_NEAR(std::abs(got[i] - want[c][i]), 0.0, 2e-4 * (1 + std::abs(want[c][i]))) << "row " << i << " col " << c;
        } else {
          EXPECT_EQ(scene.row(i)[c], before.work[i * scene.stride + c]) << "row " << i << " col " << c << " was stored";
        }
      }
    }
    // The IFFT: rows outside the runs hold garbage (poisoned) and must read as zeros.
    fill_random(scene, 12);
    std::vector<std::vector<std::complex<double>>> ref(kSamples);
    for (std::size_t c = 0; c < kSamples; ++c) {
      auto v = column(scene, c);
      for (std::size_t i = 0; i < kLines; ++i)
        if (!passed(runs, i)) v[i] = 0;
      ref[c] = dft(v, core::FftDirection::inverse);
    }
    for (std::size_t i = 0; i < kLines; ++i)
      if (!passed(runs, i))
        for (std::size_t c = 0; c < kSamples; ++c) scene.row(i)[c] = {1e30f, -1e30f};
    cpu::AzimuthFft<float> ifft(core::FftDirection::inverse, FftPlanning::estimate, scene);
    const std::size_t first = 150, count = 120;  // wraps past the last row
    std::vector<std::complex<float>> slc(count * kSamples, {NAN, NAN});
    const cpu::SlcRows out{slc.data(), first, count, kSamples};
    ifft.run(scene, kSamples, runs, &out);
    std::vector<std::complex<double>> got, expected;
    for (std::size_t k = 0; k < count; ++k)
      for (std::size_t c = 0; c < kSamples; ++c) {
        got.push_back(slc[k * kSamples + c]);
        expected.push_back(ref[c][(first + k) % kLines]);
      }
    EXPECT_LT(test::rel_l2(got, expected), 1e-6);
  }
}

// focus_file on the GPU: overlapped and sequential stages give the same product bit for bit (pinned
// block buffers, the plan made while the first block is read); a session's second scene reuses the
// plan and its pinned buffers; a batch (two scenes in flight) gives the same products; the product
// matches the CPU backend's within FP32 rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenes.hpp"
#include "sarfuse/focus_file.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/plan.hpp"
#include "sarfuse/simulate.hpp"
#include "test_util.hpp"

using namespace sarfuse;
namespace fs = std::filesystem;


TEST(CudaFocusFile, OverlappedEqualsSequentialAndSessionsReusePlans) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const std::string dir = test::temp_dir("cuda_focus_file");
  ParamsFile p = test::squinted_satellite_scene();
  p.scene->azimuth_lines = 6144;
  p.scene->range_samples = 512;
  const std::string raw = dir + "/raw.npy";
  write_npy(raw, simulate(p.radar, *p.scene, 0));
  auto request = [&](const std::string& out, Backend b) {
    FocusRequest r;
    r.input = raw;
    r.radar = p.radar;
    r.output = dir + "/" + out;
    r.options.backend = b;
    r.block_lines = 2048;
    return r;
  };
  FocusRequest a = request("overlap.npy", Backend::cuda), b = request("sequential.npy", Backend::cuda);
  b.overlap = false;
  FocusSession session;
  const FocusReport ra = session.focus(a);
  const FocusReport rb = focus_file(b);
  EXPECT_EQ(ra.options.backend, Backend::cuda);
  EXPECT_GE(ra.blocks.blocks, 3u);
  EXPECT_GT(ra.timings.upload, 0);
  EXPECT_GT(ra.timings.download, 0);
  EXPECT_TRUE(test::file_bytes(a.output) == test::file_bytes(b.output));
  FocusRequest again = request("again.npy", Backend::cuda);
  const FocusReport rc = session.focus(again);
  EXPECT_TRUE(rc.plan_reused);
  EXPECT_TRUE(test::file_bytes(again.output) == test::file_bytes(a.output));
  // A batch of five: four scenes in flight at a time, each product the single run's, bit for bit.
  std::vector<FocusRequest> batch;
  for (int k = 0; k < 5; ++k) batch.push_back(request("batch" + std::to_string(k) + ".npy", Backend::cuda));
  const std::vector<FocusReport> reports = session.focus_all(batch);
  ASSERT_EQ(reports.size(), batch.size());
  for (std::size_t k = 0; k < batch.size(); ++k) {
    EXPECT_EQ(reports[k].output, batch[k].output);
    EXPECT_TRUE(test::file_bytes(batch[k].output) == test::file_bytes(a.output)) << k;
  }
  // Circular: one block, read while the plan is made.
  FocusRequest c = request("circular.npy", Backend::cuda), d = request("circular_seq.npy", Backend::cuda);
  c.block_lines = d.block_lines = 0;
  c.circular = d.circular = true;
  d.overlap = false;
  focus_file(c);
  focus_file(d);
  EXPECT_TRUE(test::file_bytes(c.output) == test::file_bytes(d.output));
  // Against the CPU backend (same range FFT length).
  FocusRequest cpu = request("cpu.npy", Backend::cpu);
  cpu.options.range_fft_size = ra.options.range_fft_size;
  FocusRequest gpu = request("gpu.npy", Backend::cuda);
  gpu.options.range_fft_size = ra.options.range_fft_size;
  focus_file(cpu);
  focus_file(gpu);
  const ComplexImage x = read_image(cpu.output), y = read_image(gpu.output);
  ASSERT_EQ(x.size(), y.size());
  double err = 0, norm = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    err += std::norm(std::complex<double>(x.data()[k]) - std::complex<double>(y.data()[k]));
    norm += std::norm(std::complex<double>(x.data()[k]));
  }
  std::printf("GPU vs CPU focus_file: relative L2 %.2e\n", std::sqrt(err / norm));
  EXPECT_LT(std::sqrt(err / norm), 1e-4);
  fs::remove_all(dir);
}

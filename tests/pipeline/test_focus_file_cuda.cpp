// focus_file on the GPU: overlapped and sequential stages give the same product bit for bit (pinned
// block buffers, the plan made while the first block is read); a session's second scene reuses the
// plan and its pinned buffers; a batch (two scenes in flight) gives the same products; the product
// matches the CPU backend's within FP32 rounding; releasing the GPU early changes no product; complex32
// encoded on the device is the writer's encoding.
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


namespace {
// A squinted satellite take of 6144 x 512 in a temporary folder, focused in blocks of 2048 lines.
struct SquintedTake {
  std::string dir;
  ParamsFile p = test::squinted_satellite_scene();
  std::string raw;
  explicit SquintedTake(const char* name) : dir(test::temp_dir(name)), raw(dir + "/raw.npy") {
    p.scene->azimuth_lines = 6144;
    p.scene->range_samples = 512;
    write_npy(raw, simulate(p.radar, *p.scene, 0));
  }
  FocusRequest request(const std::string& out, Backend b) const {
    FocusRequest r;
    r.input = raw;
    r.radar = p.radar;
    r.output = dir + "/" + out;
    r.options.backend = b;
    r.block_lines = 2048;
    return r;
  }
};
}  // namespace

TEST(CudaFocusFile, OverlappedEqualsSequentialAndSessionsReusePlans) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const SquintedTake take("cuda_focus_file");
  const std::string& dir = take.dir;
  auto request = [&](const std::string& out, Backend b) { return take.request(out, b); };
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

// complex32 products on the GPU: the kept rows encoded on the device (the writer has nothing to
// encode) give the product of the writer's own encoding bit for bit (keep_image asks for complex64
// rows, so the writer encodes), .npy and .tif, sequential and overlapped; the report's statistics,
// of the halves written, agree with those of the complex64 rows (complex64: the same wherever they
// are taken).
TEST(CudaFocusFile, Complex32EncodedOnTheGpuEqualsTheWritersEncoding) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const SquintedTake take("cuda_complex32");
  for (const char* ext : {".npy", ".tif"}) {
    FocusRequest device = take.request(std::string("device") + ext, Backend::cuda);
    FocusRequest writer = take.request(std::string("writer") + ext, Backend::cuda);
    FocusRequest sequential = take.request(std::string("sequential") + ext, Backend::cuda);
    for (FocusRequest* r : {&device, &writer, &sequential}) r->product.sample_format = SampleFormat::complex32;
    writer.keep_image = true;
    sequential.overlap = false;
    const FocusReport a = focus_file(device), b = focus_file(writer);
    focus_file(sequential);
    EXPECT_GE(a.blocks.blocks, 3u);
    EXPECT_EQ(a.slc_transfer, "kept rows, complex32");
    EXPECT_EQ(b.slc_transfer, "kept rows");
    EXPECT_TRUE(test::file_bytes(device.output) == test::file_bytes(writer.output)) << ext;
    EXPECT_TRUE(test::file_bytes(device.output) == test::file_bytes(sequential.output)) << ext;
    EXPECT_NEAR(a.mean_power / b.mean_power, 1.0, 1e-3) << ext;
    EXPECT_NEAR(a.peak_amplitude / b.peak_amplitude, 1.0, 1e-3) << ext;
    EXPECT_NEAR(a.intensity_contrast / b.intensity_contrast, 1.0, 1e-3) << ext;
  }
  // complex64: the statistics taken by the focus stage are the writer's own (to the order in which
  // OpenMP adds its threads' sums).
  FocusRequest counted = take.request("counted.npy", Backend::cuda), seen = take.request("seen.npy", Backend::cuda);
  seen.keep_image = true;
  const FocusReport c = focus_file(counted), d = focus_file(seen);
  EXPECT_DOUBLE_EQ(c.mean_power, d.mean_power);
  EXPECT_EQ(c.peak_amplitude, d.peak_amplitude);
  EXPECT_NEAR(c.intensity_contrast / d.intensity_contrast, 1.0, 1e-9);
  EXPECT_TRUE(test::file_bytes(counted.output) == test::file_bytes(seen.output));
  fs::remove_all(take.dir);
}

// release_gpu_when_focused (the CLI's runs): the plan, its pinned buffers and the context go while the
// product is still being written. Products stay the same bit for bit, for one scene and for a batch
// (lanes releasing as their last scene is focused, the last one resetting the device), and CUDA works
// again afterwards (the runtime makes a new context).
TEST(CudaFocusFile, ReleasingTheGpuWhenFocusedChangesNoProduct) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU test skipped";
  const SquintedTake take("cuda_release");
  auto request = [&](const std::string& out, bool release) {
    FocusRequest r = take.request(out, Backend::cuda);
    r.release_gpu_when_focused = release;
    return r;
  };
  const FocusRequest kept = request("kept.npy", false);
  focus_file(kept);
  const std::string reference = test::file_bytes(kept.output);
  FocusSession session;
  const FocusRequest one = request("released.npy", true);
  EXPECT_GE(session.focus(one).blocks.blocks, 3u);
  EXPECT_TRUE(test::file_bytes(one.output) == reference);
  FocusRequest seq = request("released_seq.npy", true);
  seq.overlap = false;
  session.focus(seq);
  EXPECT_TRUE(test::file_bytes(seq.output) == reference);
  std::vector<FocusRequest> batch;
  for (int k = 0; k < 6; ++k) batch.push_back(request("batch" + std::to_string(k) + ".npy", true));
  session.focus_all(batch);
  for (const FocusRequest& q : batch) EXPECT_TRUE(test::file_bytes(q.output) == reference) << q.output;
  const FocusRequest after = request("after.npy", false);
  const FocusReport ra = focus_file(after);
  EXPECT_EQ(ra.options.backend, Backend::cuda);
  EXPECT_TRUE(test::file_bytes(after.output) == reference);
  fs::remove_all(take.dir);
}

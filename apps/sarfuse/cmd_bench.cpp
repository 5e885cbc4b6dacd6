#include <chrono>
#include <cstdio>
#include <iostream>
#include <tuple>

#include "bench_e2e.hpp"
#include "commands.hpp"
#include "bench.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::cli {

void add_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "time the focusing chain per stage against the FFTs alone");
  static std::string backend = "cpu", size = "4096x4096", planning = "estimate";
  static BenchOptions opt;
  static CudaBenchOptions copt;
  static bool circular = false;
  static std::string json;
  cmd->add_option("--backend", backend, "cpu")->capture_default_str();
  cmd->add_option("--size", size, "AZIMUTHxRANGE")->capture_default_str();
  cmd->add_option("--threads", opt.threads, "threads (0: all cores)");
  cmd->add_option("--repeats", opt.repeats, "timed runs (median reported)")->capture_default_str();
  cmd->add_option("--plan", planning, "estimate or measure (cpu: FFTW planning)")->capture_default_str();
  cmd->add_flag("--range-mode-circular", circular, "cuda: compare range compression at FFT length Nr (the Apple M1 system's case)");
  cmd->add_option("--json", json, "cuda: also write every figure to this JSON file");
  cmd->add_option("--azimuth-bandwidth", copt.azimuth_bandwidth_hz,
                  "cuda: the whole RDA's processed Doppler band (Hz, default: the PRF; rows outside it are skipped)");
  // `bench fft`: the GPU FFT family against cuFFT (sarfuse/gpu_fft.hpp).
  static gpu::FftBenchOptions fopt;
  auto* fft = cmd->add_subcommand("fft", "cuda: every FFT variant and cuFFT, powers of two 256..16384 and non-powers of two");
  fft->add_option("--repeats", fopt.repeats, "timed runs (median reported)")->capture_default_str();
  fft->add_option("--json", fopt.json_path, "also write every figure to this JSON file");
  fft->callback([] {
    if (fopt.repeats < 1) throw Error("--repeats: expected at least 1");
    std::cout << gpu::bench_fft(fopt);
  });
  // `bench e2e`: file to product, a `sarfuse focus` process per run, beside the plain I/O floor.
  static E2eBenchOptions eopt;
  static std::string esize = "4096x4096";
  auto* e2e = cmd->add_subcommand("e2e", "file to product (a focus process per run) beside the machine's plain I/O floor");
  e2e->add_option("--size", esize, "AZIMUTHxRANGE")->capture_default_str();
  e2e->add_option("--input", eopt.input, "raw samples: int8, c64, or level0 (a Sentinel-1 .SAFE product: an FDBAQ take, S3 fields)")->capture_default_str();
  e2e->add_option("--output", eopt.output, "product format: npy, h5 or tif")->capture_default_str();
  e2e->add_option("--sample-format", eopt.sample_format, "complex64, complex32 or cint16")->capture_default_str();
  e2e->add_option("--compression", eopt.compression, "auto, none, fast or best")->capture_default_str();
  e2e->add_option("--backend", eopt.backend, "auto, cpu or cuda")->capture_default_str();
  e2e->add_option("--azimuth", eopt.azimuth, "linear or circular")->capture_default_str();
  e2e->add_option("--scenes", eopt.scenes, "scenes per process (--output-dir)")->capture_default_str();
  e2e->add_option("--repeats", eopt.repeats, "processes timed (median reported)")->capture_default_str();
  e2e->add_option("--threads", eopt.threads, "focus --threads (0: all cores)");
  e2e->add_option("--dir", eopt.dir, "folder for the input and the products (default: a temporary one, removed)");
  e2e->add_option("--json", eopt.json_path, "also write every figure to this JSON file");
  e2e->add_option("--focus-option", eopt.extra, "more options for `focus`, e.g. --focus-option=--no-overlap");
  e2e->callback([] {
    std::tie(eopt.lines, eopt.samples) = parse_size_pair(esize, "--size", "AZIMUTHxRANGE such as 4096x4096");
    std::cout << bench_e2e(eopt);
  });
  // `bench level0`: Sentinel-1 Level-0 decoding beside the plain read of the same file.
  static Level0BenchOptions lopt;
  static std::string lsize = "50000x20000";
  auto* level0 = cmd->add_subcommand("level0", "decode a synthetic Sentinel-1 FDBAQ file of real size beside a plain read of it");
  level0->add_option("--size", lsize, "LINESxSAMPLES")->capture_default_str();
  level0->add_option("--threads", lopt.threads, "threads (0: all cores)");
  level0->add_option("--repeats", lopt.repeats, "timed runs (median reported)")->capture_default_str();
  level0->add_option("--dir", lopt.dir, "folder for the file (default: a temporary one, removed)");
  level0->add_option("--json", lopt.json_path, "also write every figure to this JSON file");
  level0->callback([] {
    std::tie(lopt.lines, lopt.samples) = parse_size_pair(lsize, "--size", "LINESxSAMPLES such as 50000x20000");
    if (lopt.repeats < 1) throw Error("--repeats: expected at least 1");
    std::cout << bench_level0(lopt);
  });
  auto* context = cmd->add_subcommand("context", "create the CUDA context and exit (bench e2e times it)");
  context->callback([] {
    const auto t0 = std::chrono::steady_clock::now();
    const int n = cuda_device_count();
    const auto t1 = std::chrono::steady_clock::now();
    if (n == 0 || !cuda_initialize()) throw Error("bench context: no CUDA device");
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("CUDA: device count %.3f s, then the context %.3f s\n", std::chrono::duration<double>(t1 - t0).count(),
                std::chrono::duration<double>(t2 - t1).count());
  });
  cmd->callback([fft, e2e, context, level0] {
    if (fft->parsed() || e2e->parsed() || context->parsed() || level0->parsed()) return;
    if (backend != "cpu" && backend != "cuda") throw Error("--backend: expected cpu or cuda (got '" + backend + "')");
    std::tie(opt.lines, opt.samples) = parse_size_pair(size, "--size", "AZIMUTHxRANGE such as 4096x4096");
    if (opt.repeats < 1) throw Error("--repeats: expected at least 1");
    if (backend == "cuda") {
      if (cuda_device_count() == 0) throw Error("--backend cuda: no CUDA device (or a build without CUDA)");
      copt.lines = opt.lines;
      copt.samples = opt.samples;
      copt.repeats = opt.repeats;
      copt.circular = circular;
      copt.json_path = json;
      std::cout << bench_cuda(copt);
      return;
    }
    if (copt.azimuth_bandwidth_hz != 0) throw Error("--azimuth-bandwidth: a cuda bench option (use --backend cuda)");
    opt.fft_planning = parse_fft_planning(planning);
    std::cout << bench_cpu(opt);
  });
}

}  // namespace sarfuse::cli

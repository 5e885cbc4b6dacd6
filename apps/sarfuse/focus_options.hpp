// Focusing options shared by `focus` and `demo`.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "sarfuse/error.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::cli {

struct FocusArgs {
  std::string backend = "auto", precision = "fp32", range_window = "none", azimuth_window = "none", src = "auto";
  std::string fft_planning = "estimate", wisdom, pipeline = "fused", max_gpu_memory, max_memory;
  std::string azimuth = "linear";
  std::size_t block_lines = 0;
  std::size_t range_fft_size = 0;
  double azimuth_bandwidth = 0;
  int rcmc_taps = 8;
  int threads = 0;

  void add_to(CLI::App* cmd) {
    cmd->add_option("--backend", backend, "auto, cpu or cuda")->capture_default_str();
    cmd->add_option("--precision", precision,
                    "fp32; fp64 (CPU, the reference); fp16-storage (CUDA: the scene in FP16 between the passes); fp16 "
                    "(CUDA: also the FFT butterflies in FP16 arithmetic); tf32x3 (CUDA: the range FFTs on the tensor cores, split TF32)")
        ->capture_default_str();
    cmd->add_option("--range-window", range_window, "none, hamming[:alpha], kaiser[:beta]")->capture_default_str();
    cmd->add_option("--azimuth-window", azimuth_window, "none, hamming[:alpha], kaiser[:beta]")->capture_default_str();
    cmd->add_option("--azimuth-bandwidth", azimuth_bandwidth, "processed Doppler bandwidth (Hz, default: the PRF)");
    cmd->add_option("--rcmc-taps", rcmc_taps, "windowed-sinc RCMC interpolator length")->capture_default_str();
    cmd->add_option("--src", src, "secondary range compression: auto, on, off")->capture_default_str();
    cmd->add_option("--threads", threads, "CPU threads (0: all cores)")->capture_default_str();
    cmd->add_option("--pipeline", pipeline, "cuda: fused, or the baselines cufft-unfused / cufft-callback / vkfft-conv")->capture_default_str();
    cmd->add_option("--range-fft-size", range_fft_size, "range FFT length (0: automatic)");
    cmd->add_option("--max-gpu-memory", max_gpu_memory,
                    "cuda: device memory the plan may use, e.g. 8GiB (default: what is free)");
    cmd->add_option("--azimuth", azimuth,
                    "linear: azimuth blocks with overlap, the fully illuminated targets on the zero-Doppler grid; "
                    "circular: the take as one circular block (rows wrap around)")
        ->capture_default_str();
    cmd->add_option("--block-lines", block_lines, "linear: lines per azimuth block (default: from the memory budgets)");
    cmd->add_option("--max-memory", max_memory, "linear: host memory for the blocks, e.g. 2GiB (default: no limit)");
    cmd->add_option("--plan", fft_planning,
                    "estimate (instant, deterministic) or measure (FFTW measure; cuda: times cuFFT against the "
                    "project's column kernel for the azimuth FFTs, remembered in the wisdom file)")
        ->capture_default_str();
    cmd->add_option("--wisdom", wisdom, "--plan measure, cuda: wisdom file (default ~/.cache/sarfuse/wisdom.json; - for none)");
  }

  // The azimuth processing choices, into the workflow's extras.
  template <class Extras>
  void resolve_azimuth(Extras& x) const {
    x.circular = azimuth == "circular";
    if (x.circular && (block_lines || !max_memory.empty()))
      throw Error("--block-lines and --max-memory apply to --azimuth linear");
    x.block_lines = block_lines;
    if (!max_memory.empty()) x.max_memory_bytes = parse_byte_size(max_memory, "--max-memory");
  }

  FocusOptions resolve() const {
    FocusOptions o;
    o.backend = parse_backend(backend);
    o.precision = parse_precision(precision);
    o.range_window = Window::parse(range_window);
    o.azimuth_window = Window::parse(azimuth_window);
    o.azimuth_bandwidth_hz = azimuth_bandwidth;
    o.rcmc_taps = rcmc_taps;
    o.src = parse_src_mode(src);
    o.threads = threads;
    o.pipeline = parse_pipeline(pipeline);
    o.range_fft_size = range_fft_size;
    if (!max_gpu_memory.empty()) o.max_gpu_memory_bytes = parse_byte_size(max_gpu_memory, "--max-gpu-memory");
    if (azimuth != "linear" && azimuth != "circular")
      throw Error("--azimuth: expected linear or circular (got '" + azimuth + "')");
    o.fft_planning = parse_fft_planning(fft_planning);
    o.wisdom_path = wisdom;
    return o;
  }
};

}  // namespace sarfuse::cli

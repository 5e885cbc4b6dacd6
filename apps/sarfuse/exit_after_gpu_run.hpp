// The CLI's exit after a GPU run, whose products are all on disk: the process ends without tearing
// anything down itself (no destructors, no CUDA teardown), and the kernel's share of the teardown (the
// GPU driver releasing its files and the address space: 0.05-0.1 s on the H200 machine after the
// context is destroyed, docs/performance.md) runs in a helper that shares the address space and the
// open files and outlives this process by that long, so whoever waits for `sarfuse` goes on at once.
#pragma once

namespace sarfuse::cli {

[[noreturn]] void exit_after_gpu_run(int code);

}  // namespace sarfuse::cli

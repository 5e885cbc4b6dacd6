// The CLI's exit after a focus run, whose products are all on disk: the process ends without tearing
// anything down itself (no destructors, no CUDA teardown, the plan's memory not freed), and the kernel's
// share of the teardown (the address space; after a GPU run the driver releasing its files too: 0.05-0.1
// s on the H200 machine after the context is destroyed, docs/performance.md) runs in a helper that
// shares the address space and the open files and outlives this process by that long, so whoever waits
// for `sarfuse` goes on at once.
#pragma once

namespace sarfuse::cli {

[[noreturn]] void exit_after_run(int code);

}  // namespace sarfuse::cli

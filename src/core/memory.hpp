// Host memory helpers beside allocate_aligned (sarfuse/image.hpp).
#pragma once
#include <cstddef>

namespace sarfuse::core {

// Gives every page of a fresh allocation its memory now, on `threads` threads (0: all cores): one
// write per page. Pinning for the GPU (cudaHostRegister) faults untouched pages in one by one on one
// thread; done first, in parallel and while something else waits (the CUDA context), it costs little.
void prefault_pages(void* data, std::size_t bytes, int threads);

}  // namespace sarfuse::core

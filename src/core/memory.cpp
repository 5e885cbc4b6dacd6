#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "core/memory.hpp"
#include "core/threads.hpp"
#include "sarfuse/image.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse {

void* allocate_aligned(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t align = bytes >= 2 * kHuge ? kHuge : 64;
  void* p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
  if (!p) throw std::bad_alloc();
  if (align == kHuge) ::madvise(p, (bytes + align - 1) / align * align, MADV_HUGEPAGE);  // a hint only
  return p;
}

void free_aligned(void* p) noexcept { std::free(p); }

namespace core {

void prefault_pages(void* data, std::size_t bytes, int threads) {
  constexpr std::size_t kPage = 4096;
  auto* p = static_cast<volatile unsigned char*>(data);
  constexpr long kChunk = 256;  // pages between looks for a stop (the rest then fault where used)
  const long pages = static_cast<long>((bytes + kPage - 1) / kPage);
  const long chunks = (pages + kChunk - 1) / kChunk;
#pragma omp parallel for num_threads(resolve_threads(threads)) schedule(static)
  for (long c = 0; c < chunks; ++c) {
    if (interrupted()) continue;
    for (long k = c * kChunk; k < std::min(pages, (c + 1) * kChunk); ++k) p[static_cast<std::size_t>(k) * kPage] = 0;
  }
}

}  // namespace core

}  // namespace sarfuse

#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "core/memory.hpp"
#include "core/threads.hpp"
#include "sarfuse/image.hpp"

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
  const long pages = static_cast<long>((bytes + kPage - 1) / kPage);
#pragma omp parallel for num_threads(resolve_threads(threads)) schedule(static)
  for (long k = 0; k < pages; ++k) p[static_cast<std::size_t>(k) * kPage] = 0;
}

}  // namespace core

}  // namespace sarfuse

#include <sys/mman.h>

#include <cstdlib>
#include <new>

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

}  // namespace sarfuse

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "core/memory.hpp"

using namespace sarfuse;

namespace {
std::size_t resident_pages(void* data, std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto* base = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(data) / page * page);
  const std::size_t span = static_cast<std::size_t>(static_cast<unsigned char*>(data) - base) + bytes;
  std::vector<unsigned char> in((span + page - 1) / page);
  EXPECT_EQ(::mincore(base, span, in.data()), 0);
  std::size_t n = 0;
  for (unsigned char c : in) n += c & 1u;
  return n;
}
}  // namespace

// A fresh mapping has no memory behind it; prefault_pages gives every page its memory.
TEST(Memory, PrefaultGivesEveryPageItsMemory) {
  const std::size_t bytes = (std::size_t{48} << 20) + 12345;  // not a whole number of pages
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const std::size_t pages = (bytes + 4095) / 4096;
  EXPECT_EQ(resident_pages(p, bytes), 0u);
  core::prefault_pages(p, bytes, 2);
  EXPECT_EQ(resident_pages(p, bytes), pages);
  ::munmap(p, bytes);
}

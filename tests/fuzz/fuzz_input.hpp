// Shared by the fuzz harnesses: the readers take paths, so each input is written to a private file
// (in /dev/shm when it exists) with the extension the reader dispatches on. Expected failures are
// sarfuse::Error; anything else escaping (another exception, a crash, a sanitizer report, an
// allocation beyond libFuzzer's limit) is a finding.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace sarfuse::fuzz {

inline std::string input_file(const std::uint8_t* data, std::size_t size, const char* extension) {
  static const std::string dir = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
  const std::string path = dir + "/sarfuse_fuzz_" + std::to_string(::getpid()) + extension;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace sarfuse::fuzz

// libFuzzer harness: the .mat reader. libmatio is not built with sanitizers: what we fuzz is our side
// (the header and size checks before matio reads data, and what we do with what it returns).
#include "fuzz_input.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = sarfuse::fuzz::input_file(data, size, ".mat");
  try {
    const sarfuse::RawData raw = sarfuse::read_raw(path);
    if (raw.bytes.size() != raw.lines * raw.samples * sarfuse::bytes_per_sample(raw.type)) std::abort();
  } catch (const sarfuse::Error&) {
  }
  try {
    (void)sarfuse::describe_file(path);
  } catch (const sarfuse::Error&) {
  }
  return 0;
}

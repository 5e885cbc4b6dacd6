// libFuzzer harness: the .npy raw and image readers.
#include "fuzz_input.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = sarfuse::fuzz::input_file(data, size, ".npy");
  try {
    const sarfuse::RawData raw = sarfuse::read_raw(path);
    if (raw.bytes.size() != raw.lines * raw.samples * sarfuse::bytes_per_sample(raw.type)) std::abort();
  } catch (const sarfuse::Error&) {
  }
  try {
    const sarfuse::ComplexImage img = sarfuse::read_image(path);
    if (img.size() != img.lines() * img.samples()) std::abort();
  } catch (const sarfuse::Error&) {
  }
  try {
    (void)sarfuse::describe_file(path);
  } catch (const sarfuse::Error&) {
  }
  return 0;
}

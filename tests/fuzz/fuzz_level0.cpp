// libFuzzer harness: a Sentinel-1 Level-0 measurement file through the packet reader, every packet's
// user data through its decoder, and the product summary.
#include <complex>
#include <vector>

#include "fuzz_input.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sarfuse::sentinel1;
  const std::string path = sarfuse::fuzz::input_file(data, size, ".dat");
  try {
    const MeasurementFile f(path);
    std::vector<std::complex<float>> line;
    for (std::size_t i = 0; i < f.packets(); ++i) {
      const PacketHeader& h = f.header(i);
      if (h.packet_bytes() < kHeaderBytes) std::abort();
      line.assign(h.samples(), {0.f, 0.f});
      try {
        decode_user_data(h, f.user_data(i), f.user_data_bytes(i), line.data(), f.where(i));
      } catch (const sarfuse::Error&) {
      }
    }
  } catch (const sarfuse::Error&) {
  }
  try {
    (void)describe_level0(path);
  } catch (const sarfuse::Error&) {
  }
  return 0;
}

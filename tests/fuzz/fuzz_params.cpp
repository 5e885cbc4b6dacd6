// libFuzzer harness: the parameters JSON reader and its validation, and the product sidecar reader.
#include "fuzz_input.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const sarfuse::ParamsFile p = sarfuse::parse_params(text, "fuzz.json");
    (void)sarfuse::to_json_text(p);
    // Derived quantities must be computable for anything that validated.
    (void)p.radar.replica_length();
    (void)p.radar.chirp_bandwidth_hz();
  } catch (const sarfuse::Error&) {
  }
  // The same bytes as a product's sidecar (slc.npy.json): missing or bad fields give no value.
  const std::string product = sarfuse::fuzz::input_file(data, 0, ".npy");
  sarfuse::fuzz::input_file(data, size, ".npy.json");
  try {
    (void)sarfuse::read_sidecar_eta_first(product);
  } catch (const sarfuse::Error&) {
  }
  return 0;
}

// `sarfuse bench e2e`: the whole file-to-product path beside the machine's I/O floor.
#pragma once
#include <string>
#include <vector>

namespace sarfuse::cli {

struct E2eBenchOptions {
  std::size_t lines = 4096, samples = 4096;
  std::string input = "c64";   // int8 | c64
  std::string output = "npy";  // npy | h5 | tif
  std::string sample_format = "complex64", compression = "auto", backend = "auto", azimuth = "linear";
  int scenes = 1, repeats = 3, threads = 0;
  std::string dir;        // where the files go ("" a temporary folder, removed afterwards)
  std::string json_path;
  std::vector<std::string> extra;  // more `focus` options
};

std::string bench_e2e(const E2eBenchOptions& options);

}  // namespace sarfuse::cli

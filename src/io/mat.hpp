#pragma once
#include <string>

#include "sarfuse/image.hpp"

namespace sarfuse::io {
// Reads a complex 2-D variable (int8, int16, single, double) of a MATLAB v5 file, transposed from
// MATLAB's column order into rows = azimuth lines. `var` empty: the first such variable.
RawData read_mat_raw(const std::string& path, const std::string& var);
// One line per variable: name, class, dimensions.
std::string describe_mat(const std::string& path);
}  // namespace sarfuse::io

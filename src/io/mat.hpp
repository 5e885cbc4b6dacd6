#pragma once
#include <string>
#include <vector>

#include "sarfuse/image.hpp"

namespace sarfuse::io {
// Reads a complex 2-D variable (int8, int16, single, double) of a MATLAB v5 file, transposed from
// MATLAB's column order into rows = azimuth lines. `var` empty: the first such variable.
RawData read_mat_raw(const std::string& path, const std::string& var);
// A real numeric vector (any 1 x N or N x 1 variable of class int8..double) as doubles. `var` empty:
// the first such variable.
std::vector<double> read_mat_real_vector(const std::string& path, const std::string& var);
// One line per variable: name, class, dimensions.
std::string describe_mat(const std::string& path);
}  // namespace sarfuse::io

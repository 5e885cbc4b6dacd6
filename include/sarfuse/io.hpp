// sarfuse: file formats. Outputs are written atomically: to a temporary name in the same folder,
// renamed when complete, so a failed run leaves nothing that looks like a product.
#pragma once
#include <optional>
#include <string>

#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

// .npy: complex64/complex128 (Na, Nr) or int8/int16 (Na, Nr, 2). .mat (MATLAB v5): `var` names the
// variable (default: the first numeric one); complex int8/int16/single/double.
// Rejects NaN/Inf samples, naming the file.
RawData read_raw(const std::string& path, const std::string& var = "");
// Reads a complex image (.npy complex64/complex128) as complex64.
ComplexImage read_image(const std::string& path);

void write_npy(const std::string& path, const ComplexImage& img);
// dB quicklook: |x|^2 multilooked so neither side exceeds max_pixels, dynamic_range_db below the peak.
void write_png(const std::string& path, const ComplexImage& img, double dynamic_range_db = 50.0,
               std::size_t max_pixels = 2048);
// Throws a clear Error when `path` cannot become an output file (its folder is missing or is a file).
void check_output_path(const std::string& path);
void write_text_file(const std::string& path, const std::string& text);
std::string read_text_file(const std::string& path);

// JSON sidecar written next to a product (`slc.npy.json`).
std::string product_sidecar_json(const RadarParams& radar, const FocusOptions& options,
                                 const ProductGeometry& geometry, std::size_t lines, std::size_t samples,
                                 const std::string& input);
// eta_first of a product, read from its sidecar when it exists.
std::optional<double> read_sidecar_eta_first(const std::string& product_path);

// Short description of a file: type, shape, and for parameter files the parameters.
std::string describe_file(const std::string& path);

}  // namespace sarfuse

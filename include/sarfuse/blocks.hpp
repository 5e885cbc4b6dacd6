// sarfuse: data takes of any length, focused in azimuth blocks with overlap ("linear" azimuth
// processing), so memory stays bounded whatever the take's length.
//
// Each block is an ordinary plan of `block_lines` lines (CPU or CUDA). Of a block's output only the
// rows whose whole azimuth support lies inside the block are kept: the support of a product row is the
// processed bandwidth's time extent (B / Ka, plus a margin for the tails of the filter's impulse
// response) around the beam centre, which the squint moves away from zero Doppler. The blocks advance
// by the number of rows kept, so every product row is written once, from a block where it is exact,
// and the joins are seamless. The take is padded with zero lines at both ends (and a block longer than
// what is left of it with more), so nothing wraps around (the circular azimuth FFT) into kept rows.
//
// The product grid is zero-Doppler time: row g at eta_first + g / PRF (the take's lines at
// (i - lines/2) / PRF, as make_plan's circular block), covering exactly the targets whose synthetic
// aperture (the processed band's flat part, by default the antenna's 3-dB Doppler bandwidth) lies in
// the take.
#pragma once
#include <complex>
#include <cstddef>
#include <functional>
#include <string>

#include "sarfuse/plan.hpp"

namespace sarfuse {

struct BlockLayout {
  std::size_t take_lines = 0;     // raw lines in the take
  std::size_t block_lines = 0;    // lines per block (each block's plan)
  std::size_t support_lines = 0;  // azimuth support of one product row (the blocks' overlap), lines
  std::size_t aperture_lines = 0; // synthetic aperture (the band's flat part): what a product row needs in the take
  std::size_t pad_lines = 0;      // zero lines before and after the take (support - aperture) / 2
  long first_valid = 0;           // block-relative zero-Doppler rows [first_valid, first_valid + step) are kept;
                                  // product row 0 is zero-Doppler line first_valid of the take
  std::size_t step = 0;           // product rows per block (= the blocks' advance in raw lines)
  std::size_t blocks = 0;
  std::size_t rows = 0;           // product rows
  double eta_first_s = 0;         // zero-Doppler time of product row 0
  double bandwidth_hz = 0;        // processed azimuth bandwidth (the plans get it as an option)
  std::string to_string() const;  // one line for logs and reports
};

// The azimuth filter of linear processing. Its impulse response must die out within the support, so
// the band may not end in a step: without a window of the user's, linear processing applies
// tukey:0.3 (flat, a half-cosine over the outer 30 %) and widens the band so that the flat part is the
// antenna's 3-dB Doppler bandwidth 0.886 x 2V / L. Bandwidth: --azimuth-bandwidth when given, else
// that (the PRF when the antenna length is not given), at most PRF minus the centroid's variation
// over the swath.
inline constexpr double kLinearTaper = 0.3;
Window linear_azimuth_window(const FocusOptions& options);
double linear_azimuth_bandwidth(const RadarParams& radar, std::size_t samples, const FocusOptions& options);

// The layout for a take of `lines` x `samples` in blocks of `block_lines` (0: one block for the whole
// take, padded to an FFT-friendly length). Throws Error when the block is shorter than the support
// plus one row (the message says the minimum), or the take is shorter than the support.
BlockLayout plan_azimuth_blocks(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                const FocusOptions& options, std::size_t block_lines = 0);

// The longest FFT-friendly block whose memory fits the budgets (0 = no limit): host bytes for the
// plan and the pipeline's two raw and two SLC block buffers; device bytes for CUDA plans. Never longer than one block for
// the whole take needs. Throws Error, with the figures, when not even the shortest block fits.
std::size_t block_lines_for_memory(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                   const FocusOptions& options, std::size_t max_host_bytes,
                                   std::size_t max_device_bytes);

// The block length focus_file uses when none is given: the longest that fits the budgets
// (block_lines_for_memory), shortened so that reading, focusing and writing overlap across several
// blocks where the extra (overlapping) lines cost little: for the GPU (gpu), power-of-two blocks of at
// least twice the support and about an eighth of the take; on the CPU, where the overlap is paid in
// compute, at least six times the support and a third of the take.
std::size_t pipeline_block_lines(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                 const FocusOptions& options, std::size_t max_host_bytes, std::size_t max_device_bytes,
                                 bool gpu);

// Raw lines in: read(first, count, dst) fills count x samples complex64 samples of raw lines
// [first, first + count), all inside the take (the driver pads). Product rows out, in order:
// write(rows, count) gets count x samples values.
using RowReader = std::function<void(std::size_t first, std::size_t count, std::complex<float>* dst)>;
using RowWriter = std::function<void(const std::complex<float>* rows, std::size_t count)>;

// The plan every block of `layout` runs: block_lines lines, the layout's processed bandwidth and the
// linear azimuth window.
Plan make_block_plan(const RadarParams& radar, std::size_t samples, const FocusOptions& options,
                     const BlockLayout& layout);

// Focuses the take block by block through `plan` (make_block_plan); `times` (optional) gets the stage
// times summed over the blocks.
void focus_in_blocks(Plan& plan, const BlockLayout& layout, const RowReader& read, const RowWriter& write,
                     StageTimes* times = nullptr);

}  // namespace sarfuse

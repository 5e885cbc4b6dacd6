// sarfuse: from a raw file to a product on disk, the whole job as one library call.
//
// focus_file() reads the raw lines, focuses them block by block and writes the product (+ its JSON
// sidecar, an optional quicklook and processing report). The stages run at the same time: while
// block k is focused, block k+1 is read and converted and block k-1 is encoded and written (bounded
// queues of two blocks between the stages). The plan (on the GPU: the CUDA context, device buffers and
// FFT plans) is made while the first block is read. A FocusSession keeps its plan and buffers between
// scenes, so a batch of same-shaped takes pays for them once. Outputs appear complete or not at all.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sarfuse/blocks.hpp"
#include "sarfuse/corrections.hpp"
#include "sarfuse/doppler.hpp"
#include "sarfuse/image.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/params.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

struct FocusRequest {
  std::string input;         // raw data: .npy, .mat, or a Sentinel-1 Level-0 .SAFE folder / .dat file
  std::string variable;      // .mat: the variable (default: the first numeric one)
  std::string polarisation;  // Level-0: VV, VH, HH or HV ("" = the product's only one)
  RadarParams radar;
  std::optional<SceneParams> scene;  // point targets to analyse in the report
  FocusOptions options;
  std::string output;      // the product; its extension picks the format (sarfuse/io.hpp)
  ProductOptions product;  // detection, looks, sample format, compression
  std::string png;         // quicklook PNG ("" none)
  QuicklookOptions quicklook;
  std::string report_path;  // processing report JSON ("" none)

  std::optional<DopplerOptions> doppler;  // estimate the centroid from the data first
  std::string gain_path;                  // per-line receiver gains (dB) to undo
  std::size_t gain_first_line = 1;
  bool dc_offset = false, iq_balance = false, range_spreading = false;

  bool circular = false;               // the take as one circular block (else linear azimuth blocks)
  std::size_t block_lines = 0;         // linear: lines per block (0: chosen, see docs/design.md)
  std::size_t max_memory_bytes = 0;    // linear: host memory budget for the blocks (0: none)
  bool keep_image = false;             // also return the product in FocusReport::image
  bool overlap = true;                 // false: the stages one after another (the same product, bit for bit)
  // The process uses the GPU no more after this call (the CLI's case): once the last block is focused,
  // the plan, its buffers and the CUDA context are released while the product is still being written,
  // so the driver's clean-up is not left for the process's exit. Never where CUDA is used afterwards
  // in the process (CuPy, PyTorch: cudaDeviceReset ends their context too).
  bool release_gpu_when_focused = false;
  // Called from the writing stage after each block of product rows: rows written so far, of rows.
  std::function<void(std::size_t rows_done, std::size_t rows)> progress;
};

// Seconds per stage. The stages overlap, so they add up to more than the wall time; each is the time
// its stage was busy. `focus` is the plans' own time (device events on the GPU).
struct FocusTimings {
  double open = 0;                // open the input, check its shape, the gain file
  double correction_statistics = 0;
  double doppler_estimation = 0;
  double read = 0;                // input bytes into memory
  double convert = 0;             // sample conversion and corrections (on the host)
  double plan = 0;                // plan creation (on the GPU: context, buffers, FFT plans); 0 when cached
  double upload = 0, download = 0;  // host <-> device copies (GPU)
  StageTimes focus;               // summed over the blocks
  double encode = 0;              // statistics, quicklook, sample format, compression
  double write = 0;               // product bytes to the file
  double sync = 0;                // commit: flush, fsync, rename; sidecar, quicklook, report
  double wall = 0;                // the whole call
  // When things happened, seconds from the call's start: the critical path at a glance.
  double at_first_block_read = 0, at_plan_ready = 0, at_first_block_focused = 0, at_first_rows_written = 0,
         at_last_rows_written = 0;
  // Each block's stages, [start, end] in the same seconds: where a stage waited for another.
  struct BlockStages {
    double read[2] = {}, focus[2] = {}, write[2] = {};
    StageTimes plan;  // the plan's own step times for this block (the first carries the first launches)
  };
  std::vector<BlockStages> blocks;
};

struct FocusReport {
  std::string input, output;
  std::size_t lines = 0, samples = 0;  // raw
  std::size_t rows = 0;                // product rows (before multilooking)
  ProductGeometry geometry;
  FocusOptions options;  // as resolved by the plan
  RadarParams radar;     // as focused (the Doppler estimate applied)
  std::string notes;     // the plan's notes, one sentence per line
  std::string layout;    // azimuth processing, one line
  BlockLayout blocks;    // linear processing (circular: blocks == 1)
  bool plan_reused = false;
  // How the SLC leaves the plan: "whole blocks" (CPU: focused in place), "kept rows" (GPU: only the
  // rows each block keeps cross to the host, complex64) or "kept rows, complex32" (converted on the
  // GPU: the writer has nothing to encode).
  std::string slc_transfer;
  // How the raw lines reach the plan: "mapped" (one block of the file's own samples on the CPU: read
  // where the page cache holds them, no copy) or "read" (into block buffers).
  std::string input_access;
  std::optional<DopplerEstimate> doppler;
  std::pair<std::size_t, std::size_t> doppler_lines;
  CorrectionStats corrections;  // the raw lines it was estimated on
  FocusTimings timings;
  std::size_t peak_host_memory_bytes = 0;
  std::size_t product_bytes = 0;  // the product file's size
  std::string product_metadata;   // the sidecar JSON
  double mean_power = 0, peak_amplitude = 0, intensity_contrast = 0;
  std::string report_json;        // the processing report (what report_path gets), always filled
  std::string target_table;       // point-target analysis as a table ("" without targets and report)
  std::string targets_json;       // the same as JSON
  ComplexImage image;             // keep_image only
};

// Many scenes in one process: the plan, its buffers and (on the GPU) the context are kept while the
// shape and options stay the same.
class FocusSession {
 public:
  FocusSession();
  FocusSession(FocusSession&&) noexcept;
  FocusSession& operator=(FocusSession&&) noexcept;
  ~FocusSession();
  FocusReport focus(const FocusRequest& request);
  // Many scenes, reports in their order. On the GPU up to four scenes are in flight at a time (a plan
  // and buffers of the session's for each, each scene whole on one of them), so one scene's reading
  // and focusing overlap the others' writing and commit; on the CPU, whose plan uses every core, one
  // after another. Stops at the first error (products finished before it stay).
  std::vector<FocusReport> focus_all(const std::vector<FocusRequest>& requests);
  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::vector<std::unique_ptr<Impl>> lanes_;  // focus_all's other scenes in flight
};

FocusReport focus_file(const FocusRequest& request);

}  // namespace sarfuse

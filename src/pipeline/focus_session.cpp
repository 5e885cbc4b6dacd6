// focus_file(): raw file -> product, the stages overlapped (sarfuse/focus_file.hpp).
//
// Three stages, each on its own thread, with two block buffers circulating between each pair:
//   read:  the block's raw lines from the file (in their own sample type when no correction is asked
//          for: the plan converts them, on the GPU after a 1/4-size upload), zero padding around them;
//   focus: the plan (made here while the first block is read), block after block;
//   write: the kept rows: statistics, quicklook, target windows, encoding and the product file.
// With overlap off the same steps run one after another on the calling thread: the same product.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/memory.hpp"
#include "core/threads.hpp"
#include "pipeline/focus_report.hpp"
#include "pipeline/stage_queue.hpp"
#include "sarfuse/corrections.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/focus_file.hpp"
#include "sarfuse/interrupt.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// What makes two plans the same: the parameters, the shape and every option.
std::string plan_key(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& o) {
  nlohmann::json k = nlohmann::json::parse(to_json_text(ParamsFile{radar, std::nullopt}, -1));
  k["shape"] = {lines, samples};
  k["o"] = {static_cast<int>(o.backend), static_cast<int>(o.precision), o.range_window.to_string(),
            o.azimuth_window.to_string(), o.azimuth_bandwidth_hz, o.rcmc_taps, static_cast<int>(o.src), o.threads,
            static_cast<int>(o.fft_planning), o.wisdom_path, static_cast<int>(o.pipeline), o.range_fft_size,
            o.max_gpu_memory_bytes};
  return k.dump();
}

// One block of the take: the raw lines it reads and the product rows it keeps.
struct BlockJob {
  long start = 0;             // take line of the block's row 0 (negative: in the padding)
  std::size_t first_row = 0;  // product row of its first kept row
  std::size_t rows = 0;       // kept rows
};

struct RawSlot {
  AlignedBuffer<std::byte> bytes;
  std::unique_ptr<RawFile::Mapping> mapped;  // or the file itself, mapped (focus(): map_input)
  RawView view;
  std::size_t job = 0;
};
struct SlcSlot {
  ComplexImage image;             // CPU plans: the whole block, focused in place
  AlignedBuffer<std::byte> kept;  // CUDA plans: the block's kept rows in order (Plan::focus_rows)
  HeldRows held;                  // or the kept rows where the plan holds them (Plan::focus_held_rows)
  std::size_t job = 0;
  pipeline::PowerSums sums;  // of the kept rows, taken by the focus stage when the writer needs no rows
  void* host() { return kept.size() ? static_cast<void*>(kept.data()) : static_cast<void*>(image.data()); }
  std::size_t host_bytes() const { return kept.size() ? kept.size() : image.size() * sizeof(std::complex<float>); }
};

constexpr std::size_t kChunk = 256;  // lines per read: a stop request is seen within one

// focus_all on the GPU: scenes in flight, each whole on its own plan and buffers (the count measured
// best: docs/performance.md, "File to product").
constexpr std::size_t kGpuScenesInFlight = 4;

}  // namespace

class FocusSession::Impl {
 public:
  ~Impl() {
    join_gpu_release();
    release_buffers();
  }
  // on_focused: called on this thread once the last block is focused (the writer still busy).
  FocusReport focus(const FocusRequest& r, const std::function<void()>& on_focused = {});

  // Frees the GPU side (plan, device buffers, pinned pages, the raw blocks) on a thread of its own,
  // while the writer goes on with the SLC buffers; then `after`. Joined by focus() or join_gpu_release().
  void start_gpu_release(std::function<void()> after) {
    gpu_released_ = true;
    gpu_release_ = std::thread([this, after = std::move(after)] {
      try {
        release_buffers(/*keep_slc=*/true);
        plan_.reset();
        key_.clear();
        if (after) after();
      } catch (...) {
        // Only clean-up is lost: what is left is freed at the process's exit, as without the release.
      }
    });
  }
  void join_gpu_release() {
    if (gpu_release_.joinable()) gpu_release_.join();
  }
  // After a release, once every row is written: the SLC buffers are freed while the product is
  // committed (its fsync), not left for the process's exit to unmap.
  void start_freeing_slc_buffers() {
    if (!gpu_released_) return;
    join_gpu_release();
    gpu_release_ = std::thread([this] { slc_.clear(); });
  }

 private:
  void release_buffers(bool keep_slc = false) {
    if (plan_ && pinned_)
      for (auto& s : raw_) plan_->unpin_host(s.bytes.data());
    if (plan_ && pinned_)
      for (auto& s : slc_) plan_->unpin_host(s.host());
    pinned_ = false;
    raw_.clear();
    if (!keep_slc) slc_.clear();
  }

  std::string key_;
  std::optional<Plan> plan_;
  std::vector<RawSlot> raw_;
  std::vector<SlcSlot> slc_;
  bool pinned_ = false;
  bool gpu_released_ = false;  // by start_gpu_release, in this call of focus()
  std::thread gpu_release_;
};

FocusReport FocusSession::Impl::focus(const FocusRequest& r, const std::function<void()>& on_focused) {
  const auto t_wall = Clock::now();
  struct JoinRelease {
    Impl& impl;
    ~JoinRelease() { impl.join_gpu_release(); }
  } join_release{*this};
  join_gpu_release();
  gpu_released_ = false;
  std::function<void()> focused = on_focused;
  if (!focused && r.release_gpu_when_focused)
    focused = [this] { start_gpu_release([] { cuda_release_device(); }); };
  FocusReport rep;
  FocusTimings& tm = rep.timings;
  // The CUDA context (a few hundred ms) is made while the input is opened and read.
  struct Joined {
    std::thread t;
    ~Joined() {
      if (t.joinable()) t.join();
    }
  } context;
  // The block layout asks only whether a GPU is likely (the runtime's start would make it wait).
  const bool gpu = r.options.backend == Backend::cuda ||
                   (r.options.backend == Backend::automatic && r.options.precision != Precision::fp64 && cuda_device_likely());
  if (!plan_ && gpu) context.t = std::thread([] { cuda_initialize(); });
  rep.input = r.input;
  rep.output = r.output;
  require_distinct_paths(r.input, r.output);
  check_product_path(r.output, r.product);
  if (!r.png.empty()) {
    check_output_path(r.png);
    check_quicklook_options(r.quicklook);
  }
  if (!r.report_path.empty()) check_output_path(r.report_path);
  if (r.circular && (r.block_lines || r.max_memory_bytes))
    throw Error("block_lines and max_memory_bytes apply to linear azimuth processing");

  auto t = Clock::now();
  std::unique_ptr<RawFile> file;
  if (sentinel1::is_level0_path(r.input)) {
    if (!r.variable.empty()) throw Error(r.input + ": a variable name applies to .mat files only");
    sentinel1::DecodeOptions l0;
    l0.polarisation = r.polarisation;
    l0.threads = r.options.threads;
    file = sentinel1::open_level0(r.input, l0);
  } else {
    if (!r.polarisation.empty()) throw Error(r.input + ": a polarisation applies to Sentinel-1 Level-0 input only");
    file = RawFile::open(r.input, r.variable);
  }
  const std::size_t lines = file->lines(), samples = file->samples();
  const SampleType native_type = file->type();
  const std::size_t line_bytes = samples * bytes_per_sample(native_type);
  validate_shape(r.radar, lines, samples, r.input);
  rep.lines = lines;
  rep.samples = samples;

  RawCorrections corr;
  if (!r.gain_path.empty()) corr.gain_db = read_gain_db(r.gain_path, r.gain_first_line, lines);
  corr.dc_offset = r.dc_offset;
  corr.iq_balance = r.iq_balance;
  tm.open = since(t);
  AlignedBuffer<std::byte> native;
  auto read_native = [&](std::size_t first, std::size_t count) {
    if (native.size() < count * line_bytes) native.resize(count * line_bytes);
    file->read(first, count, native.data());
    return RawView{native_type, native.data(), count, samples};
  };
  CorrectionStats stats;
  if (corr.dc_offset || corr.iq_balance) {
    t = Clock::now();
    RawMoments m;
    for (std::size_t first = 0; first < lines; first += kChunk, throw_if_interrupted())
      m.add(read_native(first, std::min(kChunk, lines - first)));
    stats = m.stats(corr);
    tm.correction_statistics = since(t);
  } else {
    stats = RawMoments{}.stats(corr);
  }
  rep.corrections = stats;
  RadarParams radar = r.radar;
  if (r.doppler) {
    // On up to kDopplerLines lines from the middle of the take, corrected but for the line gains: the
    // AGC evens the echo level along azimuth, and undoing it first reweights the lines' correlations
    // (on RADARSAT scene5 it moved the MLCC estimate by two PRFs).
    constexpr std::size_t kDopplerLines = 8192;
    t = Clock::now();
    const std::size_t n = std::min(lines, kDopplerLines), first = (lines - n) / 2;
    RawCorrections no_gains = corr;
    no_gains.gain_db.clear();
    ComplexImage window(n, samples);
    for (std::size_t k = 0; k < n; k += kChunk) {
      const std::size_t c = std::min(kChunk, n - k);
      apply_raw_corrections(read_native(first + k, c), 0, no_gains, stats, window.row(k));
    }
    DopplerOptions d = *r.doppler;
    d.threads = r.options.threads;
    d.focus = r.options;  // the check's patches focused as the product will be
    d.circular = r.circular;
    rep.doppler = estimate_doppler(radar, view_of(window), d);
    rep.doppler_lines = {first, first + n};
    tm.doppler_estimation = since(t);
    radar = rep.doppler->applied_to(radar);
  }
  rep.radar = radar;
  const bool convert = corr.any();  // else the plan reads the file's own samples

  // The blocks.
  std::vector<BlockJob> jobs;
  std::size_t plan_lines = lines;
  if (r.circular) {
    jobs.push_back({0, 0, lines});
    rep.rows = lines;
    rep.blocks.blocks = 1;
    rep.blocks.block_lines = lines;
    rep.blocks.take_lines = lines;
    rep.blocks.rows = lines;
    rep.layout = "one circular block of " + std::to_string(lines) + " lines (circular azimuth processing)";
  } else {
    try {
      plan_azimuth_blocks(radar, lines, samples, r.options);  // the take itself: long enough?
    } catch (const Error& e) {
      throw Error(r.input + ": " + e.what());
    }
    const std::size_t block = r.block_lines ? r.block_lines
                                            : pipeline_block_lines(radar, lines, samples, r.options, r.max_memory_bytes,
                                                                   r.options.max_gpu_memory_bytes, gpu);
    const BlockLayout b = plan_azimuth_blocks(radar, lines, samples, r.options, block);
    for (std::size_t k = 0, written = 0; k < b.blocks; ++k) {
      const std::size_t n = std::min(b.step, b.rows - written);
      jobs.push_back({static_cast<long>(k * b.step) - static_cast<long>(b.pad_lines), written, n});
      written += n;
    }
    rep.rows = b.rows;
    rep.blocks = b;
    rep.layout = b.to_string();
    plan_lines = b.block_lines;
  }
  FocusOptions plan_options = r.options;
  if (!r.circular) {
    plan_options.azimuth_bandwidth_hz = rep.blocks.bandwidth_hz;
    plan_options.azimuth_window = linear_azimuth_window(r.options);
  }
  const std::string key = plan_key(radar, plan_lines, samples, plan_options);
  const long bl = static_cast<long>(plan_lines);

  // The stages.
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard lock(error_mutex);
    if (!error) error = e;
    failed = true;
  };
  double read_s = 0, convert_s = 0;
  tm.blocks.assign(jobs.size(), {});
  // One block of the file's own samples on the CPU: the plan reads them where the page cache holds
  // them (no copy, and no fresh pages for the kernel to clear: on some machines they cost more than
  // the copy). Several blocks keep their slots: the mapping would hold the whole take.
  const bool map_input = !gpu && !convert && jobs.size() == 1;
  const std::size_t raw_bytes = plan_lines * samples * bytes_per_sample(convert ? SampleType::complex64 : native_type);
  // The block's lines [head, tail) read (and converted) into the slot's buffer, zeros around them.
  auto read_into_buffer = [&](RawSlot& s, const BlockJob& job, std::size_t head, std::size_t tail, std::size_t lb) {
    if (s.bytes.size() != raw_bytes) {  // map_input, but this file cannot be mapped
      s.bytes.resize(raw_bytes);
      core::prefault_pages(s.bytes.data(), raw_bytes, r.options.threads);
    }
    std::byte* base = s.bytes.data();
    std::fill(base, base + head * lb, std::byte{0});
    std::fill(base + tail * lb, base + plan_lines * lb, std::byte{0});
    for (std::size_t k = head; k < tail; k += kChunk) {
      throw_if_interrupted();
      const std::size_t c = std::min(kChunk, tail - k), line = static_cast<std::size_t>(job.start) + k;
      auto t0 = Clock::now();
      if (!convert) {
        file->read(line, c, base + k * lb);
        read_s += since(t0);
        continue;
      }
      const RawView v = read_native(line, c);
      read_s += since(t0);
      t0 = Clock::now();
      apply_raw_corrections(v, line, corr, stats, reinterpret_cast<std::complex<float>*>(base + k * lb));
      convert_s += since(t0);
    }
    return static_cast<const std::byte*>(base);
  };
  auto fill = [&](RawSlot& s, std::size_t j) {
    const BlockJob& job = jobs[j];
    tm.blocks[j].read[0] = since(t_wall);
    const long from = std::max(job.start, 0L), to = std::min(job.start + bl, static_cast<long>(lines));
    const std::size_t head = static_cast<std::size_t>(std::min(std::max(from - job.start, 0L), bl));
    const std::size_t tail = static_cast<std::size_t>(std::clamp(to - job.start, static_cast<long>(head), bl));
    const SampleType type = convert ? SampleType::complex64 : native_type;
    s.mapped.reset();
    if (map_input && head + lines == tail && job.start + static_cast<long>(head) == 0) {  // the take whole
      const auto t0 = Clock::now();
      s.mapped = file->map_padded(head, static_cast<std::size_t>(bl) - tail);
      read_s += since(t0);
    }
    const std::byte* lines_at =
        s.mapped ? s.mapped->lines() : read_into_buffer(s, job, head, tail, samples * bytes_per_sample(type));
    s.view = RawView{type, lines_at, plan_lines, samples};
    s.job = j;
    tm.blocks[j].read[1] = since(t_wall);
    if (j == 0) tm.at_first_block_read = since(t_wall);
  };

  // Plan (cached) and its buffers: a new plan drops the old one and its (pinned) buffers first, before
  // any stage runs.
  const bool reuse_plan = plan_ && key == key_;
  // Only the kept rows are stored (Plan::focus_rows); on the GPU as complex32 when the product is and
  // nothing downstream needs complex64 (the writer then has nothing to encode).
  pipeline::ProductRows product_rows(r, radar, samples, rep.rows);
  std::size_t kept_rows = 0;
  for (const BlockJob& job : jobs) kept_rows = std::max(kept_rows, job.rows);
  const bool kept_complex32 = gpu && r.product.sample_format == SampleFormat::complex32 &&
                              r.product.detect == Detection::none && r.png.empty() && !product_rows.needs_rows();
  const SampleFormat kept_format = kept_complex32 ? SampleFormat::complex32 : SampleFormat::complex64;
  const bool sums_in_focus = !product_rows.needs_rows();  // kept rows: their statistics taken by the focus stage
  // On the CPU a .npy complex64 product of several blocks takes the kept rows in place: the IFFT's
  // scatter writes them into the (mapped) file, with no buffer of their own and no copy to the file
  // after. One block has nothing to overlap its write with: its rows go from a buffer of their own
  // straight to the disk (write_rows_direct), which costs less than the mapping's page-cache pages and
  // their fsync (docs/performance.md, "File to product").
  const bool cpu_npy = !gpu && sums_in_focus && ProductWriter::takes_rows_in_place(r.output, r.product);
  const bool direct = cpu_npy && jobs.size() == 1;
  const bool in_place = cpu_npy && !direct;
  // Block row of the first kept row (circular: row 0); kept rows run on from it, past the block's end.
  const long first_valid = r.circular ? 0 : rep.blocks.first_valid;
  const std::size_t first_kept_row = static_cast<std::size_t>((first_valid % bl + bl) % bl);
  // Written directly, the rows go from where the plan holds them (an fp32 CPU plan's scene) when it
  // can: no buffer of their own, whose fresh pages cost more than the copy on some machines.
  const RowSpan direct_rows{first_kept_row, jobs[0].rows};
  bool held = direct && reuse_plan && plan_->holds_rows(direct_rows);
  std::complex<float>* placed = nullptr;  // product row 0 in the file's memory (in_place)
  double sums_s = 0;
  const std::size_t kept_bytes = kept_rows * samples * (kept_complex32 ? 4 : 8);
  const std::size_t slots = r.overlap && jobs.size() > 1 ? 2 : 1;  // one block: nothing to double-buffer
  const bool buffers_fit = reuse_plan && raw_.size() == slots && (map_input || raw_[0].bytes.size() == raw_bytes) &&
                           slc_.size() == slots &&
                           (held ? slc_[0].kept.size() == 0
                                 : in_place || slc_[0].kept.size() == kept_bytes || slc_[0].image.lines() == plan_lines);
  if (!buffers_fit) release_buffers();
  if (!reuse_plan) {
    plan_.reset();
    key_.clear();
  }
  rep.plan_reused = reuse_plan;
  if (raw_.empty()) {
    raw_.resize(slots);
    for (auto& s : raw_) {
      if (map_input) continue;  // fill() maps the file (or, where it cannot, makes the slot)
      s.bytes.resize(raw_bytes);
      core::prefault_pages(s.bytes.data(), raw_bytes, r.options.threads);  // see make()
    }
  }
  ProductGeometry plan_geometry;  // what the writer and the report need of the plan, taken when it is made
  FocusOptions plan_resolved;
  std::string plan_notes;
  std::size_t plan_nfft = 0;
  auto make_slc_slots = [&] {
    slc_.resize(slots);
    for (auto& s : slc_) s.kept.resize(in_place || held ? 0 : kept_bytes);
    // Their pages now, while the CUDA context is made or the first block is read (first touches of
    // fresh pages cost as much as the focusing's copies on some machines).
    for (auto& s : slc_) core::prefault_pages(s.kept.data(), s.kept.size(), r.options.threads);
  };
  auto make = [&] {  // the plan and the SLC buffers, all pinned for the GPU's copies
    if (slc_.empty() && !direct) make_slc_slots();
    if (context.t.joinable()) context.t.join();
    const auto t0 = Clock::now();
    if (!plan_) {
      plan_.emplace(make_plan(radar, plan_lines, samples, plan_options));
      key_ = key;
    }
    held = direct && plan_->holds_rows(direct_rows);
    if (slc_.empty()) make_slc_slots();
    if (plan_->backend() != Backend::cuda && kept_complex32) {  // no GPU after all: whole blocks
      slc_.clear();  // nothing pinned yet (the reader has the raw slots)
      slc_.resize(slots);
      for (auto& s : slc_) s.image = ComplexImage(plan_lines, samples);
    }
    if (!pinned_ && plan_->backend() == Backend::cuda) {
      for (auto& s : raw_) plan_->pin_host(s.bytes.data(), raw_bytes);
      for (auto& s : slc_) plan_->pin_host(s.host(), s.host_bytes());
      pinned_ = true;
    }
    rep.slc_transfer = in_place                ? "kept rows, in place in the product"
                       : direct                ? (held ? "kept rows, written directly from the plan's scene"
                                                       : "kept rows, written directly")
                       : slc_[0].kept.size() ? (kept_complex32 ? "kept rows, complex32" : "kept rows")
                                             : "whole blocks";
    plan_geometry = plan_->geometry();
    plan_resolved = plan_->options();
    plan_notes = plan_->notes();
    plan_nfft = plan_->range_fft_size();
    tm.plan = since(t0);
    tm.at_plan_ready = since(t_wall);
  };
  // After the last block the GPU side may be released while the writer goes on (on_focused).
  auto all_focused = [&] {
    if (focused && plan_->backend() == Backend::cuda) focused();
  };

  // The writing stage's state.
  std::optional<ProductWriter> writer;
  std::optional<Quicklook> quicklook;
  // The product's metadata needs the plan's geometry: opened once the plan is made (in place: before
  // the first block is focused into it), else by the first block's writing.
  auto open_writer = [&] {
    if (!writer) {
      rep.geometry = plan_geometry;
      if (!r.circular) {
        rep.geometry.eta_first_s = rep.blocks.eta_first_s;
        rep.geometry.azimuth_processing = "linear";
      }
      rep.options = plan_resolved;
      rep.notes = plan_notes;
      std::string sidecar = product_sidecar_json(radar, rep.options, rep.geometry, rep.rows, samples, r.input);
      if (rep.doppler) sidecar = with_doppler_estimate(sidecar, *rep.doppler);
      writer.emplace(r.output, rep.rows, samples, r.product, sidecar);
      if (!r.png.empty())
        quicklook.emplace(rep.rows, samples, r.quicklook, radar.effective_velocity_m_s / radar.prf_hz,
                          radar.range_spacing_m());
      product_rows.start(rep.geometry);
      if (in_place) placed = writer->rows_in_place();
    }
  };
  auto write_block = [&](const SlcSlot& s) {
    const BlockJob& job = jobs[s.job];
    tm.blocks[s.job].write[0] = since(t_wall);
    open_writer();
    throw_if_interrupted();
    // complex64 rows on their way out: statistics (unless the focus stage took them), product, quicklook.
    auto emit = [&](const std::complex<float>* rows, std::size_t count) {
      if (!(s.kept.size() && sums_in_focus)) rows = product_rows.add(rows, count);
      writer->write_rows(rows, count);
      if (quicklook) {
        const auto t0 = Clock::now();
        quicklook->add_rows(rows, count);
        product_rows.encode_s += since(t0);
      }
    };
    if (in_place) {  // the kept rows already in the file
      product_rows.add_counted(s.sums, job.rows);
      writer->rows_placed(job.rows);
      if (quicklook) {
        const auto t0 = Clock::now();
        quicklook->add_rows(placed + job.first_row * samples, job.rows);
        product_rows.encode_s += since(t0);
      }
    } else if (direct) {  // the kept rows to the disk, their statistics taken meanwhile (the CPU is free)
      const auto* rows = held ? s.held.data : reinterpret_cast<const std::complex<float>*>(s.kept.data());
      const std::size_t pitch = held ? s.held.pitch : samples;
      pipeline::PowerSums sums;
      std::thread statistics([&] {
        const auto t0 = Clock::now();
        sums = pipeline::power_sums(rows, job.rows, samples, pitch, r.options.threads);
        sums_s += since(t0);
      });
      try {
        writer->write_rows_direct(rows, job.rows, pitch);
        if (quicklook) {
          const auto t0 = Clock::now();
          for (std::size_t k = 0; k < job.rows; ++k) quicklook->add_rows(rows + k * pitch, 1);
          product_rows.encode_s += since(t0);
        }
      } catch (...) {
        statistics.join();
        throw;
      }
      statistics.join();
      product_rows.add_counted(sums, job.rows);
    } else if (s.kept.size()) {  // the kept rows in order
      if (sums_in_focus) product_rows.add_counted(s.sums, job.rows);
      if (kept_complex32) writer->write_complex32_rows(reinterpret_cast<const std::uint16_t*>(s.kept.data()), job.rows);
      else emit(reinterpret_cast<const std::complex<float>*>(s.kept.data()), job.rows);
    } else {  // the whole block: the kept rows in runs that do not wrap around its end (circular: all rows)
      for (std::size_t done = 0; done < job.rows;) {
        throw_if_interrupted();
        const std::size_t row = (first_kept_row + done) % plan_lines;
        const std::size_t run = std::min(job.rows - done, plan_lines - row);
        emit(s.image.row(row), run);
        done += run;
      }
    }
    tm.blocks[s.job].write[1] = since(t_wall);
    if (job.first_row == 0) tm.at_first_rows_written = since(t_wall);
    tm.at_last_rows_written = since(t_wall);
    if (r.progress) r.progress(job.first_row + job.rows, rep.rows);
  };
  auto focus_block = [&](const RawSlot& raw, SlcSlot& slc) {
    throw_if_interrupted();
    const BlockJob& job = jobs[raw.job];
    tm.blocks[raw.job].focus[0] = since(t_wall);
    try {
      if (held) {
        slc.held = plan_->focus_held_rows(raw.view, direct_rows);
      } else if (in_place || slc.kept.size()) {
        void* rows = in_place ? static_cast<void*>(placed + job.first_row * samples) : slc.kept.data();
        plan_->focus_rows(raw.view, RowSpan{first_kept_row, job.rows}, kept_format, rows);
        if (sums_in_focus && !direct) {  // here, while the writer writes the block before
          const auto t0 = Clock::now();
          const std::size_t n = job.rows * samples;
          slc.sums = kept_complex32 ? pipeline::power_sums(static_cast<const std::uint16_t*>(rows), n, r.options.threads)
                                    : pipeline::power_sums(static_cast<const std::complex<float>*>(rows), n, r.options.threads);
          sums_s += since(t0);
        }
      } else {
        plan_->focus(raw.view, slc.image);
      }
    } catch (const NonFiniteSample& e) {  // a mapped input is checked by the CPU plan as it converts it
      throw Error(r.input + ": sample (" + std::to_string(job.start + static_cast<long>(e.line)) + ", " +
                  std::to_string(e.sample) + ") is " + (e.nan ? "NaN" : "infinite") + "; expected finite values");
    }
    tm.blocks[raw.job].focus[1] = since(t_wall);
    if (raw.job == 0) tm.at_first_block_focused = tm.blocks[0].focus[1];
    slc.job = raw.job;
    const StageTimes& st = plan_->last_times();
    tm.blocks[raw.job].plan = st;
    tm.focus.range_compress += st.range_compress;
    tm.focus.azimuth_fft += st.azimuth_fft;
    tm.focus.range_doppler += st.range_doppler;
    tm.focus.azimuth_ifft += st.azimuth_ifft;
    tm.focus.total += st.total;
    tm.upload += st.upload;
    tm.download += st.download;
  };

  if (!r.overlap) {
    make();
    if (in_place) open_writer();
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      fill(raw_[0], j);
      focus_block(raw_[0], slc_[0]);
      write_block(slc_[0]);
    }
    all_focused();
  } else {
    pipeline::StageQueue<RawSlot*> free_raw(2), full_raw(2);
    pipeline::StageQueue<SlcSlot*> free_slc(2), full_slc(2);
    auto close_all = [&] {
      free_raw.close();
      full_raw.close();
      free_slc.close();
      full_slc.close();
    };
    for (auto& s : raw_) free_raw.push(&s);
    // The reader starts at once: the first block is read while the plan is made.
    std::thread reader([&] {
      try {
        for (std::size_t j = 0; j < jobs.size() && !failed; ++j) {
          auto s = free_raw.pop();
          if (!s) break;
          fill(**s, j);
          if (!full_raw.push(*s)) break;
        }
      } catch (...) {
        fail(std::current_exception());
        close_all();
      }
      full_raw.close();
    });
    std::thread writer_thread;
    try {
      make();
      if (in_place) open_writer();
      for (auto& s : slc_) free_slc.push(&s);
      writer_thread = std::thread([&] {
        try {
          while (auto s = full_slc.pop()) {
            if (failed) break;
            write_block(**s);
            if (!free_slc.push(*s)) break;
          }
        } catch (...) {
          fail(std::current_exception());
          close_all();
        }
      });
      while (auto raw = full_raw.pop()) {
        if (failed) break;
        auto slc = free_slc.pop();
        if (!slc) break;
        focus_block(**raw, **slc);
        if (!full_slc.push(*slc) || !free_raw.push(*raw)) break;
      }
      if (!failed) {
        reader.join();  // it has read every block: the raw buffers are free
        all_focused();
      }
    } catch (...) {
      fail(std::current_exception());
      close_all();
    }
    full_slc.close();
    if (writer_thread.joinable()) writer_thread.join();
    close_all();
    if (reader.joinable()) reader.join();
    if (error) std::rethrow_exception(error);
  }
  throw_if_interrupted();
  rep.input_access = !raw_.empty() && raw_[0].mapped ? "mapped" : "read";
  for (auto& s : raw_) s.mapped.reset();  // the file's pages: not held past its scene
  tm.read = read_s;
  tm.convert = convert_s;

  // Commit: the product, its sidecar, the quicklook, the report.
  start_freeing_slc_buffers();
  t = Clock::now();
  writer->commit();
  // The product has its name: its sidecar, quicklook and report follow it even if a stop comes now
  // (the next scene, if any, stops).
  const InterruptsDeferred companions;
  const double commit_s = since(t);
  rep.product_metadata = writer->metadata_json();
  t = Clock::now();
  write_text_file(r.output + ".json", rep.product_metadata);
  if (quicklook) quicklook->write(r.png);
  tm.encode = writer->encode_seconds() + product_rows.encode_s + sums_s;
  tm.write = writer->write_seconds();
  tm.sync = commit_s + since(t);
  rep.product_bytes = writer->file_bytes();
  product_rows.finish(rep);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  rep.peak_host_memory_bytes = static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
  tm.wall = since(t_wall);
  rep.report_json = pipeline::report_json(r, rep, file->streamed(), plan_nfft);
  if (!r.report_path.empty()) write_text_file(r.report_path, rep.report_json);
  return rep;
}

FocusSession::FocusSession() : impl_(std::make_unique<Impl>()) {}
FocusSession::FocusSession(FocusSession&&) noexcept = default;
FocusSession& FocusSession::operator=(FocusSession&&) noexcept = default;
FocusSession::~FocusSession() = default;
FocusReport FocusSession::focus(const FocusRequest& request) {
  if (request.release_gpu_when_focused) lanes_.clear();  // their plans go before the device is reset
  return impl_->focus(request);
}

std::vector<FocusReport> FocusSession::focus_all(const std::vector<FocusRequest>& requests) {
  std::vector<FocusReport> reports(requests.size());
  const bool gpu = !requests.empty() && requests[0].options.backend != Backend::cpu && cuda_device_likely();
  if (requests.size() < 2 || !gpu) {
    for (std::size_t k = 0; k < requests.size(); ++k) reports[k] = impl_->focus(requests[k]);
    return reports;
  }
  const std::size_t lanes = std::min(requests.size(), kGpuScenesInFlight);
  while (lanes_.size() + 1 < lanes) lanes_.push_back(std::make_unique<Impl>());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  // release_gpu_when_focused: each lane frees its plan once its last scene is focused; the last lane
  // to do so resets the device (after a failure nothing is reset: a plan may still be live).
  const bool release = requests.front().release_gpu_when_focused;
  std::atomic<std::size_t> lanes_focusing{lanes};
  auto lane_released = [&] {
    if (--lanes_focusing == 0 && !failed) cuda_release_device();
  };
  auto lane = [&](Impl& impl) {
    bool released = false;
    try {
      for (std::size_t k; !failed && (k = next++) < requests.size();) {
        std::function<void()> focused;
        if (release)
          focused = [&] {
            if (next.load() < requests.size()) return;  // more scenes for this lane
            released = true;
            impl.start_gpu_release(lane_released);
          };
        reports[k] = impl.focus(requests[k], focused);
      }
      if (release && !released && !failed) impl.start_gpu_release(lane_released);  // a lane left without a scene
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> others;
  for (std::size_t k = 0; k + 1 < lanes; ++k) others.emplace_back([&, k] { lane(*lanes_[k]); });
  lane(*impl_);
  for (std::thread& t : others) t.join();
  impl_->join_gpu_release();
  for (auto& l : lanes_) l->join_gpu_release();
  if (error) std::rethrow_exception(error);
  return reports;
}

FocusReport focus_file(const FocusRequest& request) { return FocusSession{}.focus(request); }

}  // namespace sarfuse

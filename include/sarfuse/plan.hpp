// sarfuse: focusing plans. Like FFTW: make_plan() precomputes filters, FFT plans, tables and
// buffers once; Plan::focus() executes, as many times as wanted, with no allocation.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

enum class Backend { automatic, cpu, cuda };
// fp32: the default, FP32-exact. fp64: the CPU reference. fp16_storage (CUDA): the scene held in FP16 in
// device memory between the passes, each line with its own power-of-two scale, FP32 arithmetic; input
// and output formats unchanged (docs/performance.md "Precision modes" has its quality and speed). fp16
// (CUDA): as fp16_storage, and every FFT's butterflies in FP16 arithmetic (each line pre-scaled so the
// FFT cannot overflow); the pointwise steps stay FP32. tf32x3 (CUDA): FP32 throughout, the range FFTs'
// radix-16 DFTs as matrix products on the tensor cores in split TF32 (three TF32 products per FP32
// product: FP32-class accuracy).
enum class Precision { fp32, fp64, fp16_storage, fp16, tf32x3 };
enum class SrcMode { automatic, on, off };  // automatic: on when the Doppler centroid is not 0
enum class FftPlanning { estimate, measure };
// CUDA pipelines: the project's fused kernels, or the baselines: what a careful cuFFT user would write
// (separate kernels), the range filter multiply fused into cuFFT by an LTO store callback, or VkFFT's
// convolution mode for range compression (the rest of the chain as in cufft-unfused).
enum class Pipeline { fused, cufft_unfused, cufft_callback, vkfft_conv };

// Spectral weighting window. Parsed from "none", "hamming", "hamming:0.54", "kaiser:2.5", "tukey:0.2"
// (flat, with a half-cosine taper to zero over the outer 20 % of the band).
struct Window {
  enum class Kind { none, hamming, kaiser, tukey };
  Kind kind = Kind::none;
  double param = 0;  // Kaiser beta or Hamming alpha
  static Window parse(const std::string& text);  // throws Error naming the text
  std::string to_string() const;
  // Weight at x in [-0.5, 0.5] (x = frequency offset / processed bandwidth); 0 outside.
  double weight(double x) const;
};

struct FocusOptions {
  Backend backend = Backend::automatic;
  Precision precision = Precision::fp32;
  Window range_window;
  Window azimuth_window;
  double azimuth_bandwidth_hz = 0;  // processed Doppler bandwidth around the centroid; 0 = the PRF
  int rcmc_taps = 8;                // even, 4..32
  SrcMode src = SrcMode::automatic;
  int threads = 0;  // 0 = all cores
  // estimate: deterministic plans, instant (FFTW estimate; CUDA azimuth FFTs by cuFFT, or the measured
  // layout for non-power-of-two line counts). measure: FFTW measure; CUDA times cuFFT against the
  // project's column kernel for the azimuth FFTs and remembers the choice in the wisdom file.
  FftPlanning fft_planning = FftPlanning::estimate;
  std::string wisdom_path;  // measure, CUDA: "" = ~/.cache/sarfuse/wisdom.json; "-" = none
  Pipeline pipeline = Pipeline::fused;               // CUDA backend only
  // Range FFT length; 0 = automatic (CPU: smallest 2^a 3^b 5^c 7^d >= Nr + replica - 1; CUDA: the
  // smallest power of two). Give the same value to compare backends bit-for-bit-in-spirit.
  std::size_t range_fft_size = 0;
  // CUDA: device memory the plan may use, bytes; 0 = what the device has free. The plan computes what
  // it needs before allocating and refuses, saying both figures, when it does not fit.
  std::size_t max_gpu_memory_bytes = 0;
};

// "8GiB", "512MiB", "2GB", "1.5e9", "4096": bytes. Throws Error naming `what` on anything else.
std::size_t parse_byte_size(const std::string& text, const std::string& what);
std::string format_bytes(double bytes);  // "1.25 GiB"
// "4096x2048" -> {4096, 2048}. Throws Error naming `what` and showing `example` on anything else.
std::pair<std::size_t, std::size_t> parse_size_pair(const std::string& text, const std::string& what,
                                                    const std::string& example);

// Where the focused product sits (zero-Doppler geometry).
struct ProductGeometry {
  double eta_first_s = 0;          // zero-Doppler time of row 0
  double azimuth_spacing_s = 0;    // 1/PRF
  double near_range_m = 0;         // slant range of column 0
  double range_spacing_m = 0;
  std::size_t first_full_column = 0;  // [first, last): columns whose whole replica lies in the record
  std::size_t last_full_column = 0;
  bool src_applied = false;
  // "circular" (one plan: the take as one circular block, row i at (i - lines/2) / PRF) or "linear"
  // (azimuth blocks, sarfuse/blocks.hpp: the fully illuminated rows only).
  std::string azimuth_processing = "circular";
};

// Wall time of each step of the last focus() call, seconds.
struct StageTimes {
  double range_compress = 0;  // load/convert, range FFT, x matched filter
  double azimuth_fft = 0;
  double range_doppler = 0;   // SRC, range IFFT, RCMC, azimuth filter (one pass per Doppler row)
  double azimuth_ifft = 0;
  double total = 0;     // the four steps
  double upload = 0;    // CUDA: host -> device copy of the raw block (not in total)
  double download = 0;  // CUDA: device -> host copy of the SLC (not in total)
};

class PlanImpl;
// Rows of an SLC: `count` rows from row `first`, wrapping past the last row to row 0 (a linear block's
// kept rows, sarfuse/blocks.hpp: they start inside the block and may run over its end).
struct RowSpan {
  std::size_t first = 0, count = 0;
};
// SLC rows held by a plan: `count` rows of samples() complex64 values, each `pitch` values after the
// one before (pitch >= samples()).
struct HeldRows {
  const std::complex<float>* data = nullptr;
  std::size_t count = 0, pitch = 0;
};

// A complex64 lines x samples image in device memory (CUDA builds; others refuse to make one): an
// output for Plan::focus_on_device that its owner hands on (Python: __cuda_array_interface__).
class DeviceImage {
 public:
  DeviceImage(std::size_t lines, std::size_t samples);
  DeviceImage(DeviceImage&& other) noexcept;
  DeviceImage& operator=(DeviceImage&& other) noexcept;
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;
  ~DeviceImage();
  std::complex<float>* data() const { return data_; }
  std::size_t lines() const { return lines_; }
  std::size_t samples() const { return samples_; }

 private:
  std::complex<float>* data_ = nullptr;
  std::size_t lines_ = 0, samples_ = 0;
};

class Plan {
 public:
  Plan(std::unique_ptr<PlanImpl> impl);
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  ~Plan();

  // raw: lines() x samples() samples of any SampleType; slc is resized only if its shape differs.
  void focus(const RawView& raw, ComplexImage& slc);
  // The same with raw.data and slc in device memory (CUDA plans; CuPy, PyTorch arrays): lines() x
  // samples() each, C order, 16-byte aligned. Waits for the work queued on the device before the call
  // (the producer's), returns with the SLC complete; nothing crosses to the host. upload/download
  // times are 0. CPU plans refuse it.
  void focus_on_device(const RawView& raw, std::complex<float>* slc);
  // The same as focus(), handing back only `rows` of the SLC, packed in order into `out` (rows.count x
  // samples()) as complex64 or complex32 (IEEE half pairs rounded to nearest even: the bits the
  // product writers' encoding gives). CUDA plans convert on the device and copy only those rows to
  // the host (a linear block keeps about 2/3 of its rows; complex32 halves the bytes again); CPU plans
  // store only those rows in their last step, complex64 only (complex32 refused: the product writer
  // encodes). cint16 is refused: its scale belongs to the product (the writer's).
  void focus_rows(const RawView& raw, RowSpan rows, SampleFormat format, void* out);
  // As focus_rows() in complex64, the rows left where the plan's last step puts them, in its own memory
  // (valid until its next focus): no buffer of their own and no copy. Rows start on 512-byte
  // boundaries, `pitch` a multiple of 64 (direct I/O can take them). Where holds_rows() says no (GPU
  // and fp64 plans, rows that wrap past the block's end) it is refused.
  bool holds_rows(RowSpan rows) const;
  HeldRows focus_held_rows(const RawView& raw, RowSpan rows);

  std::size_t lines() const;
  std::size_t samples() const;
  std::size_t range_fft_size() const;
  Backend backend() const;
  const ProductGeometry& geometry() const;
  const StageTimes& last_times() const;
  const RadarParams& radar() const;
  const FocusOptions& options() const;  // as resolved (threads, SRC) by make_plan
  // Where the plan departs from its backend's own kernels (e.g. a step handed to cuFFT), one
  // sentence per line; empty when it does not.
  const std::string& notes() const;
  // Host memory that focus() will read raw lines from or write the SLC to, made page-locked for the
  // GPU's copies (CUDA: cudaHostRegister; the CPU backend: nothing). unpin before freeing it.
  void pin_host(void* data, std::size_t bytes);
  void unpin_host(void* data);

 private:
  std::unique_ptr<PlanImpl> impl_;
};

Plan make_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
               const FocusOptions& options = {});

// The backend make_plan picks for this shape and these options (automatic resolved).
Backend resolved_backend(const RadarParams& radar, std::size_t lines, std::size_t samples,
                         const FocusOptions& options = {});

// Memory a plan for this shape needs, computed without allocating: host bytes (the plan's buffers and
// the SLC it writes) and device bytes (CUDA plans: everything, cuFFT work areas included).
struct PlanMemory {
  std::size_t host_bytes = 0, device_bytes = 0;
};
PlanMemory plan_memory(const RadarParams& radar, std::size_t lines, std::size_t samples,
                       const FocusOptions& options = {});

const char* to_string(Backend b);
const char* to_string(Precision p);
const char* to_string(Pipeline p);
Pipeline parse_pipeline(const std::string& s);
// Whether this build has the CUDA backend and the machine shows an NVIDIA GPU to the operating system,
// read without starting the CUDA runtime (whose start takes a few hundred ms): for choices that can
// wait for no answer (focus_file's block length). cuda_device_count() is the real answer.
bool cuda_device_likely();
// Creates the CUDA context of device 0 now (what the first plan would otherwise pay for); false
// without a device. focus_file calls it on a thread of its own while it opens and reads the input.
bool cuda_initialize();
// Destroys device 0's primary context (cudaDeviceReset): every plan must be gone first. For a process
// about to end (FocusRequest::release_gpu_when_focused); false when there is nothing to release.
bool cuda_release_device();
// Number of CUDA devices usable by this build (0 without the CUDA backend or without a device).
int cuda_device_count();
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
};
// The CUDA devices this build can use (empty without the CUDA backend or without a device).
std::vector<DeviceInfo> cuda_devices();
Backend parse_backend(const std::string& s);
Precision parse_precision(const std::string& s);
SrcMode parse_src_mode(const std::string& s);
FftPlanning parse_fft_planning(const std::string& s);  // "estimate" or "measure"
const char* to_string(FftPlanning p);

// The smallest size >= n of the form 2^a 3^b 5^c 7^d (fast for FFTW and for our GPU kernels).
std::size_t fft_friendly_size(std::size_t n);

}  // namespace sarfuse

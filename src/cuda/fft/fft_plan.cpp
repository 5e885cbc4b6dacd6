// sarfuse::gpu::FftPlan, the planner: our own kernels (line_fft_kernels.cu, tensor_fft.cu) and cuFFT
// behind one plan; the variant from the built-in table, the caller, the wisdom file (fft_wisdom.cpp),
// or timing the candidates. (`sarfuse bench fft` times them: src/bench/bench_fft.cu.)
#include <cuda_runtime.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/cufft_library.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fft/line_fft_kernels.hpp"
#include "cuda/backend.hpp"
#include "cuda/fft/tensor_fft.cuh"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"

namespace sarfuse::gpu {

namespace {

// Built-in choice (FftPlanning::estimate), from `sarfuse bench fft` (docs/performance.md, "Choices
// made from measurements"): our radix-8 Stockham at 256 points, cuFFT above.
FftVariant estimated_variant(const FftDesc& d) {
  const auto v = fft_variants_for(d);
  if (d.n == 256 && std::find(v.begin(), v.end(), FftVariant::stockham8) != v.end()) return FftVariant::stockham8;
  return FftVariant::cufft;
}

std::string device_name() {
  int dev = 0;
  SARFUSE_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  SARFUSE_CUDA(cudaGetDeviceProperties(&p, dev));
  return p.name;
}

}  // namespace

class FftPlan::Impl {
 public:
  Impl(const FftDesc& desc, const FftPlanOptions& o) : d(desc) {
    if (d.n < 2 || d.batch < 1 || d.stride < 1) throw Error("GPU FFT: expected n >= 2, batch >= 1, stride >= 1 (" + d.key() + ")");
    if (d.dist == 0) d.dist = d.stride == 1 ? d.n : 1;
    if (cuda::device_count() == 0) throw Error("GPU FFT: no CUDA device found");
    const auto candidates = fft_variants_for(d);
    const auto tensor = tensor_variants_for(d);
    if (o.variant != FftVariant::automatic) {
      if (std::find(candidates.begin(), candidates.end(), o.variant) == candidates.end() &&
          std::find(tensor.begin(), tensor.end(), o.variant) == tensor.end())
        throw Error(std::string("GPU FFT: variant ") + to_string(o.variant) + " cannot run " + d.key());
      set_variant(o.variant);
      how = "requested";
    } else if (o.planning == FftPlanning::estimate) {
      set_variant(estimated_variant(d));
      how = "estimate (built-in table)";
    } else {
      const bool use_wisdom = o.wisdom_path != "-";
      FftWisdom wisdom(use_wisdom ? (o.wisdom_path.empty() ? FftWisdom::default_path() : o.wisdom_path) : "");
      const std::string dev = device_name();
      FftVariant remembered;
      if (use_wisdom && wisdom.lookup(dev, d, &remembered)) {
        set_variant(remembered);
        how = "wisdom " + wisdom.path();
      } else {
        measure(candidates);
        if (use_wisdom) {
          wisdom.remember(dev, d, variant, best_ms);
          wisdom.save();
        }
      }
    }
  }
  ~Impl() {
    if (have_cufft) cuda::cufft().Destroy(cufft_plan);
  }

  void set_variant(FftVariant v) {
    variant = v;
    if (v == FftVariant::cufft) {
      if (!have_cufft) {
        int n[1] = {d.n};
        SARFUSE_CUFFT(cuda::cufft().PlanMany(&cufft_plan, 1, n, n, d.stride, d.dist, n, d.stride, d.dist, CUFFT_C2C, d.batch));
        have_cufft = true;
      }
    } else if (v == FftVariant::four_step) {
      if (scratch.size() == 0) {
        const FourStepSplit sp = four_step_split(d.n);
        scratch.resize(static_cast<std::size_t>(d.n) * d.batch);
        upload_table(row_twiddles, sp.n2);
        if (sp.n1 > 16) upload_table(column_twiddles, sp.n1);
      }
    } else if (twiddles.size() == 0) {
      upload_table(twiddles, d.n);
    }
  }

  static void upload_table(cuda::DeviceBuffer<float2>& b, int n) {
    const auto t = cuda::fft_twiddle_table(n);
    b.resize(t.size());
    SARFUSE_CUDA(cudaMemcpy(b.get(), t.data(), t.size() * sizeof(float2), cudaMemcpyHostToDevice));
  }

  void run_four_step(const float2* in, float2* out, cudaStream_t stream) const {
    const FourStepSplit sp = four_step_split(d.n);
    float2* w = scratch.get();
    const std::size_t n = static_cast<std::size_t>(d.n);
    if (sp.n1 <= 16) {
      launch_four_step_small_columns(sp.n1, in, w, d.batch, sp.n2, d.inverse, stream);
    } else {
      cuda::ColumnScaling tw;
      tw.twiddle_n = d.n;
      tw.twiddle_sign = d.inverse ? 1.0f : -1.0f;
      for (int line = 0; line < d.batch; ++line)
        cuda::launch_column_fft(sp.n1, 1024, in + line * n, sp.n2, w + line * n, sp.n2, sp.n2, d.inverse,
                                column_twiddles.get(), stream, tw);
    }
    FftDesc rows;
    rows.n = sp.n2;
    rows.batch = d.batch * sp.n1;
    rows.dist = sp.n2;
    rows.inverse = d.inverse;
    launch_stockham_lines(16, w, w, rows, row_twiddles.get(), stream);
    for (int line = 0; line < d.batch; ++line)
      cuda::launch_transpose(w + line * n, sp.n1, sp.n2, sp.n2, out + line * n, sp.n1, stream);
  }

  void run(const float2* in, float2* out, cudaStream_t stream) const {
    switch (variant) {
      case FftVariant::stockham16: launch_stockham_lines(16, in, out, d, twiddles.get(), stream); break;
      case FftVariant::stockham8: launch_stockham_lines(8, in, out, d, twiddles.get(), stream); break;
      case FftVariant::stockham4: launch_stockham_lines(4, in, out, d, twiddles.get(), stream); break;
      case FftVariant::mixed_radix: launch_mixed_radix(in, out, d, twiddles.get(), stream); break;
      case FftVariant::ct_dif_split: launch_ct_dif_split(in, out, d, twiddles.get(), stream); break;
      case FftVariant::four_step: run_four_step(in, out, stream); break;
      case FftVariant::tensor_fp16:
      case FftVariant::tensor_bf16:
      case FftVariant::tensor_tf32:
      case FftVariant::tensor_tf32x3:
      case FftVariant::tensor_fp64: {
        const auto mode = variant == FftVariant::tensor_fp16    ? cuda::fft::TensorMode::fp16
                          : variant == FftVariant::tensor_bf16  ? cuda::fft::TensorMode::bf16
                          : variant == FftVariant::tensor_tf32  ? cuda::fft::TensorMode::tf32
                          : variant == FftVariant::tensor_fp64  ? cuda::fft::TensorMode::fp64
                                                                : cuda::fft::TensorMode::tf32x3;
        cuda::fft::launch_tensor_fft256(mode, in, out, d.batch, d.inverse, twiddles.get(), stream);
        break;
      }
      case FftVariant::cufft:
        SARFUSE_CUFFT(cuda::cufft().SetStream(cufft_plan, stream));
        SARFUSE_CUFFT(cuda::cufft().ExecC2C(cufft_plan, reinterpret_cast<cufftComplex*>(const_cast<float2*>(in)),
                                   reinterpret_cast<cufftComplex*>(out), d.inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
        break;
      case FftVariant::automatic: throw Error("GPU FFT: no variant chosen");
    }
  }

  // Times every candidate on random data in scratch buffers (median of 7 after a warm-up), keeps the fastest.
  void measure(const std::vector<FftVariant>& candidates) {
    const std::size_t span = static_cast<std::size_t>(d.batch - 1) * d.dist + static_cast<std::size_t>(d.n - 1) * d.stride + 1;
    cuda::DeviceBuffer<float2> a(span), b(span);
    std::vector<float2> host(span);
    std::mt19937 g(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : host) x = make_float2(u(g), u(g));
    SARFUSE_CUDA(cudaMemcpy(a.get(), host.data(), span * sizeof(float2), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    SARFUSE_CUDA(cudaEventCreate(&e0));
    SARFUSE_CUDA(cudaEventCreate(&e1));
    std::ostringstream log;
    best_ms = 1e300;
    FftVariant best = candidates.front();
    for (FftVariant v : candidates) {
      set_variant(v);
      run(a.get(), b.get(), nullptr);
      std::vector<float> t(7);
      for (float& ms : t) {
        SARFUSE_CUDA(cudaEventRecord(e0));
        run(a.get(), b.get(), nullptr);
        SARFUSE_CUDA(cudaEventRecord(e1));
        SARFUSE_CUDA(cudaEventSynchronize(e1));
        SARFUSE_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      }
      std::sort(t.begin(), t.end());
      log << (log.tellp() > 0 ? ", " : "") << to_string(v) << " " << t[3] << " ms";
      if (t[3] < best_ms) {
        best_ms = t[3];
        best = v;
      }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    set_variant(best);
    how = "measured: " + log.str();
  }

  FftDesc d;
  FftVariant variant = FftVariant::automatic;
  std::string how;
  double best_ms = 0;
  cufftHandle cufft_plan = 0;
  bool have_cufft = false;
  cuda::DeviceBuffer<float2> twiddles;
  cuda::DeviceBuffer<float2> scratch, row_twiddles, column_twiddles;  // four_step
};

FftPlan::FftPlan(const FftDesc& desc, const FftPlanOptions& options) : impl_(std::make_unique<Impl>(desc, options)) {}
FftPlan::FftPlan(FftPlan&&) noexcept = default;
FftPlan& FftPlan::operator=(FftPlan&&) noexcept = default;
FftPlan::~FftPlan() = default;
void FftPlan::execute(const std::complex<float>* in, std::complex<float>* out, void* stream) const {
  impl_->run(reinterpret_cast<const float2*>(in), reinterpret_cast<float2*>(out), static_cast<cudaStream_t>(stream));
}
FftVariant FftPlan::variant() const { return impl_->variant; }
const FftDesc& FftPlan::desc() const { return impl_->d; }
const std::string& FftPlan::how_chosen() const { return impl_->how; }

}  // namespace sarfuse::gpu


// `sarfuse bench fft`: the GPU FFT variants and cuFFT, timed and checked against float64.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "bench/bench.hpp"
#include "core/fft.hpp"
#include "cuda/backend.hpp"
#include "cuda/check.hpp"
#include "cuda/cufft_library.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse::gpu {

namespace {

// cuFFT's own half-precision transform (CUDA_C_16F in, out and execution; powers of two only): the
// vendor's answer to "what does FP16 storage buy an FFT on this device", timed beside its FP32 one.
class CufftHalf {
 public:
  CufftHalf(long long n, long long batch, long long stride, long long dist) {
    SARFUSE_CUFFT(cuda::cufft().Create(&h_));
    std::size_t work = 0;
    long long dims[1] = {n};
    const cufftResult r = cuda::cufft().XtMakePlanMany(h_, 1, dims, dims, stride, dist, CUDA_C_16F, dims, stride, dist,
                                              CUDA_C_16F, batch, &work, CUDA_C_16F);
    if (r != CUFFT_SUCCESS) {
      cuda::cufft().Destroy(h_);
      SARFUSE_CUFFT(r);
    }
  }
  CufftHalf(const CufftHalf&) = delete;
  CufftHalf& operator=(const CufftHalf&) = delete;
  ~CufftHalf() { cuda::cufft().Destroy(h_); }
  void forward(const __half2* in, __half2* out) const {
    SARFUSE_CUFFT(cuda::cufft().XtExec(h_, const_cast<__half2*>(in), out, CUFFT_FORWARD));
  }

 private:
  cufftHandle h_ = 0;
};

}  // namespace

std::string bench_fft(const FftBenchOptions& o) {
  if (cuda::device_count() == 0) throw Error("bench fft: no CUDA device");
  std::ostringstream out;
  nlohmann::json js;
  const std::string dev = cuda::devices().at(0).name;
  js["device"] = dev;
  out << "sarfuse bench fft on " << dev << ": batched forward complex64 FFTs, contiguous lines, data >= "
      << (o.min_bytes >> 20) << " MiB, median of " << o.repeats << " (CUDA events); relative L2 vs float64 on 4 lines\n";
  char line[256];
  std::snprintf(line, sizeof line, "%7s %8s %-11s %9s %9s %9s %10s %9s\n", "n", "batch", "variant", "ms", "GFLOPS",
                "GB/s", "rel L2", "vs cuFFT");
  out << line;
  cudaEvent_t e0, e1;
  SARFUSE_CUDA(cudaEventCreate(&e0));
  SARFUSE_CUDA(cudaEventCreate(&e1));
  // One warm-up run (which also fills the poisoned output), then the median of o.repeats.
  const auto median_ms = [&](const std::function<void()>& run) {
    run();
    std::vector<float> t(static_cast<std::size_t>(o.repeats));
    for (float& ms : t) {
      SARFUSE_CUDA(cudaEventRecord(e0));
      run();
      SARFUSE_CUDA(cudaEventRecord(e1));
      SARFUSE_CUDA(cudaEventSynchronize(e1));
      SARFUSE_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    }
    std::sort(t.begin(), t.end());
    return static_cast<double>(t[t.size() / 2]);
  };
  std::vector<int> sizes;
  for (int n = 256; n <= 16384; n *= 2) sizes.push_back(n);
  for (int n : {65536, 1048576, 4194304}) sizes.push_back(n);  // beyond one block: four-step
  for (int n : {1536, 6000, 7680}) sizes.push_back(n);         // non-powers of two
  for (int n : sizes) {
    const int batch = static_cast<int>((o.min_bytes + n * sizeof(float2) - 1) / (n * sizeof(float2)));
    const std::size_t total = static_cast<std::size_t>(n) * batch;
    cuda::DeviceBuffer<float2> a(total), b(total);
    std::vector<float2> host(total);
    std::mt19937 g(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : host) x = make_float2(u(g), u(g));
    SARFUSE_CUDA(cudaMemcpy(a.get(), host.data(), total * sizeof(float2), cudaMemcpyHostToDevice));
    // float64 reference of the first 4 lines.
    const int check = 4;
    std::vector<std::complex<double>> ref(static_cast<std::size_t>(n) * check);
    for (std::size_t k = 0; k < ref.size(); ++k) ref[k] = {host[k].x, host[k].y};
    core::FftPlan<double> f({n, check, 1, n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
    f.execute(ref.data(), ref.data());
    FftDesc d;
    d.n = n;
    d.batch = batch;
    double cufft_ms = 0;
    // Relative L2 of the first `check` lines of a device output against ref (NaN where one was not
    // written), and the table row + JSON entry of one timed variant.
    const auto rel_l2 = [&](const auto* d_out) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(d_out)>>;  // float2 or __half2
      std::vector<T> got(static_cast<std::size_t>(n) * check);
      SARFUSE_CUDA(cudaMemcpy(got.data(), d_out, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
      double err = 0, norm = 0;
      for (std::size_t k = 0; k < got.size(); ++k) {
        float2 v;
        if constexpr (std::is_same_v<T, __half2>) v = __half22float2(got[k]);
        else v = got[k];
        err += std::norm(std::complex<double>(v.x, v.y) - ref[k]);
        norm += std::norm(ref[k]);
      }
      return std::sqrt(err / norm);
    };
    const auto report = [&](const char* name, double ms, double rel, std::size_t element_bytes) {
      const double flops = 5.0 * n * std::log2(static_cast<double>(n)) * batch;
      const double bytes = 2.0 * static_cast<double>(total * element_bytes);
      std::snprintf(line, sizeof line, "%7d %8d %-11s %9.4f %9.0f %9.0f %10.2e %8.2fx\n", n, batch, name, ms,
                    flops / ms * 1e-6, bytes / ms * 1e-6, rel, cufft_ms / ms);
      out << line;
      js["results"].push_back({{"n", n}, {"batch", batch}, {"variant", name}, {"ms", ms},
                               {"gflops", flops / ms * 1e-6}, {"gb_s", bytes / ms * 1e-6}, {"relative_l2", rel},
                               {"speed_vs_cufft", cufft_ms / ms}});
    };
    std::vector<FftVariant> variants = fft_variants_for(d);
    std::rotate(variants.begin(), variants.end() - 1, variants.end());  // cuFFT first: the ratios need it
    for (FftVariant t : tensor_variants_for(d)) variants.push_back(t);  // reduced precision, after the exact ones
    for (FftVariant v : variants) {
      FftPlanOptions po;
      po.variant = v;
      const FftPlan plan(d, po);
      SARFUSE_CUDA(cudaMemset(b.get(), 0xFF, total * sizeof(float2)));  // poisoned: unwritten output shows
      const double ms = median_ms([&] {
        plan.execute(reinterpret_cast<const std::complex<float>*>(a.get()), reinterpret_cast<std::complex<float>*>(b.get()));
      });
      if (v == FftVariant::cufft) cufft_ms = ms;
      report(to_string(v), ms, rel_l2(b.get()), sizeof(float2));
    }
    if ((n & (n - 1)) == 0 && n <= 16384) {
      // FP16 rows, half the bytes: cuFFT's own FP16 transform (its arithmetic in FP16 too), and our block
      // FFT with FP32 butterflies (what the fp16-storage passes run): what FP16 storage buys an FFT pass.
      std::vector<__half2> hhost(total);
      for (std::size_t k = 0; k < total; ++k) hhost[k] = __floats2half2_rn(host[k].x, host[k].y);
      cuda::DeviceBuffer<__half2> ha(total), hb(total);
      SARFUSE_CUDA(cudaMemcpy(ha.get(), hhost.data(), total * sizeof(__half2), cudaMemcpyHostToDevice));
      const auto tw = cuda::fft_twiddle_table(n);
      cuda::DeviceBuffer<float2> dtw(tw.size());
      SARFUSE_CUDA(cudaMemcpy(dtw.get(), tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
      const CufftHalf half(n, batch, 1, n);
      const std::vector<std::pair<const char*, std::function<void()>>> cases = {
          {"cufft-fp16", [&] { half.forward(ha.get(), hb.get()); }},
          {"stockham16-fp16", [&] { cuda::launch_row_fft_fp16_storage(n, ha.get(), hb.get(), batch, false, dtw.get(), nullptr); }},
      };
      for (const auto& [name, run] : cases) {
        SARFUSE_CUDA(cudaMemset(hb.get(), 0xFF, total * sizeof(__half2)));  // poisoned: FP16 NaN
        const double ms = median_ms(run);
        report(name, ms, rel_l2(hb.get()), sizeof(__half2));
      }
    }
    FftPlanOptions measure;
    measure.planning = FftPlanning::measure;
    measure.wisdom_path = "-";
    const FftPlan chosen(d, measure);
    out << "        planner (measure): " << to_string(chosen.variant()) << " (" << chosen.how_chosen() << ")\n";
    js["planner"][std::to_string(n)] = to_string(chosen.variant());
  }
  // Columns of a row-major array: the RDA's azimuth FFTs (stride = the row length, dist 1).
  out << "\ncolumns of a row-major array (the azimuth FFTs): n-point FFTs down every column, stride = columns, "
         "dist 1, forward; own column-tile kernel at 512 and 1024 threads per block, and with FP16 storage; cuFFT in FP16\n";
  std::snprintf(line, sizeof line, "%7s %8s %-15s %9s %9s %10s %9s\n", "n", "columns", "variant", "ms", "GB/s",
                "rel L2", "vs cuFFT");
  out << line;
  for (int n = 1024; n <= 16384; n *= 2) {
    const int cols = static_cast<int>(std::max<std::size_t>(256, o.min_bytes / (n * sizeof(float2))));
    const std::size_t total = static_cast<std::size_t>(n) * cols;
    cuda::DeviceBuffer<float2> a(total), b(total);
    cuda::DeviceBuffer<__half2> ha(total), hb(total);
    std::vector<float2> host(total);
    std::vector<__half2> hhost(total);
    std::mt19937 g(static_cast<unsigned>(n) + 7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (std::size_t k = 0; k < total; ++k) {
      host[k] = make_float2(u(g), u(g));
      hhost[k] = __floats2half2_rn(host[k].x, host[k].y);
    }
    SARFUSE_CUDA(cudaMemcpy(a.get(), host.data(), total * sizeof(float2), cudaMemcpyHostToDevice));
    SARFUSE_CUDA(cudaMemcpy(ha.get(), hhost.data(), total * sizeof(__half2), cudaMemcpyHostToDevice));
    // float64 reference of the first 4 columns (of the complex64 input; the FP16 rows include its rounding).
    const int check = 4;
    std::vector<std::complex<double>> ref(static_cast<std::size_t>(n) * check);
    for (int c = 0; c < check; ++c)
      for (int r = 0; r < n; ++r) ref[static_cast<std::size_t>(c) * n + r] = {host[static_cast<std::size_t>(r) * cols + c].x, host[static_cast<std::size_t>(r) * cols + c].y};
    core::FftPlan<double> f({n, check, 1, n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
    f.execute(ref.data(), ref.data());
    const auto tw = cuda::fft_twiddle_table(n);
    cuda::DeviceBuffer<float2> dtw(tw.size());
    SARFUSE_CUDA(cudaMemcpy(dtw.get(), tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
    FftDesc d;
    d.n = n;
    d.batch = cols;
    d.stride = cols;
    d.dist = 1;
    FftPlanOptions po;
    po.variant = FftVariant::cufft;
    const FftPlan cufft_plan(d, po);
    const CufftHalf cufft_half(n, cols, cols, 1);
    double cufft_ms = 0;
    struct Case {
      const char* name;
      bool half;
      std::function<void()> run;
    };
    const std::vector<Case> cases = {
        {"cufft", false, [&] { cufft_plan.execute(reinterpret_cast<const std::complex<float>*>(a.get()), reinterpret_cast<std::complex<float>*>(b.get())); }},
        {"columns-512", false, [&] { cuda::launch_column_fft(n, 512, a.get(), cols, b.get(), cols, cols, false, dtw.get(), nullptr); }},
        {"columns-1024", false, [&] { cuda::launch_column_fft(n, 1024, a.get(), cols, b.get(), cols, cols, false, dtw.get(), nullptr); }},
        {"columns-fp16-512", true, [&] { cuda::launch_column_fft(n, 512, ha.get(), cols, hb.get(), cols, cols, false, cuda::ColumnScaling{}, dtw.get(), nullptr); }},
        {"columns-fp16-1024", true, [&] { cuda::launch_column_fft(n, 1024, ha.get(), cols, hb.get(), cols, cols, false, cuda::ColumnScaling{}, dtw.get(), nullptr); }},
        {"cufft-fp16", true, [&] { cufft_half.forward(ha.get(), hb.get()); }},
    };
    for (const Case& cs : cases) {
      SARFUSE_CUDA(cudaMemset(b.get(), 0xFF, total * sizeof(float2)));
      SARFUSE_CUDA(cudaMemset(hb.get(), 0xFF, total * sizeof(__half2)));
      const double ms = median_ms(cs.run);
      double err = 0, norm = 0;
      for (int r = 0; r < n; ++r) {
        const std::size_t row = static_cast<std::size_t>(r) * cols;
        std::vector<float2> got(check);
        if (cs.half) {
          std::vector<__half2> hg(check);
          SARFUSE_CUDA(cudaMemcpy(hg.data(), hb.get() + row, check * sizeof(__half2), cudaMemcpyDeviceToHost));
          for (int c = 0; c < check; ++c) got[c] = __half22float2(hg[c]);
        } else {
          SARFUSE_CUDA(cudaMemcpy(got.data(), b.get() + row, check * sizeof(float2), cudaMemcpyDeviceToHost));
        }
        for (int c = 0; c < check; ++c) {
          const auto& want = ref[static_cast<std::size_t>(c) * n + r];
          err += std::norm(std::complex<double>(got[c].x, got[c].y) - want);
          norm += std::norm(want);
        }
      }
      const double rel = std::sqrt(err / norm);
      if (std::string(cs.name) == "cufft") cufft_ms = ms;
      const double bytes = 2.0 * total * (cs.half ? sizeof(__half2) : sizeof(float2));
      std::snprintf(line, sizeof line, "%7d %8d %-15s %9.4f %9.0f %10.2e %8.2fx\n", n, cols, cs.name, ms,
                    bytes / ms * 1e-6, rel, cufft_ms / ms);
      out << line;
      js["columns"].push_back({{"n", n}, {"columns", cols}, {"variant", cs.name}, {"ms", ms}, {"gb_s", bytes / ms * 1e-6},
                               {"relative_l2", rel}, {"speed_vs_cufft", cufft_ms / ms}});
    }
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (!o.json_path.empty()) write_text_file(o.json_path, js.dump(2) + "\n");
  return out.str();
}

}  // namespace sarfuse::gpu

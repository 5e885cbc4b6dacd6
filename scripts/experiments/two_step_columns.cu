// Experiment (issue 20): the two-step column FFT (cuda/fft/two_step_column_fft.cu) taken apart at the
// RDA's azimuth shapes: the 16- and 32-point register passes alone and with their column passes, the
// m-point column pass at other block shapes and register budgets and by cuFFT, against cuFFT strided
// and the device-to-device copy of the same bytes, in one process; the product's forward checked
// against a float64 FFT of a few columns (rows in its order). Lines 16 x an odd column length (30000 =
// 16 x 1875): the product's two-step FFT at each column-pass block size against cuFFT's strided and
// contiguous FFTs and cuFFT as the m-point pass.
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr \
//     scripts/experiments/two_step_columns.cu -lcufft -o tsc && ./tsc 8192 16384   (./tsc 30000 8192)
// Arguments: lines (column length, a multiple of 16) and columns (= the row pitch).
#include <type_traits>

#include "column_case.hpp"
#include "cuda/fft/column_fft.cu"
#include "cuda/fft/two_step_column_fft.cu"

namespace sarfuse::cuda {
bool own_fft_supports(int n) { return n >= 256 && n <= 16384 && (n & (n - 1)) == 0; }
}  // namespace sarfuse::cuda

using namespace sarfuse::cuda;

template <class K>
void print_resources(const char* name, K kernel) {
  cudaFuncAttributes a{};
  CK(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(kernel)));
  std::printf("    %-56s %d registers, %zu B local\n", name, a.numRegs, a.localSizeBytes);
}

template <int M>
void column_pass_variants(Bench& bench, const ColumnCase& c, const float2* dtw_m) {
  auto time = [&](const char* name, auto launch) {
    bench.report(name, bench.tm.median_ms([&] { launch(); }, 20));
  };
  char name[120];
#define VARIANT(THREADS, MINB, E)                                                                                \
  std::snprintf(name, sizeof name, "  %d-point column pass, %d points x %d threads, %d block(s) a SM", M, E, THREADS, MINB); \
  time(name, [&] {                                                                                             \
    launch_columns_as<M, THREADS, float2, float2, false, MINB, E>(c.dy, c.cols, c.dy, c.cols, c.cols, false,    \
                                                               ColumnScaling{}, dtw_m, 16, nullptr);          \
  });                                                                                                          \
  print_resources(name, &column_fft_kernel<M, THREADS, float2, float2, false, MINB, E>);
  VARIANT(512, 1, 16)
  VARIANT(256, 2, 16)
  VARIANT(512, 2, 8)
  if constexpr (M <= 1024) { VARIANT(256, 4, 8) }
#undef VARIANT
}

// The m-point pass by cuFFT instead: one strided plan (m points down `cols` columns), run on each group.
void cufft_column_pass(Bench& bench, float2* d, int m, int cols) {
  cufftHandle plan;
  int len = m, embed = m;
  if (cufftPlanMany(&plan, 1, &len, &embed, cols, 1, &embed, cols, 1, CUFFT_C2C, cols) != CUFFT_SUCCESS) std::exit(1);
  auto run = [&] {
    for (int g = 0; g < 16; ++g) {
      auto* p = reinterpret_cast<cufftComplex*>(d + static_cast<std::size_t>(g) * m * cols);
      if (cufftExecC2C(plan, p, p, CUFFT_FORWARD) != CUFFT_SUCCESS) std::exit(1);
    }
  };
  char name[100];
  std::snprintf(name, sizeof name, "  %d-point column pass by cuFFT strided (16 groups)", m);
  bench.report(name, bench.tm.median_ms(run, 20));
  cufftDestroy(plan);
}

// Lines that are 16 x an odd column length m (30000 = 16 x 1875): the product's two-step FFT (16-point
// pass + the odd m-point column pass) at 256, 512 and 1024 threads a block for the column pass, forward
// checked on two columns against a float64 DFT (rows in its order), inverse against lines x the input;
// beside cuFFT strided, cuFFT on contiguous lines (the transposing path without its two transposes) and
// cuFFT as the m-point pass.
int generic(int lines, int cols) {
  const int m = lines / 16;
  std::printf("== %d lines x %d columns (16 x %d, m not a power of two)\n", lines, cols, m);
  if (!two_step_column_fft_supports(lines)) {
    std::printf("  no two-step split for %d lines\n", lines);
    return 1;
  }
  const std::size_t size = static_cast<std::size_t>(lines) * cols;
  std::vector<float2> x(size);
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  float2 *dx, *dy, *dz, *dtw = device_twiddle_table(lines), *dtw_m = device_twiddle_table(m);
  CK(cudaMalloc(&dx, size * 8));
  CK(cudaMalloc(&dy, size * 8));
  CK(cudaMalloc(&dz, size * 8));
  CK(cudaMemcpy(dx, x.data(), size * 8, cudaMemcpyHostToDevice));
  Bench bench(dy, dx, size * 8);
  cufftHandle strided, contiguous;
  int len = lines, embed = lines;
  if (cufftPlanMany(&strided, 1, &len, &embed, cols, 1, &embed, cols, 1, CUFFT_C2C, cols) != CUFFT_SUCCESS) return 1;
  if (cufftPlanMany(&contiguous, 1, &len, &embed, 1, lines, &embed, 1, lines, CUFFT_C2C, cols) != CUFFT_SUCCESS) return 1;
  bench.report("cuFFT strided", bench.tm.median_ms([&] {
    cufftExecC2C(strided, reinterpret_cast<cufftComplex*>(dx), reinterpret_cast<cufftComplex*>(dy), CUFFT_FORWARD);
  }, 20));
  bench.report("cuFFT on contiguous lines (the transposing path without its two transposes)", bench.tm.median_ms([&] {
    cufftExecC2C(contiguous, reinterpret_cast<cufftComplex*>(dx), reinterpret_cast<cufftComplex*>(dy), CUFFT_FORWARD);
  }, 20));
  cufftDestroy(strided);
  cufftDestroy(contiguous);
  bench.report("  16-point pass alone", bench.tm.median_ms([&] {
    launch_radix_columns<16>(false, dx, cols, dy, cols, cols, m, dtw, nullptr);
  }, 20));
  cufft_column_pass(bench, dy, m, cols);
  // The float64 DFT of every seventh bin of two columns.
  const int checked[2] = {1, cols - 2};
  std::vector<std::vector<std::complex<double>>> ref(2);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < lines; k += 7) {
      std::complex<double> acc = 0;
      long long idx = 0;
      for (int n = 0; n < lines; ++n) {
        const float2 v = x[static_cast<std::size_t>(n) * cols + checked[i]];
        acc += std::complex<double>(v.x, v.y) * std::polar(1.0, -2 * M_PI * static_cast<double>(idx) / lines);
        idx += k;
        if (idx >= lines) idx -= lines;
      }
      ref[i].push_back(acc);
    }
  for (int threads : {256, 512, 1024}) {
    auto forward = [&] { launch_two_step_column_fft(lines, dx, cols, dy, cols, cols, false, dtw, dtw_m, nullptr, threads); };
    auto inverse = [&] { launch_two_step_column_fft(lines, dy, cols, dz, cols, cols, true, dtw, dtw_m, nullptr, threads); };
    CK(cudaMemset(dy, 0xff, size * 8));
    CK(cudaMemset(dz, 0xff, size * 8));
    forward();
    inverse();
    CK(cudaDeviceSynchronize());
    char name[120];
    std::snprintf(name, sizeof name, "two-step forward, %d-point column pass at %d threads", m, threads);
    check_outputs(name, dy, size, ref, [&](std::size_t i, std::size_t j) {
      const std::size_t bin = 7 * j;
      return (bin % 16 * m + bin / 16) * cols + checked[i];  // bin k1 + 16 k2 at row k1 m + k2
    });
    std::vector<float2> z(size);
    CK(cudaMemcpy(z.data(), dz, size * 8, cudaMemcpyDeviceToHost));
    double e2 = 0, r2 = 0;
    for (std::size_t i = 0; i < size; i += 97) {
      e2 += std::norm(std::complex<double>(z[i].x / lines - x[i].x, z[i].y / lines - x[i].y));
      r2 += std::norm(std::complex<double>(x[i].x, x[i].y));
    }
    std::printf("  %-58s rel L2 vs the input %.2e%s\n", "inverse of the forward / lines", std::sqrt(e2 / r2),
                std::sqrt(e2 / r2) < 1e-5 ? "" : "  ** WRONG **");
    bench.report(name, bench.tm.median_ms(forward, 20));
    std::snprintf(name, sizeof name, "two-step inverse, %d-point column pass at %d threads", m, threads);
    bench.report(name, bench.tm.median_ms(inverse, 20));
    std::snprintf(name, sizeof name, "  %d-point column pass alone at %d threads", m, threads);
    bench.report(name, bench.tm.median_ms([&] {
      launch_column_fft(m, threads, dy, cols, dy, cols, cols, false, dtw_m, nullptr, ColumnScaling{}, 16);
    }, 20));
  }
  // The 1875-point column pass at tighter register budgets (more blocks a SM), alone.
  if (m == 1875) {
    auto time = [&](const char* name, auto launch) { bench.report(name, bench.tm.median_ms([&] { launch(); }, 20)); };
    char name[120];
#define ODD_VARIANT(THREADS, MINB)                                                                                   \
  std::snprintf(name, sizeof name, "  1875-point column pass, 15 points x %d threads, %d block(s) a SM", THREADS, MINB); \
  time(name, [&] {                                                                                                  \
    launch_columns_as<1875, THREADS, float2, float2, false, MINB, 15>(dy, cols, dy, cols, cols, false, ColumnScaling{}, \
                                                                      dtw_m, 16, nullptr);                          \
  });                                                                                                               \
  print_resources(name, &column_fft_kernel<1875, THREADS, float2, float2, false, MINB, 15>);
    ODD_VARIANT(256, 3)
    ODD_VARIANT(256, 4)
    ODD_VARIANT(512, 2)
#undef ODD_VARIANT
  }
  return 0;
}

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 8192, cols = argc > 2 ? std::atoi(argv[2]) : 8192;
  const int m = lines / 16;
  if (lines % 16 == 0 && (m & (m - 1)) != 0) return generic(lines, cols);
  std::printf("== %d lines x %d columns (two-step: 16 x %d)\n", lines, cols, m);
  ColumnCase c(lines, cols, {0, 1, cols / 2 + 3, cols - 1});
  Bench bench(c.dy, c.dx, c.size * 8);
  c.cufft_strided(bench);
  const int part = two_step_part_lines(lines);
  float2 *dtw_m = device_twiddle_table(m), *dtw_m32 = device_twiddle_table(lines / 32),
         *dtw_part = device_twiddle_table(part);
  {
    auto run = [&] { launch_two_step_column_fft(lines, c.dx, cols, c.dy, cols, cols, false, c.dtw, dtw_part, nullptr); };
    c.poison();
    run();
    CK(cudaDeviceSynchronize());
    const int r = lines / part;
    check_outputs("two-step (product)", c.dy, c.size, c.ref, [&](std::size_t i, std::size_t bin) {
      return (static_cast<std::size_t>(bin % r) * part + bin / r) * cols + c.checked[i];  // bin k1 + r k2: row k1 m + k2
    });
    char name[100];
    std::snprintf(name, sizeof name, "two-step (product: %d x %d)", r, part);
    bench.report(name, bench.tm.median_ms(run, 20));
  }
  // Both register radices, each with its column pass (as the product launches them).
  auto composition = [&](auto radix_tag, const float2* tw_part) {
    constexpr int R = decltype(radix_tag)::value;
    const int mm = lines / R, threads = mm <= 1024 ? 256 : 512;
    char name[100];
    std::snprintf(name, sizeof name, "  %d-point pass alone", R);
    bench.report(name, bench.tm.median_ms([&] { launch_radix_columns<R>(false, c.dx, cols, c.dy, cols, cols, mm, c.dtw, nullptr); }, 20));
    std::snprintf(name, sizeof name, "  %d-point pass + %d-point column pass", R, mm);
    bench.report(name, bench.tm.median_ms([&] {
      launch_radix_columns<R>(false, c.dx, cols, c.dy, cols, cols, mm, c.dtw, nullptr);
      launch_column_fft(mm, threads, c.dy, cols, c.dy, cols, cols, false, tw_part, nullptr, ColumnScaling{}, R);
    }, 20));
  };
  composition(std::integral_constant<int, 16>{}, dtw_m);
  if (lines / 32 >= 256) composition(std::integral_constant<int, 32>{}, dtw_m32);
  // L2 blocking: both passes over a chunk of columns before the next chunk, so the column pass reads
  // the register pass's output from L2 (and overwrites it there): one DRAM read and write of the scene
  // instead of two. One stream, or chunks alternating over two streams (chunk k+1's register pass may
  // run beside chunk k's column pass).
  {
    const int r = lines / part, threads = part <= 1024 ? 256 : 512;
    cudaStream_t st[2];
    CK(cudaStreamCreateWithFlags(&st[0], cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&st[1], cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    for (int mb : {8, 16, 24, 32, 48}) {
      int w = static_cast<int>((static_cast<std::size_t>(mb) << 20) / (static_cast<std::size_t>(lines) * 8));
      w = std::max(128, w / 128 * 128);
      for (int streams : {1, 2}) {
        auto run = [&] {
          CK(cudaEventRecord(fork, 0));
          for (int s2 = 0; s2 < streams; ++s2) CK(cudaStreamWaitEvent(st[s2], fork));
          int k = 0;
          for (int c0 = 0; c0 < cols; c0 += w, ++k) {
            const int wc = std::min(w, cols - c0);
            cudaStream_t q = st[k % streams];
            if (r == 32) launch_radix_columns<32>(false, c.dx + c0, cols, c.dy + c0, cols, wc, part, c.dtw, q);
            else launch_radix_columns<16>(false, c.dx + c0, cols, c.dy + c0, cols, wc, part, c.dtw, q);
            launch_column_fft(part, threads, c.dy + c0, cols, c.dy + c0, cols, wc, false, dtw_part, q, ColumnScaling{}, r);
          }
          for (int s2 = 0; s2 < streams; ++s2) {
            CK(cudaEventRecord(join, st[s2]));
            CK(cudaStreamWaitEvent(0, join));
          }
        };
        c.poison();
        run();
        CK(cudaDeviceSynchronize());
        char name[120];
        std::snprintf(name, sizeof name, "two-step in L2 chunks of %d columns (%d MB), %d stream(s)", w, mb, streams);
        check_outputs(name, c.dy, c.size, c.ref, [&](std::size_t i, std::size_t bin) {
          return (static_cast<std::size_t>(bin % r) * part + bin / r) * cols + c.checked[i];
        });
        bench.report(name, bench.tm.median_ms(run, 20));
      }
    }
  }
  cufft_column_pass(bench, c.dy, m, cols);
  switch (m) {
    case 256: column_pass_variants<256>(bench, c, dtw_m); break;
    case 512: column_pass_variants<512>(bench, c, dtw_m); break;
    case 1024: column_pass_variants<1024>(bench, c, dtw_m); break;
    case 2048: column_pass_variants<2048>(bench, c, dtw_m); break;
    default: std::printf("m = %d: no column-pass variants built\n", m);
  }
  return 0;
}

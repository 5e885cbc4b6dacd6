// FFT building blocks shared by the device kernels and their CPU unit tests: complex arithmetic,
// in-register DFTs of radix 2..16, and the index math of a Stockham autosort pass. Everything here is
// SARFUSE_HD (host and device) so the same code is checked against a float64 DFT on the CPU.
//
// Stockham pass (radix R, sub-transform size ns, n points, n/R butterflies j = 0..n/R-1):
//   inputs   x[j + r n/R]                       r = 0..R-1
//   twiddle  x_r *= exp(-2 pi i r (j mod ns) / (R ns))
//   DFT_R
//   outputs  y[(j / ns) ns R + (j mod ns) + r ns]
// ns runs 1, R, R^2, ... and the output after the last pass is in natural order. The first pass reads
// and the last pass writes with stride n/R, so a thread that owns positions tid + q n/R keeps the same
// positions from the input of one FFT to the output, and on to the input of the next.
#pragma once
#include "core/geometry.hpp"  // SARFUSE_HD

namespace sarfuse::cuda::fft {

template <class T>
struct Cx {
  T re, im;
};

template <class T>
SARFUSE_HD inline Cx<T> operator+(Cx<T> a, Cx<T> b) { return {a.re + b.re, a.im + b.im}; }
template <class T>
SARFUSE_HD inline Cx<T> operator-(Cx<T> a, Cx<T> b) { return {a.re - b.re, a.im - b.im}; }
template <class T>
SARFUSE_HD inline Cx<T> operator*(Cx<T> a, Cx<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class T>
SARFUSE_HD inline Cx<T> conj(Cx<T> a) { return {a.re, -a.im}; }
template <class T>
SARFUSE_HD inline Cx<T> scale(Cx<T> a, T s) { return {a.re * s, a.im * s}; }
template <class T>
SARFUSE_HD inline Cx<T> mul_minus_i(Cx<T> a) { return {a.im, -a.re}; }  // a * (-i)

// cos and sin of 2 pi m / 16, m = 0..7: every twiddle an in-register DFT of radix <= 16 needs.
SARFUSE_HD inline double unit_cos16(int m) {
  constexpr double c[8] = {1.0, 0.92387953251128675613, 0.70710678118654752440, 0.38268343236508977173,
                           0.0, -0.38268343236508977173, -0.70710678118654752440, -0.92387953251128675613};
  return c[m];
}
SARFUSE_HD inline double unit_sin16(int m) {
  constexpr double s[8] = {0.0, 0.38268343236508977173, 0.70710678118654752440, 0.92387953251128675613,
                           1.0, 0.92387953251128675613, 0.70710678118654752440, 0.38268343236508977173};
  return s[m];
}

// x * exp(-2 pi i m / 16), m in 0..7; the cases 0 and 4 (-i) cost no multiplication.
template <class T>
SARFUSE_HD inline Cx<T> rotate16(Cx<T> x, int m) {
  if (m == 0) return x;
  if (m == 4) return mul_minus_i(x);
  const Cx<T> w{static_cast<T>(unit_cos16(m)), static_cast<T>(-unit_sin16(m))};
  return x * w;
}

// x * exp(-2 pi i m / 32), m in 0..15: the last step of a 32-point DFT. Even m are rotate16's (the
// same constants); odd m from cos(2 pi m / 32) and sin(2 pi m / 32) = cos(2 pi (8 - m) / 32).
template <class T>
SARFUSE_HD inline Cx<T> rotate32(Cx<T> x, int m) {
  if (m % 2 == 0) return rotate16(x, m / 2);
  constexpr double c[8] = {0.98078528040323044913, 0.83146961230254523708, 0.55557023301960222474,
                           0.19509032201612826785, -0.19509032201612826785, -0.55557023301960222474,
                           -0.83146961230254523708, -0.98078528040323044913};  // cos(2 pi (2i + 1) / 32)
  const int i = m / 2;                                  // m = 2 i + 1
  const double sine = i <= 3 ? c[3 - i] : c[i - 4];  // |8 - m| = 2 (3 - i) + 1 or 2 (i - 4) + 1
  const Cx<T> w{static_cast<T>(c[i]), static_cast<T>(-sine)};
  return x * w;
}

// In-place forward DFT of R = 2, 4, 8, 16 or 32 points held in registers (radix-2 decimation in time,
// fully unrolled; the twiddles are compile-time constants after unrolling).
template <int R, class T>
SARFUSE_HD inline void dft(Cx<T>* v) {
  if constexpr (R == 1) {
    return;
  } else if constexpr (R == 2) {
    const Cx<T> a = v[0], b = v[1];
    v[0] = a + b;
    v[1] = a - b;
  } else {
    static_assert(R == 4 || R == 8 || R == 16 || R == 32, "radix must be 2, 4, 8, 16 or 32");
    Cx<T> even[R / 2], odd[R / 2];
#pragma unroll
    for (int k = 0; k < R / 2; ++k) {
      even[k] = v[2 * k];
      odd[k] = v[2 * k + 1];
    }
    dft<R / 2>(even);
    dft<R / 2>(odd);
#pragma unroll
    for (int k = 0; k < R / 2; ++k) {
      const Cx<T> t = R == 32 ? rotate32(odd[k], k) : rotate16(odd[k], k * (16 / R));
      v[k] = even[k] + t;
      v[k + R / 2] = even[k] - t;
    }
  }
}

// cos and sin of 2 pi k / R for the odd radices 3, 5, 7 (k = 0..R-1), to 20 digits.
template <int R>
SARFUSE_HD inline double unit_cos_odd(int k) {
  if constexpr (R == 3) {
    constexpr double c[3] = {1.0, -0.5, -0.5};
    return c[k];
  } else if constexpr (R == 5) {
    constexpr double c[5] = {1.0, 0.30901699437494742410, -0.80901699437494742410, -0.80901699437494742410,
                             0.30901699437494742410};
    return c[k];
  } else {
    constexpr double c[7] = {1.0, 0.62348980185873353053, -0.22252093395631440429, -0.90096886790241912624,
                             -0.90096886790241912624, -0.22252093395631440429, 0.62348980185873353053};
    return c[k];
  }
}
template <int R>
SARFUSE_HD inline double unit_sin_odd(int k) {
  if constexpr (R == 3) {
    constexpr double s[3] = {0.0, 0.86602540378443864676, -0.86602540378443864676};
    return s[k];
  } else if constexpr (R == 5) {
    constexpr double s[5] = {0.0, 0.95105651629515357212, 0.58778525229247312917, -0.58778525229247312917,
                             -0.95105651629515357212};
    return s[k];
  } else {
    constexpr double s[7] = {0.0, 0.78183148246802980871, 0.97492791218182360702, 0.43388373911755812048,
                             -0.43388373911755812048, -0.97492791218182360702, -0.78183148246802980871};
    return s[k];
  }
}

// In-place forward DFT of an odd prime radix (3, 5, 7) in registers, by the symmetric pairs
// a_k = x_k + x_{R-k}, b_k = x_k - x_{R-k}: X_m = A_m - i B_m and X_{R-m} = A_m + i B_m with
// A_m = x_0 + sum_k a_k cos(2 pi k m / R), B_m = sum_k b_k sin(2 pi k m / R): (R-1)^2/2 real
// multiply-adds per component instead of (R-1)^2.
template <int R, class T>
SARFUSE_HD inline void dft_odd(Cx<T>* v) {
  static_assert(R == 3 || R == 5 || R == 7, "odd radix must be 3, 5 or 7");
  constexpr int H = (R - 1) / 2;
  Cx<T> a[H], b[H];
  Cx<T> sum = v[0];
#pragma unroll
  for (int k = 1; k <= H; ++k) {
    a[k - 1] = v[k] + v[R - k];
    b[k - 1] = v[k] - v[R - k];
    sum = sum + a[k - 1];
  }
  Cx<T> out[R];
  out[0] = sum;
#pragma unroll
  for (int m = 1; m <= H; ++m) {
    Cx<T> am = v[0], bm{T(0), T(0)};
#pragma unroll
    for (int k = 1; k <= H; ++k) {
      const int km = (k * m) % R;
      am = am + scale(a[k - 1], static_cast<T>(unit_cos_odd<R>(km)));
      bm = bm + scale(b[k - 1], static_cast<T>(unit_sin_odd<R>(km)));
    }
    out[m] = am + mul_minus_i(bm);
    out[R - m] = am - mul_minus_i(bm);
  }
#pragma unroll
  for (int m = 0; m < R; ++m) v[m] = out[m];
}

// In-place forward DFT of 15 points as 3 x 5 by the prime-factor (Good-Thomas) mapping: inputs
// x[(5 a + 3 b) mod 15] form DFT_3 over a then DFT_5 over b with no twiddles between them, and output
// (k1, k2) is X[k] with k = k1 mod 3 = k2 mod 5 (k = 10 k1 + 6 k2 mod 15). One radix-15 pass instead of a
// radix-5 and a radix-3 pass.
template <class T>
SARFUSE_HD inline void dft15(Cx<T>* v) {
  Cx<T> g[3][5];
#pragma unroll
  for (int b = 0; b < 5; ++b) {
    Cx<T> t[3];
#pragma unroll
    for (int a = 0; a < 3; ++a) t[a] = v[(5 * a + 3 * b) % 15];
    dft_odd<3>(t);
#pragma unroll
    for (int k1 = 0; k1 < 3; ++k1) g[k1][b] = t[k1];
  }
#pragma unroll
  for (int k1 = 0; k1 < 3; ++k1) {
    dft_odd<5>(g[k1]);
#pragma unroll
    for (int k2 = 0; k2 < 5; ++k2) v[(10 * k1 + 6 * k2) % 15] = g[k1][k2];
  }
}

// In-place forward DFT of 9 points as 3 x 3 (Cooley-Tukey: 3 and 3 share a factor, so twiddles between
// the two DFT_3 stages): x[3 n1 + n2] -> DFT_3 over n1, x W_9^(n2 k1), DFT_3 over n2 -> X[k1 + 3 k2].
template <class T>
SARFUSE_HD inline void dft9(Cx<T>* v) {
  // W_9^k = (cos, -sin)(2 pi k / 9) for k = 1, 2, 4.
  const Cx<T> w1{static_cast<T>(0.766044443118978), static_cast<T>(-0.6427876096865393)};
  const Cx<T> w2{static_cast<T>(0.17364817766693041), static_cast<T>(-0.984807753012208)};
  const Cx<T> w4{static_cast<T>(-0.9396926207859083), static_cast<T>(-0.3420201433256689)};
  Cx<T> a[3][3];  // [n2][k1]
#pragma unroll
  for (int n2 = 0; n2 < 3; ++n2) {
    Cx<T> t[3] = {v[n2], v[3 + n2], v[6 + n2]};
    dft_odd<3>(t);
#pragma unroll
    for (int k1 = 0; k1 < 3; ++k1) a[n2][k1] = t[k1];
  }
  a[1][1] = a[1][1] * w1;
  a[1][2] = a[1][2] * w2;
  a[2][1] = a[2][1] * w2;
  a[2][2] = a[2][2] * w4;
#pragma unroll
  for (int k1 = 0; k1 < 3; ++k1) {
    Cx<T> t[3] = {a[0][k1], a[1][k1], a[2][k1]};
    dft_odd<3>(t);
#pragma unroll
    for (int k2 = 0; k2 < 3; ++k2) v[k1 + 3 * k2] = t[k2];
  }
}

// The pass radices of an n-point mixed-radix transform, n = 2^a 3^b 5^c 7^d: the odd radices first
// (7s, 5s, 3s), then radix-16 passes and one pass for the remaining power of two. Returns the number
// of passes (0 when n has another prime factor); radices[] gets them in order (at most 32).
SARFUSE_HD inline int mixed_radix_schedule(int n, int* radices) {
  int count = 0;
  const int odd[3] = {7, 5, 3};
  for (int i = 0; i < 3; ++i)
    while (n % odd[i] == 0) {
      radices[count++] = odd[i];
      n /= odd[i];
    }
  if (n & (n - 1)) return 0;  // another prime left
  while (n >= 16) {
    radices[count++] = 16;
    n /= 16;
  }
  if (n > 1) radices[count++] = n;
  return count;
}

SARFUSE_HD constexpr int stockham_input(int j, int r, int n, int radix) { return j + r * (n / radix); }
SARFUSE_HD constexpr int stockham_output(int j, int r, int ns, int radix) {
  return (j / ns) * ns * radix + (j % ns) + r * ns;
}
// Index into a table of exp(-2 pi i k / n), k = 0..n-1, of the pass twiddle for (j, r).
SARFUSE_HD constexpr int stockham_twiddle(int j, int r, int ns, int n, int radix) {
  return r * (j % ns) * (n / (radix * ns));
}
// Shared-memory position of element i: one pad slot per 16 elements spreads the stride-16 and
// stride-4 accesses of the passes over all banks.
SARFUSE_HD constexpr int smem_index(int i) { return i + (i >> 4); }
SARFUSE_HD constexpr int smem_size(int n) { return n + (n >> 4); }

// Radix of pass p (0-based) of an n-point transform built from radix-R passes, the last pass
// taking what remains (n a power of two, R = 16).
SARFUSE_HD constexpr int pass_radix(int n, int radix, int p) {
  int ns = 1;
  for (int i = 0; i < p; ++i) ns *= radix;
  const int rest = n / ns;
  return rest >= radix ? radix : rest;
}
SARFUSE_HD constexpr int pass_count(int n, int radix) {
  int count = 0;
  for (int ns = 1; ns < n; ++count) ns *= (n / ns >= radix ? radix : n / ns);
  return count;
}

// ---- one-block lines of a "nice" length: N = 2^a x m, m = 3, 5, 9 or 15 ----
// The range FFT of the fused chain can then be the smallest such length >= Nr + replica - 1 (7680 for
// 6250 + 1349) instead of the next power of two. Each thread holds E = row_elems(N) points (15, 12, 10
// or 9: the odd part times what keeps N / E <= 1024 threads); the passes are the power-of-two part's
// radix-16 passes (the last takes what remains), then the odd part in one pass (15 by dft15, 9 by dft9,
// 5 or 3). A pass whose radix divides E runs on the registers as in the power-of-two kernels; the others
// (radix 16 with E = 15, say) read their butterflies from shared memory, ceil(N / R / T) per thread.
SARFUSE_HD constexpr int odd_part(int n) { return n / (n & -n); }
SARFUSE_HD constexpr bool is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }
SARFUSE_HD constexpr int row_elems(int n) {
  const int m = odd_part(n);
  return m == 15 ? 15 : m == 3 ? 12 : m == 5 ? 10 : m == 9 ? 9 : 0;
}
// The non-power-of-two lengths the one-block row kernels are compiled for: 2^a x {3, 5, 9, 15} in
// [1280, 15360] (the list for the host, the test for both sides; a unit test keeps them equal).
// (One line: CMakeLists.txt reads it to generate a translation unit per length.)
// clang-format off
constexpr int kNiceRowSizes[] = {1280, 1536, 1920, 2304, 2560, 3072, 3840, 4608, 5120, 6144, 7680, 9216, 10240, 12288, 15360};
// clang-format on
SARFUSE_HD constexpr bool is_nice_row_size(int n) { return n >= 1280 && n <= 15360 && row_elems(n) != 0; }

// ---- one-block columns of an odd length: N = 3^b 5^c (b, c >= 1), 512 < N <= 4096 ----
// The m-point column pass of the two-step azimuth FFT of 16 m lines (30000 = 16 x 1875). Each thread
// holds 15 points; the passes are radix 15 (dft15) while 3 and 5 both remain, then 5s, then 3s, so
// every radix divides the points a thread holds and every pass runs on the registers.
// clang-format off
constexpr int kOddColumnSizes[] = {675, 1125, 1215, 1875, 2025, 3375, 3645};
// clang-format on
constexpr int kOddColumnElems = 15;
SARFUSE_HD constexpr int factor_power(int n, int p) {
  int e = 0;
  for (; n % p == 0; n /= p) ++e;
  return e;
}
SARFUSE_HD constexpr bool is_odd_column_size(int n) {
  if (n <= 512 || n > 4096 || factor_power(n, 3) == 0 || factor_power(n, 5) == 0) return false;
  while (n % 3 == 0) n /= 3;
  while (n % 5 == 0) n /= 5;
  return n == 1;
}

// The passes of an odd part m: one for the nice lengths' m = 3, 5, 9, 15 (dft9, dft15), else radix 15
// while 3 and 5 both remain, then 5s, then 3s (the odd column lengths).
SARFUSE_HD constexpr bool single_odd_pass(int m) { return m == 3 || m == 5 || m == 9 || m == 15; }
SARFUSE_HD constexpr int odd_pass_count(int m) {
  if (m == 1) return 0;
  if (single_odd_pass(m)) return 1;
  const int b = factor_power(m, 3), c = factor_power(m, 5);
  return b > c ? b : c;  // min(b, c) fifteens, then the rest of the larger
}
SARFUSE_HD constexpr int odd_pass_radix(int m, int p) {
  if (single_odd_pass(m)) return m;
  const int b = factor_power(m, 3), c = factor_power(m, 5), fifteens = b < c ? b : c;
  return p < fifteens ? 15 : p < c ? 5 : 3;
}

// The passes of a one-block FFT of a non-power-of-two length (a nice row length or an odd column
// length): the power of two's radix-16 passes, then the odd part's.
SARFUSE_HD constexpr int row_pass_count(int n) {
  const int p2 = n & -n;
  return pass_count(p2, 16) + odd_pass_count(odd_part(n));
}
SARFUSE_HD constexpr int row_pass_radix(int n, int p) {
  const int p2 = n & -n, pow2_passes = pass_count(p2, 16);
  return p < pow2_passes ? pass_radix(p2, 16, p) : odd_pass_radix(odd_part(n), p - pow2_passes);
}
// The sub-transform size ns before pass p: the product of the earlier radices.
SARFUSE_HD constexpr int row_pass_span(int n, int p) {
  int ns = 1;
  for (int q = 0; q < p; ++q) ns *= row_pass_radix(n, q);
  return ns;
}

// ---- in-place Cooley-Tukey, decimation in frequency (the structure of the Apple M1 system's matrix-unit kernel) ----
// Stages of radix 8 while the span allows, then one of radix 4 or 2: the stage with span L (L = n,
// n/8, ...) takes legs j + r L/R of each span-L group, DFT_R over r, x W_L^(j k) on output k, stored
// back in place. The spectrum ends digit-reversed: X[k] sits at ct_dif_position(k, n).
SARFUSE_HD constexpr int ct_dif_radix(int span) { return span >= 8 ? 8 : span; }

SARFUSE_HD constexpr int ct_dif_position(int k, int n) {
  int pos = 0;
  for (int span = n; span > 1;) {
    const int r = ct_dif_radix(span);
    span /= r;
    pos += (k % r) * span;  // this stage's output digit, at the stride the later stages leave it
    k /= r;
  }
  return pos;
}

// Butterfly b (0 <= b < n/R) of the stage with span L, on a line in split layout (re[], im[]), in
// place; tw(i) returns exp(-2 pi i i / n) for 0 <= i < n.
template <int R, class T, class Twiddle>
SARFUSE_HD inline void ct_dif_butterfly(T* re, T* im, int span, int b, int n, Twiddle tw) {
  const int m = span / R;                  // distance between the legs
  const int j = b % m, base = (b / m) * span + j;
  Cx<T> x[R];
  for (int r = 0; r < R; ++r) x[r] = {re[base + r * m], im[base + r * m]};
  dft<R>(x);
  for (int k = 0; k < R; ++k) {
    Cx<T> y = x[k];
    if (k > 0 && j > 0) y = y * tw(j * k * (n / span));  // W_span^(j k) = W_n^(j k n / span); j k < span
    re[base + k * m] = y.re;
    im[base + k * m] = y.im;
  }
}

}  // namespace sarfuse::cuda::fft

#include "core/fft.hpp"

#include <fftw3.h>

#include <mutex>

#include "sarfuse/error.hpp"

namespace sarfuse::core {

namespace {
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

void init_threads_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    fftwf_init_threads();
    fftw_init_threads();
  });
}

unsigned flags_for(FftPlanning p) {
  return (p == FftPlanning::measure ? FFTW_MEASURE : FFTW_ESTIMATE);
}

template <class T>
struct Api;
template <>
struct Api<float> {
  using plan = fftwf_plan;
  using cplx = fftwf_complex;
  static plan make(const FftShape& s, int sign, std::complex<float>* in, std::complex<float>* out, unsigned flags) {
    int n = s.n;
    const int dist = s.distance ? s.distance : s.n * s.stride;
    return fftwf_plan_many_dft(1, &n, s.batch, reinterpret_cast<cplx*>(in), nullptr, s.stride, dist,
                               reinterpret_cast<cplx*>(out), nullptr, s.stride, dist, sign, flags);
  }
  static void exec(void* p, std::complex<float>* in, std::complex<float>* out) {
    fftwf_execute_dft(static_cast<plan>(p), reinterpret_cast<cplx*>(in), reinterpret_cast<cplx*>(out));
  }
  static void destroy(void* p) { fftwf_destroy_plan(static_cast<plan>(p)); }
  static void threads(int n) { fftwf_plan_with_nthreads(n); }
};
template <>
struct Api<double> {
  using plan = fftw_plan;
  using cplx = fftw_complex;
  static plan make(const FftShape& s, int sign, std::complex<double>* in, std::complex<double>* out, unsigned flags) {
    int n = s.n;
    const int dist = s.distance ? s.distance : s.n * s.stride;
    return fftw_plan_many_dft(1, &n, s.batch, reinterpret_cast<cplx*>(in), nullptr, s.stride, dist,
                              reinterpret_cast<cplx*>(out), nullptr, s.stride, dist, sign, flags);
  }
  static void exec(void* p, std::complex<double>* in, std::complex<double>* out) {
    fftw_execute_dft(static_cast<plan>(p), reinterpret_cast<cplx*>(in), reinterpret_cast<cplx*>(out));
  }
  static void destroy(void* p) { fftw_destroy_plan(static_cast<plan>(p)); }
  static void threads(int n) { fftw_plan_with_nthreads(n); }
};
}  // namespace

template <class T>
FftPlan<T>::FftPlan(const FftShape& shape, FftDirection dir, complex* in, complex* out, FftPlanning planning,
                    int fftw_threads) {
  std::lock_guard<std::mutex> lock(planner_mutex());
  init_threads_once();
  Api<T>::threads(fftw_threads);
  plan_ = Api<T>::make(shape, static_cast<int>(dir), in, out, flags_for(planning));
  Api<T>::threads(1);
  if (!plan_) throw Error("FFTW could not plan a transform of length " + std::to_string(shape.n));
}

template <class T>
FftPlan<T>& FftPlan<T>::operator=(FftPlan&& o) noexcept {
  if (this != &o) {
    if (plan_) {
      std::lock_guard<std::mutex> lock(planner_mutex());
      Api<T>::destroy(plan_);
    }
    plan_ = o.plan_;
    o.plan_ = nullptr;
  }
  return *this;
}

template <class T>
FftPlan<T>::~FftPlan() {
  if (plan_) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    Api<T>::destroy(plan_);
  }
}

template <class T>
void FftPlan<T>::execute(complex* in, complex* out) const {
  Api<T>::exec(plan_, in, out);
}

template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace sarfuse::core

namespace sarfuse {

std::size_t fft_friendly_size(std::size_t n) {
  for (std::size_t m = std::max<std::size_t>(n, 1);; ++m) {
    std::size_t r = m;
    for (std::size_t p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

}  // namespace sarfuse

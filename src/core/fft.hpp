// Thin RAII wrapper over FFTW (float and double), the CPU FFT engine (the CPU backend, filters, quality analysis).
// Plans are made once (planning is serialised: FFTW's planner is not thread-safe) and executed on
// any arrays with the plan's alignment through the new-array interface, from any thread.
#pragma once
#include <fftw3.h>

#include <complex>
#include <cstddef>

#include "sarfuse/plan.hpp"

namespace sarfuse::core {

enum class FftDirection { forward = FFTW_FORWARD, inverse = FFTW_BACKWARD };

// Batched 1-D complex transform: `batch` transforms of length n, elements `stride` apart, transforms
// `distance` apart (FFTW's advanced interface). Unnormalised in both directions.
struct FftShape {
  int n = 0;
  int batch = 1;
  int stride = 1;
  int distance = 0;  // default n * stride when 0 and stride == 1
};

template <class T>
class FftPlan {
 public:
  using complex = std::complex<T>;
  FftPlan() = default;
  // `in`/`out` are used for planning only (their contents may be overwritten when measuring);
  // later executions may use other arrays with the same alignment.
  FftPlan(const FftShape& shape, FftDirection dir, complex* in, complex* out, FftPlanning planning,
          int fftw_threads = 1);
  FftPlan(FftPlan&& o) noexcept : plan_(o.plan_) { o.plan_ = nullptr; }
  FftPlan& operator=(FftPlan&& o) noexcept;
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;
  ~FftPlan();

  void execute(complex* in, complex* out) const;
  explicit operator bool() const { return plan_ != nullptr; }

 private:
  void* plan_ = nullptr;
};

extern template class FftPlan<float>;
extern template class FftPlan<double>;

}  // namespace sarfuse::core

// The backend interface behind sarfuse::Plan.
#pragma once
#include "sarfuse/plan.hpp"

namespace sarfuse {

class PlanImpl {
 public:
  PlanImpl(const RadarParams& r, std::size_t na, std::size_t nr, const FocusOptions& o, std::size_t n_fft, Backend b)
      : radar(r), options(o), lines(na), samples(nr), nfft(n_fft), backend(b) {}
  virtual ~PlanImpl() = default;
  virtual void focus(const RawView& raw, ComplexImage& slc) = 0;
  virtual void focus_on_device(const RawView&, std::complex<float>*);  // default: refused (plan.cpp)
  virtual void focus_rows(const RawView& raw, RowSpan rows, SampleFormat format, void* out) = 0;
  virtual bool holds_rows(RowSpan) const { return false; }
  virtual HeldRows focus_held_rows(const RawView&, RowSpan);  // default: refused (plan.cpp)
  virtual void pin_host(void*, std::size_t) {}
  virtual void unpin_host(void*) {}

  RadarParams radar;
  FocusOptions options;  // resolved: threads > 0, src on/off
  std::size_t lines = 0, samples = 0, nfft = 0;
  Backend backend = Backend::cpu;
  ProductGeometry geometry;
  StageTimes times;
  std::string notes;
};

}  // namespace sarfuse

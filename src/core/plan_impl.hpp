// The backend interface behind sarfuse::Plan.
#pragma once
#include "sarfuse/plan.hpp"

namespace sarfuse {

class PlanImpl {
 public:
  virtual ~PlanImpl() = default;
  virtual void focus(const RawView& raw, ComplexImage& slc) = 0;

  RadarParams radar;
  FocusOptions options;  // resolved: threads > 0, src on/off
  std::size_t lines = 0, samples = 0, nfft = 0;
  Backend backend = Backend::cpu;
  ProductGeometry geometry;
  StageTimes times;
};

}  // namespace sarfuse

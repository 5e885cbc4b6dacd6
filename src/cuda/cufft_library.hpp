// cuFFT, opened the first time it is needed (dlopen; a GPU run opens it before its context) instead of at
// the process's start: a CPU run does not load its 280 MB, and a build with the CUDA backend still runs
// its CPU backend where the CUDA libraries are absent.
#pragma once
#include <cufft.h>
#include <cufftXt.h>

namespace sarfuse::cuda {

// The entry points sarfuse calls, by their cuFFT names less the `cufft` prefix.
struct CufftLibrary {
  decltype(&::cufftCreate) Create;
  decltype(&::cufftDestroy) Destroy;
  decltype(&::cufftSetStream) SetStream;
  decltype(&::cufftPlanMany) PlanMany;
  decltype(&::cufftMakePlanMany) MakePlanMany;
  decltype(&::cufftEstimateMany) EstimateMany;
  decltype(&::cufftExecC2C) ExecC2C;
  decltype(&::cufftXtMakePlanMany) XtMakePlanMany;
  decltype(&::cufftXtExec) XtExec;
  decltype(&::cufftXtSetJITCallback) XtSetJITCallback;
};

// Loaded once (thread-safe); an Error naming the library and why it could not be loaded otherwise.
const CufftLibrary& cufft();

}  // namespace sarfuse::cuda

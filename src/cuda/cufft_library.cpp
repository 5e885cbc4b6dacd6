#include "cuda/cufft_library.hpp"

#include <dlfcn.h>

#include <string>

#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

namespace {

// The soname of the cuFFT this build compiled against: the dynamic loader's search first (the
// environment, the executable's run path, its cache), then the toolkit's own folder.
const std::string kSoname = "libcufft.so." + std::to_string(CUFFT_VER_MAJOR);

void* open_cufft() {
  if (void* h = ::dlopen(kSoname.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  const std::string first = ::dlerror();
#ifdef SARFUSE_CUDA_LIBRARY_DIR
  if (void* h = ::dlopen((std::string(SARFUSE_CUDA_LIBRARY_DIR) + "/" + kSoname).c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
#endif
  throw Error("the CUDA backend needs cuFFT (" + kSoname + "): " + first +
              "; install the CUDA toolkit's cuFFT or put its folder on LD_LIBRARY_PATH");
}

template <class F>
void bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(::dlsym(lib, name));
  if (!f) throw Error(kSoname + " has no " + name + "; expected cuFFT " + std::to_string(CUFFT_VER_MAJOR) + ".x");
}

CufftLibrary load() {
  void* lib = open_cufft();  // kept open for the process's life
  CufftLibrary c{};
  bind(lib, c.Create, "cufftCreate");
  bind(lib, c.Destroy, "cufftDestroy");
  bind(lib, c.SetStream, "cufftSetStream");
  bind(lib, c.PlanMany, "cufftPlanMany");
  bind(lib, c.MakePlanMany, "cufftMakePlanMany");
  bind(lib, c.EstimateMany, "cufftEstimateMany");
  bind(lib, c.ExecC2C, "cufftExecC2C");
  bind(lib, c.XtMakePlanMany, "cufftXtMakePlanMany");
  bind(lib, c.XtExec, "cufftXtExec");
  bind(lib, c.XtSetJITCallback, "cufftXtSetJITCallback");
  return c;
}

}  // namespace

const CufftLibrary& cufft() {
  static const CufftLibrary library = load();
  return library;
}

}  // namespace sarfuse::cuda

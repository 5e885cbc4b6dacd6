// GDAL through dlopen (io/gdal_library.hpp).
#include "io/gdal_library.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "sarfuse/error.hpp"

namespace sarfuse::io {

const GdalLibrary& gdal() {
  static GdalLibrary lib;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    // The library the build was linked against (its soname from CMake's GDAL target).
    void* handle = dlopen(SARFUSE_GDAL_SONAME, RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      const char* why = dlerror();
      failure = std::string("GeoTIFF needs GDAL (" SARFUSE_GDAL_SONAME "), which could not be loaded: ") +
                (why ? why : "unknown reason");
      return;
    }
#define SARFUSE_GDAL_LOAD(name)                                                      \
  lib.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));              \
  if (!lib.name) {                                                                   \
    failure = "GeoTIFF: " SARFUSE_GDAL_SONAME " has no function " #name;             \
    return;                                                                          \
  }
    SARFUSE_GDAL_FUNCTIONS(SARFUSE_GDAL_LOAD)
#undef SARFUSE_GDAL_LOAD
    lib.GDALAllRegister();
  });
  if (!failure.empty()) throw Error(failure);
  return lib;
}

}  // namespace sarfuse::io

// GDAL, loaded when the first GeoTIFF is written instead of at process start: its ~110 shared
// libraries cost every process tens of milliseconds to load (docs/design.md, "Products"), and most
// runs never write a GeoTIFF.
#pragma once
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>

namespace sarfuse::io {

#define SARFUSE_GDAL_FUNCTIONS(X)                                                                                    \
  X(GDALAllRegister) X(GDALGetDriverByName) X(GDALCreate) X(GDALClose) X(GDALGetRasterBand) X(GDALSetDescription) \
  X(GDALSetMetadataItem) X(GDALSetRasterScale) X(GDALDatasetRasterIO) X(GDALWriteBlock) X(GDALFlushCache)         \
  X(CPLPushErrorHandler) X(CPLPopErrorHandler) X(CPLQuietErrorHandler) X(CPLErrorReset) X(CPLGetLastErrorType)    \
  X(CPLGetLastErrorMsg) X(CSLSetNameValue) X(CSLDestroy)

// The GDAL functions the writers call, each named as in GDAL's headers.
struct GdalLibrary {
#define SARFUSE_GDAL_POINTER(name) decltype(&::name) name = nullptr;
  SARFUSE_GDAL_FUNCTIONS(SARFUSE_GDAL_POINTER)
#undef SARFUSE_GDAL_POINTER
};

// GDAL loaded and its drivers registered (once per process); throws Error naming the library and the
// loader's reason when it cannot be loaded.
const GdalLibrary& gdal();

}  // namespace sarfuse::io

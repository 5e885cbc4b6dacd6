// sarfuse: the whole public API in one include.
#pragma once
#include "sarfuse/blocks.hpp"       // long takes in azimuth blocks (linear processing)
#include "sarfuse/corrections.hpp"  // raw-data corrections: DC offset, I/Q balance, gains
#include "sarfuse/doppler.hpp"      // Doppler centroid estimation
#include "sarfuse/error.hpp"        // Error, FileError
#include "sarfuse/focus_file.hpp"   // file to product: focus_file, FocusSession
#include "sarfuse/gpu_fft.hpp"      // the GPU FFT building blocks, for callers with device data
#include "sarfuse/image.hpp"        // ComplexImage, RawView
#include "sarfuse/interrupt.hpp"    // cooperative cancellation
#include "sarfuse/io.hpp"           // readers and product writers
#include "sarfuse/params.hpp"       // radar and scene parameters
#include "sarfuse/plan.hpp"         // make_plan, Plan::focus
#include "sarfuse/quality.hpp"      // point-target analysis, image comparison
#include "sarfuse/sentinel1.hpp"    // Sentinel-1 Level-0 packets: reader, decoders, encoder
#include "sarfuse/simulate.hpp"     // the raw-data simulator

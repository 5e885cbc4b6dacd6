// sarfuse: stripmap raw-data simulator: point targets, and optionally distributed clutter.
#pragma once
#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

// Raw echoes of the scene's point targets (float64 phases), rows = pulses, plus the scene's clutter
// (scene.clutter_db: simulated in the 2-D frequency domain with mid-swath's range migration), with
// complex Gaussian noise at scene.snr_db relative to the mean echo power over the samples an echo
// reaches (every sample, with clutter).
// Deterministic for a given seed and independent of the thread count (threads = 0: all cores).
ComplexImage simulate(const RadarParams& radar, const SceneParams& scene, int threads = 0);

// Two-way amplitude weight of the azimuth antenna pattern for a target seen at instantaneous
// Doppler f: sinc^2(L (f - f_dc) / (2V)), limited to the main lobe (0 beyond the first nulls).
double antenna_weight(const RadarParams& radar, double doppler_hz);

}  // namespace sarfuse

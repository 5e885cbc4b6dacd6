// The reconstruction of BAQ and FDBAQ sample codes: the tables of S1-IF-ASD-PL-0007 issue 13 ("Sentinel-1
// SAR Space Packet Protocol Data Unit", Airbus DS for ESA), section 5.2: simple reconstruction for
// low threshold indices, normalised reconstruction levels times the sigma factor above them.
#pragma once
#include <array>
#include <cstdint>

namespace sarfuse::sentinel1 {

// FDBAQ bit-rate codes 0..4: magnitude codes 0..brc_max_code(brc).
constexpr int kBrcCount = 5;
constexpr int brc_max_code(int brc) {
  constexpr int max_code[kBrcCount] = {3, 4, 6, 9, 15};
  return max_code[brc];
}

// The reconstructed magnitudes of a block: value[m] for magnitude code m (the sample is -value[m] when
// its sign bit is set). `bits` 3, 4 or 5 for BAQ; FDBAQ by BRC.
struct BlockLevels {
  std::array<float, 16> value{};
};
BlockLevels baq_levels(int bits, int thidx);
BlockLevels fdbaq_levels(int brc, int thidx);

// The simple-reconstruction threshold: THIDX at or below it reconstructs codes as themselves (the top code
// by table 5.2-1's A or B value); above it, as normalised level x sigma factor.
int baq_simple_threshold(int bits);
int fdbaq_simple_threshold(int brc);

// Table 5.2-3: the sigma factor of THIDX 0..255.
float sigma_factor(int thidx);

}  // namespace sarfuse::sentinel1

// The tables of S1-IF-ASD-PL-0007 issue 13 section 5.2 as data: 5.2-1 (simple reconstruction parameters
// A for BAQ, B for FDBAQ), 5.2-2 (normalised reconstruction levels), 5.2-3 (sigma factors).
#include "sentinel1/reconstruction_tables.hpp"

#include <string>
#include <vector>

#include "sarfuse/error.hpp"

namespace sarfuse::sentinel1 {

namespace {

// Table 5.2-1, BAQ 3 / 4 / 5 bits: the top code's value for THIDX 0..(threshold).
const std::vector<float> kSimpleA[3] = {
    {3.00f, 3.00f, 3.12f, 3.55f},
    {7.00f, 7.00f, 7.00f, 7.17f, 7.40f, 7.76f},
    {15.00f, 15.00f, 15.00f, 15.00f, 15.00f, 15.00f, 15.44f, 15.56f, 16.11f, 16.38f, 16.65f},
};
// Table 5.2-1, FDBAQ BRC 0..4.
const std::vector<float> kSimpleB[kBrcCount] = {
    {3.00f, 3.00f, 3.16f, 3.53f},
    {4.00f, 4.00f, 4.08f, 4.37f},
    {6.00f, 6.00f, 6.00f, 6.15f, 6.50f, 6.88f},
    {9.00f, 9.00f, 9.00f, 9.00f, 9.36f, 9.50f, 10.10f},
    {15.00f, 15.00f, 15.00f, 15.00f, 15.00f, 15.00f, 15.22f, 15.50f, 16.05f},
};
// Table 5.2-2, BAQ 3 / 4 / 5 bits.
const std::vector<float> kNrlBaq[3] = {
    {0.2490f, 0.7681f, 1.3655f, 2.1864f},
    {0.1290f, 0.3900f, 0.6601f, 0.9471f, 1.2623f, 1.6261f, 2.0793f, 2.7467f},
    {0.0660f, 0.1985f, 0.3320f, 0.4677f, 0.6061f, 0.7487f, 0.8964f, 1.0510f, 1.2143f, 1.3896f, 1.5800f, 1.7914f,
     2.0329f, 2.3234f, 2.6971f, 3.2692f},
};
// Table 5.2-2, FDBAQ BRC 0..4.
const std::vector<float> kNrlFdbaq[kBrcCount] = {
    {0.3637f, 1.0915f, 1.8208f, 2.6406f},
    {0.3042f, 0.9127f, 1.5216f, 2.1313f, 2.8426f},
    {0.2305f, 0.6916f, 1.1528f, 1.6140f, 2.0754f, 2.5369f, 3.1191f},
    {0.1702f, 0.5107f, 0.8511f, 1.1916f, 1.5321f, 1.8726f, 2.2131f, 2.5536f, 2.8942f, 3.3744f},
    {0.1130f, 0.3389f, 0.5649f, 0.7908f, 1.0167f, 1.2428f, 1.4687f, 1.6947f, 1.9206f, 2.1466f, 2.3725f, 2.5985f,
     2.8244f, 3.0504f, 3.2764f, 3.6623f},
};
// Table 5.2-3: sigma factors, THIDX 0..255.
constexpr float kSigmaFactor[256] = {
    0.00f,   0.63f,   1.25f,   1.88f,   2.51f,   3.13f,   3.76f,   4.39f,   5.01f,   5.64f,   6.27f,   6.89f,
    7.52f,   8.15f,   8.77f,   9.40f,   10.03f,  10.65f,  11.28f,  11.91f,  12.53f,  13.16f,  13.79f,  14.41f,
    15.04f,  15.67f,  16.29f,  16.92f,  17.55f,  18.17f,  18.80f,  19.43f,  20.05f,  20.68f,  21.31f,  21.93f,
    22.56f,  23.19f,  23.81f,  24.44f,  25.07f,  25.69f,  26.32f,  26.95f,  27.57f,  28.20f,  28.83f,  29.45f,
    30.08f,  30.71f,  31.33f,  31.96f,  32.59f,  33.21f,  33.84f,  34.47f,  35.09f,  35.72f,  36.35f,  36.97f,
    37.60f,  38.23f,  38.85f,  39.48f,  40.11f,  40.73f,  41.36f,  41.99f,  42.61f,  43.24f,  43.87f,  44.49f,
    45.12f,  45.75f,  46.37f,  47.00f,  47.63f,  48.25f,  48.88f,  49.51f,  50.13f,  50.76f,  51.39f,  52.01f,
    52.64f,  53.27f,  53.89f,  54.52f,  55.15f,  55.77f,  56.40f,  57.03f,  57.65f,  58.28f,  58.91f,  59.53f,
    60.16f,  60.79f,  61.41f,  62.04f,  62.98f,  64.24f,  65.49f,  66.74f,  68.00f,  69.25f,  70.50f,  71.76f,
    73.01f,  74.26f,  75.52f,  76.77f,  78.02f,  79.28f,  80.53f,  81.78f,  83.04f,  84.29f,  85.54f,  86.80f,
    88.05f,  89.30f,  90.56f,  91.81f,  93.06f,  94.32f,  95.57f,  96.82f,  98.08f,  99.33f,  100.58f, 101.84f,
    103.09f, 104.34f, 105.60f, 106.85f, 108.10f, 109.35f, 110.61f, 111.86f, 113.11f, 114.37f, 115.62f, 116.87f,
    118.13f, 119.38f, 120.63f, 121.89f, 123.14f, 124.39f, 125.65f, 126.90f, 128.15f, 129.41f, 130.66f, 131.91f,
    133.17f, 134.42f, 135.67f, 136.93f, 138.18f, 139.43f, 140.69f, 141.94f, 143.19f, 144.45f, 145.70f, 146.95f,
    148.21f, 149.46f, 150.71f, 151.97f, 153.22f, 154.47f, 155.73f, 156.98f, 158.23f, 159.49f, 160.74f, 161.99f,
    163.25f, 164.50f, 165.75f, 167.01f, 168.26f, 169.51f, 170.77f, 172.02f, 173.27f, 174.53f, 175.78f, 177.03f,
    178.29f, 179.54f, 180.79f, 182.05f, 183.30f, 184.55f, 185.81f, 187.06f, 188.31f, 189.57f, 190.82f, 192.07f,
    193.33f, 194.58f, 195.83f, 197.09f, 198.34f, 199.59f, 200.85f, 202.10f, 203.35f, 204.61f, 205.86f, 207.11f,
    208.37f, 209.62f, 210.87f, 212.13f, 213.38f, 214.63f, 215.89f, 217.14f, 218.39f, 219.65f, 220.90f, 222.15f,
    223.41f, 224.66f, 225.91f, 227.17f, 228.42f, 229.67f, 230.93f, 232.18f, 233.43f, 234.69f, 235.94f, 237.19f,
    238.45f, 239.70f, 240.95f, 242.21f, 243.46f, 244.71f, 245.97f, 247.22f, 248.47f, 249.73f, 250.98f, 252.23f,
    253.49f, 254.74f, 255.99f, 255.99f,
};

// Codes 0..n-1: simple reconstruction (the code itself, the top one `top`) or levels x sigma factor.
BlockLevels levels(const std::vector<float>& simple_top, const std::vector<float>& nrl, int thidx) {
  BlockLevels b;
  const int n = static_cast<int>(nrl.size());
  if (thidx < static_cast<int>(simple_top.size())) {
    for (int m = 0; m + 1 < n; ++m) b.value[m] = static_cast<float>(m);
    b.value[n - 1] = simple_top[thidx];
  } else {
    for (int m = 0; m < n; ++m) b.value[m] = nrl[m] * kSigmaFactor[thidx];
  }
  return b;
}

int baq_index(int bits) {
  if (bits < 3 || bits > 5) throw Error("BAQ: " + std::to_string(bits) + " bits per sample (expected 3, 4 or 5)");
  return bits - 3;
}

}  // namespace

BlockLevels baq_levels(int bits, int thidx) { return levels(kSimpleA[baq_index(bits)], kNrlBaq[baq_index(bits)], thidx); }
BlockLevels fdbaq_levels(int brc, int thidx) { return levels(kSimpleB[brc], kNrlFdbaq[brc], thidx); }
int baq_simple_threshold(int bits) { return static_cast<int>(kSimpleA[baq_index(bits)].size()) - 1; }
int fdbaq_simple_threshold(int brc) { return static_cast<int>(kSimpleB[brc].size()) - 1; }
float sigma_factor(int thidx) { return kSigmaFactor[thidx]; }

}  // namespace sarfuse::sentinel1

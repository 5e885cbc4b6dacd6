// The CPU steps' own loops compiled twice, for x86-64-v3 (AVX2, FMA) and the baseline, the one the
// processor runs picked when the program loads (GCC's target_clones; other compilers: the baseline).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SARFUSE_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SARFUSE_SIMD_CLONES
#endif

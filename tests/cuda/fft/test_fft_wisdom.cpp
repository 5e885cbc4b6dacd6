// The GPU FFT plans' host side, on any machine: variant names and candidates per size, and the wisdom
// file's round trip and error messages.
#include <gtest/gtest.h>

#include <filesystem>

#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "sarfuse/io.hpp"

using namespace sarfuse;

TEST(FftWisdom, RoundTripAndBrokenFiles) {
  const std::string dir = ::testing::TempDir() + "/sarfuse_wisdom_unit";
  std::filesystem::remove_all(dir);
  const std::string path = dir + "/sub/wisdom.json";  // folders made on save
  gpu::FftDesc a, b;
  a.n = 4096;
  a.batch = 100;
  b = a;
  b.inverse = true;
  {
    gpu::FftWisdom w(path);
    gpu::FftVariant v;
    EXPECT_FALSE(w.lookup("GPU X", a, &v));
    w.remember("GPU X", a, gpu::FftVariant::stockham8, 0.25);
    w.remember("GPU Y", a, gpu::FftVariant::cufft, 0.5);
    w.remember_length("GPU X", "range-fft lines=512 samples=6250", 7680, 1.2);
    w.save();
  }
  const gpu::FftWisdom w(path);
  int length = 0;
  ASSERT_TRUE(w.lookup_length("GPU X", "range-fft lines=512 samples=6250", &length));  // the chain's range length
  EXPECT_EQ(length, 7680);
  EXPECT_FALSE(w.lookup_length("GPU Y", "range-fft lines=512 samples=6250", &length));
  gpu::FftVariant v = gpu::FftVariant::automatic;
  ASSERT_TRUE(w.lookup("GPU X", a, &v));
  EXPECT_EQ(v, gpu::FftVariant::stockham8);
  ASSERT_TRUE(w.lookup("GPU Y", a, &v));
  EXPECT_EQ(v, gpu::FftVariant::cufft);
  EXPECT_FALSE(w.lookup("GPU X", b, &v));  // another descriptor: not remembered
  write_text_file(path, "{\"GPU X\": {\"n=1\": {\"variant\": \"radix3\", \"ms\": 1}}}");
  try {
    gpu::FftWisdom broken(path);
    FAIL() << "a wisdom file with an unknown variant was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a sarfuse wisdom file"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(FftWisdom, VariantsPerSize) {
  gpu::FftDesc d;
  d.n = 16384;
  EXPECT_EQ(gpu::fft_variants_for(d).size(), 3u);  // radix 16 (1024 threads), split-layout CT DIF, cuFFT
  d.n = 4096;
  EXPECT_EQ(gpu::fft_variants_for(d).size(), 5u);  // radix 16, 8, 4, CT DIF and cuFFT
  d.n = 1 << 22;  // beyond one block: four-step and cuFFT; strided: cuFFT only
  ASSERT_EQ(gpu::fft_variants_for(d).size(), 2u);
  EXPECT_EQ(gpu::fft_variants_for(d)[0], gpu::FftVariant::four_step);
  d.stride = 2;
  EXPECT_EQ(gpu::fft_variants_for(d).size(), 1u);
  d.stride = 1;
  d.n = 7680;  // 2^9 x 3 x 5: mixed radix and cuFFT
  ASSERT_EQ(gpu::fft_variants_for(d).size(), 2u);
  EXPECT_EQ(gpu::fft_variants_for(d)[0], gpu::FftVariant::mixed_radix);
  d.n = 11 * 512;  // a prime factor 11: cuFFT only
  ASSERT_EQ(gpu::fft_variants_for(d).size(), 1u);
  EXPECT_EQ(gpu::fft_variants_for(d)[0], gpu::FftVariant::cufft);
  d.n = 3 * 4096;  // 12288: the longest line the mixed kernel holds
  EXPECT_EQ(gpu::fft_variants_for(d).size(), 2u);
  d.n = 3 * 8192;  // beyond it: cuFFT only
  EXPECT_EQ(gpu::fft_variants_for(d).size(), 1u);
  for (auto v : {gpu::FftVariant::automatic, gpu::FftVariant::stockham16, gpu::FftVariant::stockham8,
                 gpu::FftVariant::stockham4, gpu::FftVariant::mixed_radix, gpu::FftVariant::cufft,
                 gpu::FftVariant::ct_dif_split, gpu::FftVariant::four_step, gpu::FftVariant::tensor_fp16,
                 gpu::FftVariant::tensor_tf32, gpu::FftVariant::tensor_tf32x3, gpu::FftVariant::tensor_fp64,
                 gpu::FftVariant::tensor_bf16})
    EXPECT_EQ(gpu::parse_fft_variant(gpu::to_string(v)), v);
  EXPECT_THROW(gpu::parse_fft_variant("radix3"), Error);
}

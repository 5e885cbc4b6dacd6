// focus_file()'s product rows on their way out (range spreading, statistics, the kept image, the
// windows around point targets) and its processing report.
#pragma once
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "sarfuse/focus_file.hpp"

namespace sarfuse::pipeline {

// Sums of |s|^2 and |s|^4 and the largest |s|^2 over n samples: the report's statistics, taken block by
// block (the same sums in the same order wherever they are taken).
struct PowerSums {
  double power = 0, power2 = 0, peak = 0;
};
PowerSums power_sums(const std::complex<float>* samples, std::size_t n, int threads);
// `count` rows of `samples` values, `pitch` apart (the same sums as above when pitch == samples).
PowerSums power_sums(const std::complex<float>* rows, std::size_t count, std::size_t samples, std::size_t pitch,
                     int threads);
PowerSums power_sums(const std::uint16_t* complex32, std::size_t n, int threads);  // IEEE half pairs

class ProductRows {
 public:
  ProductRows(const FocusRequest& request, const RadarParams& radar, std::size_t samples, std::size_t rows);
  void start(const ProductGeometry& geometry);  // before the first rows: places the target windows
  // The rows as the product gets them (range spreading applied), after taking their statistics.
  const std::complex<float>* add(const std::complex<float>* rows, std::size_t count);
  // Whether add() must see the rows themselves (range spreading, the kept image, target windows); else
  // their statistics may be taken elsewhere (add_counted).
  bool needs_rows() const;
  void add_counted(const PowerSums& sums, std::size_t count);
  // Statistics, the kept image and the point-target analysis into the report.
  void finish(FocusReport& report);
  double encode_s = 0;

 private:
  struct TargetWindow {
    long row0 = 0, col0 = 0;
    ComplexImage image;
  };
  const FocusRequest& r_;
  RadarParams radar_;
  std::size_t samples_, rows_, written_ = 0;
  ProductGeometry geometry_;
  std::vector<float> spreading_;
  std::vector<std::complex<float>> scratch_;
  std::vector<TargetWindow> windows_;
  ComplexImage image_;
  double power_ = 0, power2_ = 0, peak_ = 0;
};

// The processing report (JSON text): timings, block layout, product metadata, statistics, targets.
std::string report_json(const FocusRequest& request, const FocusReport& report, bool input_streamed,
                        std::size_t range_fft_size);

}  // namespace sarfuse::pipeline

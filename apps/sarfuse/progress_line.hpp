// A progress line on stderr (a terminal only): scenes, rows, rate and time left, redrawn in place.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

namespace sarfuse::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::size_t scenes) : scenes_(scenes), start_(Clock::now()) {}
  void update(std::size_t scene, std::size_t rows_done, std::size_t rows, const std::string& name) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double fraction = (static_cast<double>(scene) + static_cast<double>(rows_done) / static_cast<double>(rows)) /
                            static_cast<double>(scenes_);
    const double left = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    rows_total_ = rows_before_ + rows_done;
    char bar[21];
    const int filled = static_cast<int>(fraction * 20 + 0.5);
    for (int k = 0; k < 20; ++k) bar[k] = k < filled ? '#' : '.';
    bar[20] = 0;
    std::fprintf(stderr, "\33[2K\r[%s] %3.0f%%  scene %zu/%zu %s  %.0f rows/s  ETA %.1f s", bar, 100 * fraction,
                 scene + 1, scenes_, name.c_str(), static_cast<double>(rows_total_) / std::max(elapsed, 1e-9), left);
    std::fflush(stderr);
    last_rows_ = rows;
  }
  void scene_done(std::size_t) { rows_before_ += last_rows_; }
  void finish() {
    std::fprintf(stderr, "\33[2K\r");
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t scenes_, rows_before_ = 0, rows_total_ = 0, last_rows_ = 0;
  Clock::time_point start_;
};

}  // namespace sarfuse::cli

// A progress line on stderr (a terminal only): scenes done, rate and time left, redrawn in place.
// Scenes may progress at the same time (FocusSession::focus_all): updates come from several threads.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <vector>

namespace sarfuse::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::size_t scenes) : fraction_(scenes, 0.0), rows_(scenes, 0), start_(Clock::now()) {}
  void update(std::size_t scene, std::size_t rows_done, std::size_t rows) {
    std::lock_guard lock(m_);
    fraction_[scene] = static_cast<double>(rows_done) / static_cast<double>(std::max<std::size_t>(rows, 1));
    rows_[scene] = rows_done;
    double sum = 0;
    std::size_t done = 0, total_rows = 0;
    for (std::size_t k = 0; k < fraction_.size(); ++k) {
      sum += fraction_[k];
      done += fraction_[k] >= 1.0;
      total_rows += rows_[k];
    }
    const double fraction = sum / static_cast<double>(fraction_.size());
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double left = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    char bar[21];
    const int filled = static_cast<int>(fraction * 20 + 0.5);
    for (int k = 0; k < 20; ++k) bar[k] = k < filled ? '#' : '.';
    bar[20] = 0;
    std::fprintf(stderr, "\33[2K\r[%s] %3.0f%%  %zu/%zu scenes  %.0f rows/s  ETA %.1f s", bar, 100 * fraction, done,
                 fraction_.size(), static_cast<double>(total_rows) / std::max(elapsed, 1e-9), left);
    std::fflush(stderr);
  }
  void finish() {
    std::fprintf(stderr, "\33[2K\r");
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::mutex m_;
  std::vector<double> fraction_;
  std::vector<std::size_t> rows_;
  Clock::time_point start_;
};

}  // namespace sarfuse::cli

// sarfuse: errors. Every user-facing failure is a sarfuse::Error whose message names the file and
// field at fault and the value that was expected; the CLI prints it and exits with status 2.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

namespace sarfuse {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file that cannot be found, opened, read or written (as opposed to one whose content is wrong):
// Python sees it as OSError, every other Error as ValueError.
class FileError : public Error {
 public:
  using Error::Error;
};

// Raw data with a NaN or infinite sample, found by a CPU plan as it converts each line: where, in the
// lines it was given. Whoever read them names the file and its line (the pipeline does).
class NonFiniteSample : public Error {
 public:
  NonFiniteSample(std::size_t line_, std::size_t sample_, bool nan_)
      : Error("raw data: sample (" + std::to_string(line_) + ", " + std::to_string(sample_) + ") is " +
              (nan_ ? "NaN" : "infinite") + "; expected finite values"),
        line(line_),
        sample(sample_),
        nan(nan_) {}
  std::size_t line, sample;
  bool nan;
};

}  // namespace sarfuse

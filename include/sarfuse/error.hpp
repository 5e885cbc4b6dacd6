// sarfuse: errors. Every user-facing failure is a sarfuse::Error whose message names the file and
// field at fault and the value that was expected; the CLI prints it and exits with status 2.
#pragma once
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

}  // namespace sarfuse

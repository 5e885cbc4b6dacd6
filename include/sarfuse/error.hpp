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

}  // namespace sarfuse

#include "core/threads.hpp"

#include <omp.h>

#include <thread>

namespace sarfuse::core {
int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const int n = omp_get_num_procs();
  return n > 0 ? n : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}
}  // namespace sarfuse::core

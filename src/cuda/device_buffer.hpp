#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda/check.hpp"

namespace sarfuse::cuda {

// Owning device allocation (cudaMalloc), freed on destruction.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  void resize(std::size_t n) {
    if (n == n_) return;
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
    if (n) {
      const cudaError_t e = cudaMalloc(&p_, n * sizeof(T));
      if (e != cudaSuccess) {
        cudaGetLastError();  // not sticky: later calls must not see it
        p_ = nullptr;
        throw Error("cudaMalloc of " + std::to_string(n * sizeof(T)) + " bytes failed: " + cudaGetErrorString(e));
      }
    }
    n_ = n;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace sarfuse::cuda

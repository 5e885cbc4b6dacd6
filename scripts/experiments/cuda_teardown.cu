// Experiment: does releasing the CUDA context early remove the process-exit cost?
// (docs/bench/e2e/teardown_experiment.txt). Modes: 0 context only; 1 + 3 GB on the device and 1.4 GB
// pinned host memory, exit; 2 as 1, then unpin, free and cudaDeviceReset before exit; 3 as 2 on a
// thread during 200 ms of other work; 4 as 2 without the reset; 5 as 1 with 200 ms of other work;
// a second argument: _exit instead of return.
//   nvcc -O2 -arch=sm_90 -cudart static -o teardown scripts/experiments/cuda_teardown.cu
//   python3 scripts/experiments/cuda_teardown_run.py ./teardown
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>
#include <sys/mman.h>
using C = std::chrono::steady_clock;
static double s(C::time_point a) { return std::chrono::duration<double>(C::now() - a).count(); }
__global__ void touch(float* p, size_t n) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) p[i] = 1.f; }
#define CK(x) do { cudaError_t e = (x); if (e) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main(int argc, char** argv) {
  const int mode = std::atoi(argv[1]);
  const auto t0 = C::now();
  CK(cudaFree(0));
  const double ctx = s(t0);
  float* d = nullptr; void* h = nullptr;
  size_t dn = (size_t)3 << 30, hn = (size_t)1400 << 20;
  if (mode >= 1) {  // 5: as 1, then 200 ms of other work
    CK(cudaMalloc(&d, dn));
    touch<<<(dn / 4 + 255) / 256, 256>>>(d, dn / 4);
    CK(cudaDeviceSynchronize());
    h = mmap(nullptr, hn, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    std::memset(h, 1, hn);
    CK(cudaHostRegister(h, hn, 0));
    CK(cudaMemcpy(d, h, hn, cudaMemcpyHostToDevice));
  }
  const double setup = s(t0);
  double rel = 0;
  if (mode == 2 || mode == 3 || mode == 4) {
    auto release = [&] {
      const auto r = C::now();
      cudaHostUnregister(h);
      cudaFree(d);
      if (mode != 4) cudaDeviceReset();
      rel = s(r);
    };
    if (mode == 3) { std::thread th(release); std::this_thread::sleep_for(std::chrono::milliseconds(200)); th.join(); }
    else release();
  }
  if (mode == 5) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::printf("mode %d ctx %.3f setup %.3f release %.3f at %.3f\n", mode, ctx, setup, rel, s(t0));
  std::fflush(stdout);
  if (argc > 2) _exit(0);
  return 0;
}

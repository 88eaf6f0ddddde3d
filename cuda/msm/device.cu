// The devices this process can use (info().cuda) and the kernel-image check of device.cuh.
#include "device.cuh"

namespace msm {
namespace gpu {
namespace {
__global__ void probe_kernel() {}
}  // namespace

void require_kernel_image(int device) {
  MSM_CUDA_CHECK(cudaSetDevice(device));
  cudaFuncAttributes fa;
  const cudaError_t e = cudaFuncGetAttributes(&fa, probe_kernel);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw EngineError("ERR_CUDA_UNAVAILABLE", std::string("no kernel image for CUDA device ") + std::to_string(device) +
                                                  ": " + cudaGetErrorString(e));
  }
}

}  // namespace gpu

CudaStatus cuda_status() {
  CudaStatus s;
  s.compiled = true;
  cudaRuntimeGetVersion(&s.runtime_version);
  if (cudaDriverGetVersion(&s.driver_version) != cudaSuccess) s.driver_version = 0;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    s.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    return s;
  }
  if (count == 0) {
    s.reason = "no CUDA device found";
    return s;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    s.devices.push_back(CudaDevice{i, p.name, p.major, p.minor, p.totalGlobalMem, p.multiProcessorCount});
  }
  s.available = !s.devices.empty();
  if (!s.available) s.reason = "no CUDA device could be queried";
  return s;
}

}  // namespace msm

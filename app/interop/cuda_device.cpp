// CUDA device discovery and UUID matching for Vulkan/CUDA sharing.
#include "interop/cuda_device.hpp"

#include <cstdio>
#include <cstring>

#if TILELAB_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace tl::interop {

std::string format_uuid(const std::array<std::uint8_t, 16>& uuid) {
    std::string s;
    char buf[4];
    for (std::size_t i = 0; i < uuid.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        std::snprintf(buf, sizeof buf, "%02x", uuid[i]);
        s += buf;
    }
    return s;
}

#if TILELAB_HAVE_CUDA

std::optional<CudaDeviceInfo> query_cuda_device(std::string* why) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (why) {
            if (e == cudaErrorInsufficientDriver)
                *why = "CUDA unavailable: no NVIDIA driver (cudaErrorInsufficientDriver)";
            else if (e == cudaErrorNoDevice || count == 0)
                *why = "CUDA unavailable: no CUDA device (cudaErrorNoDevice)";
            else
                *why = std::string("CUDA unavailable: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
        }
        cudaGetLastError();
        return std::nullopt;
    }
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        if (why) *why = "CUDA unavailable: cudaGetDeviceProperties failed";
        cudaGetLastError();
        return std::nullopt;
    }
    CudaDeviceInfo info;
    info.ordinal = dev;
    info.name = prop.name;
    std::memcpy(info.uuid.data(), prop.uuid.bytes, 16);
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.total_memory = prop.totalGlobalMem;
    cudaDriverGetVersion(&info.driver_version);
    cudaRuntimeGetVersion(&info.runtime_version);
    return info;
}

bool select_cuda_device_by_uuid(const std::array<std::uint8_t, 16>& uuid) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
        if (std::memcmp(prop.uuid.bytes, uuid.data(), 16) == 0) return cudaSetDevice(d) == cudaSuccess;
    }
    return false;
}

#else

std::optional<CudaDeviceInfo> query_cuda_device(std::string* why) {
    if (why) *why = "CUDA unavailable: tilelab was built without the CUDA toolkit";
    return std::nullopt;
}

bool select_cuda_device_by_uuid(const std::array<std::uint8_t, 16>&) { return false; }

#endif

} // namespace tl::interop

// The CUDA device the app shares memory with: found by UUID, described for the Interop panel.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace tl::interop {

struct CudaDeviceInfo {
    int ordinal = -1;
    std::string name;
    std::array<std::uint8_t, 16> uuid{};
    int cc_major = 0, cc_minor = 0;
    int driver_version = 0;   // cudaDriverGetVersion, e.g. 13000
    int runtime_version = 0;  // cudaRuntimeGetVersion
    int sm_count = 0;
    std::size_t total_memory = 0;
};

// The first CUDA device (ordinal 0) when CUDA is usable; otherwise nullopt and `why` says why
// ("CUDA unavailable: no NVIDIA driver (cudaErrorInsufficientDriver)", "built without CUDA").
std::optional<CudaDeviceInfo> query_cuda_device(std::string* why);

// Makes the device with this UUID current in this thread; false when no CUDA device has it.
bool select_cuda_device_by_uuid(const std::array<std::uint8_t, 16>& uuid);

std::string format_uuid(const std::array<std::uint8_t, 16>& uuid);

} // namespace tl::interop

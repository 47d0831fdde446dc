// Owning pitched device allocation for the commands and GPU tests (CUDA builds only): freed on
// destruction, move-only, errors returned as sentences rather than thrown.
#pragma once

#if TILELAB_HAVE_CUDA
#include "stencil_api.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

namespace tl::cmd {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    ~DeviceBuffer() { release(); }

    // Empty string on success, else "cudaMalloc(N bytes): <reason>".
    std::string allocate(std::size_t bytes) {
        release();
        if (bytes == 0) return {};
        const cudaError_t e = cudaMalloc(&ptr_, bytes);
        if (e != cudaSuccess) {
            ptr_ = nullptr;
            (void)cudaGetLastError();
            return "cudaMalloc(" + std::to_string(bytes) + " bytes): " + cudaGetErrorString(e);
        }
        bytes_ = bytes;
        return {};
    }
    void release() {
        if (ptr_) cudaFree(ptr_);
        ptr_ = nullptr;
        bytes_ = 0;
    }
    void* get() const { return ptr_; }
    std::size_t size() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

// Pitch used for device images here: the row rounded up to `align` bytes (16 suits every mechanism).
inline std::size_t round_up(std::size_t v, std::size_t align) { return (v + align - 1) / align * align; }

// "call: cudaErrorX (text)" for a failed runtime call, empty on success.
inline std::string cuda_error_text(const char* call, cudaError_t e) {
    if (e == cudaSuccess) return {};
    return std::string(call) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

} // namespace tl::cmd
#endif

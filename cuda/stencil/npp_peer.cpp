// NPP peers of the tilelab filters for `tilelab bench` (built only when CMake found nppif/nppc and
// this file compiled against their headers). Replicate border only: that is NPP's common mode.
#include "npp_peer.hpp"

#include <cuda_runtime.h>
#include <nppcore.h>
#include <nppi_filtering_functions.h>

#include <array>
#include <map>
#include <mutex>
#include <vector>

namespace tl::cuda {

namespace {

NppStreamContext context_for(cudaStream_t stream) {
    NppStreamContext c{};
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, dev);
    c.hStream = stream;
    c.nCudaDeviceId = dev;
    c.nMultiProcessorCount = p.multiProcessorCount;
    c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    c.nSharedMemPerBlock = p.sharedMemPerBlock;
    c.nCudaDevAttrComputeCapabilityMajor = p.major;
    c.nCudaDevAttrComputeCapabilityMinor = p.minor;
    unsigned flags = 0;
    cudaStreamGetFlags(stream, &flags);
    c.nStreamFlags = flags;
    return c;
}

// Device copies of convolution kernels, made once per distinct kernel and kept for the process
// (the bench calls the same few thousands of times; a cudaMalloc per call would be timed).
struct KernelCache {
    std::mutex mutex;
    std::map<std::vector<int>, void*> ints;
    std::map<std::vector<float>, void*> floats;
    template <class T> const T* get(std::map<std::vector<T>, void*>& m, const std::vector<T>& k) {
        std::lock_guard lock(mutex);
        auto it = m.find(k);
        if (it != m.end()) return static_cast<const T*>(it->second);
        void* d = nullptr;
        if (cudaMalloc(&d, k.size() * sizeof(T)) != cudaSuccess) return nullptr;
        cudaMemcpy(d, k.data(), k.size() * sizeof(T), cudaMemcpyHostToDevice);
        m.emplace(k, d);
        return static_cast<const T*>(d);
    }
};
KernelCache& cache() {
    static KernelCache* c = new KernelCache;
    return *c;
}

Result status(const char* fn, NppStatus s) {
    if (s >= 0) return Result::success();  // warnings are positive
    return Result::fail(std::string(fn) + " returned NPP status " + std::to_string(static_cast<int>(s)));
}

} // namespace

Result npp_filter(const FilterParams& params, Border border, const DeviceImage& src, const DeviceImage& dst,
                  void* stream) {
    if (src.format != PixelFormat::RGBA8) return Result::fail("NPP peer: RGBA8 only");
    if (border != Border::Clamp) return Result::fail("NPP peer: replicate (clamp) border only");
    const auto ctx = context_for(static_cast<cudaStream_t>(stream));
    const NppiSize size{src.width, src.height};
    const NppiPoint origin{0, 0};
    const auto* s = static_cast<const Npp8u*>(src.data);
    auto* d = static_cast<Npp8u*>(dst.data);
    const int ss = static_cast<int>(src.pitch), ds = static_cast<int>(dst.pitch);
    switch (params.kind) {
    case FilterKind::Box: {
        const int n = 2 * params.radius + 1;
        return status("nppiFilterBoxBorder_8u_C4R_Ctx",
                      nppiFilterBoxBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, NppiSize{n, n},
                                                     NppiPoint{params.radius, params.radius}, NPP_BORDER_REPLICATE, ctx));
    }
    case FilterKind::Gaussian: {
        int r = 0;
        const auto w = gaussian_weights(params.sigma, &r);
        const std::vector<float> taps(w.begin(), w.begin() + 2 * r + 1);
        const float* k = cache().get(cache().floats, taps);
        if (!k) return Result::fail("NPP peer: cudaMalloc for the kernel failed");
        return status("nppiFilterGaussAdvancedBorder_8u_C4R_Ctx",
                      nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, 2 * r + 1, k,
                                                               NPP_BORDER_REPLICATE, ctx));
    }
    default: {
        // Every other filter is timed as NPP's general integer convolution of the same size
        // (3x3, or 5x5 for a 5x5 user kernel): the same bytes and taps, not the same formula.
        const int n = params.kind == FilterKind::UserKernel ? params.user_size : 3;
        std::vector<int> k(static_cast<std::size_t>(n * n), 1);
        k[static_cast<std::size_t>(n * n / 2)] = -static_cast<int>(n * n - 2);
        const int* dk = cache().get(cache().ints, k);
        if (!dk) return Result::fail("NPP peer: cudaMalloc for the kernel failed");
        return status("nppiFilterBorder_8u_C4R_Ctx",
                      nppiFilterBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, dk, NppiSize{n, n},
                                                  NppiPoint{n / 2, n / 2}, 1, NPP_BORDER_REPLICATE, ctx));
    }
    }
}

} // namespace tl::cuda

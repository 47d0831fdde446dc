// Mechanism "texture": the source is copied into a CUDA array (the form an optimal-tiled Vulkan
// image takes when shared) and read through a texture object; clamp and zero borders are done by
// the texture unit's addressing, mirror is folded in software (see the table's explanation).
#include "mechanisms.hpp"
#include "filters.cuh"

#include <algorithm>
#include <mutex>
#include <vector>

namespace tl::cuda::detail {

namespace {

using namespace tl::cuda::dev;

template <class Pixel> struct TexElem;
template <> struct TexElem<PixelRGBA8> {
    using Type = uchar4;
    __device__ __forceinline__ static std::uint32_t to_storage(uchar4 v) {
        return std::uint32_t(v.x) | (std::uint32_t(v.y) << 8) | (std::uint32_t(v.z) << 16) | (std::uint32_t(v.w) << 24);
    }
};
template <> struct TexElem<PixelRGBA32F> {
    using Type = float4;
    __device__ __forceinline__ static float4 to_storage(float4 v) { return v; }
};

// Unnormalised point sampling at pixel centres; with mirror the coordinate is folded first so
// the hardware never has to address outside the array.
template <class Filter, class Pixel>
__global__ void __launch_bounds__(256) stencil_texture_kernel(const __grid_constant__ Filter f, cudaTextureObject_t tex, void* dst,
                                                              std::size_t dst_pitch, int w, int h, bool mirror) {
    stage_epilogue(f);
    if constexpr (is_fused_v<Filter>) __syncthreads();  // the staged LUTs, before any thread leaves
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    using E = TexElem<Pixel>;
    auto win = [&](int dx, int dy) {
        int sx = x + dx, sy = y + dy;
        if (mirror) {
            sx = fold_coord(sx, w, Border::Mirror);
            sy = fold_coord(sy, h, Border::Mirror);
        }
        return Pixel::to_float(E::to_storage(tex2D<typename E::Type>(tex, float(sx) + 0.5f, float(sy) + 0.5f)));
    };
    row_ptr<Pixel>(dst, dst_pitch, y)[x] = finish<Pixel>(f, f(win));
}

// The two texture objects a launch picks from over `array`: unnormalised point sampling, clamp
// (border clamp) or border addressing (border zero: the border colour is 0). On failure neither
// is left behind.
Result make_point_textures(cudaArray_t array, cudaTextureObject_t& clamp, cudaTextureObject_t& border) {
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    clamp = border = 0;
    for (int i = 0; i < 2; ++i) {
        cudaTextureDesc td{};
        const auto mode = i == 0 ? cudaAddressModeClamp : cudaAddressModeBorder;
        td.addressMode[0] = td.addressMode[1] = mode;
        td.filterMode = cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = 0;
        if (auto e = cudaCreateTextureObject(i == 0 ? &clamp : &border, &res, &td, nullptr); e != cudaSuccess) {
            (void)cudaGetLastError();
            if (clamp) cudaDestroyTextureObject(clamp);
            clamp = border = 0;
            return Result::fail(std::string("texture: cudaCreateTextureObject: ") + cudaGetErrorString(e));
        }
    }
    return Result::success();
}

// The CUDA array and its texture objects, re-created when size, format or device changes. One per
// process: launches from several threads serialise on the mutex (the array is the shared state).
struct TextureCache {
    std::mutex mutex;
    cudaArray_t array = nullptr;
    cudaTextureObject_t tex_clamp = 0, tex_border = 0;
    int w = 0, h = 0, device = -1;
    PixelFormat format = PixelFormat::RGBA8;

    void release() {
        if (tex_clamp) cudaDestroyTextureObject(tex_clamp);
        if (tex_border) cudaDestroyTextureObject(tex_border);
        if (array) cudaFreeArray(array);
        array = nullptr;
        tex_clamp = tex_border = 0;
        w = h = 0;
    }

    Result ensure(int width, int height, PixelFormat f) {
        int dev = 0;
        cudaGetDevice(&dev);
        if (array && width == w && height == h && f == format && dev == device) return Result::success();
        release();
        const cudaChannelFormatDesc desc = f == PixelFormat::RGBA8 ? cudaCreateChannelDesc<uchar4>()
                                                                     : cudaCreateChannelDesc<float4>();
        if (auto e = cudaMallocArray(&array, &desc, static_cast<std::size_t>(width), static_cast<std::size_t>(height));
            e != cudaSuccess) {
            array = nullptr;
            (void)cudaGetLastError();
            return Result::fail(std::string("texture: cudaMallocArray: ") + cudaGetErrorString(e));
        }
        if (auto r = make_point_textures(array, tex_clamp, tex_border); !r) {
            release();
            return r;
        }
        w = width;
        h = height;
        format = f;
        device = dev;
        return Result::success();
    }
};

TextureCache& cache() {
    static TextureCache* c = new TextureCache;  // never destroyed: the runtime may be gone at exit
    return *c;
}

} // namespace

namespace {

// The filter kernel over whichever texture object samples the source.
Result run_texture_kernel(const LaunchArgs& a, cudaTextureObject_t tex) {
    const bool mirror = a.border == Border::Mirror;
    return dev::with_pixel(a.src.format, [&](auto pixel) -> Result {
        using Pixel = decltype(pixel);
        return dev::with_filter(a.params, [&](auto filter0) -> Result {
          return dev::with_epilogue<Pixel>(filter0, a.ops, [&](const auto& filter) -> Result {
            using Filter = std::decay_t<decltype(filter)>;
            stencil_texture_kernel<Filter, Pixel><<<pixel_grid(a), policy_block(a), 0, a.stream>>>(
                filter, tex, a.dst.data, a.dst.pitch, a.src.width, a.src.height, mirror);
            return launch_error("stencil_texture_kernel");
          });
        });
    });
}

// Texture objects over arrays callers own (tl::cuda::launch_texture_array), made on first use and
// destroyed by forget_texture_array(), which the owner calls before freeing the array: a texture
// object must not outlive its array, and must not be destroyed while a launch may still read it.
struct ArrayTextures {
    std::mutex mutex;
    struct Entry {
        const void* array;
        cudaTextureObject_t tex_clamp, tex_border;
    };
    std::vector<Entry> entries;
};

ArrayTextures& array_textures() {
    static ArrayTextures* t = new ArrayTextures;  // never destroyed: the runtime may be gone at exit
    return *t;
}

} // namespace

Result launch_texture(const LaunchArgs& a) {
    auto& c = cache();
    std::lock_guard lock(c.mutex);
    if (auto r = c.ensure(a.src.width, a.src.height, a.src.format); !r) return r;
    const std::size_t row = static_cast<std::size_t>(a.src.width) * bytes_per_pixel(a.src.format);
    if (auto e = cudaMemcpy2DToArrayAsync(c.array, 0, 0, a.src.data, a.src.pitch, row,
                                          static_cast<std::size_t>(a.src.height), cudaMemcpyDeviceToDevice, a.stream);
        e != cudaSuccess) {
        (void)cudaGetLastError();
        return Result::fail(std::string("texture: copy into the CUDA array: ") + cudaGetErrorString(e));
    }
    return run_texture_kernel(a, a.border == Border::Zero ? c.tex_border : c.tex_clamp);
}

Result launch_texture_on_array(const LaunchArgs& a, const void* cuda_array) {
    auto& t = array_textures();
    std::lock_guard lock(t.mutex);
    auto it = std::find_if(t.entries.begin(), t.entries.end(), [&](const auto& e) { return e.array == cuda_array; });
    if (it == t.entries.end()) {
        ArrayTextures::Entry e{cuda_array, 0, 0};
        if (auto r = make_point_textures(static_cast<cudaArray_t>(const_cast<void*>(cuda_array)), e.tex_clamp,
                                         e.tex_border);
            !r)
            return Result::fail(r.reason + " (on the caller's array)");
        it = t.entries.insert(t.entries.end(), e);
    }
    return run_texture_kernel(a, a.border == Border::Zero ? it->tex_border : it->tex_clamp);
}

void forget_texture_array(const void* cuda_array) {
    auto& t = array_textures();
    std::lock_guard lock(t.mutex);
    for (auto it = t.entries.begin(); it != t.entries.end();)
        if (it->array == cuda_array) {
            cudaDestroyTextureObject(it->tex_clamp);
            cudaDestroyTextureObject(it->tex_border);
            it = t.entries.erase(it);
        } else {
            ++it;
        }
}

} // namespace tl::cuda::detail

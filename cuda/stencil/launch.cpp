// The stencil host API in a CUDA build: device status, capability checks and the validated
// launch that dispatches to one launcher per mechanism (kLaunchers).
#include "mechanisms.hpp"
#include "tile_planner.hpp"  // max_tma_tile_w: the TMA family's radius limit, checked before launch
#include "pixel/pixel_params.hpp"  // build_ops_block: the chain as the fused kernels read it

#include <array>
#include <memory>
#include <mutex>
#include <vector>

namespace tl::cuda {

namespace detail {

namespace {

struct Row {
    Mechanism m;
    Launcher fn;
};
constexpr std::array<Row, 8> kLaunchers{{
    {Mechanism::Global, launch_global},
    {Mechanism::Texture, launch_texture},
    {Mechanism::Registers, launch_registers},
    {Mechanism::Smem, launch_smem},
    {Mechanism::Ldgsts, launch_ldgsts},
    {Mechanism::Tma, launch_tma},
    {Mechanism::TmaWs, launch_tma_ws},
    {Mechanism::Cluster, launch_cluster},
}};

// What the launchers read of a device, read once per device on first use: the clock attributes
// behind dram_per_sm_cycle cost a driver query of about 0.9 ms (H200), which a per-launch read
// added to every `registers` launch.
struct DeviceInfo {
    cudaDeviceProp props{};
    double dram_per_sm_cycle = 0.0;  // dram_bytes_per_sm_cycle()
};
struct DeviceCache {
    std::mutex mutex;
    std::vector<std::unique_ptr<DeviceInfo>> devices;  // per device ordinal
};
DeviceCache& device_cache() {
    static DeviceCache* c = new DeviceCache;  // never destroyed: used until the very end of main
    return *c;
}

std::string cc_text(int major, int minor) { return std::to_string(major) + "." + std::to_string(minor); }

const DeviceInfo& current_device_info() {
    int dev = 0;
    cudaGetDevice(&dev);
    auto& c = device_cache();
    std::lock_guard lock(c.mutex);
    if (c.devices.size() <= static_cast<std::size_t>(dev))
        c.devices.resize(static_cast<std::size_t>(dev) + 1);
    auto& d = c.devices[static_cast<std::size_t>(dev)];
    if (!d) {
        d = std::make_unique<DeviceInfo>();
        const cudaDeviceProp& p = d->props;
        int mem_khz = 0, sm_khz = 0;
        if (cudaGetDeviceProperties(&d->props, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            mem_khz = 0;
        }
        if (mem_khz > 0 && sm_khz > 0 && p.memoryBusWidth > 0 && p.multiProcessorCount > 0)
            d->dram_per_sm_cycle = 2.0 * double(mem_khz) * (double(p.memoryBusWidth) / 8.0) /
                                   (double(p.multiProcessorCount) * double(sm_khz));
    }
    return *d;
}

}  // namespace

const cudaDeviceProp& current_device_props() { return current_device_info().props; }

double dram_bytes_per_sm_cycle() { return current_device_info().dram_per_sm_cycle; }

Result launch_error(const char* kernel_name) {
    const cudaError_t e = cudaGetLastError();  // also clears a non-sticky error: the process stays usable
    if (e == cudaSuccess) return Result::success();
    return Result::fail(std::string("kernel ") + kernel_name + ": " + cudaGetErrorString(e));
}

} // namespace detail

Result cuda_status() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        switch (e) {
        case cudaErrorInsufficientDriver:
            return Result::fail("CUDA unavailable: no NVIDIA driver, or one too old for this CUDA runtime "
                                "(cudaErrorInsufficientDriver)");
        case cudaErrorNoDevice: return Result::fail("CUDA unavailable: no CUDA-capable GPU (cudaErrorNoDevice)");
        default:
            return Result::fail(std::string("CUDA unavailable: ") + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) +
                                ")");
        }
    }
    if (count == 0) return Result::fail("CUDA unavailable: no CUDA-capable GPU");
    return Result::success();
}

namespace {

Result check_capability(Mechanism m, const FilterParams& params, PixelFormat format, const Policy& policy) {
    if (auto st = cuda_status(); !st) return st;
    if (auto why = validate(params); !why.empty()) return Result::fail(why);
    const auto& info = mechanism_info(m);
    const cudaDeviceProp& p = detail::current_device_props();
    if (p.major < info.min_cc_major || (p.major == info.min_cc_major && p.minor < info.min_cc_minor))
        return Result::fail(std::string(info.name) + " needs compute capability " +
                            detail::cc_text(info.min_cc_major, info.min_cc_minor) + "; this GPU (" + p.name + ") is " +
                            detail::cc_text(p.major, p.minor));
    if (policy.stages < 1 || policy.stages > 4)
        return Result::fail("pipeline stages " + std::to_string(policy.stages) + " is out of range: valid 1..4");
    if (info.knobs.block && (policy.block_x < 1 || policy.block_y < 1 || policy.block_x > 256 || policy.block_y > 256 ||
                             policy.block_x * policy.block_y > 256))
        return Result::fail(std::string(info.name) + " blocks are compiled for at most 256 threads: block " +
                            std::to_string(policy.block_x) + "x" + std::to_string(policy.block_y) + " has " +
                            std::to_string(std::int64_t(policy.block_x) * policy.block_y));
    if (m == Mechanism::Registers)
        if (std::string why = detail::registers_refusal(params, format); !why.empty()) return Result::fail(why);
    if (m == Mechanism::Cluster && (policy.cluster_size < 1 || policy.cluster_size > 8))
        return Result::fail("cluster size " + std::to_string(policy.cluster_size) + " is out of range: valid 1..8");
    if (m == Mechanism::Tma || m == Mechanism::TmaWs || m == Mechanism::Cluster) {
        // The TMA family loads a tile row plus both halos as one box row of at most 256 elements;
        // separable filters tile in runs of 8 pixels, the others in 4 (fit_tile_w in the launchers).
        // Said here so that the UI greys the row out instead of the launch failing.
        const int radius = filter_radius(params);
        const int multiple = params.kind == FilterKind::Box || params.kind == FilterKind::Gaussian ? 8 : 4;
        if (max_tma_tile_w(format, radius) < multiple)
            return Result::fail(std::string(info.name) + ": " + tma_no_room_reason(format, radius));
    }
    return Result::success();
}

bool needs_pitch16(Mechanism m) {
    return m == Mechanism::Ldgsts || m == Mechanism::Tma || m == Mechanism::TmaWs || m == Mechanism::Cluster;
}

Result check_image(const char* what, const DeviceImage& img, Mechanism m) {
    const std::string w = what;
    if (img.width <= 0 || img.height <= 0)
        return Result::fail(w + " image is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                            ": both sides must be at least 1");
    if (img.width > 16384 || img.height > 16384)
        return Result::fail(w + " image is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                            ": the largest supported side is 16384");
    if (img.data == nullptr) return Result::fail(w + " image pointer is null");
    const std::size_t row = static_cast<std::size_t>(img.width) * bytes_per_pixel(img.format);
    if (img.pitch < row)
        return Result::fail(w + " pitch " + std::to_string(img.pitch) + " bytes is smaller than a row (" +
                            std::to_string(row) + " bytes)");
    const std::size_t align = bytes_per_pixel(img.format);
    if (img.pitch % align != 0 || reinterpret_cast<std::uintptr_t>(img.data) % align != 0)
        return Result::fail(w + " image pointer and pitch must be multiples of the pixel size (" +
                            std::to_string(align) + " bytes)");
    if (needs_pitch16(m) && (img.pitch % 16 != 0 || reinterpret_cast<std::uintptr_t>(img.data) % 16 != 0))
        return Result::fail(std::string(mechanism_info(m).name) + " copies 16-byte chunks: the " + w +
                            " pitch (" + std::to_string(img.pitch) +
                            " bytes) and pointer must be multiples of 16 bytes");
    return Result::success();
}

} // namespace

Result can_run(Mechanism m, const FilterParams& params, PixelFormat format, const Policy& policy) {
    return check_capability(m, params, format, policy);
}

namespace {

// Everything launch() and launch_fused() check before any launch; the launch itself when `ops`
// is set carries the op chain into the kernel's epilogue.
Result validated_launch(const FilterParams& params, Border border, Mechanism m, const Policy& policy,
                        const DeviceImage& src, const DeviceImage& dst, void* stream, const pixel::OpsBlock* ops) {
    if (auto r = check_image("source", src, m); !r) return r;
    if (auto r = check_image("destination", dst, m); !r) return r;
    if (src.width != dst.width || src.height != dst.height || src.format != dst.format)
        return Result::fail("source and destination differ in size or format");
    if (border != Border::Clamp && border != Border::Zero && border != Border::Mirror)
        return Result::fail("border mode " + std::to_string(static_cast<int>(border)) + " is unknown");
    {
        // Byte ranges [first, last) touched by each image; any intersection would let the kernel
        // read pixels it has already overwritten.
        const auto span = [](const DeviceImage& i) {
            const auto b = reinterpret_cast<std::uintptr_t>(i.data);
            return std::pair{b, b + i.pitch * static_cast<std::size_t>(i.height - 1) +
                                    static_cast<std::size_t>(i.width) * bytes_per_pixel(i.format)};
        };
        const auto [s0, s1] = span(src);
        const auto [d0, d1] = span(dst);
        if (s0 < d1 && d0 < s1) return Result::fail("source and destination overlap: filters need separate buffers");
    }
    if (auto r = check_capability(m, params, src.format, policy); !r) return r;
    (void)cudaGetLastError();  // an error left by someone else's call must not be blamed on this kernel
    for (const auto& row : detail::kLaunchers)
        if (row.m == m) {
            const detail::LaunchArgs args{params, border, policy, src, dst, static_cast<cudaStream_t>(stream), ops};
            return row.fn(args);
        }
    return Result::fail("mechanism " + std::to_string(static_cast<int>(m)) + " is unknown");
}

} // namespace

Result launch(const FilterParams& params, Border border, Mechanism m, const Policy& policy, const DeviceImage& src,
              const DeviceImage& dst, void* stream) {
    return validated_launch(params, border, m, policy, src, dst, stream, nullptr);
}

Result launch_fused(const FilterParams& params, Border border, Mechanism m, const Policy& policy,
                    std::span<const PixelOp> ops, const DeviceImage& src, const DeviceImage& dst, void* stream) {
    // The kernels quantise to bytes before the chain, as the two-pass path stores them: there is
    // no fused float path (it would need its own instantiations and matches no two-pass output).
    if (src.format != PixelFormat::RGBA8 || dst.format != PixelFormat::RGBA8)
        return Result::fail("fused stencil + ops runs on rgba8 images only; this is " +
                            std::string(to_string(src.format)) + " (run launch() then launch_pixel_ops() instead)");
    // On the heap: ~4 KB that the launcher copies into the kernel's parameter block.
    auto block = std::make_unique<pixel::OpsBlock>();
    if (auto r = pixel::build_ops_block(ops, *block); !r) return r;
    return validated_launch(params, border, m, policy, src, dst, stream, block.get());
}

Result launch_texture_array(const FilterParams& params, Border border, const void* cuda_array,
                            const DeviceImage& source, const DeviceImage& dst, void* stream, const Policy& policy) {
    if (cuda_array == nullptr) return Result::fail("source CUDA array is null");
    // The source is checked as an image without a pointer: its size and format are what count.
    DeviceImage described = source;
    described.data = const_cast<void*>(cuda_array);
    described.pitch = static_cast<std::size_t>(source.width) * bytes_per_pixel(source.format);
    if (auto r = check_image("source", described, Mechanism::Texture); !r) return r;
    if (auto r = check_image("destination", dst, Mechanism::Texture); !r) return r;
    if (source.width != dst.width || source.height != dst.height || source.format != dst.format)
        return Result::fail("source and destination differ in size or format");
    if (border != Border::Clamp && border != Border::Zero && border != Border::Mirror)
        return Result::fail("border mode " + std::to_string(static_cast<int>(border)) + " is unknown");
    if (auto r = check_capability(Mechanism::Texture, params, source.format, policy); !r) return r;
    (void)cudaGetLastError();
    const detail::LaunchArgs args{params, border, policy, described, dst, static_cast<cudaStream_t>(stream), nullptr};
    return detail::launch_texture_on_array(args, cuda_array);
}

void forget_texture_array(const void* cuda_array) { detail::forget_texture_array(cuda_array); }

} // namespace tl::cuda

// Per-pixel library entry points with CUDA: capability checks, request validation, the op block,
// the pixel grid (flattening packed images), and the dispatch to one mechanism's launcher.
#include "pixel_params.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace tl::cuda {

namespace pixel {

// Device facts and occupancy answers never change while the process runs, and launch_pixel_ops
// runs every frame (and a bench times it from the stream going idle to the kernel's end, host
// work included): each is asked of the runtime once and remembered.
namespace {

std::mutex& lookup_mutex() {
    static std::mutex m;
    return m;
}

} // namespace

Result occupancy_grid(const void* kernel, const char* name, int block, std::size_t dyn_smem, long long work_blocks,
                      const DeviceFacts& d, int& grid_out) {
    using Key = std::tuple<const void*, int, std::size_t, int>;
    static std::map<Key, int> known;
    const Key key{kernel, block, dyn_smem, d.device};
    int per_sm = 0;
    {
        std::lock_guard lock(lookup_mutex());
        if (const auto it = known.find(key); it != known.end()) per_sm = it->second;
    }
    if (per_sm == 0) {
        if (const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, dyn_smem);
            e != cudaSuccess) {
            (void)cudaGetLastError();
            return Result::fail(std::string(name) + ": occupancy query failed: " + cudaGetErrorString(e));
        }
        if (per_sm > 0) {
            std::lock_guard lock(lookup_mutex());
            known[key] = per_sm;
        }
    }
    if (per_sm == 0)
        return Result::fail(std::string(name) + ": a block of " + std::to_string(block) + " threads with " +
                            std::to_string(dyn_smem) + " bytes of dynamic shared memory does not fit on an SM of "
                            "this GPU; lower the block size, the stages or the batch size");
    const long long resident = static_cast<long long>(per_sm) * d.sm_count;
    grid_out = static_cast<int>(std::clamp<long long>(work_blocks, 1, resident));
    return Result::success();
}

Result reserve_dynamic_smem(const void* kernel, const char* name, std::size_t bytes, const DeviceFacts& d) {
    static std::map<std::pair<const void*, int>, std::size_t> reserved;
    const auto key = std::make_pair(kernel, d.device);
    {
        std::lock_guard lock(lookup_mutex());
        if (const auto it = reserved.find(key); it != reserved.end() && it->second >= bytes) return Result::success();
    }
    if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
        e != cudaSuccess) {
        (void)cudaGetLastError();
        return Result::fail(std::string(name) + ": cannot reserve " + std::to_string(bytes) +
                            " bytes of shared memory: " + cudaGetErrorString(e));
    }
    std::lock_guard lock(lookup_mutex());
    auto& r = reserved[key];
    r = std::max(r, bytes);
    return Result::success();
}

Result build_ops_block(std::span<const PixelOp> ops, OpsBlock& block) {
    block = OpsBlock{};
    if (ops.size() > static_cast<std::size_t>(kMaxPixelOps))
        return Result::fail("the chain has " + std::to_string(ops.size()) + " ops; at most " +
                            std::to_string(kMaxPixelOps) + " run in one pass");
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const PixelOp& op = ops[i];
        if (std::string e = validate(op); !e.empty())
            return Result::fail("op " + std::to_string(i + 1) + " (" + std::string(to_string(op.kind)) + "): " + e);
        DevOp& d = block.ops[i];
        d.kind = static_cast<int>(op.kind);
        d.lut = -1;
        // The per-op constants of DevOp, computed here with the reference's own float operations
        // (1 / gamma, white - black), so the device does per pixel only what varies per pixel.
        switch (op.kind) {
        case PixelOpKind::BrightnessContrast: d.p[0] = op.b; d.p[1] = op.a; break;
        case PixelOpKind::Gamma: d.p[0] = 1.0f / op.a; break;
        case PixelOpKind::Saturation:
        case PixelOpKind::Threshold: d.p[0] = op.a; break;
        case PixelOpKind::Levels: {
            const float range = op.b - op.a;
            d.p[0] = op.a;
            d.p[1] = range;
            d.p[2] = 1.0f / range;
            d.p[3] = 1.0f / op.c;
            break;
        }
        case PixelOpKind::ColorMatrix: std::copy(op.matrix.begin(), op.matrix.end(), d.p); break;
        case PixelOpKind::Grayscale:
        case PixelOpKind::Invert:
        case PixelOpKind::Lut: break;
        }
        if (op.kind == PixelOpKind::Lut) {
            if (block.lut_count == kMaxPixelLuts)
                return Result::fail("the chain has more than " + std::to_string(kMaxPixelLuts) + " lut ops");
            d.lut = block.lut_count;
            for (int c = 0; c < 3; ++c)
                std::memcpy(block.luts[block.lut_count][c], op.lut[static_cast<std::size_t>(c)].data(), 256);
            ++block.lut_count;
        }
    }
    block.count = static_cast<int>(ops.size());
    return Result::success();
}

Result launch_outcome(const char* kernel_name) {
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return Result::fail(std::string(kernel_name) + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")");
    return Result::success();
}

// Binary version (e.g. 90) of the bulk kernel the runtime would load on this device; defined in
// bulk.cu. Lower than 90 means the build has no sm_90 code, and the kernel would only trap.
int bulk_kernel_binary_version();

} // namespace pixel

namespace {

using pixel::DeviceFacts;

Result cuda_failure(const char* what, cudaError_t e) {
    (void)cudaGetLastError();  // these errors are not sticky: do not leave them for the next launch
    return Result::fail(std::string("CUDA unavailable: ") + what + " failed: " + cudaGetErrorString(e) + " (" +
                        cudaGetErrorName(e) + ")");
}

Result device_facts(DeviceFacts& d) {
    static std::map<int, DeviceFacts> known;  // by device ordinal
    if (int dev = 0; cudaGetDevice(&dev) == cudaSuccess) {
        std::lock_guard lock(pixel::lookup_mutex());
        if (const auto it = known.find(dev); it != known.end()) {
            d = it->second;
            return Result::success();
        }
    } else {
        (void)cudaGetLastError();
    }
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) return cuda_failure("cudaGetDeviceCount", e);
    if (count == 0) return Result::fail("CUDA unavailable: no CUDA device found");
    if (const cudaError_t e = cudaGetDevice(&d.device); e != cudaSuccess) return cuda_failure("cudaGetDevice", e);
    const std::pair<cudaDeviceAttr, int*> attrs[] = {
        {cudaDevAttrComputeCapabilityMajor, &d.cc_major},
        {cudaDevAttrComputeCapabilityMinor, &d.cc_minor},
        {cudaDevAttrMultiProcessorCount, &d.sm_count},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, &d.max_smem_optin},
    };
    for (const auto& [attr, out] : attrs)
        if (const cudaError_t e = cudaDeviceGetAttribute(out, attr, d.device); e != cudaSuccess)
            return cuda_failure("cudaDeviceGetAttribute", e);
    d.bulk_binary_version = pixel::bulk_kernel_binary_version();
    std::lock_guard lock(pixel::lookup_mutex());
    known[d.device] = d;
    return Result::success();
}

int pixels_per_chunk(PixelFormat f) { return f == PixelFormat::RGBA8 ? 4 : 1; }

bool staged(PixelMechanism m) { return m == PixelMechanism::Ldgsts || m == PixelMechanism::Bulk; }

// Everything about (mechanism, policy, format) on this device, without an image.
Result check_capability(PixelMechanism m, const PixelPolicy& p, PixelFormat format, const DeviceFacts& d) {
    const auto& info = pixel_mechanism_info(m);
    const std::string name(info.name);
    if (d.cc_major < info.min_cc_major || (d.cc_major == info.min_cc_major && d.cc_minor < info.min_cc_minor)) {
        const std::string need = std::to_string(info.min_cc_major) + "." + std::to_string(info.min_cc_minor);
        const std::string have = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
        const std::string what = m == PixelMechanism::Bulk     ? "bulk copies (cp.async.bulk)"
                                 : m == PixelMechanism::Ldgsts ? "asynchronous copies (LDGSTS)"
                                                               : name;
        return Result::fail(what + " need compute capability " + need + "; this GPU is " + have);
    }
    if (m == PixelMechanism::Bulk) {
        if (const int v = d.bulk_binary_version; v < 90)
            return Result::fail("bulk: this build has no sm_90 code for the bulk kernel (binary version " +
                                std::to_string(v) + "); add 90 to CMAKE_CUDA_ARCHITECTURES");
    }
    if (p.block < 32 || p.block > 1024 || p.block % 32 != 0)
        return Result::fail(name + ": block " + std::to_string(p.block) +
                            " is not valid: use a multiple of 32 from 32 to 1024 threads");
    if (!staged(m)) return Result::success();

    if (p.stages < 1 || p.stages > 4)
        return Result::fail(name + ": stages " + std::to_string(p.stages) + " is out of range: valid 1..4");
    const int ppc = pixels_per_chunk(format);
    if (p.batch_pixels < 0 || p.batch_pixels % ppc != 0)
        return Result::fail(name + ": batch of " + std::to_string(p.batch_pixels) + " pixels is not valid: use 0 "
                            "(default) or a positive multiple of " + std::to_string(ppc) + " " +
                            std::string(to_string(format)) + " pixels (16 bytes)");
    const long long chunks = p.batch_pixels > 0 ? p.batch_pixels / ppc : pixel::default_batch_chunks(m, p.block);
    // The worst case of the chain's staged LUTs: the chain is not known here.
    const long long smem =
        static_cast<long long>(p.stages) * chunks * 16 + pixel::kMaxStagedLutBytes + pixel::kStaticSmemBytes;
    if (smem > d.max_smem_optin)
        return Result::fail(name + ": " + std::to_string(p.stages) + " stages of " + std::to_string(chunks * 16) +
                            " bytes need " + std::to_string(smem) + " bytes of shared memory; this GPU allows " +
                            std::to_string(d.max_smem_optin) + " per block");
    return Result::success();
}

std::size_t image_span(const DeviceImage& img) {
    return img.pitch * static_cast<std::size_t>(img.height - 1) + static_cast<std::size_t>(img.width) * bytes_per_pixel(img.format);
}

Result check_image(const char* which, const DeviceImage& img) {
    const std::string w(which);
    if (img.data == nullptr) return Result::fail(w + " image has no device pointer (null)");
    if (img.width <= 0 || img.height <= 0)
        return Result::fail(w + " image is empty (" + std::to_string(img.width) + "x" + std::to_string(img.height) + ")");
    const std::size_t row = static_cast<std::size_t>(img.width) * bytes_per_pixel(img.format);
    if (img.height > 1 && img.pitch < row)
        return Result::fail(w + " pitch " + std::to_string(img.pitch) + " bytes is shorter than a row (" +
                            std::to_string(row) + " bytes)");
    if (static_cast<long long>(img.width) * img.height >= (1ll << 31))
        return Result::fail(w + " image has 2^31 pixels or more; split it");
    return Result::success();
}

// Alignment rules of each mechanism, given whether the grid is flattened (pitch unused).
Result check_alignment(PixelMechanism m, const char* which, const DeviceImage& img, bool flat) {
    const std::string w(which);
    const auto addr = reinterpret_cast<std::uintptr_t>(img.data);
    // Plain moves one pixel per access: 4 bytes for RGBA8, one float4 (16 bytes) for RGBA32F.
    const std::size_t align = m == PixelMechanism::Plain ? (img.format == PixelFormat::RGBA8 ? 4 : 16) : 16;
    const std::string name(to_string(m));
    if (addr % align != 0)
        return Result::fail(name + ": " + w + " pointer is not " + std::to_string(align) + "-byte aligned");
    if (!flat && img.pitch % align != 0)
        return Result::fail(name + ": " + w + " pitch " + std::to_string(img.pitch) + " bytes is not a multiple of " +
                            std::to_string(align) + " (only tightly packed images may have other pitches)");
    return Result::success();
}

} // namespace

Result can_run_pixel(PixelMechanism m, const PixelPolicy& policy, PixelFormat format) {
    DeviceFacts d;
    if (auto r = device_facts(d); !r) return r;
    return check_capability(m, policy, format, d);
}

Result launch_pixel_ops(std::span<const PixelOp> ops, PixelMechanism m, const PixelPolicy& policy,
                        const DeviceImage& src, const DeviceImage& dst, void* stream) {
    // ---- the op chain ----
    pixel::OpsBlock block{};
    if (auto r = pixel::build_ops_block(ops, block); !r) return r;

    // ---- the images ----
    if (auto r = check_image("src", src); !r) return r;
    if (auto r = check_image("dst", dst); !r) return r;
    if (src.width != dst.width || src.height != dst.height)
        return Result::fail("src (" + std::to_string(src.width) + "x" + std::to_string(src.height) + ") and dst (" +
                            std::to_string(dst.width) + "x" + std::to_string(dst.height) + ") differ in size");
    if (src.format != dst.format)
        return Result::fail("src is " + std::string(to_string(src.format)) + " but dst is " +
                            std::string(to_string(dst.format)) + "; ops do not convert formats");
    {
        const auto s0 = reinterpret_cast<std::uintptr_t>(src.data), d0 = reinterpret_cast<std::uintptr_t>(dst.data);
        const bool same = s0 == d0 && src.pitch == dst.pitch;
        if (!same && s0 < d0 + image_span(dst) && d0 < s0 + image_span(src))
            return Result::fail("src and dst overlap without being the same image; use one image (in place) or two "
                                "separate ones");
    }
    const std::size_t bpp = bytes_per_pixel(src.format);
    const std::size_t row_bytes = static_cast<std::size_t>(src.width) * bpp;
    // Both packed (or one row): the image is one long row, and its pitch no longer matters.
    const bool flat = src.height == 1 || (src.pitch == row_bytes && dst.pitch == row_bytes);
    if (auto r = check_alignment(m, "src", src, flat); !r) return r;
    if (auto r = check_alignment(m, "dst", dst, flat); !r) return r;

    // ---- device and policy ----
    DeviceFacts facts;
    if (auto r = device_facts(facts); !r) return r;
    if (auto r = check_capability(m, policy, src.format, facts); !r) return r;

    pixel::PixelGrid grid{};
    grid.src = static_cast<const unsigned char*>(src.data);
    grid.dst = static_cast<unsigned char*>(dst.data);
    grid.src_pitch = flat ? row_bytes * static_cast<std::size_t>(src.height) : src.pitch;
    grid.dst_pitch = flat ? row_bytes * static_cast<std::size_t>(src.height) : dst.pitch;
    grid.rows = flat ? 1 : src.height;
    grid.row_px = flat ? src.width * src.height : src.width;
    const int ppc = pixels_per_chunk(src.format);
    grid.row_chunks = static_cast<unsigned>(grid.row_px / ppc);
    grid.total_chunks = grid.row_chunks * static_cast<unsigned>(grid.rows);
    grid.tail_px = grid.row_px - static_cast<int>(grid.row_chunks) * ppc;
    grid.format = static_cast<int>(src.format);

    const pixel::LaunchArgs args{block, grid, policy, facts, static_cast<cudaStream_t>(stream)};
    switch (m) {
    case PixelMechanism::Plain: return pixel::launch_plain(args);
    case PixelMechanism::Vector: return pixel::launch_vector(args);
    case PixelMechanism::Ldgsts: return pixel::launch_ldgsts(args);
    case PixelMechanism::Bulk: return pixel::launch_bulk(args);
    }
    return Result::fail("pixel mechanism " + std::to_string(static_cast<int>(m)) + " is unknown");
}

} // namespace tl::cuda

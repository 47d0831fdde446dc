// Host API of the CUDA stencil library: the mechanism table and the launch function.
// Plain C++ (no CUDA headers): the app and the tests include this, never a .cuh.
#pragma once

#include "filter_spec.hpp"
#include "image.hpp"
#include "pixel_ops.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tl::cuda {

// One value per way of moving a tile from global to shared memory.
enum class Mechanism { Global, Texture, Smem, Ldgsts, Tma, TmaWs, Cluster, Registers };

// Tunables a mechanism may use; MechanismInfo::knobs says which ones each mechanism reads.
struct Policy {
    int block_x = 32;     // threads per block in x (block_x * block_y <= 256)
    int block_y = 8;      // threads per block in y
    int tile_w = 64;      // output tile width in pixels
    int tile_h = 32;      // output tile height in pixels
    int stages = 2;       // pipeline depth for ldgsts / tma / tma_ws (1..4)
    bool tma_store = false;  // tma: write the output tile with a TMA store
    int cluster_size = 2;    // cluster: CTAs per cluster (along y)
};

// The Policy fields one mechanism reads; the UI offers only these, so no control does nothing.
// smem and ldgsts size their tile themselves (the largest that fits shared memory, see
// plan_tile) and the TMA family fixes its block to the work of one tile.
struct PolicyKnobs {
    bool block = false;         // block_x, block_y
    bool tile = false;          // tile_w, tile_h
    bool stages = false;
    bool tma_store = false;
    bool cluster_size = false;
};

// A device-side image: pointer in device memory (or a CUDA array for Texture, see launch()).
struct DeviceImage {
    void* data = nullptr;
    std::size_t pitch = 0;  // bytes; most mechanisms need a multiple of 16
    int width = 0;
    int height = 0;
    PixelFormat format = PixelFormat::RGBA8;
};

// Readable outcome of a capability check or a launch: ok, or refused with a reason.
struct Result {
    bool ok = true;
    std::string reason;  // empty when ok
    static Result success() { return {}; }
    static Result fail(std::string why) { return {false, std::move(why)}; }
    explicit operator bool() const { return ok; }
};

// One row of the table that drives the UI, the command line, the benchmark and the tests.
struct MechanismInfo {
    Mechanism mechanism;
    std::string_view name;         // command-line name: "global", "tma", ...
    std::string_view label;        // UI label
    int min_cc_major, min_cc_minor;
    std::string_view instruction;  // the SASS instruction this mechanism is built on ("LDGSTS", "UTMALDG", ...); empty for none
    std::string_view explanation;  // a paragraph for the explain panel: what moves the bytes and what it costs
    PolicyKnobs knobs;             // the Policy fields it reads
};

std::span<const MechanismInfo> mechanism_infos();
const MechanismInfo& mechanism_info(Mechanism m);
std::optional<Mechanism> parse_mechanism(std::string_view name);

// Whether a CUDA device is usable in this process; the reason says why not
// ("CUDA unavailable: no NVIDIA driver (cudaErrorInsufficientDriver)", "built without CUDA").
Result cuda_status();

// Whether the current device can run this mechanism with this filter / format / policy.
Result can_run(Mechanism m, const FilterParams& params, PixelFormat format, const Policy& policy);

// Runs one stencil filter src -> dst on `stream` (a cudaStream_t, passed as void*).
// Everything is checked before any launch (sizes, pointers, pitch alignment, parameters,
// capability); a refusal returns the reason and launches nothing. A CUDA error after the
// launch is returned with the kernel's name. src and dst must not overlap.
Result launch(const FilterParams& params, Border border, Mechanism m, const Policy& policy,
              const DeviceImage& src, const DeviceImage& dst, void* stream);

// The "fused" path: the stencil and then the per-pixel op chain on each output pixel in the same
// kernel (one read and one write of the image). Output is bit-identical to launch() followed by
// launch_pixel_ops() on the result. RGBA8 only; refusals as for launch().
Result launch_fused(const FilterParams& params, Border border, Mechanism m, const Policy& policy,
                    std::span<const PixelOp> ops, const DeviceImage& src, const DeviceImage& dst, void* stream);

// The texture mechanism sampling a CUDA array the caller owns (cudaArray_t as void*: level 0 of a
// shared optimal-tiled Vulkan image, app/interop/shared_image.hpp) in place, without the copy
// into the mechanism's own array that launch() makes. `source` gives the array's width, height
// and format (its data and pitch are not used); the array must hold that many texels of that
// format. Texture objects made for the array are kept until forget_texture_array(cuda_array),
// which the owner calls before freeing the array.
Result launch_texture_array(const FilterParams& params, Border border, const void* cuda_array,
                            const DeviceImage& source, const DeviceImage& dst, void* stream, const Policy& policy = {});
void forget_texture_array(const void* cuda_array);

} // namespace tl::cuda

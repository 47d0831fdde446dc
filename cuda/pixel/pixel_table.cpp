// The per-pixel mechanism table (names, capability, instruction, explanation): pure host code,
// linked in builds with and without CUDA, so the UI and --help can list the mechanisms anyway.
#include "pixel_api.hpp"

#include <array>

namespace tl::cuda {

namespace {

constexpr std::array<PixelMechanismInfo, 4> kPixelMechanisms{{
    {PixelMechanism::Plain, "plain", "Plain loads", 5, 0, "",
     "One pixel per thread per step, grid-stride: an ordinary 4-byte load (RGBA8) and store per "
     "pixel. A warp moves 128 bytes per load instruction, and the only thing that hides DRAM "
     "latency is the number of warps resident on the SM, because each thread waits for its load "
     "before it can compute and issue the next one. The baseline: per-pixel work is a few dozen "
     "flops, so this is purely a question of how many bytes are in flight."},
    {PixelMechanism::Vector, "vector", "Vector loads (16 B)", 5, 0, "",
     "Each thread loads 16 bytes at once (uint4 = four RGBA8 pixels) and issues four such loads "
     "before it uses any of them, so one warp has 2 KB in flight instead of 128 bytes, and a "
     "quarter of the load and store instructions. Registers hold the data in flight: no shared "
     "memory, no synchronisation. One block per tile of the image rather than a persistent grid, "
     "so the block scheduler keeps every SM busy to the end. Needs 16-byte aligned rows; the "
     "pixels past the last full 16 bytes of a row (widths not a multiple of 4) take plain loads."},
    {PixelMechanism::Ldgsts, "ldgsts", "LDGSTS pipeline", 8, 0, "LDGSTS",
     "A persistent grid (just the CTAs that fit on the GPU at once) walks the image in batches. "
     "Each thread copies its share of the next `stages` batches from global straight into a ring "
     "in shared memory with cp.async (LDGSTS, Ampere and later): the copy does not occupy "
     "registers and the thread does not wait for it, so many batches are in flight while the "
     "oldest is computed. Each thread computes exactly the chunks it copied, so waiting for its "
     "own copy group is the only synchronisation. Costs shared memory (stages x batch bytes) and "
     "one LDGSTS instruction per 16 bytes per thread."},
    {PixelMechanism::Bulk, "bulk", "Bulk copy (TMA 1D)", 9, 0, "UBLKCP",
     "The same ring, but one elected thread fills a whole slot with 1D bulk copies "
     "(cp.async.bulk, SASS UBLKCP, Hopper): the copy engine generates the addresses, and an "
     "mbarrier per slot counts the bytes that have landed (expect-tx), so the other threads only "
     "wait on the barrier. One instruction per row piece instead of one per 16 bytes per thread. "
     "With bulk store on, results go back by bulk copy from shared memory as well, after a "
     "proxy fence. Needs compute capability 9.0 and 16-byte aligned rows."},
}};

} // namespace

std::span<const PixelMechanismInfo> pixel_mechanism_infos() { return kPixelMechanisms; }

const PixelMechanismInfo& pixel_mechanism_info(PixelMechanism m) {
    for (const auto& info : kPixelMechanisms)
        if (info.mechanism == m) return info;
    return kPixelMechanisms[0];  // unreachable for a valid enum value
}

std::optional<PixelMechanism> parse_pixel_mechanism(std::string_view name) {
    for (const auto& info : kPixelMechanisms)
        if (info.name == name) return info.mechanism;
    return std::nullopt;
}

std::string_view to_string(PixelMechanism m) {
    for (const auto& info : kPixelMechanisms)
        if (info.mechanism == m) return info.name;
    return "unknown";
}

} // namespace tl::cuda

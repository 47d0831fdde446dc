// `tilelab bench`: times every filter x mechanism (and NPP where its run-time plugin loads)
// against the faster of two device-to-device copies of the same bytes (cudaMemcpy2DAsync and a
// vectorized copy kernel), with inputs rotated through more memory than L2 holds so that every
// run reads from DRAM; median of cudaEvent times, each run enqueued behind a GPU-side delay so the
// host work of the launch call is not counted as GPU time (gpu_timer.hpp).
#ifdef TILELAB_HAVE_GIT_HASH_HEADER
#include "tilelab_git_hash.h"  // TILELAB_GIT_HASH (cmake/git_hash.cmake)
#endif
#include "bench_vulkan.hpp"
#include "check_core.hpp"
#include "commands.hpp"
#include "device_buffer.hpp"
#if TILELAB_HAVE_CUDA
#include "gpu_timer.hpp"  // CUDA builds only (cuda_runtime.h)
#endif
#include "pixel_api.hpp"
#include "pixel_ops_flags.hpp"

#include "stencil/copy_roofline.hpp"
#include "stencil/npp_peer.hpp"
#include "stencil_api.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace tl::cmd {

namespace {

struct BenchRow {
    std::string filter;
    std::string mechanism;
    int stages = 0;  // 0: not a pipelined mechanism
    std::string tile;  // "WxH" when --tiles swept it, else empty
    bool ok = false;
    std::string reason;
    double median_us = 0, gbps = 0, vs_copy = 0, npp_speedup = 0;
    std::string note;  // NPP rows: the function, formula match and checked difference
    int npp_diff = -1; // NPP rows: max |NPP - CPU reference| (LSB), -1 when not checked
};

void print_row(const BenchRow& r) {
    const std::string name =
        r.mechanism + (r.stages ? " s" + std::to_string(r.stages) : "") + (r.tile.empty() ? "" : " t" + r.tile);
    if (!r.ok) {
        std::printf("%-15s %-12s %10s %9s %8s %9s  %s\n", r.filter.c_str(), name.c_str(), "-", "-", "-", "-",
                    r.reason.c_str());
        return;
    }
    char ratio[32] = "-", npp[32] = "-";
    if (r.vs_copy > 0) std::snprintf(ratio, sizeof ratio, "%.2f", r.vs_copy);
    if (r.npp_speedup > 0 && r.mechanism != "npp") std::snprintf(npp, sizeof npp, "%.2fx", r.npp_speedup);
    std::printf("%-15s %-12s %10.1f %9.0f %8s %9s  %s\n", r.filter.c_str(), name.c_str(), r.median_us, r.gbps, ratio, npp,
                r.note.c_str());
}

// Vulkan compute rows for one filter case (both variants); copy_us 0 when there is no CUDA copy.
void vulkan_rows(VulkanBench* vkb, const std::vector<vk::ComputeVariant>& variants, const CheckCase& cs,
                 Border border, int iterations, double image_bytes, double copy_us, double npp_us,
                 std::vector<BenchRow>& rows) {
    if (!vkb) return;
    for (auto v : variants) {
        BenchRow r;
        r.filter = cs.label;
        r.mechanism = std::string(vk::to_string(v));
        std::string why;
        if (auto t = vkb->median_us(cs.params, border, v, iterations, why)) {
            r.ok = true;
            r.median_us = *t;
            r.gbps = image_bytes / (*t * 1e3);
            r.vs_copy = copy_us > 0 ? *t / copy_us : 0;
            r.npp_speedup = npp_us > 0 ? npp_us / *t : 0;
        } else {
            r.reason = why;
        }
        rows.push_back(r);
    }
}

// The filter cases a bench run times: the check's (check_cases), the Box radii replaced by
// --box-radii and the Gaussian sigmas by --sigmas where given.
std::vector<CheckCase> bench_cases(const std::vector<FilterKind>& kinds, const BenchOptions& o) {
    std::vector<CheckCase> out;
    bool box_done = false, gaussian_done = false;
    for (auto& cs : check_cases(kinds)) {
        if (cs.params.kind == FilterKind::Box && !o.box_radii.empty()) {
            if (!std::exchange(box_done, true))
                for (int r : o.box_radii) out.push_back(box_case(r));
        } else if (cs.params.kind == FilterKind::Gaussian && !o.sigmas.empty()) {
            if (!std::exchange(gaussian_done, true))
                for (float sigma : o.sigmas) out.push_back(gaussian_case(sigma));
        } else {
            out.push_back(std::move(cs));
        }
    }
    return out;
}

// Without a CUDA device: the Vulkan compute rows alone (no copy baseline), on whatever Vulkan
// device there is. Exit 1 when Vulkan is unusable too.
int bench_vulkan_only(const BenchOptions& o, int w, int h, Border border, const std::vector<FilterKind>& kinds,
                      const std::string& cuda_reason) {
    std::fprintf(stderr, "bench: %s; timing the Vulkan compute path only\n", cuda_reason.c_str());
    std::string why;
    auto vkb = VulkanBench::create(w, h, 2, std::nullopt, why);
    if (!vkb) {
        std::fprintf(stderr, "bench: Vulkan unavailable too: %s\n", why.c_str());
        return kExitFailure;
    }
    std::printf("bench: %s, %dx%d RGBA8, border %s, %d iterations, median (no CUDA copy baseline)\n",
                vkb->device().c_str(), w, h, std::string(to_string(border)).c_str(), o.iterations);
    std::printf("%-15s %-12s %10s %9s %8s %9s  %s\n", "filter", "mechanism", "time us", "GB/s", "x copy", "vs NPP",
                "note");
    const double image_bytes = 2.0 * 4.0 * double(w) * double(h);
    for (const auto& cs : bench_cases(kinds, o)) {
        std::vector<BenchRow> rows;
        const std::vector<vk::ComputeVariant> all(vk::compute_variants().begin(), vk::compute_variants().end());
        vulkan_rows(vkb.get(), all, cs, border, o.iterations, image_bytes, 0, 0, rows);
        for (const auto& r : rows) print_row(r);
        std::fflush(stdout);
    }
    return 0;
}

// The size, border and filter list of a bench run, or nullopt after printing what is wrong.
struct BenchRequest {
    int w = 0, h = 0;
    Border border = Border::Clamp;
    std::vector<FilterKind> kinds;
    std::vector<std::pair<int, int>> tiles;  // --tiles, parsed
};

std::optional<BenchRequest> parse_bench_request(const BenchOptions& o) {
    BenchRequest r;
    if (!parse_size(o.size, r.w, r.h) || r.w > 16384 || r.h > 16384) {
        std::fprintf(stderr, "bench: size '%s' is not 1080p, 4k, 8k or WxH with 1..16384 each\n", o.size.c_str());
        return std::nullopt;
    }
    const auto border = parse_border(o.border);
    if (!border) {
        std::fprintf(stderr, "bench: unknown border '%s' (clamp, zero, mirror)\n", o.border.c_str());
        return std::nullopt;
    }
    r.border = *border;
    for (const auto& t : o.tiles) {
        int tw = 0, th = 0;
        if (!parse_tile(t, tw, th)) {
            std::fprintf(stderr, "bench: tile '%s' is not WxH with 1..1024 each\n", t.c_str());
            return std::nullopt;
        }
        r.tiles.emplace_back(tw, th);
    }
    for (const auto& f : o.filters) {
        auto k = parse_filter_kind(f);
        if (!k) {
            std::fprintf(stderr, "bench: unknown filter '%s'\n", f.c_str());
            return std::nullopt;
        }
        r.kinds.push_back(*k);
    }
    return r;
}

} // namespace

#if TILELAB_HAVE_CUDA

namespace {


bool pipelined(cuda::Mechanism m) {
    return m == cuda::Mechanism::Ldgsts || m == cuda::Mechanism::Tma || m == cuda::Mechanism::TmaWs;
}

// Stencil + chain3 (pixel_chain_cases(): lut, brightness-contrast, gamma) per filter: once as two
// launches (the filter with its fastest mechanism in `rows`, then the chain in place with the
// vector mechanism: two passes over memory) and once fused per mechanism (launch_fused: one
// pass). "x copy" is against one pass, so the two-pass row sits near 2x at best.
void fused_rows(GpuTimer& timer, const std::vector<FilterKind>& kinds, const BenchOptions& o,
                const std::vector<cuda::Mechanism>& mechs, Border border, int sets, int iterations,
                cudaStream_t stream, const std::function<cuda::DeviceImage(int)>& src_of,
                const std::function<cuda::DeviceImage(int)>& dst_of, double image_bytes, double copy_us,
                std::vector<BenchRow>& rows) {
    const PixelCase* chain3 = nullptr;
    const auto chains = pixel_chain_cases();
    for (const auto& c : chains)
        if (c.label == "chain3") chain3 = &c;
    if (!chain3) return;
    std::printf("\nstencil + chain3 (%s): two launches (fastest stencil mechanism, then vector ops in place) vs "
                "launch_fused (one kernel, one pass)\n",
                "lut, brightness-contrast, gamma");
    std::printf("%-22s %-18s %10s %9s %8s  %s\n", "filter + ops", "mechanism", "time us", "GB/s", "x copy", "note");
    auto timed = [&](BenchRow r, const std::function<cuda::Result(int)>& fn) {
        std::string why;
        auto t = timer.median_us(sets, iterations, stream, [&](int i) {
            auto res = fn(i);
            return res ? std::string{} : res.reason;
        }, why);
        if (t) {
            r.ok = true;
            r.median_us = *t;
            r.gbps = image_bytes / (*t * 1e3);
            r.vs_copy = *t / copy_us;
            std::printf("%-22s %-18s %10.1f %9.0f %8.2f\n", r.filter.c_str(), r.mechanism.c_str(), r.median_us, r.gbps,
                        r.vs_copy);
        } else {
            r.reason = why;
            std::printf("%-22s %-18s %10s %9s %8s  %s\n", r.filter.c_str(), r.mechanism.c_str(), "-", "-", "-",
                        why.c_str());
        }
        std::fflush(stdout);
        rows.push_back(r);
    };
    const cuda::Policy policy;
    for (const auto& cs : bench_cases(kinds, o)) {
        const std::string label = cs.label + " + chain3";
        const BenchRow* best = nullptr;
        for (const auto& r : rows)
            if (r.filter == cs.label && r.ok && (r.stages == 0 || r.stages == policy.stages) &&
                (r.tile.empty() || r.tile == std::to_string(policy.tile_w) + "x" + std::to_string(policy.tile_h)) &&
                cuda::parse_mechanism(r.mechanism) && (!best || r.median_us < best->median_us))
                best = &r;
        if (best) {
            const cuda::Mechanism bm = *cuda::parse_mechanism(best->mechanism);
            BenchRow r;
            r.filter = label;
            r.mechanism = best->mechanism + " + vector";
            timed(r, [&](int i) {
                auto res = cuda::launch(cs.params, border, bm, policy, src_of(i), dst_of(i), stream);
                if (!res) return res;
                return cuda::launch_pixel_ops(chain3->ops, cuda::PixelMechanism::Vector, {}, dst_of(i), dst_of(i),
                                              stream);
            });
        }
        for (cuda::Mechanism m : mechs) {
            BenchRow r;
            r.filter = label;
            r.mechanism = std::string(cuda::mechanism_info(m).name) + " fused";
            if (auto can = cuda::can_run(m, cs.params, PixelFormat::RGBA8, policy); !can) {
                r.reason = can.reason;
                std::printf("%-22s %-18s %10s %9s %8s  %s\n", r.filter.c_str(), r.mechanism.c_str(), "-", "-", "-",
                            r.reason.c_str());
                rows.push_back(r);
                continue;
            }
            timed(r, [&](int i) {
                return cuda::launch_fused(cs.params, border, m, policy, chain3->ops, src_of(i), dst_of(i), stream);
            });
        }
    }
}

} // namespace

int run_bench(const BenchOptions& o) {
    const auto request = parse_bench_request(o);
    if (!request) return kExitUsage;
    const int w = request->w, h = request->h;
    const Border border = request->border;
    const std::vector<FilterKind>& kinds = request->kinds;
    std::vector<cuda::Mechanism> mechs;
    std::vector<vk::ComputeVariant> vk_variants;
    for (const auto& m : o.mechanisms) {
        if (auto v = vk::parse_compute_variant(m)) {
            vk_variants.push_back(*v);
            continue;
        }
        auto k = cuda::parse_mechanism(m);
        if (!k) {
            std::fprintf(stderr, "bench: unknown mechanism '%s'\n", m.c_str());
            return kExitUsage;
        }
        mechs.push_back(*k);
    }
    if (o.mechanisms.empty()) {
        for (const auto& m : cuda::mechanism_infos()) mechs.push_back(m.mechanism);
        vk_variants.assign(vk::compute_variants().begin(), vk::compute_variants().end());
    }
    if (auto st = cuda::cuda_status(); !st) return bench_vulkan_only(o, w, h, border, kinds, st.reason);

    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, dev);
    const PixelFormat fmt = PixelFormat::RGBA8;
    const std::size_t row = static_cast<std::size_t>(w) * bytes_per_pixel(fmt);
    const std::size_t pitch = round_up(row, 256);
    const std::size_t bytes = pitch * static_cast<std::size_t>(h);
    // Enough src/dst sets that one rotation touches well over twice the L2, at least 8.
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    int sets = std::max<int>(8, static_cast<int>((4ull * static_cast<std::size_t>(prop.l2CacheSize)) / (2 * bytes) + 1));
    sets = std::max(1, std::min<int>(sets, static_cast<int>(free_b / 2 / (2 * bytes))));

    std::vector<DeviceBuffer> srcs(static_cast<std::size_t>(sets)), dsts(static_cast<std::size_t>(sets));
    for (int i = 0; i < sets; ++i) {
        std::string err = srcs[static_cast<std::size_t>(i)].allocate(bytes);
        if (err.empty()) err = dsts[static_cast<std::size_t>(i)].allocate(bytes);
        if (!err.empty()) {
            std::fprintf(stderr, "bench: %s\n", err.c_str());
            return kExitFailure;
        }
        // Content matters little for timing but must be defined: a ramp.
        cudaMemset(srcs[static_cast<std::size_t>(i)].get(), 0x40 + i, bytes);
    }
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    auto src_of = [&](int i) { return cuda::DeviceImage{srcs[static_cast<std::size_t>(i)].get(), pitch, w, h, fmt}; };
    auto dst_of = [&](int i) { return cuda::DeviceImage{dsts[static_cast<std::size_t>(i)].get(), pitch, w, h, fmt}; };
    const double image_bytes = 2.0 * double(row) * double(h);  // one read + one write
    // The Vulkan compute path on the same GPU (matched by UUID), same rotation depth.
    std::array<std::uint8_t, 16> uuid{};
    std::memcpy(uuid.data(), prop.uuid.bytes, 16);
    std::string vk_why;
    std::unique_ptr<VulkanBench> vkb;
    if (!vk_variants.empty()) vkb = VulkanBench::create(w, h, sets, uuid, vk_why);

    GpuTimer timer;
    std::string why;
    // Two copies of the same bytes on the same rotated buffers: the runtime's 2D memcpy and a
    // vectorized copy kernel. The faster is the roofline for the "x copy" column: a slow copy
    // (H100: cudaMemcpy2DAsync D2D reaches about half of HBM bandwidth) would flatter every kernel.
    const auto memcpy_us = timer.median_us(sets, o.iterations, stream, [&](int i) {
        return cuda_error_text("cudaMemcpy2DAsync", cudaMemcpy2DAsync(dsts[static_cast<std::size_t>(i)].get(), pitch,
                                                                      srcs[static_cast<std::size_t>(i)].get(), pitch,
                                                                      row, static_cast<std::size_t>(h),
                                                                      cudaMemcpyDeviceToDevice, stream));
    }, why);
    if (!memcpy_us) {
        std::fprintf(stderr, "bench: the reference copy failed: %s\n", why.c_str());
        return kExitFailure;
    }
    std::printf("bench: %s, %dx%d RGBA8, border %s, %d buffer sets (%.0f MB), %d iterations, median\n", prop.name, w,
                h, o.border.c_str(), sets, double(sets) * 2.0 * double(bytes) / 1e6, o.iterations);
    std::printf("copy (cudaMemcpy2DAsync D2D): %.1f us, %.0f GB/s\n", *memcpy_us, image_bytes / (*memcpy_us * 1e3));
    // The copy kernel in two flavours (read-only loads + plain stores; evict-first loads and
    // stores), each checked against its source before its time counts; the faster is "the"
    // kernel copy.
    std::string kwhy;
    std::optional<double> kernel_us;
    const char* kernel_flavour = "";
    std::vector<unsigned char> host_a(bytes), host_b(bytes);
    for (bool streaming : {false, true}) {
        std::string fwhy;
        auto t = timer.median_us(sets, o.iterations, stream, [&](int i) {
            auto res = cuda::copy_kernel_2d(dsts[static_cast<std::size_t>(i)].get(),
                                            srcs[static_cast<std::size_t>(i)].get(), pitch, row,
                                            static_cast<std::size_t>(h), stream, streaming);
            return res ? std::string{} : res.reason;
        }, fwhy);
        const char* flavour = streaming ? "ld/st.global.cs" : "ld.global.nc + st.global";
        if (t) {
            const int last = (o.iterations - 1) % sets;
            cudaMemcpy(host_a.data(), srcs[static_cast<std::size_t>(last)].get(), bytes, cudaMemcpyDeviceToHost);
            cudaMemcpy(host_b.data(), dsts[static_cast<std::size_t>(last)].get(), bytes, cudaMemcpyDeviceToHost);
            for (int y = 0; y < h && t; ++y)
                if (std::memcmp(host_a.data() + pitch * std::size_t(y), host_b.data() + pitch * std::size_t(y), row) != 0) {
                    fwhy = "output differs from its input at row " + std::to_string(y);
                    t.reset();
                }
        }
        if (t) {
            std::printf("copy (kernel, 16-byte, %s): %.1f us, %.0f GB/s\n", flavour, *t, image_bytes / (*t * 1e3));
            if (!kernel_us || *t < *kernel_us) {
                kernel_us = t;
                kernel_flavour = flavour;
            }
        } else {
            std::printf("copy (kernel, %s): not timed: %s\n", flavour, fwhy.c_str());
            kwhy += (kwhy.empty() ? "" : "; ") + std::string(flavour) + ": " + fwhy;
        }
    }
    const std::optional<double> copy_us = kernel_us ? std::min(*memcpy_us, *kernel_us) : *memcpy_us;
    const char* roofline_name = kernel_us && *kernel_us < *memcpy_us ? "copy kernel" : "cudaMemcpy2DAsync";
    std::printf("roofline for \"x copy\": the fastest, %s (%.1f us)\n\n", roofline_name, *copy_us);
    if (!vkb && !vk_variants.empty()) std::printf("vulkan compute path not timed: %s\n", vk_why.c_str());
    // NPP through its run-time plugin (stencil/npp_peer.hpp); when absent, say why and go on.
    std::string npp_why;
    cuda::NppPeer* npp = cuda::npp_peer(npp_why);
    if (npp) std::printf("NPP peer: %s (NPP %s)\n", npp->path().c_str(), npp->npp_version().c_str());
    else std::printf("%s\n", npp_why.c_str());
    std::printf("%-15s %-12s %10s %9s %8s %9s  %s\n", "filter", "mechanism", "time us", "GB/s", "x copy", "vs NPP",
                "note");

    std::vector<BenchRow> rows;
    for (const auto& cs : bench_cases(kinds, o)) {
        double npp_us = 0;
        // "npp": the NPP function closest to our formula (the "vs NPP" column); "npp-fixed" (Gaussians
        // up to 15x15): NPP's fixed-mask Gaussian, its fastest, with its own weights, for reference.
        for (const auto variant : {cuda::NppVariant::Closest, cuda::NppVariant::FixedGaussian}) {
            if (!npp || !cuda::NppPeer::has(cs.params, variant)) continue;
            const bool closest = variant == cuda::NppVariant::Closest;
            BenchRow r;
            r.filter = cs.label;
            r.mechanism = closest ? "npp" : "npp-fixed";
            std::string nwhy, function;
            auto t = timer.median_us(sets, o.iterations, stream, [&](int i) {
                auto res = npp->run(cs.params, border, src_of(i), dst_of(i), stream, &function, variant);
                return res ? std::string{} : res.reason;
            }, nwhy);
            if (t) {
                if (closest) npp_us = *t;
                r.ok = true;
                r.median_us = *t;
                r.gbps = image_bytes / (*t * 1e3);
                r.vs_copy = *t / *copy_us;
                const auto check = npp->check(cs.params, border, stream, variant);
                r.npp_diff = check.ran ? check.max_abs_diff : -1;
                r.note = cuda::NppPeer::note(cs.params, function, check, variant);
            } else {
                r.reason = nwhy;
            }
            rows.push_back(r);
        }
        for (cuda::Mechanism m : mechs) {
            std::vector<int> stage_list{0};
            if (pipelined(m) && !o.stages.empty()) stage_list = o.stages;
            std::vector<std::pair<int, int>> tile_list{{0, 0}};
            if (cuda::mechanism_info(m).knobs.tile && !request->tiles.empty()) tile_list = request->tiles;
            for (const auto& [tw, th] : tile_list)
            for (int st : stage_list) {
                cuda::Policy policy;
                if (st > 0) policy.stages = st;
                BenchRow r;
                if (tw > 0) {
                    policy.tile_w = tw;
                    policy.tile_h = th;
                    r.tile = std::to_string(tw) + "x" + std::to_string(th);
                }
                r.filter = cs.label;
                r.mechanism = std::string(cuda::mechanism_info(m).name);
                r.stages = pipelined(m) ? policy.stages : 0;
                if (auto can = cuda::can_run(m, cs.params, fmt, policy); !can) {
                    r.reason = can.reason;
                } else {
                    std::string mwhy;
                    auto t = timer.median_us(sets, o.iterations, stream, [&](int i) {
                        auto res = cuda::launch(cs.params, border, m, policy, src_of(i), dst_of(i), stream);
                        return res ? std::string{} : res.reason;
                    }, mwhy);
                    if (t) {
                        r.ok = true;
                        r.median_us = *t;
                        r.gbps = image_bytes / (*t * 1e3);
                        r.vs_copy = *t / *copy_us;
                        r.npp_speedup = npp_us > 0 ? npp_us / *t : 0;
                    } else {
                        r.reason = mwhy;
                    }
                }
                rows.push_back(r);
            }
        }
        vulkan_rows(vkb.get(), vk_variants, cs, border, o.iterations, image_bytes, *copy_us, npp_us, rows);
        for (const auto& r : rows)
            if (r.filter == cs.label) print_row(r);
        std::fflush(stdout);
    }
    if (o.pixel) {
        run_pixel_bench(o, w, h, pitch, border, srcs, dsts, stream, *copy_us);  // pixel_bench.cpp (h9)
        fused_rows(timer, kinds, o, mechs, border, sets, o.iterations, stream, src_of, dst_of,
                   image_bytes, *copy_us, rows);
    }

    if (!o.json.empty()) {
        nlohmann::json j;
        int driver = 0, runtime = 0, mem_clock = 0, sm_clock = 0, bus = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, dev);
        cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, dev);
        cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
        j["device"] = {{"name", prop.name},
                       {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
                       {"sm_count", prop.multiProcessorCount},
                       {"l2_bytes", prop.l2CacheSize},
                       {"memory_clock_khz", mem_clock},
                       {"sm_clock_khz", sm_clock},
                       {"memory_bus_bits", bus},
                       {"driver_version", driver},
                       {"runtime_version", runtime}};
#ifdef TILELAB_BUILD_TYPE
        j["build_type"] = TILELAB_BUILD_TYPE;
#endif
#ifdef TILELAB_HAVE_GIT_HASH_HEADER
        j["git_hash"] = TILELAB_GIT_HASH;  // tilelab_git_hash.h, written at build time
#endif
        j["size"] = {w, h};
        j["format"] = "rgba8";
        j["border"] = o.border;
        j["buffer_sets"] = sets;
        j["npp"] = npp ? nlohmann::json{{"loaded", true}, {"path", npp->path()}, {"version", npp->npp_version()}}
                       : nlohmann::json{{"loaded", false}, {"reason", npp_why}};
        j["iterations"] = o.iterations;
        // copy_us / copy_gbps: the roofline the ratios use (the faster of the two copies).
        j["copy_us"] = *copy_us;
        j["copy_gbps"] = image_bytes / (*copy_us * 1e3);
        j["copy_roofline"] = roofline_name;
        j["copy_memcpy2d_us"] = *memcpy_us;
        j["copy_memcpy2d_gbps"] = image_bytes / (*memcpy_us * 1e3);
        if (kernel_us) {
            j["copy_kernel_us"] = *kernel_us;
            j["copy_kernel_gbps"] = image_bytes / (*kernel_us * 1e3);
            j["copy_kernel_flavour"] = kernel_flavour;
        }
        if (!kwhy.empty()) {
            j["copy_kernel_error"] = kwhy;
        }
        for (const auto& r : rows) {
            nlohmann::json e{{"filter", r.filter}, {"mechanism", r.mechanism}, {"ok", r.ok}};
            if (r.stages) e["stages"] = r.stages;
            if (!r.tile.empty()) e["tile"] = r.tile;
            if (r.ok) {
                e["median_us"] = r.median_us;
                e["gbps"] = r.gbps;
                e["ratio_to_copy"] = r.vs_copy;
                if (r.npp_speedup > 0 && r.mechanism != "npp") e["speedup_over_npp"] = r.npp_speedup;
                if (!r.note.empty()) e["note"] = r.note;
                if (r.npp_diff >= 0) e["max_abs_diff_vs_reference"] = r.npp_diff;
            } else {
                e["reason"] = r.reason;
            }
            j["rows"].push_back(e);
        }
        std::ofstream f(o.json);
        f << j.dump(2) << "\n";
        if (!f) {
            std::fprintf(stderr, "bench: could not write %s\n", o.json.c_str());
            return kExitFailure;
        }
        std::printf("\nbench: wrote %s\n", o.json.c_str());
    }
    cudaStreamDestroy(stream);
    return 0;
}

#else

int run_bench(const BenchOptions& o) {
    const auto request = parse_bench_request(o);
    if (!request) return kExitUsage;
    const int w = request->w, h = request->h;
    const Border border = request->border;
    const std::vector<FilterKind>& kinds = request->kinds;
    return bench_vulkan_only(o, w, h, border, kinds, cuda::cuda_status().reason);
}

#endif

} // namespace tl::cmd

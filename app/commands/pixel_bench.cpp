// Per-pixel bench rows: the same op-chain bytes (one read + one write per pixel) with 1, 3 and 8
// ops, so the table shows where arithmetic per pixel starts to cost and how stages change it;
// plus sobel then 3 ops as two launches (the baseline of a fused stencil + ops kernel).
#if TILELAB_HAVE_CUDA
#include "commands.hpp"
#include "device_buffer.hpp"
#include "gpu_timer.hpp"
#include "pixel_api.hpp"
#include "pixel_ops_flags.hpp"
#include "stencil_api.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

namespace tl::cmd {

namespace {

// What the stencil bench already set up (see run_pixel_bench in commands.hpp).
struct PixelBenchSetup {
    int width = 0, height = 0;
    std::size_t pitch = 0;
    Border border = Border::Clamp;
    const std::vector<DeviceBuffer>* srcs = nullptr;
    const std::vector<DeviceBuffer>* dsts = nullptr;
    void* stream = nullptr;
    double copy_us = 0;
};

struct PixelBenchRow {
    std::string ops;
    std::string mechanism;
    bool ok = false;
    std::string reason;
    double median_us = 0, gbps = 0, vs_copy = 0;
    double host_us = 0;  // CPU time of the launch call(s); not part of median_us (gpu_timer.hpp)
};

void print_row(const PixelBenchRow& r) {
    if (!r.ok) {
        std::printf("%-22s %-24s %10s %9s %8s %8s  %s\n", r.ops.c_str(), r.mechanism.c_str(), "-", "-", "-", "-",
                    r.reason.c_str());
        return;
    }
    std::printf("%-22s %-24s %10.1f %9.0f %8.2f %8.1f\n", r.ops.c_str(), r.mechanism.c_str(), r.median_us, r.gbps,
                r.vs_copy, r.host_us);
}

} // namespace

void run_pixel_bench(const BenchOptions& o, int width, int height, std::size_t pitch, Border border,
                     const std::vector<DeviceBuffer>& srcs, const std::vector<DeviceBuffer>& dsts, void* stream,
                     double copy_us) {
    const PixelBenchSetup s{width, height, pitch, border, &srcs, &dsts, stream, copy_us};
    const auto cu_stream = static_cast<cudaStream_t>(s.stream);
    const int sets = static_cast<int>(std::min(s.srcs->size(), s.dsts->size()));
    const PixelFormat fmt = PixelFormat::RGBA8;
    auto src_of = [&](int i) {
        return cuda::DeviceImage{(*s.srcs)[static_cast<std::size_t>(i)].get(), s.pitch, s.width, s.height, fmt};
    };
    auto dst_of = [&](int i) {
        return cuda::DeviceImage{(*s.dsts)[static_cast<std::size_t>(i)].get(), s.pitch, s.width, s.height, fmt};
    };
    // One read + one write of every pixel: what a single pass moves, and what the roofline moves.
    const double pass_bytes = 2.0 * 4.0 * double(s.width) * double(s.height);

    std::printf("\nper-pixel ops: %dx%d RGBA8, same buffer sets and roofline as above (%.1f us); "
                "\"x copy\" = time / roofline, GB/s = bytes read + written / time; \"host us\" = CPU time of the "
                "launch call (checks, op block, launch), not in \"time us\": it is enqueued behind a GPU-side delay\n",
                s.width, s.height, s.copy_us);
    std::printf("%-22s %-24s %10s %9s %8s %8s  %s\n", "ops", "mechanism", "time us", "GB/s", "x copy", "host us",
                "note");

    GpuTimer timer;
    std::vector<PixelBenchRow> rows;
    auto time_row = [&](PixelBenchRow r, double bytes, const std::function<std::string(int)>& fn) {
        std::string why;
        if (auto t = timer.median_us(sets, o.iterations, cu_stream, fn, why, &r.host_us)) {
            r.ok = true;
            r.median_us = *t;
            r.gbps = bytes / (*t * 1e3);
            r.vs_copy = s.copy_us > 0 ? *t / s.copy_us : 0;
        } else {
            r.reason = why;
        }
        print_row(r);
        std::fflush(stdout);
        rows.push_back(r);
    };

    const auto chains = pixel_chain_cases();
    for (const auto& chain : chains) {
        for (const auto& run : pixel_mechanism_sweep()) {
            PixelBenchRow r;
            r.ops = chain.label;
            r.mechanism = run.label;
            if (auto can = cuda::can_run_pixel(*run.mechanism, run.policy, fmt); !can) {
                r.reason = can.reason;
                print_row(r);
                rows.push_back(r);
                continue;
            }
            time_row(r, pass_bytes, [&](int i) {
                auto res = cuda::launch_pixel_ops(chain.ops, *run.mechanism, run.policy, src_of(i), dst_of(i), cu_stream);
                return res ? std::string{} : res.reason;
            });
        }
    }

    // The same rows as a matrix (mechanism x chain length, "x copy"): where the arithmetic per pixel
    // starts to show, and whether more stages help, read along a row and down a column.
    std::printf("\n%-24s", "x copy");
    for (const auto& chain : chains) std::printf(" %8s", chain.label.c_str());
    std::printf("\n");
    for (const auto& run : pixel_mechanism_sweep()) {
        std::printf("%-24s", run.label.c_str());
        for (const auto& chain : chains) {
            const auto it = std::find_if(rows.begin(), rows.end(), [&](const PixelBenchRow& r) {
                return r.ops == chain.label && r.mechanism == run.label;
            });
            if (it != rows.end() && it->ok)
                std::printf(" %8.2f", it->vs_copy);
            else
                std::printf(" %8s", "-");
        }
        std::printf("\n");
    }
    std::printf("\n");

    // Stencil then ops as two launches: sobel (with the fastest stencil mechanism here) writes
    // dst, then the 3-op chain runs on dst in place. Two passes move twice the bytes of one.
    const PixelCase* chain3 = nullptr;
    for (const auto& c : chains)
        if (c.ops.size() == 3) chain3 = &c;
    const FilterParams sobel{.kind = FilterKind::Sobel};
    std::optional<cuda::Mechanism> best;
    double best_us = 0;
    std::string stencil_why = "no stencil mechanism can run sobel here";
    for (const auto& info : cuda::mechanism_infos()) {
        const cuda::Policy policy;
        if (auto can = cuda::can_run(info.mechanism, sobel, fmt, policy); !can) continue;
        std::string why;
        auto t = timer.median_us(sets, o.iterations, cu_stream, [&](int i) {
            auto res = cuda::launch(sobel, s.border, info.mechanism, policy, src_of(i), dst_of(i), cu_stream);
            return res ? std::string{} : res.reason;
        }, why);
        if (!t) {
            stencil_why = why;
            continue;
        }
        if (!best || *t < best_us) {
            best = info.mechanism;
            best_us = *t;
        }
    }
    if (!best || !chain3) {
        PixelBenchRow r;
        r.ops = "sobel + chain3";
        r.mechanism = "two launches";
        r.reason = stencil_why;
        print_row(r);
        rows.push_back(r);
    } else {
        const std::string stencil_name(cuda::mechanism_info(*best).name);
        const cuda::Policy policy;
        PixelBenchRow alone;
        alone.ops = "sobel";
        alone.mechanism = stencil_name + " (fastest)";
        time_row(alone, pass_bytes, [&](int i) {
            auto res = cuda::launch(sobel, s.border, *best, policy, src_of(i), dst_of(i), cu_stream);
            return res ? std::string{} : res.reason;
        });
        for (const auto& info : cuda::pixel_mechanism_infos()) {
            const cuda::PixelPolicy pp;  // default stages for ldgsts / bulk
            PixelBenchRow r;
            r.ops = "sobel + chain3";
            r.mechanism = stencil_name + " + " + pixel_run_label(info.mechanism, pp);
            if (auto can = cuda::can_run_pixel(info.mechanism, pp, fmt); !can) {
                r.reason = can.reason;
                print_row(r);
                rows.push_back(r);
                continue;
            }
            time_row(r, 2.0 * pass_bytes, [&](int i) {
                auto res = cuda::launch(sobel, s.border, *best, policy, src_of(i), dst_of(i), cu_stream);
                if (!res) return res.reason;
                auto res2 = cuda::launch_pixel_ops(chain3->ops, info.mechanism, pp, dst_of(i), dst_of(i), cu_stream);
                return res2 ? std::string{} : res2.reason;
            });
        }
    }
    std::printf("note: chainN = N ops per pixel on the same bytes (chain1 invert; chain3 lut, brightness-contrast, "
                "gamma; chain8 adds a colour matrix, saturation, levels); sN = ldgsts/bulk batches in flight; bulk-st = bulk with its bulk store shared -> global.\n"
                "note: sobel + chain3 here runs as two launches (filter, then ops in place: twice the bytes of one "
                "pass), the baseline a fused stencil + ops kernel is measured against.\n");

    if (!o.pixel_json.empty()) {
        nlohmann::json j;
        j["size"] = {s.width, s.height};
        j["format"] = "rgba8";
        j["border"] = std::string(to_string(s.border));
        j["buffer_sets"] = sets;
        j["iterations"] = o.iterations;
        j["copy_roofline_us"] = s.copy_us;
        for (const auto& r : rows) {
            nlohmann::json e{{"ops", r.ops}, {"mechanism", r.mechanism}, {"ok", r.ok}};
            if (r.ok) {
                e["median_us"] = r.median_us;
                e["gbps"] = r.gbps;
                e["ratio_to_copy"] = r.vs_copy;
                e["host_launch_us"] = r.host_us;
            } else {
                e["reason"] = r.reason;
            }
            j["rows"].push_back(e);
        }
        std::ofstream f(o.pixel_json);
        f << j.dump(2) << "\n";
        if (!f) {
            std::fprintf(stderr, "bench: could not write %s\n", o.pixel_json.c_str());
            return;
        }
        std::printf("bench: wrote %s\n", o.pixel_json.c_str());
    }
}

} // namespace tl::cmd
#endif

// `tilelab check`: runs the correctness matrices (stencil filters, plain and fused with an op
// chain, then per-pixel op chains and the histogram) and prints one row per combination (PASS /
// FAIL / UNAVAILABLE with the reason and the largest difference); non-zero exit on any mismatch
// or when no CUDA device can run it.
#include "check_core.hpp"
#include "commands.hpp"
#include "pixel_check.hpp"

#include <chrono>
#include <cstdio>

namespace tl::cmd {

namespace {

const char* status_name(CheckStatus s) {
    switch (s) {
    case CheckStatus::Pass: return "PASS";
    case CheckStatus::Fail: return "FAIL";
    case CheckStatus::Unavailable: return "UNAVAILABLE";
    }
    return "?";
}

} // namespace

int run_check(const CheckOptions& o) {
    CheckConfig cfg = default_check_config();
    PixelCheckConfig pcfg = default_pixel_check_config();
    if (!o.sizes.empty()) {
        cfg.sizes.clear();
        pcfg.sizes.clear();
        for (const auto& s : o.sizes) {
            int w = 0, h = 0;
            if (!parse_size(s, w, h) || w > 16384 || h > 16384) {
                std::fprintf(stderr, "check: size '%s' is not WxH with 1..16384 each (or 1080p, 4k, 8k)\n", s.c_str());
                return kExitUsage;
            }
            cfg.sizes.emplace_back(w, h);
            pcfg.sizes.emplace_back(w, h);
        }
    }
    if (!o.tile.empty()) {
        if (!parse_tile(o.tile, cfg.policy.tile_w, cfg.policy.tile_h)) {
            std::fprintf(stderr, "check: tile '%s' is not WxH with 1..1024 each\n", o.tile.c_str());
            return kExitUsage;
        }
    }
    if (!o.filters.empty()) {
        std::vector<FilterKind> kinds;
        for (const auto& f : o.filters) {
            auto k = parse_filter_kind(f);
            if (!k) {
                std::fprintf(stderr, "check: unknown filter '%s'\n", f.c_str());
                return kExitUsage;
            }
            kinds.push_back(*k);
        }
        cfg.cases = check_cases(kinds);
    }
    if (!o.mechanisms.empty()) {
        cfg.mechanisms.clear();
        for (const auto& m : o.mechanisms) {
            auto k = cuda::parse_mechanism(m);
            if (!k) {
                std::fprintf(stderr, "check: unknown mechanism '%s'\n", m.c_str());
                return kExitUsage;
            }
            cfg.mechanisms.push_back(*k);
        }
    }
    if (!o.pixel_mechanisms.empty()) {
        std::vector<PixelRun> runs;
        for (const auto& m : o.pixel_mechanisms) {
            auto k = cuda::parse_pixel_mechanism(m);
            if (!k) {
                std::fprintf(stderr, "check: unknown pixel mechanism '%s' (choose from: %s)\n", m.c_str(),
                             pixel_mechanism_names().substr(5).c_str());  // without "cpu": it is the oracle
                return kExitUsage;
            }
            for (const auto& r : pcfg.runs)
                if (r.mechanism == *k) runs.push_back(r);
        }
        pcfg.runs = std::move(runs);
    }
    if (!o.borders.empty()) {
        cfg.borders.clear();
        for (const auto& b : o.borders) {
            auto k = parse_border(b);
            if (!k) {
                std::fprintf(stderr, "check: unknown border '%s' (clamp, zero, mirror)\n", b.c_str());
                return kExitUsage;
            }
            cfg.borders.push_back(*k);
        }
    }
    if (!o.formats.empty()) {
        cfg.formats.clear();
        for (const auto& f : o.formats) {
            auto k = parse_pixel_format(f);
            if (!k) {
                std::fprintf(stderr, "check: unknown format '%s' (rgba8, rgba32f)\n", f.c_str());
                return kExitUsage;
            }
            cfg.formats.push_back(*k);
        }
        cfg.float_max_pixels = 1LL << 40;  // asked for explicitly: every size
    }

    if (auto st = cuda::cuda_status(); !st) {
        std::fprintf(stderr, "check: %s\n", st.reason.c_str());
        return kExitFailure;
    }
    auto header = [](const char* first, const char* border) {
        std::printf("%-19s %-10s %-7s %-11s %-8s %-11s %9s  %s\n", first, "mechanism", border, "size", "format",
                    "result", "max diff", "detail");
    };
    const auto t0 = std::chrono::steady_clock::now();
    auto print = [&](const std::string& what, const std::string& mech, const std::string& border, int w, int h,
                     const std::string& format, CheckStatus status, double max_diff, const std::string& detail) {
        if (o.quiet && status != CheckStatus::Fail) return;
        const std::string size = std::to_string(w) + "x" + std::to_string(h);
        std::printf("%-19s %-10s %-7s %-11s %-8s %-11s %9.3g  %s\n", what.c_str(), mech.c_str(), border.c_str(),
                    size.c_str(), format.c_str(), status_name(status),
                    status == CheckStatus::Unavailable ? 0.0 : max_diff, detail.c_str());
        std::fflush(stdout);
    };
    CheckSummary total;
    auto add = [&](const CheckSummary& s) {
        total.pass += s.pass;
        total.fail += s.fail;
        total.unavailable += s.unavailable;
        if (total.fatal.empty()) total.fatal = s.fatal;
    };
    if (!o.pixel_only) {
        header("filter", "border");
        add(run_check_matrix(cfg, [&](const CheckRow& r) {
            // Fused rows: "sobel + grade" = sobel then the chain, in one kernel (launch_fused).
            print(r.ops.empty() ? r.filter : r.filter + " + " + r.ops,
                  std::string(cuda::mechanism_info(r.mechanism).name), std::string(to_string(r.border)),
                  r.width, r.height, std::string(to_string(r.format)), r.status, r.max_diff, r.detail);
        }));
    }
    if (!o.stencil_only && total.fatal.empty()) {
        // Per-pixel rows in the same columns: the op chain (or "histogram") where the filter was,
        // the memory layout where the border was (ops read one pixel: no border), 1 LSB against
        // tl::reference_pixel_ops.
        header("ops", "layout");
        add(run_pixel_check_matrix(pcfg, [&](const PixelCheckRow& r) {
            print(r.ops, r.mechanism, to_string(r.layout), r.width, r.height, "rgba8", r.status, r.max_diff,
                  r.detail);
        }));
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!total.fatal.empty()) {
        std::fprintf(stderr, "check: %s\n", total.fatal.c_str());
        return kExitFailure;
    }
    std::printf("check: %d passed, %d failed, %d unavailable (%.1f s)\n", total.pass, total.fail, total.unavailable,
                secs);
    return total.fail == 0 ? 0 : 1;
}

} // namespace tl::cmd

// `tilelab check`: runs the correctness matrix and prints one row per combination
// (PASS / FAIL / UNAVAILABLE with the reason and the largest difference); non-zero exit on any
// mismatch or when no CUDA device can run it.
#include "check_core.hpp"
#include "commands.hpp"

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
    if (!o.sizes.empty()) {
        cfg.sizes.clear();
        for (const auto& s : o.sizes) {
            int w = 0, h = 0;
            if (!parse_size(s, w, h) || w > 16384 || h > 16384) {
                std::fprintf(stderr, "check: size '%s' is not WxH with 1..16384 each (or 1080p, 4k, 8k)\n", s.c_str());
                return 1;
            }
            cfg.sizes.emplace_back(w, h);
        }
    }
    if (!o.filters.empty()) {
        std::vector<FilterKind> kinds;
        for (const auto& f : o.filters) {
            auto k = parse_filter_kind(f);
            if (!k) {
                std::fprintf(stderr, "check: unknown filter '%s'\n", f.c_str());
                return 1;
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
                return 1;
            }
            cfg.mechanisms.push_back(*k);
        }
    }
    if (!o.borders.empty()) {
        cfg.borders.clear();
        for (const auto& b : o.borders) {
            auto k = parse_border(b);
            if (!k) {
                std::fprintf(stderr, "check: unknown border '%s' (clamp, zero, mirror)\n", b.c_str());
                return 1;
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
                return 1;
            }
            cfg.formats.push_back(*k);
        }
        cfg.float_max_pixels = 1LL << 40;  // asked for explicitly: every size
    }

    if (auto st = cuda::cuda_status(); !st) {
        std::fprintf(stderr, "check: %s\n", st.reason.c_str());
        return 1;
    }
    std::printf("%-15s %-9s %-7s %-11s %-8s %-11s %9s  %s\n", "filter", "mechanism", "border", "size", "format",
                "result", "max diff", "detail");
    const auto t0 = std::chrono::steady_clock::now();
    const auto summary = run_check_matrix(cfg, [&](const CheckRow& r) {
        if (o.quiet && r.status != CheckStatus::Fail) return;
        const std::string size = std::to_string(r.width) + "x" + std::to_string(r.height);
        std::printf("%-15s %-9s %-7s %-11s %-8s %-11s %9.3g  %s\n", r.filter.c_str(),
                    std::string(cuda::mechanism_info(r.mechanism).name).c_str(), std::string(to_string(r.border)).c_str(),
                    size.c_str(), std::string(to_string(r.format)).c_str(), status_name(r.status),
                    r.status == CheckStatus::Unavailable ? 0.0 : r.max_diff, r.detail.c_str());
        std::fflush(stdout);
    });
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!summary.fatal.empty()) {
        std::fprintf(stderr, "check: %s\n", summary.fatal.c_str());
        return 1;
    }
    std::printf("check: %d passed, %d failed, %d unavailable (%.1f s)\n", summary.pass, summary.fail,
                summary.unavailable, secs);
    return summary.fail == 0 ? 0 : 1;
}

} // namespace tl::cmd

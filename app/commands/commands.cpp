// Registers the apply / check / bench subcommands and their flags, and turns flags into filter
// parameters (shared by the three commands).
#include "commands.hpp"

#include "pixel_ops_flags.hpp"
#include "stencil_api.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tl::cmd {

namespace {

std::string mechanism_names() {
    std::string s;
    for (const auto& m : tl::cuda::mechanism_infos()) s += std::string(s.empty() ? "" : ", ") + std::string(m.name);
    return s;
}

std::string filter_names() {
    std::string s;
    for (const auto& f : filter_infos()) s += std::string(s.empty() ? "" : ", ") + std::string(f.name);
    return s;
}

} // namespace

bool parse_size(const std::string& text, int& width, int& height) {
    if (text == "1080p") { width = 1920; height = 1080; return true; }
    if (text == "4k" || text == "4K") { width = 3840; height = 2160; return true; }
    if (text == "8k" || text == "8K") { width = 7680; height = 4320; return true; }
    const auto x = text.find('x');
    if (x == std::string::npos) return false;
    const char* b = text.data();
    auto r1 = std::from_chars(b, b + x, width);
    auto r2 = std::from_chars(b + x + 1, b + text.size(), height);
    return r1.ec == std::errc{} && r1.ptr == b + x && r2.ec == std::errc{} && r2.ptr == b + text.size() &&
           width > 0 && height > 0;
}

bool parse_tile(const std::string& text, int& width, int& height) {
    return parse_size(text, width, height) && width <= 1024 && height <= 1024;
}

std::optional<FilterParams> filter_params_from_flags(const FilterFlags& f, std::string& error) {
    const auto kind = parse_filter_kind(f.filter);
    if (!kind) {
        error = "unknown filter '" + f.filter + "' (choose one of: " + filter_names() + ")";
        return std::nullopt;
    }
    FilterParams p;
    p.kind = *kind;
    p.radius = f.radius;
    p.sigma = f.sigma;
    p.amount = f.amount;
    p.user_scale = f.scale;
    p.user_bias = f.bias;
    if (p.kind == FilterKind::UserKernel) {
        std::vector<float> w;
        std::stringstream ss(f.kernel);
        std::string item;
        while (std::getline(ss, item, ',')) {
            try {
                std::size_t used = 0;
                w.push_back(std::stof(item, &used));
                if (item.find_first_not_of(" \t", used) != std::string::npos) throw std::invalid_argument(item);
            } catch (const std::exception&) {
                error = "--kernel: '" + item + "' is not a number";
                return std::nullopt;
            }
        }
        if (w.size() != 9 && w.size() != 25) {
            error = "--kernel needs 9 (3x3) or 25 (5x5) comma-separated weights, got " + std::to_string(w.size());
            return std::nullopt;
        }
        p.user_size = w.size() == 9 ? 3 : 5;
        for (std::size_t i = 0; i < w.size(); ++i) p.user[i] = w[i];
    }
    if (auto why = validate(p); !why.empty()) {
        error = why;
        return std::nullopt;
    }
    return p;
}

Commands::Commands(CLI::App& app) {
    apply_ = app.add_subcommand("apply", "Run a stencil filter and/or a chain of per-pixel ops on an image file");
    auto& a = apply_opts_;
    apply_filter_ = apply_->add_option("--filter", a.filter.filter,
                                       "Filter: " + filter_names() + ", or none (ops alone); optional with --op");
    apply_->add_option("--radius", a.filter.radius, "Box radius (1..32)");
    apply_->add_option("--sigma", a.filter.sigma, "Gaussian sigma (0.5..10)");
    apply_->add_option("--amount", a.filter.amount, "Sharpen amount (0..5)");
    apply_->add_option("--kernel", a.filter.kernel, "User kernel: 9 or 25 comma-separated weights, row-major");
    apply_->add_option("--scale", a.filter.scale, "User kernel: result = scale * sum + bias");
    apply_->add_option("--bias", a.filter.bias, "User kernel bias (0..1 units)");
    apply_->add_option("--mechanism", a.mechanism,
                       "cpu (reference), " + mechanism_names() + ", vulkan-plain, vulkan-tiled");
    apply_->add_option("--border", a.border, "clamp, zero or mirror");
    apply_->add_option("--format", a.format, "Working format: rgba8 or rgba32f");
    apply_->add_option("--stages", a.stages, "Pipeline depth for ldgsts/tma (1..4)");
    apply_->add_option("--op", a.ops,
                       "Per-pixel op after the filter, repeatable, in order: name[:a[:b[:c]]], e.g. "
                       "--op gamma:2.2 --op levels:0.1:0.9:1.2 --op invert");
    apply_->add_option("--pixel-mechanism", a.pixel_mechanism,
                       "Runs the --op chain: " + pixel_mechanism_names() + " (--stages for ldgsts/bulk)");
    apply_->add_flag("--bulk-store", a.bulk_store, "bulk: write results back with a bulk copy shared -> global");
    apply_->add_option("input", a.input, "Input image (PNG, JPEG, BMP, TGA)")->required();
    apply_->add_option("output", a.output, "Output PNG")->required();

    check_ = app.add_subcommand("check", "Compare every CUDA stencil and per-pixel mechanism with the CPU reference (non-zero exit on any mismatch)");
    auto& c = check_opts_;
    check_->add_option("--sizes", c.sizes,
                       "Sizes WxH (default 1x1,17x9,129x65,4097x3,3840x2160; per-pixel rows without 129x65)")->delimiter(',');
    check_->add_option("--filters", c.filters, "Filters (default all)")->delimiter(',');
    check_->add_option("--mechanisms", c.mechanisms, "Mechanisms (default all CUDA ones)")->delimiter(',');
    check_->add_option("--borders", c.borders, "Borders (default clamp,zero,mirror)")->delimiter(',');
    check_->add_option("--tile", c.tile, "Output tile WxH for the mechanisms that read one (tma, tma_ws, cluster)");
    check_->add_option("--formats", c.formats, "Formats (default rgba8, and rgba32f for a subset)")->delimiter(',');
    check_->add_option("--pixel-mechanisms", c.pixel_mechanisms,
                       "Per-pixel mechanisms (default all; ldgsts/bulk at stages 1..4)")->delimiter(',');
    auto* pixel_only = check_->add_flag("--pixel-only", c.pixel_only, "Per-pixel rows (op chains, histogram) only");
    check_->add_flag("--stencil-only", c.stencil_only, "Stencil filter rows only")->excludes(pixel_only);
    check_->add_flag("--quiet", c.quiet, "Print only failing rows and the summary");

    bench_ = app.add_subcommand("bench", "Time every filter x mechanism against a device copy (and NPP)");
    auto& b = bench_opts_;
    bench_->add_option("--size", b.size, "1080p, 4k, 8k or WxH");
    bench_->add_option("--filters", b.filters, "Filters (default all)")->delimiter(',');
    bench_->add_option("--mechanisms", b.mechanisms, "Mechanisms (default all CUDA ones)")->delimiter(',');
    bench_->add_option("--stages", b.stages, "Stage counts to sweep for ldgsts/tma/tma_ws, e.g. 1,2,3,4")
        ->delimiter(',')
        ->check(CLI::Range(1, 4));
    bench_->add_option("--tiles", b.tiles, "Output tiles WxH to sweep for the mechanisms that read one (tma, tma_ws, cluster), e.g. 64x32,128x32")
        ->delimiter(',');
    bench_->add_option("--box-radii", b.box_radii, "Box radii to time instead of 1,4,16,32, e.g. 2,8,12,16")
        ->delimiter(',')
        ->check(CLI::Range(1, 32));
    bench_->add_option("--sigmas", b.sigmas, "Gaussian sigmas to time instead of 0.5,1.5,3,5,7,10, e.g. 4,6,8")
        ->delimiter(',')
        ->check(CLI::Validator(
            [](std::string& v) -> std::string {
                // The Gaussian's own range check (filter_spec's validate), as apply --sigma meets it.
                try {
                    return validate(FilterParams{.kind = FilterKind::Gaussian, .sigma = std::stof(v)});
                } catch (const std::exception&) {
                    return "gaussian sigma " + v + " is not a number";
                }
            },
            "0.5..10"));
    bench_->add_option("--border", b.border, "clamp, zero or mirror");
    bench_->add_option("--json", b.json, "Write the results as JSON to this file");
    bench_->add_option("--iterations", b.iterations, "Timed runs per row (median reported)")->check(CLI::Range(1, 10000));
    bench_->add_flag("--pixel", b.pixel,
                     "Also time per-pixel op chains (1, 3, 8 ops) x mechanism x stages 1..4, and sobel + 3 ops as two passes");
    bench_->add_option("--pixel-json", b.pixel_json, "Write the per-pixel rows as JSON to this file (with --pixel)");
}

std::optional<int> Commands::run() {
    if (apply_->parsed()) {
        apply_opts_.filter_given = apply_filter_->count() > 0;
        return run_apply(apply_opts_);
    }
    if (check_->parsed()) return run_check(check_opts_);
    if (bench_->parsed()) {
        // The per-pixel rows need CUDA; say so here, since without it bench times Vulkan alone.
        if (bench_opts_.pixel)
            if (auto st = cuda::cuda_status(); !st)
                std::fprintf(stderr, "bench: --pixel: per-pixel rows not timed: %s\n", st.reason.c_str());
        if (!bench_opts_.pixel_json.empty()) {
            // Found out now, not after minutes of timing.
            if (!bench_opts_.pixel) {
                std::fprintf(stderr, "bench: --pixel-json needs --pixel\n");
                return kExitUsage;
            }
            if (!std::ofstream(bench_opts_.pixel_json, std::ios::app)) {
                std::fprintf(stderr, "bench: cannot write %s\n", bench_opts_.pixel_json.c_str());
                return kExitFailure;
            }
        }
        return run_bench(bench_opts_);
    }
    return std::nullopt;
}

} // namespace tl::cmd

// Top-level flags: each documented in --help; choices checked by CLI11, ranges by tl::validate.
#include "cli.hpp"

#include "pixel_api.hpp"
#include "stencil_api.hpp"

#include "image/image_gen.hpp"
#include "pixel_ops.hpp"
#include "vk/compute_filters.hpp"

#include <unistd.h>

#include <vector>

namespace tl {

namespace {

template <typename Range, typename Name>
std::vector<std::string> names_of(const Range& range, Name name) {
    std::vector<std::string> out;
    for (const auto& item : range) out.emplace_back(name(item));
    return out;
}

std::filesystem::path executable_dir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path(".") : exe.parent_path();
}

} // namespace

std::optional<PixelOp> parse_op_flag(const std::string& text, std::string& error) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto colon = text.find(':', start);
        parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    const auto kind = parse_pixel_op_kind(parts[0]);
    std::string valid;
    for (const auto& info : pixel_op_infos())
        if (info.kind != PixelOpKind::ColorMatrix && info.kind != PixelOpKind::Lut)
            valid += std::string(valid.empty() ? "" : ", ") + std::string(info.name);
    if (!kind || *kind == PixelOpKind::ColorMatrix || *kind == PixelOpKind::Lut) {
        error = "--op '" + parts[0] + "' is not an op available here (choose one of: " + valid + ")";
        return std::nullopt;
    }
    PixelOp op = default_pixel_op(*kind);
    float* fields[] = {&op.a, &op.b, &op.c};
    if (parts.size() > 4) {
        error = "--op '" + text + "' has more than three numbers";
        return std::nullopt;
    }
    for (std::size_t i = 1; i < parts.size(); ++i) {
        try {
            std::size_t used = 0;
            *fields[i - 1] = std::stof(parts[i], &used);
            if (used != parts[i].size()) throw std::invalid_argument(parts[i]);
        } catch (const std::exception&) {
            error = "--op '" + text + "': '" + parts[i] + "' is not a number";
            return std::nullopt;
        }
    }
    if (auto why = validate(op); !why.empty()) {
        error = "--op '" + text + "': " + why;
        return std::nullopt;
    }
    return op;
}

std::filesystem::path find_asset_dir(const std::string& override_dir) {
    std::error_code ec;
    if (!override_dir.empty()) return override_dir;
    std::vector<std::filesystem::path> candidates;
#ifdef TILELAB_ASSET_DIR
    candidates.emplace_back(TILELAB_ASSET_DIR);
#endif
    const auto exe = executable_dir();
    candidates.push_back(exe / ".." / ".." / "assets");
    candidates.push_back(exe / ".." / "assets");
    candidates.push_back(exe / ".." / "share" / "tilelab" / "assets");
    for (const auto& c : candidates)
        if (std::filesystem::is_regular_file(c / "astronaut.png", ec)) return c;
    return candidates.front();
}

CommandLine::CommandLine(CLI::App& cli) {
    // The viewer opens on a filter whose effect is visible from the back of the room.
    filter_.filter = "gaussian";
    filter_.sigma = 3.0f;
    const auto filters = names_of(filter_infos(), [](const FilterInfo& f) { return std::string(f.name); });
    const auto generators = names_of(generator_infos(), [](const GeneratorInfo& g) { return std::string(g.name); });
    const auto variants = names_of(vk::compute_variants(), [](vk::ComputeVariant v) { return std::string(vk::to_string(v)); });

    cli.add_flag("--headless", headless_,
                 "Render offscreen with no window and no display (needs --frames; use --screenshot to keep the result)")
        ->group("Window");
    cli.add_option("--frames", frames_, "Draw this many frames, then exit 0 (default: run until the window closes)")
        ->check(CLI::Range(0, 1000000))
        ->group("Window");
    cli.add_option("--screenshot", screenshot_, "Write the last frame (viewport and panels) to this PNG file")->group("Window");
    cli.add_option("--size", size_, "Window or offscreen size WxH (or 1080p, 4k)")->capture_default_str()->group("Window");
    cli.add_option("--vsync", vsync_, "Wait for the display's refresh (on) or present as fast as possible (off)")->capture_default_str()
        ->check(CLI::IsMember({"on", "off"}))
        ->group("Window");
    cli.add_option("--ui-scale", ui_scale_, "Scale fonts and widgets (1.5 or 2 for a projector or a 4K screen)")->capture_default_str()
        ->check(CLI::Range(0.5f, 4.0f))
        ->group("Window");
    cli.add_flag("--validate", validate_, "Enable the Vulkan validation layers and count their messages")->group("Window");

    cli.add_option("--image", image_,
                   "Start with this image file (PNG/JPEG/BMP/TGA). If it cannot be read the reason is printed and the "
                   "default image is shown instead")
        ->group("Image");
    cli.add_option("--generate", generate_, "Start with a generated image instead of a file")
        ->check(CLI::IsMember(generators))
        ->group("Image");
    cli.add_option("--gen-size", gen_size_, "Size of the generated image WxH (1..16384 each; or 1080p, 4k, 8k)")->capture_default_str()->group("Image");
    cli.add_option("--seed", seed_, "Seed of the noise generator")->capture_default_str()->group("Image");
    cli.add_option("--assets", assets_, "Directory holding astronaut.png (default: found from the build or the executable)")
        ->group("Image");

    cli.add_option("--filter", filter_.filter, "Stencil filter")->capture_default_str()->check(CLI::IsMember(filters))->group("Filter");
    radius_opt_ = cli.add_option("--radius", filter_.radius, "Box radius in pixels (1..32)")->capture_default_str()->group("Filter");
    cli.add_option("--sigma", filter_.sigma, "Gaussian sigma in pixels (0.5..10)")->capture_default_str()->group("Filter");
    cli.add_option("--amount", filter_.amount, "Sharpen amount (0..5)")->capture_default_str()->group("Filter");
    cli.add_option("--kernel", filter_.kernel, "User kernel: 9 or 25 comma-separated weights, row-major")->group("Filter");
    cli.add_option("--scale", filter_.scale, "User kernel scale (result = scale * sum + bias)")->capture_default_str()->group("Filter");
    cli.add_option("--bias", filter_.bias, "User kernel bias in 0..1 units")->capture_default_str()->group("Filter");
    cli.add_option("--border", border_, "Border handling")->capture_default_str()
        ->check(CLI::IsMember({"clamp", "zero", "mirror"}))
        ->group("Filter");
    cli.add_option("--op", ops_,
                   "Per-pixel op applied after the filter, repeatable, in order: name[:a[:b[:c]]], e.g. "
                   "--op gamma:2.2 --op brightness-contrast:0.1:1.5 --op levels:0.1:0.9:1.2 --op invert")
        ->group("Filter");
    const auto pixel_mechanisms =
        names_of(cuda::pixel_mechanism_infos(), [](const cuda::PixelMechanismInfo& m) { return std::string(m.name); });
    cli.add_option("--pixel-mechanism", pixel_mechanism_,
                   "CUDA path: how the per-pixel op chain moves its pixels (default: vector)")
        ->check(CLI::IsMember(pixel_mechanisms))
        ->group("Filter");
    cli.add_flag("--fuse", fuse_, "CUDA path: run the op chain inside the stencil kernel (one pass over the image)")->group("Filter");
    cli.add_flag("--time-ops", time_ops_,
                 "CUDA path: also run each op of the chain alone (into a scratch image) so the Stats panel times each op")
        ->group("Filter");
    cli.add_flag("--diag-host-sync", diag_host_sync_,
                 "Diagnostic for the interop measurement: the host waits for each frame's CUDA stage "
                 "(cudaStreamSynchronize) before submitting the display, so Vulkan never waits for a value CUDA has "
                 "not reached yet. Not for normal use: it is a host wait in the frame loop")
        ->group("Filter");
    cli.add_option("--stage", stage_,
                   "What the processing stage does each frame: the filter (and op chain), or 'copy': a plain "
                   "device-to-device copy of the image (cudaMemcpyAsync on the CUDA path, vkCmdCopyBuffer on the "
                   "Vulkan-only path), to measure what the hand-off between the APIs costs; implies --every-frame")
        ->capture_default_str()
        ->check(CLI::IsMember({"filter", "copy"}))
        ->group("Filter");
    cli.add_flag("--every-frame", every_frame_,
                 "Re-run the processing stage every frame on the Vulkan-only path too (the CUDA path always does), "
                 "so headless runs measure it")
        ->group("Filter");
    cli.add_option("--variant", variant_, "Vulkan compute variant that runs the filter (default: vulkan-tiled)")
        ->check(CLI::IsMember(variants))
        ->group("Filter");
    auto mechanisms = names_of(cuda::mechanism_infos(), [](const cuda::MechanismInfo& m) { return std::string(m.name); });
    mechanisms.insert(mechanisms.end(), variants.begin(), variants.end());
    cli.add_option("--mechanism", mechanism_,
                   "What runs the filter: a CUDA mechanism or a Vulkan compute variant (default: the best CUDA mechanism "
                   "this GPU can run when CUDA is usable, else vulkan-tiled)")
        ->check(CLI::IsMember(mechanisms))
        ->group("Filter");
    const auto cuda_mechanisms = names_of(cuda::mechanism_infos(), [](const cuda::MechanismInfo& m) { return std::string(m.name); });
    cli.add_option("--mechanism-a", mechanism_a_,
                   "Split/diff view: the A side shows this CUDA mechanism's output instead of the original "
                   "(with --view diff, |B - A| compares two mechanisms)")
        ->check(CLI::IsMember(cuda_mechanisms))
        ->group("Filter");

    cli.add_option("--view", view_, "What the viewport shows")->capture_default_str()
        ->check(CLI::IsMember({"original", "filtered", "split", "diff"}))
        ->group("View");
    cli.add_option("--gain", gain_, "Diff heat-map gain (1..64)")->capture_default_str()->check(CLI::Range(1.0f, 64.0f))->group("View");
    cli.add_option("--split", split_, "Split divider position as a fraction of the viewport (0..1)")->capture_default_str()
        ->check(CLI::Range(0.0f, 1.0f))
        ->group("View");
}

std::optional<LaunchOptions> CommandLine::resolve(std::string& error) const {
    LaunchOptions o;
    o.validate = validate_;
    int w = 0, h = 0;
    if (!cmd::parse_size(size_, w, h) || w > 16384 || h > 16384) {
        error = "--size '" + size_ + "' is not WxH with 1..16384 each (e.g. 1600x900, 1080p, 4k)";
        return std::nullopt;
    }
    o.app.size = {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h)};
    o.app.headless = headless_;
    o.app.frames = frames_;
    o.app.screenshot = screenshot_;
    o.app.vsync = vsync_ == "on";
    o.app.ui_scale = ui_scale_;
    if (headless_ && frames_ == 0) {
        error = "--headless needs --frames N (how many frames to render before exiting)";
        return std::nullopt;
    }
    if (!screenshot_.empty() && frames_ == 0) {
        error = "--screenshot needs --frames N (the screenshot is the last of N frames)";
        return std::nullopt;
    }

    ViewerSetup& v = o.viewer;
    v.asset_dir = find_asset_dir(assets_);
    if (!image_.empty() && !generate_.empty()) {
        error = "--image and --generate both choose the starting image; give one of them";
        return std::nullopt;
    }
    if (!image_.empty()) v.image = image_;
    if (!generate_.empty()) v.generator = parse_generator(generate_);
    if (!cmd::parse_size(gen_size_, v.gen_width, v.gen_height)) {
        error = "--gen-size '" + gen_size_ + "' is not WxH (e.g. 1024x1024, 4k)";
        return std::nullopt;
    }
    if (auto why = validate_image_size(v.gen_width, v.gen_height); !why.empty()) {
        error = "--gen-size: " + why;
        return std::nullopt;
    }
    v.seed = seed_;
    std::string why;
    auto params = cmd::filter_params_from_flags(filter_, why);
    if (!params) {
        error = why;
        return std::nullopt;
    }
    v.params = *params;
    v.border = *parse_border(border_);
    for (const auto& text : ops_) {
        auto op = parse_op_flag(text, error);
        if (!op) return std::nullopt;
        v.ops.push_back(std::move(*op));
    }
    if (!variant_.empty()) v.variant = *vk::parse_compute_variant(variant_);
    v.stage = stage_ == "copy" ? StageKind::Copy : StageKind::Filter;
    v.every_frame = every_frame_;
    if (!pixel_mechanism_.empty()) v.pixel_mechanism = cuda::parse_pixel_mechanism(pixel_mechanism_);
    v.fuse = fuse_;
    v.time_ops = time_ops_;
    v.diag_host_sync = diag_host_sync_;
    v.mechanism = mechanism_;
    v.mechanism_a = mechanism_a_;
    if (auto variant = vk::parse_compute_variant(mechanism_)) v.variant = *variant;
    const std::pair<const char*, vk::ViewMode> views[] = {
        {"original", vk::ViewMode::Original}, {"filtered", vk::ViewMode::Filtered}, {"split", vk::ViewMode::Split}, {"diff", vk::ViewMode::Diff}};
    for (const auto& [name, mode] : views)
        if (view_ == name) v.view = mode;
    v.gain = gain_;
    v.split = split_;
    return o;
}

} // namespace tl

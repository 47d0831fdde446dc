// `tilelab apply`: one stencil filter and/or a chain of per-pixel ops on an image file, each with a
// chosen mechanism (cpu = the reference, a CUDA mechanism from its table, or for the filter a
// Vulkan compute variant); writes a PNG. Every user error is a sentence: a bad flag or value exits
// 2 (kExitUsage), a failure to load, run or save exits 1 (kExitFailure).
#include "commands.hpp"
#include "device_buffer.hpp"
#include "pixel_ops_flags.hpp"

#include "cli.hpp"
#include "pixel_api.hpp"

#include "image/image_io.hpp"
#include "reference.hpp"
#include "stencil_api.hpp"
#include "vk/compute_filters.hpp"

#include <cstdio>
#include <functional>

namespace tl::cmd {

namespace {

int fail(const std::string& why, int code = kExitFailure) {
    std::fprintf(stderr, "apply: %s\n", why.c_str());
    return code;
}
int usage(const std::string& why) { return fail(why, kExitUsage); }

#if TILELAB_HAVE_CUDA
// Uploads src, runs `launch` on the device copies (source, destination), downloads into dst (same
// size and format). Rows are padded to 256 bytes, a multiple of the 16 that the staged
// mechanisms need. Empty on success, else the reason.
std::string run_on_device(const Image& src, Image& dst,
                          const std::function<cuda::Result(const cuda::DeviceImage&, const cuda::DeviceImage&)>& launch) {
    const std::size_t row = src.pitch();
    const std::size_t pitch = round_up(row, 256);
    const auto h = static_cast<std::size_t>(src.height);
    DeviceBuffer d_src, d_dst;
    std::string err = d_src.allocate(pitch * h);
    if (err.empty()) err = d_dst.allocate(pitch * h);
    if (err.empty())
        err = cuda_error_text("cudaMemcpy2D (upload)",
                              cudaMemcpy2D(d_src.get(), pitch, src.bytes.data(), row, row, h, cudaMemcpyHostToDevice));
    if (!err.empty()) return err;
    const cuda::DeviceImage ds{d_src.get(), pitch, src.width, src.height, src.format};
    const cuda::DeviceImage dd{d_dst.get(), pitch, src.width, src.height, src.format};
    if (auto r = launch(ds, dd); !r) return r.reason;
    err = cuda_error_text("cudaDeviceSynchronize", cudaDeviceSynchronize());
    if (err.empty())
        err = cuda_error_text("cudaMemcpy2D (download)",
                              cudaMemcpy2D(dst.bytes.data(), row, d_dst.get(), pitch, row, h, cudaMemcpyDeviceToHost));
    return err;
}

// The stencil on the GPU with one mechanism.
std::string run_cuda(const FilterParams& p, Border border, cuda::Mechanism m, const cuda::Policy& policy,
                     const Image& src, Image& dst) {
    return run_on_device(src, dst, [&](const cuda::DeviceImage& ds, const cuda::DeviceImage& dd) {
        return cuda::launch(p, border, m, policy, ds, dd, nullptr);
    });
}

// The op chain on the GPU with one per-pixel mechanism.
std::string run_cuda_pixel(const std::vector<PixelOp>& ops, cuda::PixelMechanism m, const cuda::PixelPolicy& policy,
                           const Image& src, Image& dst) {
    return run_on_device(src, dst, [&](const cuda::DeviceImage& ds, const cuda::DeviceImage& dd) {
        return cuda::launch_pixel_ops(ops, m, policy, ds, dd, nullptr);
    });
}
#endif

} // namespace

int run_apply(const ApplyOptions& o) {
    // The filter is optional when ops are given: --filter none, or no --filter at all.
    if (!o.filter_given && o.ops.empty())
        return usage("nothing to do: give --filter NAME, one or more --op name[:a[:b[:c]]], or both");
    const bool with_filter = o.filter_given && o.filter.filter != "none";
    if (!with_filter && o.ops.empty()) return usage("--filter none needs at least one --op name[:a[:b[:c]]]");
    std::string error;
    std::optional<FilterParams> params;
    if (with_filter) {
        params = filter_params_from_flags(o.filter, error);
        if (!params) return usage(error);
    }
    const auto border = parse_border(o.border);
    if (!border) return usage("unknown border '" + o.border + "' (clamp, zero, mirror)");
    const auto format = parse_pixel_format(o.format);
    if (!format) return usage("unknown format '" + o.format + "' (rgba8, rgba32f)");
    if (o.stages < 1 || o.stages > 4)
        return usage("--stages " + std::to_string(o.stages) + " is out of range: valid 1..4");

    std::vector<PixelOp> ops;
    for (const auto& text : o.ops) {
        auto op = parse_op_flag(text, error);  // the viewer's --op syntax and messages
        if (!op) return usage(error);
        ops.push_back(std::move(*op));
    }
    if (static_cast<int>(ops.size()) > cuda::kMaxPixelOps)
        return usage(std::to_string(ops.size()) + " ops given; a chain holds at most " +
                     std::to_string(cuda::kMaxPixelOps));
    auto pixel = parse_pixel_run(o.pixel_mechanism, o.stages, error);
    if (!pixel) return usage(error);
    if (o.bulk_store) {
        if (pixel->mechanism != cuda::PixelMechanism::Bulk)
            return usage("--bulk-store needs --pixel-mechanism bulk");
        pixel->policy.bulk_store = true;
        pixel->label = pixel_run_label(*pixel->mechanism, pixel->policy);
    }
    if (pixel->mechanism && ops.empty())
        return usage("--pixel-mechanism " + o.pixel_mechanism +
                     " runs the --op chain, but no --op was given");

    const bool cpu = o.mechanism == "cpu";
    const auto mech = cuda::parse_mechanism(o.mechanism);
    const auto vk_variant = vk::parse_compute_variant(o.mechanism);
    if (!cpu && !mech && !vk_variant) {
        std::string names = "cpu";
        for (const auto& m : cuda::mechanism_infos()) names += ", " + std::string(m.name);
        for (auto v : vk::compute_variants()) names += ", " + std::string(vk::to_string(v));
        return usage("unknown mechanism '" + o.mechanism + "' (choose one of: " + names + ")");
    }
    // Refuse an unusable GPU path before reading the image, so the reason comes first.
    cuda::Policy policy;
    policy.stages = o.stages;
    if (with_filter && mech)
        if (auto r = cuda::can_run(*mech, *params, *format, policy); !r) return fail(r.reason);
    if (pixel->mechanism)
        if (auto r = cuda::can_run_pixel(*pixel->mechanism, pixel->policy, *format); !r) return fail(r.reason);

    auto loaded = load_image(o.input);
    if (!loaded.image) return fail(loaded.error);
    const Image src = convert(*loaded.image, *format);
    Image filtered = src;

    if (!with_filter) {
        // ops alone: the chain reads the input directly
    } else if (cpu) {
        reference_filter(*params, *border, src.view(), filtered.view());
    } else if (vk_variant) {
        // The Vulkan compute path on a headless device (any Vulkan 1.x device, lavapipe included).
        try {
            vk::ContextOptions opts;
            opts.quiet = true;
            for (const char* e : vk::ComputeFilters::required_device_extensions())
                opts.optional_device_extensions.emplace_back(e);
            vk::Context ctx(opts);
            vk::ComputeFilters filters(ctx);
            if (auto why = filters.can_record(*params, *vk_variant, src.width, src.height,
                                              (src.pitch() + 15) / 16 * 16, src.format);
                !why.empty())
                return fail(why);
            filtered = filters.run(*params, *border, *vk_variant, src);
        } catch (const std::exception& e) {  // vk::Error, or bad_alloc for a huge image
            return fail(std::string("Vulkan: ") + e.what());
        }
    } else {
#if TILELAB_HAVE_CUDA
        if (auto why = run_cuda(*params, *border, *mech, policy, src, filtered); !why.empty()) return fail(why);
#endif
    }

    // Two passes when both are asked for: the filter's result goes back to the host and the
    // chain runs on it (a fused filter + ops kernel does not exist).
    Image dst = filtered;
    if (!ops.empty()) {
        if (!pixel->mechanism) {
            reference_pixel_ops(ops, filtered.view(), dst.view());
        } else {
#if TILELAB_HAVE_CUDA
            if (auto why = run_cuda_pixel(ops, *pixel->mechanism, pixel->policy, filtered, dst); !why.empty())
                return fail(why);
#endif
        }
    }
    if (auto why = save_png(o.output, dst); !why.empty()) return fail(why);
    std::string what;
    if (with_filter)
        what = std::string(to_string(params->kind)) + " with " + o.mechanism + ", border " + o.border;
    if (!ops.empty()) {
        std::string names;
        for (const auto& op : ops) names += std::string(names.empty() ? "" : ",") + std::string(to_string(op.kind));
        what += std::string(what.empty() ? "" : ", then ") + "ops " + names + " with " + pixel->label;
    }
    std::printf("apply: %s, %s, %dx%d -> %s\n", what.c_str(), o.format.c_str(), src.width, src.height,
                o.output.c_str());
    return 0;
}

} // namespace tl::cmd

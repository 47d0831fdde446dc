// The correctness matrix: poisoned destinations, padded source pitches, random content, one CPU
// reference per (filter, border, size, format) reused across mechanisms.
#include "check_core.hpp"

#include "device_buffer.hpp"
#include "image.hpp"
#include "pixel_ops_flags.hpp"  // op(), matrix(): the chains below
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace tl::cmd {

CheckCase box_case(int radius) {
    return {"box r=" + std::to_string(radius), FilterParams{.kind = FilterKind::Box, .radius = radius}};
}

CheckCase gaussian_case(float sigma) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "gaussian s=%g", double(sigma));
    return {buf, FilterParams{.kind = FilterKind::Gaussian, .sigma = sigma}};
}

std::vector<CheckCase> check_cases(const std::vector<FilterKind>& kinds) {
    std::vector<CheckCase> all;
    auto add = [&](std::string label, FilterParams p) { all.push_back({std::move(label), p}); };
    for (int r : {1, 4, 16, 32}) all.push_back(box_case(r));
    // One sigma per shape of the tma mechanism's tensor-core stream (tma_gauss_stream.cu): radius
    // 2 (2, 2), 5 (2, 3), 9 (3, 4), 15 (3, 5), 21 (4, 7), 30 (5, 9).
    for (float s : {0.5f, 1.5f, 3.0f, 5.0f, 7.0f, 10.0f}) all.push_back(gaussian_case(s));
    add("sobel", FilterParams{.kind = FilterKind::Sobel});
    add("laplacian", FilterParams{.kind = FilterKind::Laplacian});
    add("sharpen a=1.5", FilterParams{.kind = FilterKind::Sharpen, .amount = 1.5f});
    // Not dyadic: the RGBA8 3x3 paths finish this one in float, a=1.5 in integers (filters.cuh).
    add("sharpen a=0.3", FilterParams{.kind = FilterKind::Sharpen, .amount = 0.3f});
    add("emboss", FilterParams{.kind = FilterKind::Emboss});
    {
        FilterParams p{.kind = FilterKind::UserKernel};
        p.user_size = 3;
        // Halves: `registers` runs them in its 16-bit fixed-point form on the H200, where they are
        // exact, in its integer form elsewhere (the same filter as 1 2 1 / 0 0 0 / -1 -2 -1 with
        // scale 0.5).
        const float w[9] = {0.5f, 1, 0.5f, 0, 0, 0, -0.5f, -1, -0.5f};
        std::copy(std::begin(w), std::end(w), p.user.begin());
        p.user_scale = 1.0f;
        p.user_bias = 0.5f;
        add("user 3x3", p);
        // Non-dyadic weights (0.3): `registers` runs them in its fixed-point form on the H200, within
        // 1/256 LSB of the exact sum (swar_math::UserFixedForm), in its float form elsewhere, as the
        // tile mechanisms do.
        const float wf[9] = {0.0625f, 0.125f, 0.0625f, 0.125f, -0.75f, 0.125f, 0.0625f, 0.3f, 0.0625f};
        std::copy(std::begin(wf), std::end(wf), p.user.begin());
        p.user_scale = 1.5f;
        p.user_bias = 0.25f;
        add("user 3x3 frac", p);
    }
    {
        FilterParams p{.kind = FilterKind::UserKernel};
        p.user_size = 5;
        // Asymmetric on purpose: a transposed or mirrored window read would show.
        for (int i = 0; i < 25; ++i) p.user[static_cast<std::size_t>(i)] = float((i * 7) % 11) - 3.0f;
        p.user_scale = 1.0f / 40.0f;
        p.user_bias = 0.1f;
        add("user 5x5", p);
    }
    if (kinds.empty()) return all;
    std::vector<CheckCase> picked;
    for (auto& c : all)
        if (std::find(kinds.begin(), kinds.end(), c.params.kind) != kinds.end()) picked.push_back(c);
    return picked;
}

FusedChain default_fused_chain() {
    using pixel_detail::matrix;
    using pixel_detail::op;
    // Each matrix row's absolute sum is below 1 (gain <= 1 in every channel).
    return {"grade",
            {op(PixelOpKind::Invert), op(PixelOpKind::BrightnessContrast, 0.05f, 0.9f), op(PixelOpKind::Saturation, 0.8f),
             matrix({0.6f, 0.3f, 0.05f, 0.1f, 0.7f, 0.15f, -0.1f, 0.2f, 0.6f})}};
}

CheckConfig default_check_config() {
    CheckConfig c;
    c.sizes = {{1, 1}, {17, 9}, {129, 65}, {4097, 3}, {3840, 2160}};
    c.cases = check_cases();
    for (const auto& m : cuda::mechanism_infos()) c.mechanisms.push_back(m.mechanism);
    c.borders = {Border::Clamp, Border::Zero, Border::Mirror};
    c.formats = {PixelFormat::RGBA8, PixelFormat::RGBA32F};
    // A second chain of per-channel ops only: fused kernels fold it into byte tables
    // (filters.cuh, Fused<F, true>), a path of its own. Gains stay <= 1 (contrast 0.8 times the
    // power 1.25's slope below 1.25), so a 1-LSB stencil difference stays within 1 LSB.
    using pixel_detail::op;
    const FusedChain tone{"tone", {op(PixelOpKind::Invert), op(PixelOpKind::BrightnessContrast, 0.02f, 0.8f),
                                   op(PixelOpKind::Gamma, 0.8f)}};
    c.fused_chains = {default_fused_chain(), tone};
    return c;
}

#if TILELAB_HAVE_CUDA

namespace {

Image random_image(int w, int h, PixelFormat f, std::uint32_t seed) {
    Image img(w, h, f);
    std::mt19937 rng(seed);
    if (f == PixelFormat::RGBA8) {
        for (auto& b : img.bytes) b = static_cast<std::uint8_t>(rng() >> 24);
    } else {
        std::uniform_real_distribution<float> d(0.0f, 1.0f);
        float* p = reinterpret_cast<float*>(img.bytes.data());
        for (std::size_t i = 0; i < img.bytes.size() / 4; ++i) p[i] = d(rng);
    }
    return img;
}

double float_tolerance(const Image& ref) {
    const float* p = reinterpret_cast<const float*>(ref.bytes.data());
    float m = 1.0f;
    for (std::size_t i = 0; i < ref.bytes.size() / 4; ++i)
        if (std::isfinite(p[i])) m = std::max(m, std::fabs(p[i]));
    return 1e-4 * double(m);  // 1e-4 relative to the largest value (Sobel reaches ~5.7)
}

} // namespace

OutputVerdict judge_output(const std::uint8_t* got, std::size_t pitch, const Image& want, double tolerance,
                           const std::string& tolerance_name) {
    const ImageDiff d = compare_images(ConstImageView(got, pitch, want.width, want.height, want.format), want.view(),
                                       tolerance);
    OutputVerdict v;
    v.max_diff = d.max_abs;
    if (d.pixels_over > 0) {
        v.failure = std::to_string(d.pixels_over) + " pixels over " + tolerance_name + ", worst at (" +
                    std::to_string(d.worst_x) + "," + std::to_string(d.worst_y) + ")";
        return v;
    }
    const std::size_t row_bytes = static_cast<std::size_t>(want.width) * bytes_per_pixel(want.format);
    long long pad_hits = 0;
    for (std::size_t y = 0; y < static_cast<std::size_t>(want.height); ++y)
        for (std::size_t b = row_bytes; b < pitch; ++b) pad_hits += got[y * pitch + b] != kCheckPoison;
    if (pad_hits > 0) v.failure = std::to_string(pad_hits) + " bytes written past the end of a row";
    return v;
}

CheckSummary run_check_matrix(const CheckConfig& config, const std::function<void(const CheckRow&)>& on_row) {
    CheckSummary sum;
    if (auto st = cuda::cuda_status(); !st) {
        sum.fatal = st.reason;
        return sum;
    }
    cudaStream_t stream = nullptr;
    if (auto e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) {
        sum.fatal = cuda_error_text("cudaStreamCreate", e);
        return sum;
    }
    struct StreamGuard {
        cudaStream_t s;
        ~StreamGuard() { cudaStreamDestroy(s); }
    } guard{stream};

    auto emit = [&](CheckRow row) {
        if (row.status == CheckStatus::Pass) ++sum.pass;
        else if (row.status == CheckStatus::Fail) ++sum.fail;
        else ++sum.unavailable;
        if (on_row) on_row(row);
    };

    std::uint32_t seed = 1234;
    for (std::size_t si = 0; si < config.sizes.size(); ++si) {
        const auto [w, h] = config.sizes[si];
        for (PixelFormat fmt : config.formats) {
            if (fmt == PixelFormat::RGBA32F && static_cast<long long>(w) * h > config.float_max_pixels) continue;
            const std::size_t bpp = bytes_per_pixel(fmt);
            const std::size_t row_bytes = static_cast<std::size_t>(w) * bpp;
            // Source rows padded to 256 bytes (every other size: one more 256 of slack) so a
            // kernel that assumes pitch == width * bpp reads the wrong pixels; the destination
            // pitch differs from the source's so the two cannot be confused either.
            const std::size_t src_pitch = round_up(row_bytes, 256) + (si % 2 ? 256 : 0);
            const std::size_t dst_pitch = round_up(row_bytes, 16) + 64;
            const Image src = random_image(w, h, fmt, seed++);

            DeviceBuffer d_src, d_dst;
            std::string err = d_src.allocate(src_pitch * static_cast<std::size_t>(h));
            if (err.empty()) err = d_dst.allocate(dst_pitch * static_cast<std::size_t>(h));
            if (err.empty())
                err = cuda_error_text("cudaMemcpy2D (upload)",
                                      cudaMemcpy2D(d_src.get(), src_pitch, src.bytes.data(), row_bytes, row_bytes,
                                                   static_cast<std::size_t>(h), cudaMemcpyHostToDevice));
            if (!err.empty()) {
                sum.fatal = err;
                return sum;
            }
            const cuda::DeviceImage dsrc{d_src.get(), src_pitch, w, h, fmt};
            const cuda::DeviceImage ddst{d_dst.get(), dst_pitch, w, h, fmt};
            std::vector<std::uint8_t> got_padded(dst_pitch * static_cast<std::size_t>(h));

            for (const auto& cs : config.cases) {
                for (Border border : config.borders) {
                    Image ref(w, h, fmt);
                    reference_filter(cs.params, border, src.view(), ref.view());
                    const double tol = fmt == PixelFormat::RGBA8 ? 1.0 : float_tolerance(ref);
                    // The fused chains' references: the filter's reference, then the chain.
                    std::vector<Image> fused_refs;
                    if (fmt == PixelFormat::RGBA8)
                        for (const auto& chain : config.fused_chains) {
                            fused_refs.emplace_back(w, h, fmt);
                            reference_pixel_ops(chain.ops, ref.view(), fused_refs.back().view());
                        }
                    for (cuda::Mechanism m : config.mechanisms) {
                        // Row 0 is the plain stencil; rows 1.. run fused with each chain.
                        for (std::size_t variant = 0; variant <= fused_refs.size(); ++variant) {
                        const FusedChain* chain = variant ? &config.fused_chains[variant - 1] : nullptr;
                        const Image& want = variant ? fused_refs[variant - 1] : ref;
                        CheckRow row;
                        row.filter = cs.label;
                        row.ops = chain ? chain->label : std::string{};
                        row.mechanism = m;
                        row.border = border;
                        row.format = fmt;
                        row.width = w;
                        row.height = h;
                        if (auto can = cuda::can_run(m, cs.params, fmt, config.policy); !can) {
                            row.status = CheckStatus::Unavailable;
                            row.detail = can.reason;
                            emit(row);
                            continue;
                        }
                        cudaMemsetAsync(d_dst.get(), kCheckPoison, d_dst.size(), stream);
                        auto res = chain ? cuda::launch_fused(cs.params, border, m, config.policy, chain->ops, dsrc,
                                                              ddst, stream)
                                         : cuda::launch(cs.params, border, m, config.policy, dsrc, ddst, stream);
                        if (!res && res.reason.rfind("kernel ", 0) != 0 && res.reason.find("_kernel: ") == std::string::npos) {
                            // Refused before launching (a limit of this mechanism that can_run
                            // does not know, e.g. a TMA box too small for the radius): not a
                            // wrong result, but say that can_run promised otherwise.
                            row.status = CheckStatus::Unavailable;
                            row.detail = "refused at launch although can_run agreed: " + res.reason;
                            emit(row);
                            continue;
                        }
                        std::string e2 = res ? std::string{} : res.reason;
                        if (e2.empty()) e2 = cuda_error_text("cudaStreamSynchronize", cudaStreamSynchronize(stream));
                        if (e2.empty())
                            e2 = cuda_error_text("cudaMemcpy (download)",
                                                 cudaMemcpy(got_padded.data(), d_dst.get(), got_padded.size(),
                                                            cudaMemcpyDeviceToHost));
                        if (!e2.empty()) {
                            (void)cudaGetLastError();
                            row.status = CheckStatus::Fail;
                            row.detail = e2;
                            emit(row);
                            continue;
                        }
                        const OutputVerdict v = judge_output(got_padded.data(), dst_pitch, want, tol, "tolerance");
                        row.max_diff = v.max_diff;
                        if (!v.failure.empty()) {
                            row.status = CheckStatus::Fail;
                            row.detail = v.failure;
                        }
                        emit(row);
                        }
                    }
                }
            }
        }
    }
    return sum;
}

#else

CheckSummary run_check_matrix(const CheckConfig&, const std::function<void(const CheckRow&)>&) {
    CheckSummary sum;
    sum.fatal = cuda::cuda_status().reason;
    return sum;
}

#endif

} // namespace tl::cmd

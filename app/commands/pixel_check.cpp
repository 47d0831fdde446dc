// Per-pixel correctness matrix: random RGBA8 content, padded source pitch, a destination pitch
// that differs from the source's and is poisoned before every launch; one CPU reference per
// (case, size) reused across mechanisms; the histogram counted on the CPU.
#include "pixel_check.hpp"

#include "device_buffer.hpp"
#include "image.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace tl::cmd {

PixelCheckConfig default_pixel_check_config() {
    PixelCheckConfig c;
    c.sizes = {{1, 1}, {17, 9}, {4097, 3}, {3840, 2160}};
    c.cases = pixel_single_op_cases();
    for (auto& chain : pixel_chain_cases())
        if (chain.ops.size() > 1) c.cases.push_back(std::move(chain));  // chain1 is "invert" again
    c.runs = pixel_mechanism_sweep();
    c.layouts = {PixelLayout::Padded, PixelLayout::Packed, PixelLayout::InPlace};
    return c;
}

#if TILELAB_HAVE_CUDA

namespace {

Image random_rgba8(int w, int h, std::uint32_t seed) {
    Image img(w, h, PixelFormat::RGBA8);
    std::mt19937 rng(seed);
    for (auto& b : img.bytes) b = static_cast<std::uint8_t>(rng() >> 24);
    return img;
}

} // namespace

CheckSummary run_pixel_check_matrix(const PixelCheckConfig& config,
                                    const std::function<void(const PixelCheckRow&)>& on_row) {
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

    auto emit = [&](const PixelCheckRow& row) {
        if (row.status == CheckStatus::Pass) ++sum.pass;
        else if (row.status == CheckStatus::Fail) ++sum.fail;
        else ++sum.unavailable;
        if (on_row) on_row(row);
    };

    cuda::Histogram histogram;
    std::uint32_t seed = 4321;
    for (std::size_t si = 0; si < config.sizes.size(); ++si) {
        const auto [w, h] = config.sizes[si];
        const auto rows = static_cast<std::size_t>(h);
        const std::size_t row_bytes = static_cast<std::size_t>(w) * 4;
        // As in the stencil matrix: a source pitch padded to 256 (plus 256 on every other size)
        // and a different destination pitch, both multiples of 16 as vector/ldgsts/bulk require.
        const std::size_t src_pitch = round_up(row_bytes, 256) + (si % 2 ? 256 : 0);
        const std::size_t dst_pitch = round_up(row_bytes, 16) + 64;
        const Image src = random_rgba8(w, h, seed++);

        DeviceBuffer d_src, d_dst, d_src_packed, d_dst_packed;
        std::string err = d_src.allocate(src_pitch * rows);
        if (err.empty()) err = d_dst.allocate(dst_pitch * rows);
        if (err.empty()) err = d_src_packed.allocate(row_bytes * rows);
        if (err.empty()) err = d_dst_packed.allocate(row_bytes * rows);
        if (err.empty())
            err = cuda_error_text("cudaMemcpy2D (upload)", cudaMemcpy2D(d_src.get(), src_pitch, src.bytes.data(),
                                                                        row_bytes, row_bytes, rows,
                                                                        cudaMemcpyHostToDevice));
        if (err.empty())
            err = cuda_error_text("cudaMemcpy (upload, packed)", cudaMemcpy(d_src_packed.get(), src.bytes.data(),
                                                                             row_bytes * rows, cudaMemcpyHostToDevice));
        if (!err.empty()) {
            sum.fatal = err;
            return sum;
        }
        const cuda::DeviceImage dsrc{d_src.get(), src_pitch, w, h, PixelFormat::RGBA8};
        const cuda::DeviceImage ddst{d_dst.get(), dst_pitch, w, h, PixelFormat::RGBA8};
        const cuda::DeviceImage dsrc_packed{d_src_packed.get(), row_bytes, w, h, PixelFormat::RGBA8};
        const cuda::DeviceImage ddst_packed{d_dst_packed.get(), row_bytes, w, h, PixelFormat::RGBA8};
        std::vector<std::uint8_t> got_padded(dst_pitch * rows);

        for (const auto& cs : config.cases) {
            Image ref(w, h, PixelFormat::RGBA8);
            reference_pixel_ops(cs.ops, src.view(), ref.view());
            for (PixelLayout layout : config.layouts) {
                const bool packed = layout == PixelLayout::Packed;
                const cuda::DeviceImage& out = packed ? ddst_packed : ddst;
                const cuda::DeviceImage& in = packed ? dsrc_packed : layout == PixelLayout::InPlace ? ddst : dsrc;
                DeviceBuffer& out_buf = packed ? d_dst_packed : d_dst;
                for (const auto& run : config.runs) {
                    if (!run.mechanism) continue;  // the CPU is the oracle, not a row
                    PixelCheckRow row;
                    row.ops = cs.label;
                    row.mechanism = run.label;
                    row.layout = layout;
                    row.width = w;
                    row.height = h;
                    if (auto can = cuda::can_run_pixel(*run.mechanism, run.policy, PixelFormat::RGBA8); !can) {
                        row.status = CheckStatus::Unavailable;
                        row.detail = can.reason;
                        emit(row);
                        continue;
                    }
                    std::string e2 = cuda_error_text("cudaMemsetAsync (poison)",
                                                     cudaMemsetAsync(out_buf.get(), kCheckPoison, out_buf.size(), stream));
                    // In place: the source is copied into the poisoned destination (rows only, so
                    // the pitch padding stays poisoned and a write past a row still shows).
                    if (e2.empty() && layout == PixelLayout::InPlace)
                        e2 = cuda_error_text("cudaMemcpy2DAsync (in-place source)",
                                             cudaMemcpy2DAsync(d_dst.get(), dst_pitch, d_src.get(), src_pitch, row_bytes,
                                                               rows, cudaMemcpyDeviceToDevice, stream));
                    if (e2.empty()) {
                        // can_run_pixel agreed, so a refusal here (ops, alignment, policy) is a failure.
                        if (auto res = cuda::launch_pixel_ops(cs.ops, *run.mechanism, run.policy, in, out, stream);
                            !res)
                            e2 = "launch: " + res.reason;
                    }
                    if (e2.empty()) e2 = cuda_error_text("cudaStreamSynchronize", cudaStreamSynchronize(stream));
                    if (e2.empty())
                        e2 = cuda_error_text("cudaMemcpy (download)",
                                             cudaMemcpy(got_padded.data(), out_buf.get(), out.pitch * rows,
                                                        cudaMemcpyDeviceToHost));
                    if (!e2.empty()) {
                        (void)cudaGetLastError();
                        row.status = CheckStatus::Fail;
                        row.detail = e2;
                        emit(row);
                        continue;
                    }
                    const OutputVerdict v = judge_output(got_padded.data(), out.pitch, ref, 1.0, "1 LSB");
                    row.max_diff = v.max_diff;
                    if (!v.failure.empty()) {
                        row.status = CheckStatus::Fail;
                        row.detail = v.failure;
                    }
                    emit(row);
                }
            }
        }

        if (config.histogram) {
            PixelCheckRow row;
            row.ops = "histogram";
            row.mechanism = "cub";
            row.width = w;
            row.height = h;
            cuda::ChannelHistograms expect{}, got{};
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    for (std::size_t c = 0; c < 3; ++c) ++expect[c][src.rgba8(x, y)[c]];
            // Poison the counters' host copy so a read that copies nothing cannot pass.
            for (auto& ch : got) ch.fill(0xDEADBEEFu);
            std::string e2;
            if (auto r = histogram.compute(dsrc, stream); !r) e2 = r.reason;
            if (e2.empty())
                if (auto r = histogram.read(got, stream); !r) e2 = r.reason;
            if (!e2.empty()) {
                (void)cudaGetLastError();
                row.status = CheckStatus::Fail;
                row.detail = e2;
            } else {
                long long wrong_bins = 0;
                double worst = 0;
                for (std::size_t c = 0; c < 3; ++c)
                    for (std::size_t b = 0; b < 256; ++b) {
                        const double diff = std::abs(double(got[c][b]) - double(expect[c][b]));
                        wrong_bins += diff != 0;
                        worst = std::max(worst, diff);
                    }
                row.max_diff = worst;
                if (wrong_bins > 0) {
                    row.status = CheckStatus::Fail;
                    row.detail = std::to_string(wrong_bins) + " of 768 bins differ from the CPU count";
                }
            }
            emit(row);
        }
    }
    return sum;
}

#else

CheckSummary run_pixel_check_matrix(const PixelCheckConfig&, const std::function<void(const PixelCheckRow&)>&) {
    CheckSummary sum;
    sum.fatal = cuda::cuda_status().reason;
    return sum;
}

#endif

} // namespace tl::cmd

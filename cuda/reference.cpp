// CPU reference of every stencil filter and per-pixel op: the oracle the GPU paths are tested against.
// The maths follows cuda/stencil/filters.cuh term by term (same grouping of sums), so the only
// differences to a GPU result are fused multiply-adds and the order of the Box sum, both far
// below the 1 LSB (RGBA8) / 1e-4 relative (RGBA32F) tolerance.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

namespace tl {

namespace {

struct Rgba {
    float r = 0.f, g = 0.f, b = 0.f, a = 0.f;
};

Rgba operator+(Rgba x, Rgba y) { return {x.r + y.r, x.g + y.g, x.b + y.b, x.a + y.a}; }
Rgba operator-(Rgba x, Rgba y) { return {x.r - y.r, x.g - y.g, x.b - y.b, x.a - y.a}; }
Rgba operator*(float s, Rgba x) { return {s * x.r, s * x.g, s * x.b, s * x.a}; }

// Same conversion as the device side (PixelRGBA8::to_float): v * (1/255) in float.
constexpr float kInv255 = 1.0f / 255.0f;

Rgba load(ConstImageView v, int x, int y) {
    const auto* row = static_cast<const std::uint8_t*>(v.data) + v.pitch * static_cast<std::size_t>(y);
    if (v.format == PixelFormat::RGBA8) {
        const std::uint8_t* p = row + static_cast<std::size_t>(x) * 4;
        return {float(p[0]) * kInv255, float(p[1]) * kInv255, float(p[2]) * kInv255, float(p[3]) * kInv255};
    }
    float f[4];
    std::memcpy(f, row + static_cast<std::size_t>(x) * 16, sizeof f);
    return {f[0], f[1], f[2], f[3]};
}

void store(ImageView v, int x, int y, Rgba c) {
    auto* row = static_cast<std::uint8_t*>(v.data) + v.pitch * static_cast<std::size_t>(y);
    if (v.format == PixelFormat::RGBA8) {
        std::uint8_t* p = row + static_cast<std::size_t>(x) * 4;
        p[0] = quantize_unorm8(c.r);
        p[1] = quantize_unorm8(c.g);
        p[2] = quantize_unorm8(c.b);
        p[3] = quantize_unorm8(c.a);
        return;
    }
    const float f[4] = {c.r, c.g, c.b, c.a};
    std::memcpy(row + static_cast<std::size_t>(x) * 16, f, sizeof f);
}

// Neighbour (x, y) of the source with the border rule applied; (0,0,0,0) for Zero outside.
Rgba load_bordered(ConstImageView v, int x, int y, Border border) {
    const int fx = fold_coord(x, v.width, border);
    const int fy = fold_coord(y, v.height, border);
    if (fx < 0 || fy < 0) return {};
    return load(v, fx, fy);
}

// Runs fn(y_begin, y_end) over [0, rows) on the available cores; small jobs stay on this thread.
template <class Fn>
void parallel_rows(int rows, long long work_per_row, Fn&& fn) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const long long total = work_per_row * rows;
    unsigned n = static_cast<unsigned>(std::min<long long>(hw, std::max<long long>(1, total / 200000)));
    n = std::min<unsigned>(n, static_cast<unsigned>(std::max(1, rows)));
    if (n <= 1) {
        fn(0, rows);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
        const int y0 = static_cast<int>(static_cast<long long>(rows) * i / n);
        const int y1 = static_cast<int>(static_cast<long long>(rows) * (i + 1) / n);
        threads.emplace_back([&fn, y0, y1] { fn(y0, y1); });
    }
    for (auto& t : threads) t.join();
}

// out += in (or out += wk * in) over n floats, n a multiple of 4 (whole RGBA pixels). Written one
// pixel per iteration with restrict pointers so that -O2's straight-line vectoriser turns each
// pixel into one SIMD add (plain -O2 does not vectorise the loop form).
void add_row(float* __restrict out, const float* __restrict in, std::size_t n) {
    for (std::size_t j = 0; j < n; j += 4) {
        out[j] += in[j];
        out[j + 1] += in[j + 1];
        out[j + 2] += in[j + 2];
        out[j + 3] += in[j + 3];
    }
}
void axpy_row(float* __restrict out, float wk, const float* __restrict in, std::size_t n) {
    for (std::size_t j = 0; j < n; j += 4) {
        out[j] += wk * in[j];
        out[j + 1] += wk * in[j + 1];
        out[j + 2] += wk * in[j + 2];
        out[j + 3] += wk * in[j + 3];
    }
}

// Separable pass structure shared by Box and Gaussian: horizontal weighted sums of source rows
// (borders folded in x), then a vertical weighted sum of those rows (borders folded in y).
// For Gaussian this is exactly the device's grouping: row(dy) = sum_dx w[dx] p, acc = sum_dy w[dy] row(dy).
// For Box on RGBA32F (all weights 1) the device sums the window in one accumulator; the two orders
// differ by a few float roundings only. `scale` multiplies the final sum (1/n for Box, 1 for Gaussian).
// Each thread keeps only the 2r+1 horizontal rows its current output row needs (a ring indexed by
// the unfolded row number), so a 16384^2 image needs no image-sized intermediate buffer.
void separable_filter(std::span<const float> weights, int radius, float scale, Border border, ConstImageView src,
                      ImageView dst) {
    const int w = src.width;
    const int h = src.height;
    const int taps = 2 * radius + 1;
    const std::size_t row_floats = static_cast<std::size_t>(w) * 4;
    const bool unit_weights = std::all_of(weights.begin(), weights.end(), [](float v) { return v == 1.0f; });

    parallel_rows(h, static_cast<long long>(w) * taps, [&](int y0, int y1) {
        std::vector<float> padded(static_cast<std::size_t>(w + 2 * radius) * 4);  // one source row, bordered
        std::vector<float> ring(row_floats * static_cast<std::size_t>(taps));
        std::vector<float> acc(row_floats);
        auto slot = [&](int yy) {
            const int m = ((yy % taps) + taps) % taps;
            return ring.data() + row_floats * static_cast<std::size_t>(m);
        };
        // Horizontal pass of source row yy (any integer; folded here). Zero border outside: all 0.
        auto horizontal = [&](int yy) {
            float* out = slot(yy);
            std::fill(out, out + row_floats, 0.0f);
            const int sy = fold_coord(yy, h, border);
            if (sy < 0) return;
            for (int i = 0; i < w + 2 * radius; ++i) {
                const Rgba p = load_bordered(src, i - radius, sy, border);
                float* q = padded.data() + static_cast<std::size_t>(i) * 4;
                q[0] = p.r; q[1] = p.g; q[2] = p.b; q[3] = p.a;
            }
            // One tap at a time over the whole row: each output still sums its taps in dx order.
            for (int k = 0; k < taps; ++k) {
                const float* in = padded.data() + static_cast<std::size_t>(k) * 4;
                if (unit_weights)
                    add_row(out, in, row_floats);
                else
                    axpy_row(out, weights[static_cast<std::size_t>(k)], in, row_floats);
            }
        };
        for (int yy = y0 - radius; yy < y0 + radius; ++yy) horizontal(yy);
        for (int y = y0; y < y1; ++y) {
            horizontal(y + radius);  // replaces row y - radius - 1, no longer needed
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (int k = 0; k < taps; ++k) {
                const float* in = slot(y + k - radius);
                if (unit_weights)
                    add_row(acc.data(), in, row_floats);
                else
                    axpy_row(acc.data(), weights[static_cast<std::size_t>(k)], in, row_floats);
            }
            for (int x = 0; x < w; ++x) {
                const float* sum = acc.data() + static_cast<std::size_t>(x) * 4;
                const Rgba centre = load(src, x, y);
                store(dst, x, y, {scale * sum[0], scale * sum[1], scale * sum[2], centre.a});
            }
        }
    });
}

// Box on RGBA8: running sums of the bytes in integers, which are exact, so the result is the true
// mean of the window (what the float definition approximates) at O(1) cost per pixel whatever the
// radius. Sliding a window over folded coordinates adds the entering tap and removes the leaving one,
// so every border mode works unchanged. Rows live in a per-thread ring as in separable_filter.
void box_rgba8(int radius, Border border, ConstImageView src, ImageView dst) {
    const int w = src.width;
    const int h = src.height;
    const int taps = 2 * radius + 1;
    const int slots = taps + 1;  // the row leaving the window and the one entering it, both held
    const std::size_t row_ints = static_cast<std::size_t>(w) * 3;
    const std::int64_t n = static_cast<std::int64_t>(taps) * taps;

    parallel_rows(h, static_cast<long long>(w) * 6, [&](int y0, int y1) {
        std::vector<std::int32_t> ring(row_ints * static_cast<std::size_t>(slots));
        std::vector<std::int32_t> acc(row_ints, 0);
        auto slot = [&](int yy) {
            const int m = ((yy % slots) + slots) % slots;
            return ring.data() + row_ints * static_cast<std::size_t>(m);
        };
        auto horizontal = [&](int yy) {
            std::int32_t* out = slot(yy);
            const int sy = fold_coord(yy, h, border);
            if (sy < 0) {
                std::fill(out, out + row_ints, 0);
                return;
            }
            const auto* row = static_cast<const std::uint8_t*>(src.data) + src.pitch * static_cast<std::size_t>(sy);
            auto byte_at = [&](int x, int c) -> std::int32_t {
                const int fx = fold_coord(x, w, border);
                return fx < 0 ? 0 : row[static_cast<std::size_t>(fx) * 4 + static_cast<std::size_t>(c)];
            };
            for (int c = 0; c < 3; ++c) {
                std::int32_t sum = 0;
                for (int dx = -radius; dx <= radius; ++dx) sum += byte_at(dx, c);
                out[c] = sum;
                for (int x = 1; x < w; ++x) {
                    sum += byte_at(x + radius, c) - byte_at(x - 1 - radius, c);
                    out[static_cast<std::size_t>(x) * 3 + static_cast<std::size_t>(c)] = sum;
                }
            }
        };
        auto accumulate = [&](int yy, std::int32_t sign) {
            const std::int32_t* in = slot(yy);
            for (std::size_t j = 0; j < row_ints; ++j) acc[j] += sign * in[j];
        };
        for (int yy = y0 - radius; yy <= y0 + radius; ++yy) {
            horizontal(yy);
            accumulate(yy, 1);
        }
        for (int y = y0; y < y1; ++y) {
            if (y > y0) {
                horizontal(y + radius);
                accumulate(y + radius, 1);
                accumulate(y - 1 - radius, -1);
            }
            auto* out_row = static_cast<std::uint8_t*>(dst.data) + dst.pitch * static_cast<std::size_t>(y);
            const auto* in_row = static_cast<const std::uint8_t*>(src.data) + src.pitch * static_cast<std::size_t>(y);
            for (int x = 0; x < w; ++x) {
                const std::int32_t* sum = acc.data() + static_cast<std::size_t>(x) * 3;
                const std::uint8_t alpha = in_row[static_cast<std::size_t>(x) * 4 + 3];
                if (dst.format == PixelFormat::RGBA8) {
                    std::uint8_t* o = out_row + static_cast<std::size_t>(x) * 4;
                    // quantize_unorm8(mean) in exact arithmetic: floor(sum / n + 1/2) = floor((2 sum + n) / 2n).
                    for (int c = 0; c < 3; ++c) o[c] = static_cast<std::uint8_t>((2 * std::int64_t(sum[c]) + n) / (2 * n));
                    o[3] = alpha;
                } else {
                    const double scale = 1.0 / (255.0 * double(n));
                    store(dst, x, y,
                          {float(sum[0] * scale), float(sum[1] * scale), float(sum[2] * scale), float(alpha) * kInv255});
                }
            }
        }
    });
}

// Filters with a small fixed window: evaluated per pixel on a (2r+1)^2 neighbourhood. The 2r+1
// source rows an output row needs are converted to float once, with the border applied, as
// (w + 2r)-pixel padded rows, so each tap is a plain array read.
template <class Fn>
void window_filter(int radius, Border border, ConstImageView src, ImageView dst, Fn&& fn) {
    const int n = 2 * radius + 1;
    const int w = src.width;
    const std::size_t padded_w = static_cast<std::size_t>(w + 2 * radius);
    parallel_rows(src.height, static_cast<long long>(w) * n * n, [&](int y0, int y1) {
        std::vector<Rgba> rows(padded_w * static_cast<std::size_t>(n));
        for (int y = y0; y < y1; ++y) {
            for (int dy = -radius; dy <= radius; ++dy) {
                Rgba* row = rows.data() + padded_w * static_cast<std::size_t>(dy + radius);
                const int sy = fold_coord(y + dy, src.height, border);
                for (int i = 0; i < w + 2 * radius; ++i) {
                    const int sx = fold_coord(i - radius, w, border);
                    row[i] = (sx < 0 || sy < 0) ? Rgba{} : load(src, sx, sy);
                }
            }
            for (int x = 0; x < w; ++x) {
                auto at = [&](int dx, int dy) {
                    return rows[padded_w * static_cast<std::size_t>(dy + radius) + static_cast<std::size_t>(x + dx + radius)];
                };
                store(dst, x, y, fn(at));
            }
        }
    });
}

Rgba with_alpha(Rgba c, float a) { return {c.r, c.g, c.b, a}; }

} // namespace

void reference_filter(const FilterParams& params, Border border, ConstImageView src, ImageView dst) {
    if (src.data == nullptr || dst.data == nullptr || src.width <= 0 || src.height <= 0) return;
    if (src.width != dst.width || src.height != dst.height || !validate(params).empty()) return;

    // Filtering in place would read already-written neighbours: work from a copy instead.
    std::vector<std::uint8_t> copy;
    if (src.data == dst.data) {
        const std::size_t row_bytes = static_cast<std::size_t>(src.width) * bytes_per_pixel(src.format);
        copy.resize(row_bytes * static_cast<std::size_t>(src.height));
        for (int y = 0; y < src.height; ++y)
            std::memcpy(copy.data() + row_bytes * static_cast<std::size_t>(y),
                        static_cast<const std::uint8_t*>(src.data) + src.pitch * static_cast<std::size_t>(y), row_bytes);
        src = ConstImageView(copy.data(), row_bytes, src.width, src.height, src.format);
    }

    switch (params.kind) {
    case FilterKind::Box: {
        const int r = params.radius;
        if (src.format == PixelFormat::RGBA8) {
            box_rgba8(r, border, src, dst);
            return;
        }
        const std::vector<float> ones(static_cast<std::size_t>(2 * r + 1), 1.0f);
        const float n = float((2 * r + 1) * (2 * r + 1));
        separable_filter(ones, r, 1.0f / n, border, src, dst);
        return;
    }
    case FilterKind::Gaussian: {
        int r = 0;
        const auto wts = gaussian_weights(params.sigma, &r);
        separable_filter(std::span<const float>(wts.data(), static_cast<std::size_t>(2 * r + 1)), r, 1.0f, border, src,
                         dst);
        return;
    }
    case FilterKind::Sobel:
        window_filter(1, border, src, dst, [](auto&& w) {
            const Rgba a = w(-1, -1), b = w(0, -1), c = w(1, -1);
            const Rgba d = w(-1, 0), e = w(0, 0), f = w(1, 0);
            const Rgba g = w(-1, 1), h = w(0, 1), i = w(1, 1);
            const Rgba gx = (c - a) + 2.0f * (f - d) + (i - g);
            const Rgba gy = (g - a) + 2.0f * (h - b) + (i - c);
            return Rgba{std::sqrt(gx.r * gx.r + gy.r * gy.r), std::sqrt(gx.g * gx.g + gy.g * gy.g),
                        std::sqrt(gx.b * gx.b + gy.b * gy.b), e.a};
        });
        return;
    case FilterKind::Laplacian:
        window_filter(1, border, src, dst, [](auto&& w) {
            const Rgba e = w(0, 0);
            const Rgba s = (w(-1, 0) + w(1, 0)) + (w(0, -1) + w(0, 1)) - 4.0f * e;
            return Rgba{std::fabs(s.r), std::fabs(s.g), std::fabs(s.b), e.a};
        });
        return;
    case FilterKind::Sharpen: {
        const float amount = params.amount;
        window_filter(1, border, src, dst, [amount](auto&& w) {
            const Rgba e = w(0, 0);
            const Rgba blur = (1.0f / 16.0f) * ((w(-1, -1) + w(1, -1) + w(-1, 1) + w(1, 1)) +
                                                2.0f * (w(0, -1) + w(-1, 0) + w(1, 0) + w(0, 1)) + 4.0f * e);
            return with_alpha(e + amount * (e - blur), e.a);
        });
        return;
    }
    case FilterKind::Emboss:
        window_filter(1, border, src, dst, [](auto&& w) {
            const Rgba e = w(0, 0);
            const Rgba s = (w(1, 0) + w(0, 1) + e) + 2.0f * (w(1, 1) - w(-1, -1)) - (w(0, -1) + w(-1, 0));
            return with_alpha(s, e.a);
        });
        return;
    case FilterKind::UserKernel: {
        const int r = params.user_size / 2;
        const int n = params.user_size;
        const auto& wts = params.user;
        const float scale = params.user_scale;
        const float bias = params.user_bias;
        window_filter(r, border, src, dst, [&](auto&& w) {
            Rgba acc;
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx) {
                    const float k = wts[static_cast<std::size_t>((dy + r) * n + dx + r)];
                    const Rgba p = w(dx, dy);
                    acc.r += k * p.r;
                    acc.g += k * p.g;
                    acc.b += k * p.b;
                }
            return Rgba{scale * acc.r + bias, scale * acc.g + bias, scale * acc.b + bias, w(0, 0).a};
        });
        return;
    }
    }
}

namespace {

void apply_op(const PixelOp& op, float c[3]) {
    switch (op.kind) {
    case PixelOpKind::BrightnessContrast:
        for (int i = 0; i < 3; ++i) c[i] = (c[i] - 0.5f) * op.b + 0.5f + op.a;
        return;
    case PixelOpKind::Gamma: {
        const float e = 1.0f / op.a;
        for (int i = 0; i < 3; ++i) c[i] = std::pow(std::max(c[i], 0.0f), e);
        return;
    }
    case PixelOpKind::Saturation: {
        const float l = luma709(c[0], c[1], c[2]);
        for (int i = 0; i < 3; ++i) c[i] = l + op.a * (c[i] - l);
        return;
    }
    case PixelOpKind::Grayscale: {
        const float l = luma709(c[0], c[1], c[2]);
        c[0] = c[1] = c[2] = l;
        return;
    }
    case PixelOpKind::Invert:
        for (int i = 0; i < 3; ++i) c[i] = 1.0f - c[i];
        return;
    case PixelOpKind::Threshold: {
        const float v = luma709(c[0], c[1], c[2]) >= op.a ? 1.0f : 0.0f;
        c[0] = c[1] = c[2] = v;
        return;
    }
    case PixelOpKind::Levels: {
        const float e = 1.0f / op.c;
        for (int i = 0; i < 3; ++i) {
            const float t = std::clamp((c[i] - op.a) / (op.b - op.a), 0.0f, 1.0f);
            c[i] = std::pow(t, e);
        }
        return;
    }
    case PixelOpKind::ColorMatrix: {
        const auto& m = op.matrix;
        const float r = m[0] * c[0] + m[1] * c[1] + m[2] * c[2];
        const float g = m[3] * c[0] + m[4] * c[1] + m[5] * c[2];
        const float b = m[6] * c[0] + m[7] * c[1] + m[8] * c[2];
        c[0] = r; c[1] = g; c[2] = b;
        return;
    }
    case PixelOpKind::Lut:
        if (op.lut.size() < 3) return;  // invalid op (validate() says why): leave the pixel alone
        for (int i = 0; i < 3; ++i) c[i] = float(op.lut[static_cast<std::size_t>(i)][quantize_unorm8(c[i])]) / 255.0f;
        return;
    }
}

} // namespace

void reference_pixel_ops(std::span<const PixelOp> ops, ConstImageView src, ImageView dst) {
    if (src.data == nullptr || dst.data == nullptr || src.width != dst.width || src.height != dst.height) return;
    // Like the GPU launchers, an invalid op (validate() says why) refuses the whole chain and
    // writes nothing, rather than dividing by zero or reading past a short LUT.
    for (const auto& op : ops)
        if (!validate(op).empty()) return;
    parallel_rows(src.height, static_cast<long long>(src.width) * (1 + static_cast<long long>(ops.size())) * 4,
                  [&](int y0, int y1) {
                      for (int y = y0; y < y1; ++y)
                          for (int x = 0; x < src.width; ++x) {
                              const Rgba p = load(src, x, y);
                              float c[3] = {p.r, p.g, p.b};
                              for (const auto& op : ops) apply_op(op, c);
                              store(dst, x, y, {c[0], c[1], c[2], p.a});
                          }
                  });
}

ImageDiff compare_images(ConstImageView a, ConstImageView b, double tolerance) {
    ImageDiff d;
    if (a.width != b.width || a.height != b.height || a.format != b.format || a.data == nullptr ||
        b.data == nullptr) {
        // Not comparable: report it as maximally different rather than guessing.
        d.max_abs = std::numeric_limits<double>::infinity();
        d.pixels_over = static_cast<long long>(std::max(a.width, b.width)) * std::max(a.height, b.height);
        return d;
    }
    for (int y = 0; y < a.height; ++y) {
        const auto* ra = static_cast<const std::uint8_t*>(a.data) + a.pitch * static_cast<std::size_t>(y);
        const auto* rb = static_cast<const std::uint8_t*>(b.data) + b.pitch * static_cast<std::size_t>(y);
        for (int x = 0; x < a.width; ++x) {
            double worst = 0.0;
            for (int c = 0; c < 4; ++c) {
                double diff;
                if (a.format == PixelFormat::RGBA8) {
                    const std::size_t o = static_cast<std::size_t>(x) * 4 + static_cast<std::size_t>(c);
                    diff = std::abs(double(ra[o]) - double(rb[o]));
                } else {
                    float fa, fb;
                    const std::size_t o = (static_cast<std::size_t>(x) * 4 + static_cast<std::size_t>(c)) * 4;
                    std::memcpy(&fa, ra + o, 4);
                    std::memcpy(&fb, rb + o, 4);
                    if (fa == fb || (std::isnan(fa) && std::isnan(fb)))
                        diff = 0.0;
                    else if (!std::isfinite(fa) || !std::isfinite(fb))
                        diff = std::numeric_limits<double>::infinity();
                    else
                        diff = std::abs(double(fa) - double(fb));
                }
                worst = std::max(worst, diff);
            }
            if (worst > d.max_abs) {
                d.max_abs = worst;
                d.worst_x = x;
                d.worst_y = y;
            }
            if (worst > tolerance) ++d.pixels_over;
        }
    }
    return d;
}

} // namespace tl

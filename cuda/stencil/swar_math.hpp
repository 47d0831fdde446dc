// Integer facts of the RGBA8 SWAR 3x3 path (filters.cuh, namespace swar) that host tests check
// exhaustively: the multiply-shift division of box r=1 and the lane ranges each filter's bias keeps.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TL_SWAR_HD __host__ __device__
#else
#define TL_SWAR_HD
#endif

namespace tl::cuda::swar_math {

// Box r=1 on RGBA8: the reference stores floor((2s + 9) / 18) for the window sum s = 0..2295
// (its exact mean rounded half up). There is no integer between (s + 4) / 9 and (s + 4.5) / 9, so
// that is floor((s + 4) / 9), and 7282 / 2^16 = (1 + 2^-15) / 9 keeps floor((s + 4) * 7282 / 2^16)
// equal to it while s + 4 < 2^15. The product stays below 2^24, so its bits 16-23 are the quotient
// and nothing lies above them: the device picks that byte with the PRMT that packs the pixel.
inline constexpr std::uint32_t kBoxSumMax = 9u * 255u;
inline constexpr std::uint32_t kDiv9Mul = 7282u;
TL_SWAR_HD constexpr std::uint32_t div9_rounded_bits(std::uint32_t s) { return (s + 4u) * kDiv9Mul; }
TL_SWAR_HD constexpr std::uint32_t div9_rounded(std::uint32_t s) { return div9_rounded_bits(s) >> 16; }

// Per-lane biases: the final value of every 16-bit lane must lie in [0, 2^16) (intermediate terms
// may borrow across lanes; the sum is exact mod 2^32).
//   Sobel       gx, gy in [-1020, 1020]    + 1024 -> [4, 2044]
//   Laplacian   s in [-1020, 1020]         + 1024 -> [4, 2044]; |s| + 1024 = max(X, 2048 - X)
//   emboss      s in [-1020, 1275]         + 1024 -> [4, 2299]; clamp to [1024, 1279]: low byte
//   sharpen     16e - blur16 in [-3060, 3060] + 4096 -> [1036, 7156]
inline constexpr std::uint32_t kBias1024 = 1024u;
inline constexpr std::uint32_t kSharpenBias = 4096u;

} // namespace tl::cuda::swar_math

namespace tl::cuda::swar_math {

// Sharpen in integers when its amount is dyadic, amount = p / 2^q (q <= 4; the bench's 1.5 and the
// default 1 are): out = e + amount * D / 16 with D = 16 e - blur16 in [-3060, 3060] is exactly
// (K e + p D) / K with K = 2^(q + 4). A lane holds X = K e + p D + B + K / 2 with B = 256 m K
// (m >= 1, B >= 3060 p), so X >> (q + 4) = round_half_up(out) + 256 m; clamping that to
// [256 m, 256 m + 255] leaves the clamped byte in the low byte. Usable when X stays below 2^16;
// otherwise (p == -1 here) the float finish runs.
// The device computes X = (K + 16 p) e - p blur16 + (B + K / 2) (two IMAD from the lanes of e and
// blur16), clamps X to [256 m K, (256 m + 256) K - 1] (capped at 0xffff) and only then shifts:
// the same byte, since floor(X / K) is monotonic and those bounds are where it leaves [256 m,
// 256 m + 255]. Shifting last needs no mask: the shift moves the high lane's low bits into bits
// 16 - (q + 4) .. 15 of the low lane, above the byte (q + 4 <= 8), and the packing PRMT reads
// bytes 0 and 2 only.
struct SharpenDyadic {
    int p = -1;                    // numerator, or -1: not representable with 16-bit lanes
    int shift = 0;                 // q + 4
    std::uint32_t bias_units = 0;  // 256 m: B / K
    std::uint32_t centre = 0;      // K + 16 p: e's weight in X
    std::uint32_t add = 0;         // B + K / 2
    std::uint32_t lo = 0, hi = 0;  // X's clamp
};

TL_SWAR_HD constexpr SharpenDyadic sharpen_dyadic(float amount) {
    SharpenDyadic r;
    if (!(amount >= 0.0f) || amount > 16.0f) return r;
    for (int q = 0; q <= 4; ++q) {
        const float scaled = amount * float(1 << q);
        const int p = int(scaled);
        if (float(p) != scaled) continue;
        const long long k = 16ll << q;
        long long m = 1;
        while (256 * m * k < 3060ll * p) ++m;
        const long long top = 255 * k + 3060ll * p + 256 * m * k + k / 2;
        if (top >= 65536) return r;
        r.p = p;
        r.shift = q + 4;
        r.bias_units = std::uint32_t(256 * m);
        r.centre = std::uint32_t(k + 16 * p);
        r.add = std::uint32_t(256 * m * k + k / 2);
        r.lo = std::uint32_t(256 * m * k);
        const long long hi = (256 * m + 256) * k - 1;
        r.hi = std::uint32_t(hi > 0xffff ? 0xffff : hi);
        return r;
    }
    return r;
}

// One lane of the integer sharpen as the device computes it (two lanes per register there): the
// clamped output byte for centre e and blur16 = 16 e - D, in 32-bit unsigned arithmetic.
TL_SWAR_HD constexpr std::uint32_t sharpen_dyadic_lane(std::uint32_t e, std::uint32_t blur16,
                                                       const SharpenDyadic& s) {
    std::uint32_t x = s.centre * e + s.add - std::uint32_t(s.p) * blur16;
    x = x < s.lo ? s.lo : (x > s.hi ? s.hi : x);
    return (x >> s.shift) & 0xffu;
}

// Sharpen's float finish (any amount that is not dyadic, SharpenFilter::swar4_float) rounds
// e + k D, k = amount / 16, over 1.5 x 2^23 with one FFMA per channel after an FADD that turns the
// lane L = D + 4096 (its raw float bits 2^23 + L) into D. The fold drops that FADD: with the lane
// placed under high bits that read 2^23 + 2^16 m (m = 0..127) and a lane bias fb, the raw bits
// read X + D with X = 2^23 + 2^16 m + fb, and
//   fma(k, X + D, F0 + e) = M + round(e + k D + delta),   delta = k X - (M - F0),
// where F0 + e is the centre byte under F0's bits (one PRMT, as 1.5 x 2^23 + e is now: F0 a
// multiple of 256 in [2^23, 2^24)) and M a multiple of 2^16, so that the result's low 16 bits are
// the signed value, as over 1.5 x 2^23 (swar::clamp_pair reads them). k X is a multiple of 256 only
// for few amounts, so the fold picks X (m and fb) where k X comes nearest one: delta moves the
// rounding point by |delta| LSB, and the fold is taken where |delta| <= kSharpenFoldMaxShift
// (0.3: 1.6e-5 LSB, the order of the reference's own float error; the amounts whose k has few
// significant bits, such as 1.0625, have a coarse grid of k X and keep the FADD). The search walks
// the multiples 256 n of [k 2^23, k 2^24] and takes the X nearest 256 n / k: one candidate per n,
// the best for that n. Every product and difference is exact in double (k has 24 significant
// bits, X 25).
inline constexpr double kSharpenFoldMaxShift = 1.0 / 4096.0;
struct SharpenFloatFold {
    bool taken = false;
    std::uint32_t lane_high = 0;  // bits of 2^23 + 2^16 m: the lane goes in its low 16 bits
    std::uint32_t lane_bias = 0;  // fb in both 16-bit lanes
    std::uint32_t e_base = 0;     // bits of F0: the centre byte goes in its low byte
    double shift = 0.0;           // delta, in LSB
};
inline SharpenFloatFold sharpen_float_fold(float amount) {
    SharpenFloatFold out;
    const float k = amount * (1.0f / 16.0f);
    if (!(k > 0.0f) || !(amount <= 16.0f)) return out;
    const double kd = double(k);
    constexpr double two23 = 8388608.0, two24 = 16777216.0;
    constexpr long long kMaxD = 3060;  // |16 e - blur16|
    double best = 1.0;
    long long best_x = 0, best_n = 0;
    const long long n_lo = (long long)std::ceil(kd * two23 / 256.0),
                    n_hi = (long long)std::floor(kd * two24 / 256.0);
    for (long long n = n_lo < 1 ? 1 : n_lo; n <= n_hi; ++n) {
        const long long x = (long long)std::nearbyint(256.0 * double(n) / kd);
        const long long fb = x & 0xffff;
        if (x < (1ll << 23) || x >= (1ll << 24) || fb < kMaxD || fb > 0xffff - kMaxD) continue;
        const double delta = kd * double(x) - 256.0 * double(n);
        if (std::fabs(delta) < std::fabs(best)) {
            best = delta;
            best_x = x;
            best_n = n;
        }
    }
    if (!(std::fabs(best) <= kSharpenFoldMaxShift)) return out;
    // M: the first multiple of 2^16 that leaves F0 = M - 256 n >= 2^23, and 2^15 either side of it
    // inside [2^23, 2^24) (|e + k D| <= 255 + 5 x 3060 / 16 < 2^15).
    const long long m_val =
        std::max((1ll << 23) + (1ll << 16), ((1ll << 23) + 256 * best_n + 0xffff) & ~0xffffll);
    const long long f0 = m_val - 256 * best_n;
    if (m_val + (1ll << 15) > (1ll << 24) || f0 < (1ll << 23) || f0 > (1ll << 24) - 256) return out;
    auto bits = [](float v) {
        std::uint32_t u = 0;
        std::memcpy(&u, &v, sizeof u);
        return u;
    };
    out.taken = true;
    out.lane_high = bits(float(best_x & ~0xffffll));
    const std::uint32_t fb = std::uint32_t(best_x & 0xffff);
    out.lane_bias = fb | (fb << 16);
    out.e_base = bits(float(f0));
    out.shift = best;
    return out;
}

// The folded finish of one channel as the device computes it (host twin for the tests): the
// clamped byte for centre e and D = 16 e - blur16.
inline std::uint32_t sharpen_float_folded_lane(std::uint32_t e, int d, float amount,
                                               const SharpenFloatFold& f) {
    const std::uint32_t lane = (f.lane_bias & 0xffffu) + std::uint32_t(d);  // D + fb, in [0, 2^16)
    float v = 0.0f, c = 0.0f;
    const std::uint32_t vb = f.lane_high | (lane & 0xffffu), cb = f.e_base | e;
    std::memcpy(&v, &vb, sizeof v);
    std::memcpy(&c, &cb, sizeof c);
    const float r = std::fmaf(amount * (1.0f / 16.0f), v, c);
    std::uint32_t rb = 0;
    std::memcpy(&rb, &r, sizeof rb);
    const int s = int(std::int16_t(std::uint16_t(rb & 0xffffu)));
    return std::uint32_t(s < 0 ? 0 : (s > 255 ? 255 : s));
}

} // namespace tl::cuda::swar_math

namespace tl::cuda::swar_math {

// The user 3x3 kernel on RGBA8 with weights that have no integer form (UserKernel3Filter): a float
// sum whose inputs are the channel bytes themselves. A byte p placed in the low bits of a float's
// bit pattern (one PRMT, nothing else) is the denormal p * 2^-149, and FFMA takes denormals at full
// rate when nothing flushes them (fma.rn.f32 without .ftz). So the weights are scaled by 2^e
// (exact: a power of two), which makes every product w 2^e * p 2^-149 = w p 2^(e-149) a normal
// float of ordinary precision, and the finish multiplies by scale * 2^(149-e):
//   out255 = out_scale * (acc_bias + sum w_e[k] * bits(p_k)) = scale * sum w p + 255 bias,
// with acc_bias = 255 bias / out_scale, so one multiply and one saturating conversion round the
// result to the byte (to nearest; the reference rounds its float result half up: they can differ
// by 1 LSB within float error of a half, as the other float paths can). e puts the largest
// |weight| just below 2^126.
// Usable when every weight, scale and bias is finite, scale and some weight are non-zero and the
// derived factors are finite; otherwise `usable` stays false and the plain float window runs.
// The same form serves the user 5x5 kernel (UserKernel5Filter, 25 weights): N is the window's taps.
template <int N>
struct UserPlanarFormT {
    bool usable = false;
    float w[N] = {};
    float out_scale = 0.0f;
    float acc_bias = 0.0f;
};
using UserPlanarForm = UserPlanarFormT<9>;

template <int N>
inline UserPlanarFormT<N> user_planar_form(const float (&weights)[N], float scale, float bias) {
    UserPlanarFormT<N> r;
    float big = 0.0f;
    for (float w : weights) {
        if (!std::isfinite(w)) return r;
        big = std::fmax(big, std::fabs(w));
    }
    if (!std::isfinite(scale) || !std::isfinite(bias) || scale == 0.0f || big == 0.0f) return r;
    int ex = 0;
    (void)std::frexp(big, &ex);  // big < 2^ex
    const int e = 126 - ex;
    for (int i = 0; i < N; ++i) r.w[i] = std::ldexp(weights[i], e);
    r.out_scale = std::ldexp(scale, 149 - e);
    r.acc_bias = 255.0f * bias / r.out_scale;
    r.usable = std::isfinite(r.out_scale) && r.out_scale != 0.0f && std::isfinite(r.acc_bias);
    return r;
}

// The host's twin of the device sums (UserKernel3Filter::planar4, UserKernel5Filter::planar_item),
// in the same order, for one channel of one output: p = the window's bytes, row-major. Returns the
// stored byte.
template <int N>
inline std::uint32_t user_planar_byte(const UserPlanarFormT<N>& f, const std::uint32_t (&p)[N]) {
    float a = f.acc_bias;
    for (int k = 0; k < N; ++k) {
        float v;
        std::memcpy(&v, &p[k], sizeof v);  // the byte as a denormal
        a = std::fma(f.w[k], v, a);
    }
    // out_scale a in float, then to the nearest integer (ties to even) saturated to 0..255, as
    // cvt.rni.sat.u8.f32 does on the device.
    const float v = f.out_scale * a;
    if (!(v > 0.0f)) return 0u;  // NaN converts to 0 there too
    return v >= 255.0f ? 255u : static_cast<std::uint32_t>(std::nearbyint(v));
}

// The user 3x3 kernel on RGBA8 in 16-bit fixed point (UserKernel3Filter::fixed4, which `registers`
// runs for weights without an integer form where this one is close enough): every effective weight
// e_k = scale * w_k becomes the integer q_k = round(e_k 2^s), |q_k| <= 32767, so that one dp2a
// (IDP.2A in SASS: two signed 16-bit weights times two bytes of one word, added to a 32-bit sum)
// takes two taps of one channel. The sum starts at C = round((255 bias + 0.5) 2^s), so that
//   byte = clamp(floor((C + sum q_k p_k) / 2^s), 0, 255)
// is the exact result scale * sum w p + 255 bias rounded half up (the reference's rounding) up to
// the quantisation (each q_k rounded to nearest, then a few rounded the other way so that the sum of
// the q_k is within 1/2 of the sum of e_k 2^s: see the drift below):
// |(C + sum q_k p_k) / 2^s - (exact + 0.5)| <= error_bound =
// (255 sum |q_k - e_k 2^s| + |C - (255 bias + 0.5) 2^s|) / 2^s. s is the largest shift that keeps
// every |q_k| <= 32767 and |C| + 255 sum |q_k| below 2^31 (the sum never overflows). The form is
// usable where error_bound <= kUserFixedMaxError: the byte then differs from the exact rounding
// only where the exact result lies within error_bound of a half, and by 1 there (the check's
// tolerance is 1 LSB); elsewhere the float form (UserPlanarForm) runs. The device arithmetic is
// integer and exact, so user_fixed_byte below is its twin bit for bit.
// words: per kernel row r (weights q0 q1 q2 of that row) the four signed 16-bit pairs dp2a takes,
// low half first: (q0, q1), (q2, 0), (0, q0), (q1, q2); see UserKernel3Filter::fixed4.
inline constexpr double kUserFixedMaxError = 1.0 / 16.0;
// The struct is a kernel parameter (inside UserKernel3Filter), so its fields are 4 bytes or smaller
// and the weights q are kept once, in `words` (user_fixed_weight reads them back); the device reads
// words, shift and acc_init, the host the flags and the bound.
struct UserFixedForm {
    bool usable = false;
    bool exact = false;  // error_bound 0: the byte is the exact result rounded half up, always
    int shift = 0;
    std::int32_t acc_init = 0;
    std::uint32_t words[12] = {};
    float error_bound = 0.0f;  // in output LSB, rounded up to a float
};
// q_k (k = 3 row + column) as the words hold it: (q0, q1) in row word 0, q2 in the low half of word 1.
inline std::int32_t user_fixed_weight(const UserFixedForm& f, int k) {
    const std::uint32_t w = f.words[4 * (k / 3) + (k % 3 == 2 ? 1 : 0)];
    return std::int16_t(k % 3 == 1 ? w >> 16 : w & 0xffffu);
}

inline UserFixedForm user_fixed_form(const float (&weights)[9], float scale, float bias) {
    UserFixedForm r;
    double e[9];
    for (int k = 0; k < 9; ++k) {
        e[k] = double(scale) * double(weights[k]);
        if (!std::isfinite(e[k])) return r;
    }
    if (!std::isfinite(bias)) return r;
    const double c = 255.0 * double(bias) + 0.5;
    std::int32_t q[9] = {};
    for (int s = 30; s >= 0; --s) {
        const double m = std::ldexp(1.0, s);
        bool fits = true;
        double drift = 0.0;  // sum of the rounding errors q_k - e_k 2^s
        for (int k = 0; k < 9 && fits; ++k) {
            const double qk = std::nearbyint(e[k] * m);
            fits = std::fabs(qk) <= 32767.0;
            q[k] = fits ? std::int32_t(qk) : 0;
            drift += qk - e[k] * m;
        }
        if (!fits) continue;
        // Rounded to nearest, the errors of a kernel's weights often share a sign (four -0.15 around
        // 1.6: all -0.4 at s = 14), and then every output of a flat region sits the same distance
        // below its exact value, so that 1-LSB differences from the float forms speckle whole areas.
        // Rounding the other way the weights whose errors share the drift's sign (the largest
        // first) brings the drift within 1/2: the sum of the weights, the kernel's gain on a flat
        // region, is then exact to 0.5 2^-s per unit of input. Each flip raises that weight's error
        // from |d| to 1 - |d|, so error_bound below grows a little.
        for (int flips = 0; flips < 9 && std::fabs(drift) > 0.5; ++flips) {
            int pick = -1;
            double best = 0.0;
            for (int k = 0; k < 9; ++k) {
                const double d = double(q[k]) - e[k] * m;
                const bool same_sign = drift > 0 ? d > 0 : d < 0;
                const double next = double(q[k]) - (drift > 0 ? 1.0 : -1.0);
                if (same_sign && std::fabs(d) > best && std::fabs(next) <= 32767.0) {
                    best = std::fabs(d);
                    pick = k;
                }
            }
            if (pick < 0) break;
            q[pick] += drift > 0 ? -1 : 1;
            drift += drift > 0 ? -1.0 : 1.0;
        }
        double taps = 0.0, err = 0.0;
        for (int k = 0; k < 9; ++k) {
            taps += 255.0 * std::fabs(double(q[k]));
            err += 255.0 * std::fabs(double(q[k]) - e[k] * m);
        }
        const double init = std::nearbyint(c * m);
        if (!(std::fabs(init) + taps < 2147483647.0)) continue;
        r.shift = s;
        r.acc_init = std::int32_t(init);
        const double bound = (err + std::fabs(init - c * m)) / m;
        r.error_bound = float(bound);
        if (double(r.error_bound) < bound) r.error_bound = std::nextafter(r.error_bound, INFINITY);  // rounded up
        r.usable = bound <= kUserFixedMaxError;
        r.exact = bound == 0.0;
        auto pair = [](std::int32_t lo, std::int32_t hi) {
            return (std::uint32_t(lo) & 0xffffu) | (std::uint32_t(hi) << 16);
        };
        for (int row = 0; row < 3; ++row) {
            const std::int32_t q0 = q[3 * row], q1 = q[3 * row + 1], q2 = q[3 * row + 2];
            r.words[4 * row + 0] = pair(q0, q1);
            r.words[4 * row + 1] = pair(q2, 0);
            r.words[4 * row + 2] = pair(0, q0);
            r.words[4 * row + 3] = pair(q1, q2);
        }
        return r;
    }
    return r;  // weights of 32767.5 or more: no shift fits
}

// The device result of one channel of one output (UserKernel3Filter::fixed4): p = the window's
// bytes, row-major. The 32-bit sum cannot overflow (user_fixed_form), so 64-bit here is the same.
inline std::uint32_t user_fixed_byte(const UserFixedForm& f, const std::uint32_t (&p)[9]) {
    std::int64_t acc = f.acc_init;
    for (int k = 0; k < 9; ++k) acc += std::int64_t(user_fixed_weight(f, k)) * std::int64_t(p[k]);
    const std::int64_t v = acc >> f.shift;  // floor: an arithmetic shift, as SHF.R.S32 on the device
    return std::uint32_t(v < 0 ? 0 : (v > 255 ? 255 : v));
}

} // namespace tl::cuda::swar_math

namespace tl::cuda::swar_math {

// Sobel's magnitude on RGBA8 in half precision, two channels per instruction (SobelFilter::swar4).
// The integer form leaves each gradient as a 16-bit lane L = 1024 + g, g in [-1020, 1020]. Read
// as the bits of an fp16, L < 2048 is exactly L * 2^-24 (subnormals and the first normal binade
// share that unit), so one HFMA2 per register, L * 2^15 - 2, gives (g_lo, g_hi) * 2^-9, exact
// (|g| <= 1020 needs 10 bits). Then m = gy'^2 + gx'^2 = |g|^2 * 2^-18 in one HMUL2 and one HFMA2
// (exact while |g|^2 < 2^11; above, relative error at most 2^-11 per rounding), clamped to
// kSobelHalfClamp = 65024 * 2^-18 (the largest half <= 255^2 * 2^-18; sqrt(65024) = 254.998
// rounds to 255) with one HMNMX2, and per channel widened to f32, sqrt.approx, and one FFMA
// r * 512 + 2^23 rounds to the byte (to nearest even; no ties: see the unit test). The float form
// it replaces took 9 instructions per channel (lane to float twice, FMUL, FFMA, FMNMX, MUFU, FADD);
// this one 2/3 + 2/3 + 2/3 + 1/3 per channel on the halves plus HADD2.F32, MUFU and FFMA.
// Its result can differ from the exact rounding of sqrt(gx^2 + gy^2) by 1 where that lies within
// about 255 * 2^-11 of a half (the check tolerance is 1 LSB); tests/unit/test_swar_rounding.cpp
// runs this twin over every (gx, gy) pair.
inline constexpr double kSobelHalfScale = 32768.0;  // 2^15
inline constexpr double kSobelHalfBias = -2.0;      // -1024 * 2^-24 * 2^15
inline constexpr double kSobelHalfClamp = 65024.0 / 262144.0;
// The same three as the fp16 bit patterns the device's f16x2 operands carry (in both halves);
// the unit test decodes them against the values above.
inline constexpr std::uint16_t kSobelHalfScaleBits = 0x7800;
inline constexpr std::uint16_t kSobelHalfBiasBits = 0xC000;
inline constexpr std::uint16_t kSobelHalfClampBits = 0x33F0;
TL_SWAR_HD constexpr std::uint32_t half2_bits(std::uint16_t h) { return std::uint32_t(h) * 0x10001u; }

// v rounded to the nearest fp16 value (ties to even), for the magnitudes this form sees (no
// overflow, subnormals with unit 2^-24).
inline double round_to_half(double v) {
    if (v == 0.0) return v;
    int e = 0;
    (void)std::frexp(std::fabs(v), &e);  // |v| in [2^(e-1), 2^e): 11 significant bits
    const int unit = e - 11 > -24 ? e - 11 : -24;
    return std::ldexp(std::nearbyint(std::ldexp(v, -unit)), unit);
}

// The device's steps for one channel up to the rounding: r * 512 (sqrt correctly rounded here,
// sqrt.approx there).
inline double sobel_half_root(int gx, int gy) {
    const double x = round_to_half(double(1024 + gx) * 0x1p-24 * kSobelHalfScale + kSobelHalfBias);
    const double y = round_to_half(double(1024 + gy) * 0x1p-24 * kSobelHalfScale + kSobelHalfBias);
    const double xx = round_to_half(x * x);
    double m = round_to_half(y * y + xx);  // one rounding: HFMA2
    m = m < kSobelHalfClamp ? m : kSobelHalfClamp;
    return double(std::sqrt(float(m))) * 512.0;  // exact: a power of two
}

// The stored byte: FFMA r * 512 + 2^23 rounds to nearest even.
inline std::uint32_t sobel_half_byte(int gx, int gy) {
    return std::uint32_t(std::nearbyint(sobel_half_root(gx, gy)));
}

// The registers mechanism's work item -> (run, group of 4 columns): item / groups by one
// multiply-high. magic = floor(2^28 / groups) + 1 exceeds 2^28 / groups by e in (0, 1], so
// (16 item) magic / 2^32 = item / groups + item e / 2^28 lies in [q, q + 1) or [q + 1, q + 2)
// for q = floor(item / groups) while item < 2^28: the estimate is q or q + 1, and a negative
// remainder says which. The launcher refuses images with more items (3.2 G pixels).
inline constexpr std::int64_t kItemDivisionLimit = std::int64_t(1) << 28;
TL_SWAR_HD constexpr std::uint32_t item_division_magic(int groups) {
    return std::uint32_t((std::uint64_t(1) << 28) / std::uint64_t(groups) + 1u);
}
struct ItemPlace {
    int run, group;
};
TL_SWAR_HD inline ItemPlace divide_item(int item, int groups, std::uint32_t magic) {
    const std::uint32_t n = std::uint32_t(item) << 4;
#if defined(__CUDA_ARCH__)
    const int q = int(__umulhi(n, magic));
#else
    const int q = int((std::uint64_t(n) * magic) >> 32);
#endif
    const int rem = item - q * groups;
    const int over = rem >> 31;  // -1 where the estimate is one more than the quotient
    return {q + over, rem + (groups & over)};
}

}  // namespace tl::cuda::swar_math

namespace tl::cuda::swar_math {

// The user 3x3 kernel's integer form finishes each channel as (scale / 2^s) S + 255 bias, rounded
// to the byte over 2^23 (filters.cuh, UserKernel3Filter::swar4_integer), where S = L - fb for the
// lane value L and the lanes' bias fb. The lane placed in a float's mantissa reads 2^23 + L, so
//   int_scale (2^23 + L) + k  =  int_scale S + 255 bias + 2^23   for k = 2^23 + add - int_scale (2^23 + fb)
// and one FFMA on the lane's raw bits does the finish, rounding once to the byte, where k is a float
// exactly (add = 255 bias as the float product the device forms). user_integer_fold says whether it
// is, from exact integer arithmetic on the three terms (each an integer times a power of two).
struct UserIntegerFold {
    bool exact = false;
    float k = 0.0f;
};
inline UserIntegerFold user_integer_fold(float int_scale, float add, std::uint32_t fb) {
    UserIntegerFold out;
    if (!std::isfinite(int_scale) || !std::isfinite(add) || fb >= (1u << 23)) return out;
    // Terms as integers times 2^-kUnit: int_scale = m 2^e (|m| < 2^24), add = a 2^f. Only moderate
    // exponents are folded (others keep the two-step finish): every term then fits in 127 bits.
    constexpr int kUnit = 60;
    auto split = [](float v, std::int64_t& mant, int& exp) {
        int e2 = 0;
        const double fr = std::frexp(double(v), &e2);  // v = fr 2^e2, 0.5 <= |fr| < 1
        mant = std::int64_t(std::ldexp(fr, 24));       // exact: a float has 24 significant bits
        exp = e2 - 24;
    };
    std::int64_t m = 0, a = 0;
    int e = 0, f = 0;
    split(int_scale, m, e);
    split(add, a, f);
    if (int_scale != 0.0f && (e + kUnit < 0 || e > 16)) return out;  // |int_scale| < 2^40
    if (add != 0.0f && (f + kUnit < 0 || f > 40)) return out;        // |add| < 2^64
    __extension__ typedef __int128 i128;  // GCC and Clang (and nvcc's host side) have it; not ISO C++
    const i128 two23 = i128(1) << (23 + kUnit);
    const i128 term_add = add == 0.0f ? 0 : i128(a) << (f + kUnit);
    const i128 term_scale = int_scale == 0.0f ? 0 : (i128(m) * i128((1u << 23) + fb)) << (e + kUnit);
    i128 kk = two23 + term_add - term_scale;
    // kk 2^-kUnit is a float exactly if its odd part has at most 24 bits (and it is in range).
    if (kk == 0) {
        out.exact = true;
        return out;
    }
    const bool neg = kk < 0;
    if (neg) kk = -kk;
    int tz = 0;
    while ((kk & 1) == 0) {
        kk >>= 1;
        ++tz;
    }
    if (kk >= (i128(1) << 24)) return out;
    const double v = std::ldexp(double(std::int64_t(kk)), tz - kUnit);
    if (!(std::fabs(v) < 1e30)) return out;
    out.exact = true;
    out.k = float(neg ? -v : v);
    return out;
}

}  // namespace tl::cuda::swar_math

// Mechanism "registers": 3x3 filters on RGBA8 with no shared memory and no asynchronous copy.
// Persistent blocks; each thread takes work items of 4 adjacent output columns x kRows output
// rows in turn, and for each loads the kRows + 2 input rows it needs straight into registers (per
// row one 16-byte load of its 4 pixels and two 4-byte loads of the pixels left and right of them,
// LDG.E.128 / LDG.E in SASS, all issued before the first output is computed), then slides a
// 3-row window down them: each row is unpacked once and serves three output rows, and each output
// row leaves as one 16-byte store.
//
// What it shows: how far plain loads go when every thread keeps many bytes in flight
// ((kRows + 2) rows x 24 bytes) and the caches absorb the reuse. Neighbouring threads' loads of
// the same row are one 512-byte span per warp; the rows above and below a thread's run are read
// again by the runs next to it, from L2 (kRows + 2 rows read per kRows written). Persistent, so
// that a fused op chain's byte tables are built once per resident block, not once per item.
#include "mechanisms.hpp"
#include "filters.cuh"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tl::cuda::detail {

namespace {

using namespace tl::cuda::dev;

constexpr int kThreads = 128;
// Output rows per thread (kRows + 2 input rows in registers). H100 4K clamp: 8 rows, one block per
// item range: Laplacian 29.1 us, Sobel 48.0 (99 registers); persistent blocks, in one run (copy
// kernel 25.8 us), 4 / 3 / 2 rows: Sobel 35.9 / 32.7 / 34.8 us (72 / 64 / 56 registers),
// Laplacian 28.8 / 27.6 / 29.5, sharpen a=0.3 30.6 / 28.9 / 29.8, emboss 29.1 / 28.4 / 27.9,
// box r=1 30.2 / 28.6 / 28.4. Three rows: 8 blocks of 128 threads per SM for every filter but the
// user kernel's integer form (72 registers), and 5 rows read per 3 written.
// On an H200 (copy kernel 20.1 us) the same kernels take about as long as on the H100 and are
// issue-bound (Sobel: issue slots busy 76 %, 59 instructions per output in the compute part):
// Sobel 29.7 us (1.48x), Laplacian 21.2 (1.05x). Tried there and dropped (docs/performance-notes.md):
// an L2 prefetch of the next item's rows, fewer blocks per SM for a fuller last round; on the
// H100, each thread walking down a band of its own column group instead of striding over the grid
// (L1 reuse of the shared rows, but 140 bands read at once): 4K box r=1 28.6 -> 34.9 us. One
// address for the 5 rows of an item inside the image, dropped in session 14 for the H100's sake,
// is taken since session 16 where the GPU's DRAM allows it (load_item).
constexpr int kRows = 3;

// Row y (folded under the border rule; a zero row outside the image for Border::Zero), pixels
// x - 1 .. x + 4: raw[0..3] = x .. x + 3, left = x - 1, right = x + 4. Inside the image and on a
// 16-byte aligned row: one 16-byte and two 4-byte loads; per pixel, folded, elsewhere.
__device__ __forceinline__ void load_row(const void* src, std::size_t pitch, int w, int h, int x, int y,
                                         Border border, bool vec, std::uint32_t (&raw)[4], std::uint32_t& left,
                                         std::uint32_t& right) {
    int fy = y;
    if (y < 0 || y >= h) fy = fold_coord(y, h, border);
    if (fy < 0) {
        raw[0] = raw[1] = raw[2] = raw[3] = left = right = 0u;
        return;
    }
    const auto* row = reinterpret_cast<const std::uint32_t*>(static_cast<const char*>(src) + std::size_t(fy) * pitch);
    if (vec && x >= 1 && x + 4 < w) {
        const uint4 mid = __ldg(reinterpret_cast<const uint4*>(row + x));
        raw[0] = mid.x;
        raw[1] = mid.y;
        raw[2] = mid.z;
        raw[3] = mid.w;
        left = __ldg(row + x - 1);
        right = __ldg(row + x + 4);
        return;
    }
    std::uint32_t v[6];
#pragma unroll
    for (int i = 0; i < 6; ++i) {
        const int fx = fold_coord(x - 1 + i, w, border);
        v[i] = fx < 0 ? 0u : __ldg(row + fx);
    }
    left = v[0];
    raw[0] = v[1];
    raw[1] = v[2];
    raw[2] = v[3];
    raw[3] = v[4];
    right = v[5];
}

} // namespace

// The input of one work item (outputs x .. x + 3 of rows y0 .. y0 + kRows - 1): rows y0 - 1 ..
// y0 + kRows, loaded all at once, so kRows + 2 rows of loads are in flight per thread.
struct ItemRows {
    std::uint32_t raw[kRows + 2][4], left[kRows + 2], right[kRows + 2];
};
// With `one_address`, an item whose kRows + 2 input rows and 6 columns all lie inside the image
// (and whose rows are 16-byte aligned) loads them through one address, a pitch apart, with no
// border test per row: per row one 64-bit add and the three loads. The per-row path (load_row)
// spends ~30 instructions per row on the fold test, the alignment test and a 64-bit row address
// (H200 SASS of Sobel), 150 of a work item's ~715. Measured A/B in one run each (RGBA8, clamp):
//   H200 4K  Sobel 26.2-26.4 -> 24.4-25.0 us, sharpen a=0.3 25.5-25.6 -> 24.6-25.0, user 3x3
//            27.6-27.8 -> 26.4-27.1, its fractional weights 28.7-28.9 -> 27.6-27.9; Laplacian,
//            emboss, box r=1 within +0.5; 8K Sobel 90.2-90.5 -> 82.0-82.1, Laplacian 76.0-76.2 ->
//            78.0-78.8
//   H100 4K  every 3x3 filter 0-0.9 us slower (Sobel 29.2-29.4 -> 29.7-29.8); 8K user 3x3
//            102.5-102.9 -> 110.8-112.4, its fractional weights 106.2-106.5 -> 128.6-129.4
// On the H100 these kernels are DRAM-bound, and there the per-row path's instructions space out
// each item's loads, which its DRAM serves better (at 8K the slowest-issuing filter, the user
// kernel, was the fastest, 1.12x the copy against 1.30-1.36x); on the H200 (46 % more DRAM
// bytes per SM cycle) the heavy ones are issue-bound and fewer instructions win. So the
// launcher turns it on by dram_bytes_per_sm_cycle() (kIssueBoundDramBytesPerSmCycle), for the filters
// of kIssueHeavy only.
__device__ __forceinline__ bool item_inside(int w, int h, bool src_vec, int x, int y0) {
    return src_vec && x >= 1 && x + 4 < w && y0 >= 1 && y0 + kRows < h;
}
__device__ __forceinline__ void load_item(ItemRows& r, const void* src, std::size_t src_pitch, int w, int h,
                                          Border border, bool src_vec, bool one_address, int x, int y0) {
    if (one_address && item_inside(w, h, src_vec, x, y0)) {
        const char* p = static_cast<const char*>(src) + std::size_t(y0 - 1) * src_pitch + 4 * std::size_t(x);
#pragma unroll
        for (int i = 0; i < kRows + 2; ++i) {
            const auto* row = reinterpret_cast<const std::uint32_t*>(p + std::size_t(i) * src_pitch);
            const uint4 mid = __ldg(reinterpret_cast<const uint4*>(row));
            r.raw[i][0] = mid.x;
            r.raw[i][1] = mid.y;
            r.raw[i][2] = mid.z;
            r.raw[i][3] = mid.w;
            r.left[i] = __ldg(row - 1);
            r.right[i] = __ldg(row + 4);
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < kRows + 2; ++i)
        load_row(src, src_pitch, w, h, x, y0 - 1 + i, border, src_vec, r.raw[i], r.left[i], r.right[i]);
}

// The first `n` (1..4) of a group's four outputs, one word each: the group at the image's right edge,
// or a destination not 16-byte aligned. Out of line, for the user kernel's one-address forms: inlined,
// its column tests were computed for every work item and kept in registers across it (ISETP and P2R).
// Out of line in every kernel, ptxas gave them 50-72 registers instead of 56-95 (9 blocks per SM
// instead of 8 where 56): A/B on the H200, three runs, 4K / 8K: the user 3x3 kernel 26.1-26.5 ->
// 24.6-24.7 us / 88.6-89.4 -> 83.0-83.8 (its one-address integer form had 64 registers and 8 bytes of
// spill, now 56 and none), non-dyadic weights 27.7-27.9 -> 26.8-27.1 / 95.5-95.8 -> 92.2-93.1; but
// sharpen a=0.3 24.5-24.8 -> 25.6-25.7 / 82.7-83.3 -> 86.4-87.9, box r=1 22.3-22.4 -> 22.7-22.9 /
// 77.1-77.4 -> 80.5-81.2, Sobel unchanged at 4K and 80.5-80.9 -> 81.9-82.2 at 8K. So only the user
// kernel's one-address forms (the H200's) take it: user 3x3 26.2-26.4 -> 24.3-24.6 us / 88.8-89.0 ->
// 83.2-83.5, non-dyadic 27.6-27.7 -> 26.7-26.8 / 95.2-95.4 -> 91.4-91.6, the others unchanged (A/B,
// three runs).
__device__ __noinline__ void store_partial(std::uint32_t* o, int n, uint4 v) {
    o[0] = v.x;
    if (n > 1) o[1] = v.y;
    if (n > 2) o[2] = v.z;
    if (n > 3) o[3] = v.w;
}

// Which integer finish compute_item calls: the filter's swar4, or one of sharpen's finishes
// alone (a kernel with both branches of SharpenFilter::swar4 needed 96 registers);
// SharpenFloatFolded: the float finish with its FADD folded into the FFMA
// (SharpenFilter::swar4_float_folded), where sharpen_float_fold takes it.
// UserInteger: the user 3x3 kernel's integer form (UserKernel3Filter::swar4_integer) where its
// weights allow, instead of its float window; UserIntegerFolded: the same with its finish folded
// into one FFMA per channel where that is exact (UserKernel3Filter::folded); UserPlanar: its float
// form one channel at a time (UserKernel3Filter::planar4) for the other weights; UserFixed: its
// 16-bit fixed-point form (UserKernel3Filter::fixed4) for the other weights where that form's
// error bound allows (swar_math::UserFixedForm). New finishes go last: the Sass tests find kernels
// by the enum's value in the mangled name ("FinishE6E" = UserPlanar, "FinishE7E" = UserFixed).
enum class Finish {
    Swar4,
    SharpenDyadic,
    SharpenFloat,
    SharpenFloatFolded,
    UserInteger,
    UserIntegerFolded,
    UserPlanar,
    UserFixed
};

template <class Filter, Finish kFinish, bool kOneAddress>
__device__ __forceinline__ void compute_item(const Filter& f, const ItemRows& r, void* dst,
                                             std::size_t dst_pitch, int w, int h, bool dst_vec, int x,
                                             int y0) {
    const auto& raw = r.raw;
    const auto& left = r.left;
    const auto& right = r.right;
    // The user kernel's one-address forms store a partial group out of line (store_partial).
    constexpr bool kPartialOutOfLine =
        kOneAddress && (kFinish == Finish::UserInteger || kFinish == Finish::UserIntegerFolded ||
                        kFinish == Finish::UserPlanar || kFinish == Finish::UserFixed);
    auto store = [&](int y, const std::uint32_t (&out)[4]) {
        auto* o = row_ptr<PixelRGBA8>(dst, dst_pitch, y) + x;
        if (dst_vec && x + 3 < w) {
            *reinterpret_cast<uint4*>(o) = make_uint4(out[0], out[1], out[2], out[3]);
        } else if constexpr (kPartialOutOfLine) {
            store_partial(o, w - x, make_uint4(out[0], out[1], out[2], out[3]));
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if (x + i < w) o[i] = out[i];
        }
    };
    if constexpr (kFinish == Finish::UserPlanar) {
        // Channel by channel (UserKernel3Filter::planar_item) over the kRows + 2 rows in registers.
        std::uint32_t out[kRows][4];
        f.template planar_item<kRows>(
            kRows,
            [&](int i, std::uint32_t (&px)[6]) {
                px[0] = left[i];
#pragma unroll
                for (int k = 0; k < 4; ++k) px[k + 1] = raw[i][k];
                px[5] = right[i];
            },
            [&](int step, std::uint32_t (&c)[4]) {
#pragma unroll
                for (int k = 0; k < 4; ++k) c[k] = raw[step + 1][k];
            },
            out);
#pragma unroll
        for (int step = 0; step < kRows; ++step) {
            if (y0 + step >= h) break;
            finish4(f, out[step]);
            store(y0 + step, out[step]);
        }
        return;
    }
    if constexpr (kFinish == Finish::UserFixed) {
        // Each input row regrouped once into byte pairs of one channel (UserKernel3Filter::byte_pairs),
        // then dp2a over three rows of them per output row (fixed4).
        std::uint32_t pairs[kRows + 2][6];
#pragma unroll
        for (int i = 0; i < kRows + 2; ++i) f.byte_pairs(left[i], raw[i], right[i], pairs[i]);
#pragma unroll
        for (int step = 0; step < kRows; ++step) {
            if (y0 + step >= h) break;
            std::uint32_t out[4];
            f.fixed4(pairs[step], pairs[step + 1], pairs[step + 2], raw[step + 1], out);
            finish4(f, out);
            store(y0 + step, out);
        }
        return;
    }
    // The integer form (filters.cuh, namespace swar): each row's 6 pixels unpacked once into (R, B)
    // and (G of column k, G of column k + 1) 16-bit lanes (swar::Row); else
    // the float window of all channels (user kernels that none of the integer, fixed-point and
    // float forms holds: a zero scale with a bias beyond 32-bit fixed point, for one). Three rows
    // live either way.
    constexpr bool kInteger = swar3x3_v<Filter, PixelRGBA8> || kFinish == Finish::UserInteger ||
                              kFinish == Finish::UserIntegerFolded;
    using Row = std::conditional_t<kInteger, swar::Row, float4[6]>;
    Row lanes[3];
    auto unpack_row = [&](int i, Row& d) {
        if constexpr (kInteger) unpack_row6(left[i], raw[i], right[i], d);
        else unpack_row6<Filter>(left[i], raw[i], right[i], d);
    };
    unpack_row(0, lanes[0]);
    unpack_row(1, lanes[1]);
#pragma unroll
    for (int step = 0; step < kRows; ++step) {
        if (y0 + step >= h) break;
        unpack_row(step + 2, lanes[(step + 2) % 3]);
        std::uint32_t out[4];
        const Row& t = lanes[step % 3];
        const Row& m = lanes[(step + 1) % 3];
        const Row& b = lanes[(step + 2) % 3];
        if constexpr (kFinish == Finish::SharpenDyadic) f.swar4_dyadic(t, m, b, raw[step + 1], out);
        else if constexpr (kFinish == Finish::SharpenFloat) f.swar4_float(t, m, b, raw[step + 1], out);
        else if constexpr (kFinish == Finish::SharpenFloatFolded)
            f.swar4_float_folded(t, m, b, raw[step + 1], out);
        else if constexpr (kFinish == Finish::UserInteger) f.swar4_integer(t, m, b, raw[step + 1], out);
        else if constexpr (kFinish == Finish::UserIntegerFolded)
            f.template swar4_integer<true>(t, m, b, raw[step + 1], out);
        else if constexpr (kInteger) f.swar4(t, m, b, raw[step + 1], out);
        else window_outputs4<Filter>(f, lanes, step, out);
        finish4(f, out);
        store(y0 + step, out);
    }
}

// The kernels that take the one-address load where the GPU asks for it (load_item): those whose
// finish is heavy enough to be issue-bound on an H200 (Sobel's magnitude, sharpen's float finish,
// the user kernel's forms). The light ones (Laplacian, emboss, box r=1, sharpen's dyadic amounts)
// ran 0.1-0.6 us slower with it there (4K; 8K Laplacian 76.0 -> 78.3 us): they sit at 1.07-1.15x
// the copy, near DRAM, where the per-row path's spacing of the loads helps as on the H100.
template <class Filter, Finish kFinish>
inline constexpr bool kIssueHeavy =
    std::is_same_v<base_filter_t<Filter>, SobelFilter> || kFinish == Finish::SharpenFloat ||
    kFinish == Finish::SharpenFloatFolded || kFinish == Finish::UserInteger ||
    kFinish == Finish::UserIntegerFolded || kFinish == Finish::UserPlanar || kFinish == Finish::UserFixed;

// kOneAddress: the one-address load compiled in (load_item), a kernel of its own so that the
// others keep their code and registers (with it compiled in but off, the H100 ran the user
// kernel's fractional weights 29.7 -> 30.9 us at 4K: the planar kernel spilled 4 bytes).
template <class Filter, Finish kFinish, bool kOneAddress>
__global__ void __launch_bounds__(kThreads)
    stencil_registers_kernel(const __grid_constant__ Filter f, const void* src, std::size_t src_pitch,
                             void* dst, std::size_t dst_pitch, int w, int h, Border border, int groups,
                             std::uint32_t groups_magic, int items, bool src_vec, bool dst_vec) {
    const int stride = static_cast<int>(gridDim.x) * kThreads;
    int item = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
    int x = 0, y0 = 0;
    auto locate = [&] {
        if constexpr (!kOneAddress) {
            const int run = item / groups;
            x = 4 * (item - run * groups);
            y0 = run * kRows;
        } else {
            // The issue-bound kernels (kOneAddress): item / groups by a multiply-high and a sign
            // correction (swar_math::divide_item, its host twin tested over edge cases and 2^28
            // items). The signed division takes ~30 SASS instructions of a Sobel item's
            // ~595 (ncu, H200). In every kernel, A/B on the H200 (three runs each, 4K / 8K): Sobel
            // 24.5-24.6 -> 24.1-24.2 / 82.2-82.6 -> 79.9-80.9 us, user 3x3 26.8-27.0 -> 26.3-26.5 /
            // 91.3-91.9 -> 88.9-89.4, sharpen a=0.3 24.7-24.9 -> 24.5-24.7 / 84.1-84.7 -> 82.9-83.2;
            // Laplacian, emboss and box r=1 within 0.3 / 1.5 us, but ptxas spilled 8 bytes in
            // sharpen's dyadic kernel (8K a=1.5 77.5-77.6 -> 79.7-80.2) and 20 in the fused user
            // kernel's table form, so the others keep the division.
            const swar_math::ItemPlace p = swar_math::divide_item(item, groups, groups_magic);
            x = 4 * p.group;
            y0 = p.run * kRows;
        }
    };
    ItemRows rows;
    if constexpr (is_fused_v<Filter>) {
        // The first item's loads go out before the chain's tables are built, so the build overlaps
        // their latency; the first item is peeled off the loop (a loop that carries loaded rows
        // into the next iteration cost registers: Sobel 72 -> 96).
        if (item < items) {
            locate();
            load_item(rows, src, src_pitch, w, h, border, src_vec, kOneAddress, x, y0);
        }
        stage_epilogue(f);
        __syncthreads();  // the staged tables, before any thread reads them
        if (item < items) {
            compute_item<Filter, kFinish, kOneAddress>(f, rows, dst, dst_pitch, w, h, dst_vec, x, y0);
            item += stride;
        }
    }
    for (; item < items; item += stride) {
        locate();
        load_item(rows, src, src_pitch, w, h, border, src_vec, kOneAddress, x, y0);
        compute_item<Filter, kFinish, kOneAddress>(f, rows, dst, dst_pitch, w, h, dst_vec, x, y0);
    }
}

// Empty when `registers` runs this filter and format; otherwise why not.
std::string registers_refusal(const FilterParams& params, PixelFormat format) {
    if (format != PixelFormat::RGBA8) return "registers: RGBA8 images only (its window holds packed 8-bit pixels)";
    if (filter_radius(params) != 1)
        return "registers: 3x3 filters only (its register window holds 3 rows of 6 pixels; radius " +
               std::to_string(filter_radius(params)) + " needs " + std::to_string(2 * filter_radius(params) + 1) + ")";
    return {};
}

Result launch_registers(const LaunchArgs& a) {
    if (std::string why = registers_refusal(a.params, a.src.format); !why.empty()) return Result::fail(why);
    const int groups = (a.src.width + 3) / 4;
    // The kernels divide work items by groups with a multiply-high that is exact below 2^28 items.
    if (static_cast<std::int64_t>(groups) * ((a.src.height + kRows - 1) / kRows) >=
        swar_math::kItemDivisionLimit)
        return Result::fail("registers: more than 2^28 work items of 4 x 3 pixels (" +
                            std::to_string(a.src.width) + " x " + std::to_string(a.src.height) + ")");
    const int items = groups * ((a.src.height + kRows - 1) / kRows);
    const std::uint32_t groups_magic = swar_math::item_division_magic(groups);
    const cudaDeviceProp& prop = current_device_props();
    const bool src_vec = reinterpret_cast<std::uintptr_t>(a.src.data) % 16 == 0 && a.src.pitch % 16 == 0;
    const bool dst_vec = reinterpret_cast<std::uintptr_t>(a.dst.data) % 16 == 0 && a.dst.pitch % 16 == 0;
    const bool one_address = dram_bytes_per_sm_cycle() >= kIssueBoundDramBytesPerSmCycle;
    return dev::with_filter(a.params, [&](auto filter0) -> Result {
        return dev::with_fixed_radius(filter0, [&](auto filter1) -> Result {
            if constexpr (!StaticRadius<decltype(filter1)>::value) {  // every static radius is 1
                return Result::fail(registers_refusal(a.params, a.src.format));  // not reached: refused above
            } else {
                return dev::with_epilogue<PixelRGBA8, true>(filter1, a.ops, [&](const auto& f) -> Result {
                    using F = std::decay_t<decltype(f)>;
                    // The kernel of one finish, with the one-address load where it is heavy and
                    // the GPU asks for it.
                    auto variant = [&](auto finish) {
                        constexpr Finish kF = decltype(finish)::value;
                        // The folded finishes and the fixed-point form are picked with one_address
                        // only: no kernel without it.
                        if constexpr (kF == Finish::SharpenFloatFolded || kF == Finish::UserIntegerFolded ||
                                      kF == Finish::UserFixed)
                            return stencil_registers_kernel<F, kF, true>;
                        else if constexpr (kIssueHeavy<F, kF>)
                            return one_address ? stencil_registers_kernel<F, kF, true>
                                               : stencil_registers_kernel<F, kF, false>;
                        else
                            return stencil_registers_kernel<F, kF, false>;
                    };
                    using Dyadic = std::integral_constant<Finish, Finish::SharpenDyadic>;
                    using Float = std::integral_constant<Finish, Finish::SharpenFloat>;
                    using FloatFolded = std::integral_constant<Finish, Finish::SharpenFloatFolded>;
                    using Integer = std::integral_constant<Finish, Finish::UserInteger>;
                    using Folded = std::integral_constant<Finish, Finish::UserIntegerFolded>;
                    using Planar = std::integral_constant<Finish, Finish::UserPlanar>;
                    using Fixed = std::integral_constant<Finish, Finish::UserFixed>;
                    using Plain = std::integral_constant<Finish, Finish::Swar4>;
                    auto pick = [&] {
                        if constexpr (std::is_same_v<base_filter_t<F>, SharpenFilter>)
                            // The folded float finish (one FADD per channel fewer) in the
                            // one-address kernels only, as the user kernel's below.
                            return f.dyadic.p >= 0               ? variant(Dyadic{})
                                   : f.fold.taken && one_address ? variant(FloatFolded{})
                                                                 : variant(Float{});
                        else if constexpr (std::is_same_v<base_filter_t<F>, UserKernel3Filter>)
                            // The folded finish (two FADD per channel fewer) in the one-address
                            // kernels only: the others (the H100's) spilled 8 bytes with it. H200,
                            // A/B in one run (three pairs, the check suite's user 3x3 case): 4K
                            // 24.4-24.6 -> 23.1-23.7 us (copy kernel 20.1-20.2), 8K 83.4-83.8 ->
                            // 81.7-82.2.
                            //
                            // The fixed-point form (one-address kernels only) first where it is
                            // exact (error_bound 0: every scaled weight and the bias land on its 2^-s
                            // grid, as integer and dyadic kernels with a dyadic scale do), since it
                            // rounds the exact sum half up as the reference does while the integer
                            // form's float finish can differ within float error of a half; then the
                            // integer form, then the fixed-point form within its bound. H200 A/B in
                            // one run (three pairs, the check suite's user 3x3 case, copy kernel
                            // 19.9-20.3 us): 4K 23.2-23.5 us on the integer form -> 23.1-23.3 on the
                            // fixed one; 8K 81.5-81.6 -> 79.4-79.9. (A first UserFixedForm with a
                            // double and the q's beside the words, 108 bytes more in the functor,
                            // made the integer and float forms' unchanged kernels 0.3 us slower at
                            // 4K on both GPUs, and the fixed one 8K 81.3 against 80.0; 64 bytes of
                            // 4-byte fields cost nothing measurable.) On the H100 (DRAM-bound,
                            // the per-row loads) the fixed form took 8K 126.1-126.8 us against
                            // 103.0-109.8 for the integer and float forms (4K 28.8-29.2 against
                            // 28.9-29.4), as the other light kernels do there (see load_item), so
                            // it runs where one_address does only.
                            return f.fixed.usable && f.fixed.exact && one_address ? variant(Fixed{})
                                   : f.integer && f.folded && one_address         ? variant(Folded{})
                                   : f.integer                                    ? variant(Integer{})
                                   : f.fixed.usable && one_address                ? variant(Fixed{})
                                   : f.planar.usable                              ? variant(Planar{})
                                                                                  : variant(Plain{});
                        else
                            return variant(Plain{});
                    };
                    auto kernel = pick();
                    // Persistent: as many blocks as are resident at once, each walking items (a fused
                    // chain's table is then built once per resident block, not once per item).
                    int per_sm = 0;
                    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0);
                    const int grid = std::max(1, std::min((items + kThreads - 1) / kThreads,
                                                          std::max(per_sm, 1) * prop.multiProcessorCount));
                    kernel<<<grid, kThreads, 0, a.stream>>>(f, a.src.data, a.src.pitch, a.dst.data,
                                                            a.dst.pitch, a.src.width, a.src.height, a.border,
                                                            groups, groups_magic, items, src_vec, dst_vec);
                    return launch_error("stencil_registers_kernel");
                });
            }
        });
    });
}

} // namespace tl::cuda::detail

// Each mechanism really emits the instruction it claims: the SASS of libtilelab_cuda.a (from
// cuobjdump, which needs no GPU) has that instruction in the mechanism's kernels, and the
// plain-load mechanisms have none of the asynchronous-copy instructions.
#include "sass_dump.hpp"
#include "stencil_api.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace {

const std::map<std::string, std::string>& sass() { return tl::test::library_sass(); }
constexpr std::array<const char*, 4> kAsyncInstructions{"LDGSTS", "UTMALDG", "UBLKCP", "UCGABAR_ARV"};
// Whether a kernel's mangled name holds every one of `parts`.
bool name_has_all(const std::string& name, std::initializer_list<std::string_view> parts) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](std::string_view p) { return name.find(p) != std::string::npos; });
}

TEST(Sass, EachMechanismKernelContainsItsInstruction) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    for (const auto& m : tl::cuda::mechanism_infos()) {
        const std::string tag = "stencil_" + std::string(m.name) + "_kernel";
        int kernels = 0, with_instruction = 0;
        for (const auto& [name, text] : sass()) {
            if (name.find(tag) == std::string::npos) continue;
            ++kernels;
            if (!m.instruction.empty() && text.find(std::string(m.instruction)) != std::string::npos) ++with_instruction;
        }
        EXPECT_GT(kernels, 0) << "no kernel named *" << tag << "* in the library";
        if (!m.instruction.empty()) {
            EXPECT_EQ(with_instruction, kernels)
                << m.name << ": " << (kernels - with_instruction) << " of " << kernels << " kernels lack "
                << m.instruction << " (did the async copy fall back to plain loads?)";
        }
    }
}

// launch_fused's kernels are the mechanisms' own templates over a Fused<Filter> functor (the op
// chain in the epilogue): they exist for every mechanism and still move their bytes with the
// mechanism's instruction (the check above counts them too; this one fails if they vanish).
TEST(Sass, FusedKernelsExistAndContainTheirInstruction) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    for (const auto& m : tl::cuda::mechanism_infos()) {
        const std::string tag = "stencil_" + std::string(m.name) + "_kernel";
        int fused = 0, with_instruction = 0;
        for (const auto& [name, text] : sass()) {
            if (name.find(tag) == std::string::npos || name.find("Fused") == std::string::npos) continue;
            ++fused;
            if (!m.instruction.empty() && text.find(std::string(m.instruction)) != std::string::npos) ++with_instruction;
        }
        EXPECT_GT(fused, 0) << "no fused kernel named *" << tag << "*Fused* in the library";
        if (!m.instruction.empty()) {
            EXPECT_EQ(with_instruction, fused) << m.name << ": " << (fused - with_instruction) << " of " << fused
                                               << " fused kernels lack " << m.instruction;
        }
    }
}

TEST(Sass, PlainLoadMechanismsUseNoAsyncCopies) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    for (const char* plain :
         {"stencil_global_kernel", "stencil_smem_kernel", "stencil_texture_kernel", "stencil_registers_kernel"}) {
        int kernels = 0;
        for (const auto& [name, text] : sass()) {
            if (name.find(plain) == std::string::npos) continue;
            ++kernels;
            for (const char* ins : kAsyncInstructions)
                EXPECT_EQ(text.find(ins), std::string::npos) << plain << " contains " << ins;
        }
        EXPECT_GT(kernels, 0) << "no kernel named *" << plain << "*";
    }
}

// The tma Gaussian on RGBA8 runs its separable passes as band-matrix products on tensor cores
// (cuda/stencil/band_mma.cuh): its kernels (plain and fused) must contain HMMA and still load
// with UTMALDG; the RGBA32F Gaussian keeps the FP32 path and has no HMMA.
TEST(Sass, TmaGaussianRgba8UsesTensorCores) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    int rgba8 = 0, rgba32f = 0;
    for (const auto& [name, text] : sass()) {
        if (!name_has_all(name, {"stencil_tma_kernel", "GaussianFilter"})) continue;
        // The column-streaming kernel (tma_gauss_stream.cu) is RGBA8 only and has no Pixel parameter.
        if (name.find("PixelRGBA8") != std::string::npos || name.find("gauss_stream") != std::string::npos) {
            ++rgba8;
            EXPECT_NE(text.find("HMMA"), std::string::npos) << name << " has no HMMA";
            EXPECT_NE(text.find("UTMALDG"), std::string::npos) << name << " has no UTMALDG";
        } else if (name.find("PixelRGBA32F") != std::string::npos) {
            ++rgba32f;
            EXPECT_EQ(text.find("HMMA"), std::string::npos) << name << " (RGBA32F) contains HMMA";
        }
    }
    EXPECT_GE(rgba8, 2) << "expected the plain and the fused tma Gaussian RGBA8 kernels";
    EXPECT_GE(rgba32f, 1) << "no tma Gaussian RGBA32F kernel";
}

// Sobel's RGBA8 magnitude runs in half precision, two channels per instruction
// (SobelFilter::swar4, swar_math::sobel_half_root): the `registers` kernels, which run only that
// form, have the HFMA2s of the gradient conversion and the squares beside the MUFU.SQRT per
// channel; and, outside a fused chain, none of the f32 form's FMUL (x * x) is left.
TEST(Sass, SobelMagnitudeRunsInHalfPrecision) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    int kernels = 0;
    for (const auto& [name, text] : sass()) {
        if (!name_has_all(name, {"stencil_registers_kernel", "SobelFilter"})) continue;
        ++kernels;
        EXPECT_NE(text.find("HFMA2"), std::string::npos) << name << " has no HFMA2";
        EXPECT_NE(text.find("MUFU.SQRT"), std::string::npos) << name << " has no MUFU.SQRT";
        if (name.find("Fused") == std::string::npos) {  // a fused chain may multiply in f32
            EXPECT_EQ(text.find(" FMUL "), std::string::npos) << name << " still squares in f32 (FMUL)";
        }
    }
    EXPECT_GE(kernels, 2) << "expected the plain and the fused registers Sobel kernels";
}

// The user kernels' float form over raw bytes (UserKernel3Filter::planar_byte, and the 5x5 form)
// turns each sum into its byte with one saturating conversion, cvt.rni.sat.u8.f32, which sm_90
// compiles to F2IP.U8 (an FFMA on 2^23 and two FMNMX before): the `registers` kernels of that form
// (Finish::UserPlanar, "FinishE6E" in the mangled name) and every 5x5 kernel that runs it have it.
TEST(Sass, UserPlanarFormRoundsWithOneConversion) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    int planar3 = 0, planar5 = 0;
    for (const auto& [name, text] : sass()) {
        const bool p3 = name_has_all(name, {"stencil_registers_kernel", "UserKernel3Filter", "FinishE6E"});
        const bool p5 = name.find("UserKernel5Filter") != std::string::npos;
        if (!p3 && !p5) continue;
        (p3 ? planar3 : planar5) += 1;
        EXPECT_NE(text.find("F2IP.U8"), std::string::npos) << name << " has no F2IP.U8";
    }
    EXPECT_GE(planar3, 2) << "expected the plain and the fused registers kernels of the planar form";
    EXPECT_GE(planar5, 1) << "no kernel of the user 5x5 planar form";
}

// The user 3x3 kernel's 16-bit fixed-point form (UserKernel3Filter::fixed4; Finish::UserFixed,
// "FinishE7E" in the mangled name) sums two taps per dp2a (IDP.2A) and packs each output with the
// saturating conversion cvt.pack.sat.u8.s32.b32 (I2IP); outside a fused chain, whose ops may compute
// in f32, it has no FFMA at all (the float form's 27 per output are gone).
TEST(Sass, UserFixedFormSumsWithDp2a) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    int kernels = 0;
    for (const auto& [name, text] : sass()) {
        if (!name_has_all(name, {"stencil_registers_kernel", "UserKernel3Filter", "FinishE7E"})) continue;
        ++kernels;
        EXPECT_NE(text.find("IDP.2A.LO.S16.U8"), std::string::npos) << name << " has no IDP.2A.LO";
        EXPECT_NE(text.find("IDP.2A.HI.S16.U8"), std::string::npos) << name << " has no IDP.2A.HI";
        EXPECT_NE(text.find("I2IP.U8.S32.SAT"), std::string::npos) << name << " has no I2IP.U8.S32.SAT";
        if (name.find("Fused") == std::string::npos) {
            EXPECT_EQ(text.find(" FFMA "), std::string::npos) << name << " still has an FFMA";
        }
    }
    EXPECT_GE(kernels, 2) << "expected the plain and fused registers kernels of the fixed-point form";
}

// The tma Box stream (cuda/stencil/tma_box_stream.cu) stores its 8-row blocks (the 8-pixel halo
// class, template argument 8: "ELi8ELi" in the mangled name) through shared memory with TMA
// stores, as the explain text says; the wider classes store from registers.
TEST(Sass, TmaBoxStreamStoresSmallRadiiWithTma) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    int small = 0, wide = 0;
    for (const auto& [name, text] : sass()) {
        if (name.find("stencil_tma_kernel_box_stream") == std::string::npos) continue;
        EXPECT_NE(text.find("UTMALDG"), std::string::npos) << name << " has no UTMALDG";
        if (name.find("ELi8ELi") != std::string::npos) {
            ++small;
            EXPECT_NE(text.find("UTMASTG"), std::string::npos) << name << " (8-row blocks) has no UTMASTG";
        } else {
            ++wide;
            EXPECT_EQ(text.find("UTMASTG"), std::string::npos) << name << " (16-row blocks) contains UTMASTG";
            EXPECT_NE(text.find("STG.E.128"), std::string::npos)
                << name << " (16-row blocks) has no 16-byte store";
        }
    }
    EXPECT_GE(small, 7) << "expected the radius 2..7 kernels and the runtime-radius one of the 8-pixel class";
    EXPECT_GE(wide, 3) << "expected the 16, 24 and 32-pixel halo classes";
}

// Warp-specialised Box stream kernels (stencil_tma_kernel_box_stream_ws*): one per radius 2..7,
// two (the ring refilled at each block's start or end) for 8..16, 24 in all.
constexpr int kWarpSpecialisedBoxKernels = 6 + 2 * 9;

// Its radius 8-16 kernels (two per radius: the ring refilled at each block's start or end), and a
// second kernel for each of radius 2-7 (taken where the GPU's DRAM outpaces its SMs), are
// warp-specialised (stencil_tma_kernel_box_stream_ws): the column warps
// hand each team its rows with a named-barrier arrive (BAR.ARV) and wait for them back (BAR.SYNC
// on a named barrier), as the explain text says; the other box stream kernels use __syncthreads only.
TEST(Sass, TmaBoxStreamRadii2To16HaveAWarpSpecialisedKernel) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    int ws = 0;
    for (const auto& [name, text] : sass()) {
        if (name.find("stencil_tma_kernel_box_stream") == std::string::npos) continue;
        if (name.find("stencil_tma_kernel_box_stream_ws") != std::string::npos) {
            ++ws;
            EXPECT_NE(text.find("BAR.ARV"), std::string::npos) << name << " has no named-barrier arrive";
            EXPECT_NE(text.find("UTMALDG"), std::string::npos) << name << " has no UTMALDG";
        } else {
            EXPECT_EQ(text.find("BAR.ARV"), std::string::npos) << name << " contains a named-barrier arrive";
        }
    }
    EXPECT_EQ(ws, kWarpSpecialisedBoxKernels) << "warp-specialised box stream kernels";
}

// The warp-specialised Box stream kernels run at the register bound of three CTAs per SM (72), where
// a spill costs time: radius 9 once spilled a loop invariant of its teams' row test (8 bytes) and
// reloaded it from local memory in every block (H200 4K 27.6-28.0 -> 28.4-28.7 us). None of them may
// touch local memory (LDL / STL).
TEST(Sass, TmaBoxStreamWarpSpecialisedKernelsDoNotSpill) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    int ws = 0;
    for (const auto& [name, text] : sass()) {
        if (name.find("stencil_tma_kernel_box_stream_ws") == std::string::npos) continue;
        ++ws;
        EXPECT_EQ(text.find(" LDL"), std::string::npos) << name << " loads from local memory (a spill)";
        EXPECT_EQ(text.find(" STL"), std::string::npos) << name << " stores to local memory (a spill)";
    }
    EXPECT_EQ(ws, kWarpSpecialisedBoxKernels) << "warp-specialised box stream kernels";
}

} // namespace

// The NPP peer plugin (libtilelab_npp.so): runs the NPP function `tilelab bench` compares a filter
// with. Built only against NPP's headers and libraries (no tilelab code, no CUDA runtime calls:
// the caller passes the stream context and device-side weights), so scripts/build-npp-peer.sh
// can build it in seconds on any machine that has NPP.
#include "npp_plugin_abi.h"

#include <nppcore.h>
#include <nppi_filtering_functions.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr int kRefused = -100000;

int refuse(TlNppReply* reply, const char* why) {
    std::snprintf(reply->error, sizeof reply->error, "%s", why);
    return kRefused;
}

// NPP reports warnings as positive codes and errors as negative ones.
int finish(TlNppReply* reply, NppStatus s) {
    if (s >= 0) return 0;
    std::snprintf(reply->error, sizeof reply->error, "%s returned NppStatus %d", reply->function, static_cast<int>(s));
    return static_cast<int>(s);
}

NppStreamContext context_of(const TlNppDevice& d) {
    NppStreamContext c{};
    c.hStream = static_cast<cudaStream_t>(d.stream);
    c.nCudaDeviceId = d.device_id;
    c.nMultiProcessorCount = d.sm_count;
    c.nMaxThreadsPerMultiProcessor = d.max_threads_per_sm;
    c.nMaxThreadsPerBlock = d.max_threads_per_block;
    c.nSharedMemPerBlock = d.shared_mem_per_block;
    c.nCudaDevAttrComputeCapabilityMajor = d.cc_major;
    c.nCudaDevAttrComputeCapabilityMinor = d.cc_minor;
    c.nStreamFlags = d.stream_flags;
    return c;
}

void name(TlNppReply* reply, const char* function) {
    std::snprintf(reply->function, sizeof reply->function, "%s", function);
}

} // namespace

extern "C" __attribute__((visibility("default"))) int tilelab_npp_abi_version(void) { return TILELAB_NPP_ABI_VERSION; }

extern "C" __attribute__((visibility("default"))) int tilelab_npp_library_version(char* out, int size) {
    const NppLibraryVersion* v = nppGetLibVersion();
    if (!out || size <= 0) return 0;
    if (!v) {
        std::snprintf(out, static_cast<std::size_t>(size), "unknown");
        return 0;
    }
    std::snprintf(out, static_cast<std::size_t>(size), "%d.%d.%d", v->major, v->minor, v->build);
    return 0;
}

extern "C" __attribute__((visibility("default"))) int tilelab_npp_run(const TlNppRequest* rq, TlNppReply* reply) {
    if (!reply) return kRefused;
    std::memset(reply, 0, sizeof *reply);
    if (!rq) return refuse(reply, "no request");
    if (!rq->src || !rq->dst) return refuse(reply, "null image pointer");
    if (rq->width <= 0 || rq->height <= 0) return refuse(reply, "empty image");
    if (rq->src_pitch > 0x7fffffff || rq->dst_pitch > 0x7fffffff) return refuse(reply, "pitch exceeds NPP's 32-bit step");
    const NppStreamContext ctx = context_of(rq->device);
    const NppiSize size{rq->width, rq->height};
    const NppiPoint origin{0, 0};
    const auto* s = static_cast<const Npp8u*>(rq->src);
    auto* d = static_cast<Npp8u*>(rq->dst);
    const auto ss = static_cast<Npp32s>(rq->src_pitch), ds = static_cast<Npp32s>(rq->dst_pitch);
    const NppiSize mask{rq->mask_w, rq->mask_h};
    const NppiPoint anchor{rq->mask_w / 2, rq->mask_h / 2};
    switch (rq->op) {
    case TL_NPP_BOX:
        name(reply, "nppiFilterBoxBorder_8u_C4R_Ctx");
        return finish(reply, nppiFilterBoxBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, mask, anchor,
                                                            NPP_BORDER_REPLICATE, ctx));
    case TL_NPP_GAUSS_TAPS:
        if (!rq->device_weights) return refuse(reply, "Gaussian taps missing");
        name(reply, "nppiFilterGaussAdvancedBorder_8u_C4R_Ctx");
        return finish(reply, nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, rq->mask_w,
                                                                      rq->device_weights, NPP_BORDER_REPLICATE, ctx));
    case TL_NPP_SOBEL_HORIZ_VERT: {
        name(reply, "nppiFilterSobelHorizBorder_8u_C4R_Ctx + nppiFilterSobelVertBorder_8u_C4R_Ctx");
        const NppStatus h =
            nppiFilterSobelHorizBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, NPP_BORDER_REPLICATE, ctx);
        if (h < 0) return finish(reply, h);
        return finish(reply,
                      nppiFilterSobelVertBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, NPP_BORDER_REPLICATE, ctx));
    }
    case TL_NPP_LAPLACE:
        if (rq->mask_w != 3 && rq->mask_w != 5) return refuse(reply, "NPP's Laplace mask is 3x3 or 5x5");
        name(reply, "nppiFilterLaplaceBorder_8u_C4R_Ctx");
        return finish(reply, nppiFilterLaplaceBorder_8u_C4R_Ctx(
                                 s, ss, size, origin, d, ds, size,
                                 rq->mask_w == 3 ? NPP_MASK_SIZE_3_X_3 : NPP_MASK_SIZE_5_X_5, NPP_BORDER_REPLICATE, ctx));
    case TL_NPP_GAUSS_FIXED: {
        NppiMaskSize m;
        switch (rq->mask_w) {
        case 3: m = NPP_MASK_SIZE_3_X_3; break;
        case 5: m = NPP_MASK_SIZE_5_X_5; break;
        case 7: m = NPP_MASK_SIZE_7_X_7; break;
        case 9: m = NPP_MASK_SIZE_9_X_9; break;
        case 11: m = NPP_MASK_SIZE_11_X_11; break;
        case 13: m = NPP_MASK_SIZE_13_X_13; break;
        case 15: m = NPP_MASK_SIZE_15_X_15; break;
        default: return refuse(reply, "NPP's fixed Gaussian masks are 3x3 to 15x15");
        }
        name(reply, "nppiFilterGaussBorder_8u_C4R_Ctx");
        return finish(reply, nppiFilterGaussBorder_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, m, NPP_BORDER_REPLICATE, ctx));
    }
    case TL_NPP_CONV_F32:
        if (!rq->device_weights) return refuse(reply, "convolution weights missing");
        name(reply, "nppiFilterBorder32f_8u_C4R_Ctx");
        return finish(reply, nppiFilterBorder32f_8u_C4R_Ctx(s, ss, size, origin, d, ds, size, rq->device_weights, mask,
                                                            anchor, NPP_BORDER_REPLICATE, ctx));
    default: return refuse(reply, "unknown op");
    }
}

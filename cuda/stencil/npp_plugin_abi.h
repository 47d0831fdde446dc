/* The plain-C boundary between `tilelab bench` and its NPP peer plugin (libtilelab_npp.so).
 * Only C types cross it (no std::, no NPP types), so the plugin can be built on the machine that
 * has NPP, with that machine's compiler, and loaded by a tilelab built elsewhere. Bump
 * TILELAB_NPP_ABI_VERSION whenever a struct or an op changes meaning. */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILELAB_NPP_ABI_VERSION 2

/* What the plugin runs; every op reads and writes RGBA8 (NPP's _8u_C4R variants, all four
 * channels filtered) with NPP_BORDER_REPLICATE. */
enum TlNppOp {
    TL_NPP_BOX = 1,               /* nppiFilterBoxBorder_8u_C4R_Ctx, mask_w x mask_h window */
    TL_NPP_GAUSS_TAPS = 2,        /* nppiFilterGaussAdvancedBorder_8u_C4R_Ctx, mask_w taps in weights */
    TL_NPP_SOBEL_HORIZ_VERT = 3,  /* nppiFilterSobelHorizBorder then ...VertBorder_8u_C4R_Ctx, both into dst */
    TL_NPP_LAPLACE = 4,           /* nppiFilterLaplaceBorder_8u_C4R_Ctx, mask_w 3 or 5 */
    TL_NPP_CONV_F32 = 5,          /* nppiFilterBorder32f_8u_C4R_Ctx, mask_w x mask_h weights */
    TL_NPP_GAUSS_FIXED = 6        /* nppiFilterGaussBorder_8u_C4R_Ctx, NPP's own mask_w x mask_w (3..15 odd) */
};

/* The NppStreamContext fields, filled by the caller from its own CUDA runtime so the plugin
 * needs none. */
typedef struct TlNppDevice {
    void* stream; /* cudaStream_t */
    int device_id;
    int sm_count;
    int max_threads_per_sm;
    int max_threads_per_block;
    size_t shared_mem_per_block;
    int cc_major;
    int cc_minor;
    unsigned int stream_flags;
} TlNppDevice;

typedef struct TlNppRequest {
    int op; /* enum TlNppOp */
    const void* src;
    size_t src_pitch; /* bytes */
    void* dst;
    size_t dst_pitch;
    int width;
    int height;
    int mask_w;
    int mask_h;
    /* Device memory, owned by the caller. GAUSS_TAPS: mask_w 1D taps. CONV_F32: mask_w * mask_h
     * weights in the order NPP reads them, which is the correlation kernel reversed (NPP
     * convolves: its last coefficient meets the top-left neighbour). */
    const float* device_weights;
    TlNppDevice device;
} TlNppRequest;

typedef struct TlNppReply {
    char function[128]; /* the NPP function(s) called */
    char error[256];    /* empty on success */
} TlNppReply;

/* Exported by the plugin. */
typedef int (*TlNppAbiVersionFn)(void);
/* Writes "major.minor.build" of the NPP the plugin runs on; returns 0. */
typedef int (*TlNppLibraryVersionFn)(char* out, int size);
/* 0 on success; otherwise the NppStatus (negative) or -100000 for a request the plugin refuses,
 * with reply->error saying why. */
typedef int (*TlNppRunFn)(const TlNppRequest* request, TlNppReply* reply);

#define TILELAB_NPP_SYMBOL_ABI_VERSION "tilelab_npp_abi_version"
#define TILELAB_NPP_SYMBOL_LIBRARY_VERSION "tilelab_npp_library_version"
#define TILELAB_NPP_SYMBOL_RUN "tilelab_npp_run"

#ifdef __cplusplus
} /* extern "C" */
#endif

// Host side of the NPP peer: finds and loads libtilelab_npp.so, turns a tilelab filter into the
// plain-C request of npp_plugin_abi.h (NPP's closest function and, where NPP takes weights, ours),
// and checks NPP's output against the CPU reference so the bench compares the same work.
#include "npp_peer.hpp"

#include "npp_plugin_abi.h"
#include "reference.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>

namespace tl::cuda {

namespace {

// Our correlation weights (row-major, in [0,1] units as the reference uses them) for the filters
// NPP can only run as a general convolution; empty for the others.
std::vector<float> correlation_weights(const FilterParams& p) {
    switch (p.kind) {
    case FilterKind::Sharpen: {
        // p + a (p - blur), blur = [1 2 1; 2 4 2; 1 2 1] / 16
        const float b[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
        std::vector<float> w(9);
        for (int i = 0; i < 9; ++i) w[static_cast<std::size_t>(i)] = -p.amount * b[i] / 16.0f;
        w[4] += 1.0f + p.amount;
        return w;
    }
    case FilterKind::Emboss: return {-2, -1, 0, -1, 1, 1, 0, 1, 2};
    case FilterKind::UserKernel: {
        const int n = p.user_size * p.user_size;
        std::vector<float> w(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) w[static_cast<std::size_t>(i)] = p.user_scale * p.user[static_cast<std::size_t>(i)];
        return w;
    }
    default: return {};
    }
}

std::string dl_error_text() {
    const char* e = dlerror();
    return e ? e : "unknown dlopen error";
}

} // namespace

bool NppPeer::has(const FilterParams& p, NppVariant variant) {
    if (variant == NppVariant::Closest) return true;
    return p.kind == FilterKind::Gaussian && 2 * filter_radius(p) + 1 <= 15;
}

NppMatch NppPeer::match(const FilterParams& p, NppVariant variant) {
    NppMatch m;
    if (variant == NppVariant::FixedGaussian) {
        const int n = 2 * filter_radius(p) + 1;
        m.same_formula = false;
        m.difference = "NPP's fixed " + std::to_string(n) + "x" + std::to_string(n) +
                       " Gaussian mask (NPP's weights, not those of our sigma)";
        return m;
    }
    switch (p.kind) {
    case FilterKind::Box:
    case FilterKind::Gaussian:  // our own 1D taps through NPP's separable Gaussian
    case FilterKind::Sharpen:   // our unsharp-mask weights through NPP's general filter
    case FilterKind::Emboss: break;
    case FilterKind::UserKernel:
        if (p.user_bias != 0.0f) {
            m.same_formula = false;
            m.difference = "NPP's general filter has no bias term: its output lacks our +bias";
        }
        break;
    case FilterKind::Sobel:
        m.same_formula = false;
        m.difference = "NPP has no RGBA8 Sobel magnitude: two passes, the horizontal then the vertical 8u Sobel "
                       "(each a signed gradient saturated to 0..255) into one output";
        break;
    case FilterKind::Laplacian:
        m.same_formula = false;
        m.difference = "NPP's 3x3 Laplace is the 8-neighbour kernel, saturated to 0..255, without our |.|";
        break;
    }
    return m;
}

std::unique_ptr<NppPeer> NppPeer::open(const std::string& path, std::string& why) {
    dlerror();
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        why = "NPP peer not loaded: " + dl_error_text();
        return nullptr;
    }
    auto abi = reinterpret_cast<TlNppAbiVersionFn>(dlsym(h, TILELAB_NPP_SYMBOL_ABI_VERSION));
    auto lib = reinterpret_cast<TlNppLibraryVersionFn>(dlsym(h, TILELAB_NPP_SYMBOL_LIBRARY_VERSION));
    void* run = dlsym(h, TILELAB_NPP_SYMBOL_RUN);
    if (!abi || !lib || !run) {
        why = "NPP peer not loaded: " + dl_error_text();
        dlclose(h);
        return nullptr;
    }
    if (const int v = abi(); v != TILELAB_NPP_ABI_VERSION) {
        why = "NPP peer not loaded: " + path + " speaks plugin ABI " + std::to_string(v) + ", this tilelab speaks " +
              std::to_string(TILELAB_NPP_ABI_VERSION) + " (rebuild it with scripts/build-npp-peer.sh)";
        dlclose(h);
        return nullptr;
    }
    std::unique_ptr<NppPeer> peer(new NppPeer);
    peer->handle_ = h;
    peer->run_fn_ = run;
    peer->path_ = path;
    char version[64] = {};
    lib(version, sizeof version);
    peer->npp_version_ = version;
    return peer;
}

NppPeer::~NppPeer() {
    for (auto& [w, d] : weights_) cudaFree(d);
    if (handle_) dlclose(handle_);
}

const float* NppPeer::device_weights(const std::vector<float>& w, std::string& why) {
    if (auto it = weights_.find(w); it != weights_.end()) return static_cast<const float*>(it->second);
    void* d = nullptr;
    if (auto e = cudaMalloc(&d, w.size() * sizeof(float)); e != cudaSuccess) {
        why = std::string("NPP peer: cudaMalloc for the weights: ") + cudaGetErrorString(e);
        return nullptr;
    }
    if (auto e = cudaMemcpy(d, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice); e != cudaSuccess) {
        why = std::string("NPP peer: cudaMemcpy of the weights: ") + cudaGetErrorString(e);
        cudaFree(d);
        return nullptr;
    }
    weights_.emplace(w, d);
    return static_cast<const float*>(d);
}

Result NppPeer::run(const FilterParams& params, Border border, const DeviceImage& src, const DeviceImage& dst,
                    void* stream, std::string* function, NppVariant variant) {
    if (src.format != PixelFormat::RGBA8 || dst.format != PixelFormat::RGBA8)
        return Result::fail("NPP peer: RGBA8 only");
    if (border != Border::Clamp) return Result::fail("NPP peer: clamp border only (NPP's replicate)");
    if (auto v = validate(params); !v.empty()) return Result::fail("NPP peer: " + v);
    if (!has(params, variant)) return Result::fail("NPP peer: NPP has no fixed Gaussian mask of this size");
    TlNppRequest rq{};
    rq.src = src.data;
    rq.src_pitch = src.pitch;
    rq.dst = dst.data;
    rq.dst_pitch = dst.pitch;
    rq.width = src.width;
    rq.height = src.height;
    std::string why;
    switch (params.kind) {
    case FilterKind::Box:
        rq.op = TL_NPP_BOX;
        rq.mask_w = rq.mask_h = 2 * params.radius + 1;
        break;
    case FilterKind::Gaussian: {
        if (variant == NppVariant::FixedGaussian) {
            rq.op = TL_NPP_GAUSS_FIXED;
            rq.mask_w = rq.mask_h = 2 * filter_radius(params) + 1;
            break;
        }
        int r = 0;
        const auto w = gaussian_weights(params.sigma, &r);
        rq.op = TL_NPP_GAUSS_TAPS;
        rq.mask_w = 2 * r + 1;
        rq.mask_h = 1;
        rq.device_weights = device_weights(std::vector<float>(w.begin(), w.begin() + rq.mask_w), why);
        if (!rq.device_weights) return Result::fail(why);
        break;
    }
    case FilterKind::Sobel: rq.op = TL_NPP_SOBEL_HORIZ_VERT; break;
    case FilterKind::Laplacian:
        rq.op = TL_NPP_LAPLACE;
        rq.mask_w = rq.mask_h = 3;
        break;
    case FilterKind::Sharpen:
    case FilterKind::Emboss:
    case FilterKind::UserKernel: {
        auto w = correlation_weights(params);
        std::reverse(w.begin(), w.end());  // NPP convolves: it reads its coefficients in reverse
        rq.op = TL_NPP_CONV_F32;
        rq.mask_w = rq.mask_h = params.kind == FilterKind::UserKernel ? params.user_size : 3;
        rq.device_weights = device_weights(w, why);
        if (!rq.device_weights) return Result::fail(why);
        break;
    }
    }
    // The stream context, queried once per device and stream: the bench's events bracket this
    // call, and cudaGetDeviceProperties alone can take longer than a 4K filter.
    int dev = 0;
    cudaGetDevice(&dev);
    if (!context_ || context_->device_id != dev || context_->stream != stream) {
        cudaDeviceProp p{};
        if (auto e = cudaGetDeviceProperties(&p, dev); e != cudaSuccess)
            return Result::fail(std::string("NPP peer: cudaGetDeviceProperties: ") + cudaGetErrorString(e));
        unsigned flags = 0;
        cudaStreamGetFlags(static_cast<cudaStream_t>(stream), &flags);
        context_ = std::make_unique<TlNppDevice>(TlNppDevice{stream, dev, p.multiProcessorCount,
                                                             p.maxThreadsPerMultiProcessor, p.maxThreadsPerBlock,
                                                             p.sharedMemPerBlock, p.major, p.minor, flags});
    }
    rq.device = *context_;
    TlNppReply reply{};
    const int rc = reinterpret_cast<TlNppRunFn>(run_fn_)(&rq, &reply);
    reply.function[sizeof reply.function - 1] = '\0';
    reply.error[sizeof reply.error - 1] = '\0';
    if (function) *function = reply.function;
    if (rc != 0) return Result::fail(std::string("NPP peer: ") + reply.error);
    if (auto e = cudaPeekAtLastError(); e != cudaSuccess)
        return Result::fail(std::string("NPP peer: ") + reply.function + ": " + cudaGetErrorString(e));
    return Result::success();
}

NppCheck NppPeer::check(const FilterParams& params, Border border, void* stream, NppVariant variant) {
    NppCheck c;
    // Odd sizes so borders, partial tiles and unaligned rows all take part; small enough that the
    // CPU reference of a radius-32 box takes well under a second.
    c.width = 333;
    c.height = 191;
    const std::size_t row = static_cast<std::size_t>(c.width) * 4, pitch = (row + 255) / 256 * 256;
    Image in(c.width, c.height, PixelFormat::RGBA8);
    std::mt19937 rng(20241122);
    for (auto& b : in.bytes) b = static_cast<std::uint8_t>(rng() >> 24);
    void* d_in = nullptr;
    void* d_out = nullptr;
    auto release = [&] {
        if (d_in) cudaFree(d_in);
        if (d_out) cudaFree(d_out);
    };
    const std::size_t bytes = pitch * static_cast<std::size_t>(c.height);
    if (cudaMalloc(&d_in, bytes) != cudaSuccess || cudaMalloc(&d_out, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        release();
        c.error = "cudaMalloc for the check image failed";
        return c;
    }
    cudaMemcpy2D(d_in, pitch, in.bytes.data(), row, row, static_cast<std::size_t>(c.height), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0xCD, bytes);
    const DeviceImage src{d_in, pitch, c.width, c.height, PixelFormat::RGBA8};
    const DeviceImage dst{d_out, pitch, c.width, c.height, PixelFormat::RGBA8};
    auto res = run(params, border, src, dst, stream, nullptr, variant);
    if (res) {
        if (auto e = cudaStreamSynchronize(static_cast<cudaStream_t>(stream)); e != cudaSuccess)
            res = Result::fail(std::string("NPP peer: ") + cudaGetErrorString(e));
    }
    Image out(c.width, c.height, PixelFormat::RGBA8);
    if (res)
        cudaMemcpy2D(out.bytes.data(), row, d_out, pitch, row, static_cast<std::size_t>(c.height),
                     cudaMemcpyDeviceToHost);
    release();
    if (!res) {
        c.error = res.reason;
        return c;
    }
    Image ref(c.width, c.height, PixelFormat::RGBA8);
    reference_filter(params, border, in.view(), ref.view());
    int worst = 0;
    for (std::size_t i = 0; i < ref.bytes.size(); ++i) {
        if (i % 4 == 3) continue;  // alpha: NPP filters it, we copy it
        worst = std::max(worst, std::abs(int(ref.bytes[i]) - int(out.bytes[i])));
    }
    c.ran = true;
    c.max_abs_diff = worst;
    return c;
}

std::string NppPeer::note(const FilterParams& params, const std::string& function, const NppCheck& check,
                          NppVariant variant) {
    const NppMatch m = match(params, variant);
    std::string n = function.empty() ? std::string("NPP") : function;
    n += m.same_formula ? "; our formula" : "; NOT our formula: " + m.difference;
    if (!check.ran) return n + "; output not checked: " + check.error;
    n += "; max |NPP - CPU reference| on R,G,B " + std::to_string(check.max_abs_diff) + " LSB (" +
         std::to_string(check.width) + "x" + std::to_string(check.height) + ")";
    // Within 1 LSB is rounding; more where the formula is the same means the peer asks NPP for
    // something else than we compute, and the speed-up compares different work.
    if (m.same_formula && check.max_abs_diff > 1) n += " MISMATCH";
    return n;
}

std::string default_npp_plugin_path() {
    if (const char* env = std::getenv("TILELAB_NPP_PLUGIN"); env && *env) return env;
    std::array<char, PATH_MAX> exe{};
    const ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
    std::string dir = ".";
    if (n > 0) {
        const std::string p(exe.data(), static_cast<std::size_t>(n));
        if (auto slash = p.rfind('/'); slash != std::string::npos) dir = p.substr(0, slash);
    }
    return dir + "/libtilelab_npp.so";
}

NppPeer* npp_peer(std::string& why) {
    // Opened once and kept for the process: its device weights outlive every bench row, and
    // unloading NPP during static destruction (after the CUDA runtime's own teardown) would race.
    static std::string reason;
    static NppPeer* peer = [] {
        auto p = NppPeer::open(default_npp_plugin_path(), reason);
        return p.release();
    }();
    why = reason;
    return peer;
}

} // namespace tl::cuda

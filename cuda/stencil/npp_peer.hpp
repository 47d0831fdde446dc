// NVIDIA NPP as the outside yardstick for `tilelab bench`, reached through a plugin
// (libtilelab_npp.so, cuda/stencil/npp_plugin.cpp) loaded at run time: tilelab is often built on a
// machine without NPP and run on one with it, so NPP is never linked into tilelab itself.
// Host C++, CUDA builds only (the caller's CUDA runtime fills the stream context and uploads
// the weights the plugin hands to NPP).
#pragma once

#include "stencil_api.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

struct TlNppDevice;  // npp_plugin_abi.h

namespace tl::cuda {

// Which NPP function stands in for a filter. Closest: the NPP function that computes our
// formula where NPP has one (the "vs NPP" column). FixedGaussian: NPP's own fixed-mask Gaussian
// (nppiFilterGaussBorder) of the same size as our taps, where NPP has that size (3x3..15x15):
// NPP's fastest Gaussian, but with NPP's weights, not those of our sigma; timed for reference.
enum class NppVariant { Closest, FixedGaussian };

// What NPP computes for one of our filters, and whether it is the same formula as ours.
struct NppMatch {
    std::string function;   // the NPP function(s), filled after a run
    bool same_formula = true;
    std::string difference; // empty when same_formula; else how NPP's output differs from ours
};

// Max |NPP - CPU reference| over R, G, B (NPP's C4R functions filter alpha too; ours copies it,
// so alpha is left out) on a random image with odd sizes, replicate border.
struct NppCheck {
    bool ran = false;
    int max_abs_diff = 0;
    int width = 0, height = 0;
    std::string error;  // when !ran
};

class NppPeer {
public:
    // Loads the plugin at `path`. Null with `why` = "NPP peer not loaded: <dlerror or reason>"
    // when the file is missing, is not a plugin, or speaks another ABI version.
    static std::unique_ptr<NppPeer> open(const std::string& path, std::string& why);
    ~NppPeer();
    NppPeer(const NppPeer&) = delete;
    NppPeer& operator=(const NppPeer&) = delete;

    const std::string& path() const { return path_; }
    const std::string& npp_version() const { return npp_version_; }

    // What run() will ask NPP for with these parameters (before any run: function empty).
    static NppMatch match(const FilterParams& params, NppVariant variant = NppVariant::Closest);
    // Whether NPP has this variant for these parameters.
    static bool has(const FilterParams& params, NppVariant variant);

    // Runs NPP's counterpart of `params` src -> dst (RGBA8, clamp border only: NPP's replicate)
    // on `stream` (a cudaStream_t). `function` (may be null) receives the NPP function(s) called.
    Result run(const FilterParams& params, Border border, const DeviceImage& src, const DeviceImage& dst,
               void* stream, std::string* function = nullptr, NppVariant variant = NppVariant::Closest);

    // Runs NPP once on a random odd-sized image and compares with tl::reference_filter.
    NppCheck check(const FilterParams& params, Border border, void* stream,
                   NppVariant variant = NppVariant::Closest);

    // The bench row's note: the NPP function(s), whether NPP computes our formula (or how it
    // differs), and the checked difference from the CPU reference.
    static std::string note(const FilterParams& params, const std::string& function, const NppCheck& check,
                            NppVariant variant = NppVariant::Closest);

private:
    NppPeer() = default;
    const float* device_weights(const std::vector<float>& w, std::string& why);

    void* handle_ = nullptr;
    void* run_fn_ = nullptr;
    std::string path_;
    std::string npp_version_;
    std::map<std::vector<float>, void*> weights_;  // device copies, made once per distinct kernel
    std::unique_ptr<TlNppDevice> context_;  // NPP's stream context for the last stream used
};

// Where the bench looks for the plugin: $TILELAB_NPP_PLUGIN when set, else libtilelab_npp.so in
// the directory of the running executable.
std::string default_npp_plugin_path();

// The process-wide peer the bench uses, opened from default_npp_plugin_path() on the first call
// and kept for the process; null with `why` set (the same text every call) when it is absent.
NppPeer* npp_peer(std::string& why);

} // namespace tl::cuda

// The viewer's CUDA stage: the interop decision made at start-up, the shared source buffer and two
// output buffers (written alternately, so a run never meets a frame still showing the other), the
// timeline hand-off, and the filter + op chain + histogram on a CUDA stream, timed with events.
// Plain C++ header (no CUDA types); in builds without CUDA, CudaStage::create refuses with the reason.
#pragma once

#include "app.hpp"
#include "filter_spec.hpp"
#include "interop/cuda_device.hpp"
#include "pixel_api.hpp"
#include "pixel_ops.hpp"
#include "stencil_api.hpp"
#include "vk/context.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tl {

// What main() decided about sharing with CUDA, for the Interop panel and the viewer.
struct InteropDecision {
    bool usable = false;
    std::string reason;  // why not, when !usable ("CUDA unavailable: no NVIDIA driver ...")
    std::optional<interop::CudaDeviceInfo> cuda;
    bool uuid_match = false;
};

// Before the Vulkan context exists: queries CUDA and fills `options` so the Vulkan device is the
// CUDA device (by UUID) with the interop extensions enabled. Returns the CUDA side's description.
InteropDecision prepare_interop(vk::ContextOptions& options);
// After the context exists: checks the UUIDs match, the extensions are there and the CUDA device
// can be made current. Prints the decision on stderr.
void finish_interop(InteropDecision& decision, const vk::Context& ctx);

// Rolling timing of one CUDA stage, from cudaEvents read a frame or more later.
struct CudaStageTiming {
    std::string name;
    std::vector<float> history;  // ms, oldest first
    float last_ms = 0, median_ms = 0, p95_ms = 0;
    double gbps = 0;          // one read + one write of the image, at the median time
    double pct_of_copy = 0;   // gbps / device-to-device copy bandwidth
};

class CudaStage {
public:
    static constexpr std::size_t kHistory = 120;

    // nullptr with `why` when CUDA cannot be used (stream, timeline or events failed to create).
    static std::unique_ptr<CudaStage> create(const vk::Context& ctx, std::string* why);
    ~CudaStage();
    CudaStage(const CudaStage&) = delete;
    CudaStage& operator=(const CudaStage&) = delete;

    // Output buffers, written in turn, one per frame in flight: when a run is enqueued the frames
    // still running show the previous kFramesInFlight - 1 runs' outputs, and the run writes the
    // one none of them reads. More frames in flight batch more runs per Vulkan<->CUDA switch (H100,
    // 4K copy stage: +286 us per frame over Vulkan alone with 2, +71 us with 3; README, "Interop
    // overhead"), so kFramesInFlight is the one knob, and the outputs follow it.
    static constexpr int kOutputs = static_cast<int>(App::kFramesInFlight);

    // (Re)allocates the shared buffers for a width x height RGBA8 image, new ones before the old
    // ones go; waits for both APIs first (vkDeviceWaitIdle + cudaStreamSynchronize). Throws
    // vk::Error / std::runtime_error with the reason; the current buffers stay on failure.
    void allocate(int width, int height);
    VkBuffer source() const;
    VkBuffer filtered(int output) const;
    VkBuffer second(int output) const;  // the A side when it shows a second mechanism
    int latest_output() const;          // the output the last run wrote (what frames show now)
    std::uint64_t latest_value() const; // the timeline value that run signals (0: none yet)
    VkDeviceSize pitch() const;
    VkDeviceSize size() const;  // bytes of each buffer
    VkSemaphore timeline() const;
    std::uint64_t timeline_value() const;
    // The source again as an optimal-tiled image shared as a CUDA array, which the texture
    // mechanism samples in place (cuda::launch_texture_array). Record this after every upload
    // into source() (with that copy made visible to transfer reads): it copies source() into the
    // image and hands the image to CUDA. Records nothing when the image could not be made; the
    // texture mechanism then copies the source into its own array, as outside the viewer.
    void record_source_image_update(VkCommandBuffer cmd) const;
    // "" when the texture mechanism samples the shared image in place, else why it copies.
    const std::string& source_image_status() const;

    struct Job {
        FilterParams params;
        Border border = Border::Clamp;
        cuda::Mechanism mechanism = cuda::Mechanism::Global;
        cuda::Policy policy;
        std::optional<cuda::Mechanism> second;  // also filter into second() with this mechanism
        std::vector<PixelOp> ops;              // applied in place on the outputs (B and A)
        cuda::PixelMechanism pixel_mechanism = cuda::PixelMechanism::Vector;
        cuda::PixelPolicy pixel_policy;
        bool fuse = false;        // B: the op chain inside the stencil kernel (cuda::launch_fused)
        bool histogram = false;   // CUB histogram of B's output, read a frame or more later
        bool copy_only = false;   // the interop measurement: B = a device-to-device copy of the source
        bool time_ops = false;    // also run each op alone (into a scratch image) to time it
    };
    // Enqueues on the stage's stream: the filter (and op chain, histogram) into the output the
    // previous run did not write, then a signal of the next timeline value. The stream does not
    // wait for Vulkan: the source only changes between frames (uploads that wait for the device)
    // and the output written was last read by a frame whose fence the host has waited for. A
    // refused launch copies the source instead (the picture stays honest) and its reason lands in
    // `status`. Returns the value signalled, or 0 when the signal could not be enqueued (then the
    // last output stays the latest).
    std::uint64_t enqueue(const Job& job, std::string& status);
    // The histogram of the latest completed run; nullopt before one completes. Read without
    // stalling: only once that run's histogram event has completed (cudaEventQuery).
    const std::optional<cuda::ChannelHistograms>& histogram() const;
    // Reads the events of earlier frames that have completed (cudaEventQuery: never waits).
    void collect_timings();
    const std::vector<CudaStageTiming>& timings() const;
    void reset_timings();  // forget the history (another mechanism, filter or policy was chosen)
    double copy_gbps() const;  // device-to-device copy of a 4K image at start-up: the faster of
                               // cudaMemcpy2DAsync and the bench's copy kernel
    // Host time spent inside enqueue() (launch calls, no waits), median over the last kHistory runs.
    double enqueue_host_median_ms() const;
    void synchronize() const;        // cudaStreamSynchronize (teardown and reallocation only)

private:
    CudaStage();
    std::uint64_t enqueue_work(const Job& job, std::string& status);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace tl

// The viewer's CUDA stage: interop decision, shared buffers, timeline hand-off, filter launches,
// event timings. Without CUDA only the decision functions exist and create() refuses.
#include "cuda_stage.hpp"

#include "interop/shared_buffer.hpp"
#include "interop/shared_image.hpp"
#include "pixel_api.hpp"
#include "stencil/copy_roofline.hpp"
#include "vk/display_pass.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#if TILELAB_HAVE_CUDA
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#endif

namespace tl {

// The viewer gives each output buffer its own display descriptor set (DisplayPass::set_images);
// fewer sets than outputs would rewrite a set a frame in flight still uses.
static_assert(CudaStage::kOutputs <= static_cast<int>(vk::DisplayPass::kSets),
              "DisplayPass::kSets must cover CudaStage::kOutputs (one descriptor set per output)");

InteropDecision prepare_interop(vk::ContextOptions& options) {
    InteropDecision d;
    std::string why;
    d.cuda = interop::query_cuda_device(&why);
    if (!d.cuda) {
        d.reason = why.rfind("CUDA unavailable", 0) == 0 ? why : "CUDA unavailable: " + why;
        return d;
    }
    options.device_uuid = d.cuda->uuid;
    for (const auto& ext : interop::interop_device_extensions())
        if (std::find(options.optional_device_extensions.begin(), options.optional_device_extensions.end(), ext) ==
            options.optional_device_extensions.end())
            options.optional_device_extensions.push_back(ext);
    return d;
}

void finish_interop(InteropDecision& d, const vk::Context& ctx) {
    if (d.cuda) {
        d.uuid_match = ctx.device_uuid() == d.cuda->uuid;
        if (!d.uuid_match) {
            d.reason = "CUDA unavailable for sharing: the Vulkan device (" + std::string(ctx.properties().deviceName) +
                       ", UUID " + interop::format_uuid(ctx.device_uuid()) + ") is not the CUDA device (" + d.cuda->name +
                       ", UUID " + interop::format_uuid(d.cuda->uuid) + ")";
        } else if (std::string s = interop::interop_support(ctx); !s.empty()) {
            d.reason = "CUDA unavailable for sharing: " + s;
        } else if (!interop::select_cuda_device_by_uuid(d.cuda->uuid)) {
            d.reason = "CUDA unavailable: the CUDA device with UUID " + interop::format_uuid(d.cuda->uuid) + " could not be selected";
        } else {
            d.usable = true;
            d.reason.clear();
        }
    }
    if (d.usable)
        std::fprintf(stderr, "CUDA interop: on (%s, CC %d.%d, UUID %s matches the Vulkan device)\n", d.cuda->name.c_str(),
                     d.cuda->cc_major, d.cuda->cc_minor, interop::format_uuid(d.cuda->uuid).c_str());
    else
        std::fprintf(stderr, "%s. Filters run as Vulkan compute shaders.\n", d.reason.c_str());
}

#if TILELAB_HAVE_CUDA

namespace {

constexpr int kRing = 4;  // frames whose events may be outstanding
enum StageIndex { kStageB = 0, kStageA, kStageOps, kStageFused, kStageCopy, kStageHistogram, kStages };
// Timing slots: the stages, then one per op of the chain when each op is also timed alone.
constexpr int kSlots = kStages + cuda::kMaxPixelOps;
const char* const kStageNames[kStages] = {"CUDA filter (B)", "CUDA filter (A)", "CUDA op chain", "CUDA fused filter+ops",
                                          "CUDA copy (memcpy)", "CUDA histogram (CUB)"};

std::string cuda_error(const char* what, cudaError_t e) {
    return std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// A median / 95th percentile of the history (copy: the history stays in time order for the plot).
void summarise(CudaStageTiming& t) {
    if (t.history.empty()) return;
    std::vector<float> v = t.history;
    std::sort(v.begin(), v.end());
    t.median_ms = v[v.size() / 2];
    t.p95_ms = v[std::min(v.size() - 1, static_cast<std::size_t>(static_cast<double>(v.size()) * 0.95))];
}

} // namespace

struct CudaStage::Impl {
    const vk::Context* ctx = nullptr;
    cudaStream_t stream = nullptr;
    interop::Timeline timeline;
    interop::SharedBuffer source;
    interop::SharedImage source_image;  // the source as an optimal-tiled image, for the texture mechanism
    std::string source_image_status = "not allocated yet";
    std::array<interop::SharedBuffer, kOutputs> filtered, second;
    int latest = 0;                  // the output the last run wrote
    std::uint64_t signalled = 0;     // the last timeline value enqueued
    std::uint64_t latest_value = 0;  // the value signalled by the run that wrote `latest`
    int width = 0, height = 0;
    VkDeviceSize pitch = 0;
    struct Record {
        std::array<cudaEvent_t, kSlots * 2> events{};
        std::array<bool, kSlots> used{};
        bool pending = false;
        double bytes = 0;
    };
    std::array<Record, kRing> ring{};
    std::uint64_t next = 0;
    std::vector<CudaStageTiming> timings;  // kSlots entries; those never run have no history
    double copy_gbps = 0;                  // measure_copy_bandwidth's yardstick
    void* scratch = nullptr;               // where each op alone writes (never shown); cudaMalloc'd on first use
    std::size_t scratch_bytes = 0;
    cuda::Histogram hist;
    cudaEvent_t hist_done = nullptr;  // recorded after the latest histogram computation
    bool hist_pending = false;
    std::optional<cuda::ChannelHistograms> hist_counts;
    std::vector<float> enqueue_host_ms;  // host time of each enqueue(), oldest first

    ~Impl() {
        if (stream) cudaStreamSynchronize(stream);
        for (auto& r : ring)
            for (auto e : r.events)
                if (e) cudaEventDestroy(e);
        if (hist_done) cudaEventDestroy(hist_done);
        if (scratch) cudaFree(scratch);
        hist = cuda::Histogram();
        // Shared buffers and the timeline release their CUDA side first (their destructors).
        second = {};
        filtered = {};
        source_image = {};
        source = {};
        timeline = {};
        if (stream) cudaStreamDestroy(stream);
    }

    // Device-to-device copy bandwidth of a 4K RGBA8 image: the yardstick for the stages' "% of
    // copy". As `tilelab bench`'s roofline, the fastest of cudaMemcpy2DAsync and the 16-byte copy
    // kernel in both flavours (cuda::copy_kernel_2d): on Hopper the runtime's 2D memcpy reaches about
    // half of HBM bandwidth (H200 bench: 1538 GB/s against 3312 for the kernel), and the memcpy
    // alone, the yardstick until session 21, put every stage at about twice its share of the copy.
    // The copies rotate over up to 4 source/destination pairs (265 MB), as the bench rotates its
    // buffer sets: one pair copied again and again stays partly in L2. H200: the copy kernel
    // 3648 GB/s on one pair, 3515 over four, cudaMemcpy2DAsync 1577; the bench, which times each
    // launch alone (a median, not back-to-back launches), 3318 and 1550.
    void measure_copy_bandwidth() {
        const std::size_t w = 3840 * 4, h = 2160, pitch_bytes = interop::shared_pitch(3840, 4);
        constexpr int kMaxPairs = 4;
        void* bufs[2 * kMaxPairs] = {};
        int pairs = 0;
        while (pairs < kMaxPairs && cudaMalloc(&bufs[2 * pairs], pitch_bytes * h) == cudaSuccess) {
            if (cudaMalloc(&bufs[2 * pairs + 1], pitch_bytes * h) != cudaSuccess) break;
            ++pairs;
        }
        cudaEvent_t e0 = nullptr, e1 = nullptr;
        double memcpy_gbps = 0, kernel_gbps = 0;  // the kernel: its faster flavour
        if (pairs > 0 && cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess) {
            // GB/s of copy(src, dst) (one read and one write of the image), 0 where a launch failed:
            // a warm-up round over the pairs, then the mean of `reps` back to back.
            auto time = [&](auto&& copy) {
                for (int k = 0; k < pairs; ++k)
                    if (!copy(bufs[2 * k], bufs[2 * k + 1])) return 0.0;
                constexpr int reps = 20;
                cudaEventRecord(e0, stream);
                for (int i = 0; i < reps; ++i)
                    if (!copy(bufs[2 * (i % pairs)], bufs[2 * (i % pairs) + 1])) return 0.0;
                cudaEventRecord(e1, stream);
                float ms = 0;
                if (cudaEventSynchronize(e1) != cudaSuccess ||
                    cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess || ms <= 0)
                    return 0.0;
                return 2.0 * static_cast<double>(w * h) * reps / (static_cast<double>(ms) * 1e6);
            };
            memcpy_gbps = time([&](const void* src, void* dst) {
                return cudaMemcpy2DAsync(dst, pitch_bytes, src, pitch_bytes, w, h, cudaMemcpyDeviceToDevice,
                                         stream) == cudaSuccess;
            });
            for (bool streaming : {false, true})
                kernel_gbps = std::max(kernel_gbps, time([&](const void* src, void* dst) {
                                           return static_cast<bool>(cuda::copy_kernel_2d(
                                               dst, src, pitch_bytes, w, h, stream, streaming));
                                       }));
            copy_gbps = std::max(memcpy_gbps, kernel_gbps);
        }
        cudaGetLastError();  // a failed allocation above leaves its error
        if (e0) cudaEventDestroy(e0);
        if (e1) cudaEventDestroy(e1);
        for (void* b : bufs)
            if (b) cudaFree(b);
        std::fprintf(
            stderr,
            "CUDA device-to-device copy bandwidth (4K RGBA8): %.1f GB/s (cudaMemcpy2DAsync %.1f, copy kernel "
            "%.1f: the faster is the stages' yardstick)\n",
            copy_gbps, memcpy_gbps, kernel_gbps);
    }
};

CudaStage::CudaStage() : impl_(std::make_unique<Impl>()) {}
CudaStage::~CudaStage() = default;

std::unique_ptr<CudaStage> CudaStage::create(const vk::Context& ctx, std::string* why) {
    std::unique_ptr<CudaStage> s(new CudaStage());
    Impl& m = *s->impl_;
    m.ctx = &ctx;
    try {
        if (const cudaError_t e = cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking); e != cudaSuccess)
            throw std::runtime_error(cuda_error("cudaStreamCreateWithFlags", e));
        for (auto& r : m.ring)
            for (auto& e : r.events)
                if (const cudaError_t err = cudaEventCreate(&e); err != cudaSuccess)
                    throw std::runtime_error(cuda_error("cudaEventCreate", err));
        if (const cudaError_t err = cudaEventCreateWithFlags(&m.hist_done, cudaEventDisableTiming); err != cudaSuccess)
            throw std::runtime_error(cuda_error("cudaEventCreate", err));
        m.timeline = interop::Timeline(ctx, 0);
    } catch (const std::exception& e) {
        if (why) *why = std::string("CUDA stage unavailable: ") + e.what();
        cudaGetLastError();
        return nullptr;
    }
    for (int i = 0; i < kSlots; ++i) m.timings.push_back({i < kStages ? kStageNames[i] : "", {}, 0, 0, 0, 0, 0});
    m.measure_copy_bandwidth();
    return s;
}

void CudaStage::allocate(int width, int height) {
    Impl& m = *impl_;
    VK_CHECK(vkDeviceWaitIdle(m.ctx->device()));
    synchronize();
    const VkDeviceSize pitch = interop::shared_pitch(width, 4);
    const VkDeviceSize bytes = pitch * static_cast<VkDeviceSize>(height);
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    interop::SharedBuffer source(*m.ctx, bytes, usage);
    std::array<interop::SharedBuffer, kOutputs> filtered, second;
    for (int i = 0; i < kOutputs; ++i) {
        filtered[i] = interop::SharedBuffer(*m.ctx, bytes, usage);
        second[i] = interop::SharedBuffer(*m.ctx, bytes, usage);
    }
    // The texture mechanism's shared image is optional: without it that mechanism copies.
    interop::SharedImage source_image;
    std::string image_status;
    try {
        source_image = interop::SharedImage(*m.ctx, width, height, VK_FORMAT_R8G8B8A8_UNORM);
    } catch (const std::exception& e) {
        image_status = std::string("no shared optimal-tiled image (") + e.what() + "): texture copies the source";
    }
    m.source = std::move(source);
    m.source_image = std::move(source_image);
    m.source_image_status = std::move(image_status);
    m.filtered = std::move(filtered);
    m.second = std::move(second);
    m.width = width;
    m.height = height;
    m.pitch = pitch;
    m.latest = 0;
    m.latest_value = 0;  // the buffers were filled by an upload the host waited for
    m.hist_pending = false;
    m.hist_counts.reset();
}

VkBuffer CudaStage::source() const { return impl_->source.buffer(); }
VkBuffer CudaStage::filtered(int output) const { return impl_->filtered[static_cast<std::size_t>(output)].buffer(); }
VkBuffer CudaStage::second(int output) const { return impl_->second[static_cast<std::size_t>(output)].buffer(); }
int CudaStage::latest_output() const { return impl_->latest; }
std::uint64_t CudaStage::latest_value() const { return impl_->latest_value; }
const std::optional<cuda::ChannelHistograms>& CudaStage::histogram() const { return impl_->hist_counts; }
VkDeviceSize CudaStage::pitch() const { return impl_->pitch; }
VkDeviceSize CudaStage::size() const { return impl_->source.size(); }
VkSemaphore CudaStage::timeline() const { return impl_->timeline.semaphore(); }
const std::string& CudaStage::source_image_status() const { return impl_->source_image_status; }

void CudaStage::record_source_image_update(VkCommandBuffer cmd) const {
    const Impl& m = *impl_;
    if (!m.source_image) return;
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = m.source_image.image();
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;  // every texel is rewritten
    b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
    VkBufferImageCopy region{};
    region.bufferRowLength = static_cast<std::uint32_t>(m.pitch / 4);  // texels per padded row
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {static_cast<std::uint32_t>(m.width), static_cast<std::uint32_t>(m.height), 1};
    vkCmdCopyBufferToImage(cmd, m.source.buffer(), b.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    // Released to CUDA (the external queue family) in GENERAL layout: CUDA reads it as an array.
    b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = 0;
    b.srcQueueFamilyIndex = m.ctx->queue_family();
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
}
std::uint64_t CudaStage::timeline_value() const { return impl_->timeline.current_value(); }
const std::vector<CudaStageTiming>& CudaStage::timings() const { return impl_->timings; }
double CudaStage::copy_gbps() const { return impl_->copy_gbps; }
void CudaStage::synchronize() const {
    if (impl_->stream) cudaStreamSynchronize(impl_->stream);
    cudaGetLastError();
}

std::uint64_t CudaStage::enqueue(const Job& job, std::string& status) {
    const auto host_start = std::chrono::steady_clock::now();
    const std::uint64_t value = enqueue_work(job, status);
    auto& h = impl_->enqueue_host_ms;
    if (h.size() >= kHistory) h.erase(h.begin());
    h.push_back(std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - host_start).count());
    return value;
}

double CudaStage::enqueue_host_median_ms() const {
    std::vector<float> v = impl_->enqueue_host_ms;
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return static_cast<double>(v[v.size() / 2]);
}

std::uint64_t CudaStage::enqueue_work(const Job& job, std::string& status) {
    Impl& m = *impl_;
    status.clear();
    if (!m.source) {
        status = "no image";
        return 0;
    }
    // The previous histogram, if its run has finished: the stream holds nothing after it, so the
    // read's synchronize waits only for its own 3 KiB copy. Not finished: keep the older counts.
    if (m.hist_pending && cudaEventQuery(m.hist_done) == cudaSuccess) {
        cuda::ChannelHistograms counts{};
        if (m.hist.read(counts, m.stream)) m.hist_counts = counts;
        m.hist_pending = false;
    }
    cudaGetLastError();  // cudaErrorNotReady is not an error to keep

    const int out = (m.latest + 1) % kOutputs;  // the output no frame in flight reads
    Impl::Record& rec = m.ring[m.next % kRing];
    // A record still outstanding after kRing frames is dropped (re-recorded) rather than waited for.
    rec.used = {};
    rec.pending = false;
    rec.bytes = 2.0 * static_cast<double>(m.width) * m.height * 4.0;
    const auto image = [&](const interop::SharedBuffer& b) {
        return cuda::DeviceImage{b.cuda_ptr(), static_cast<std::size_t>(m.pitch), m.width, m.height, PixelFormat::RGBA8};
    };
    const cuda::DeviceImage src = image(m.source);
    const cuda::DeviceImage dst = image(m.filtered[static_cast<std::size_t>(out)]);
    const cuda::DeviceImage dst_a = image(m.second[static_cast<std::size_t>(out)]);

    auto run_stage = [&](int stage, const char* range, auto&& body) {
        nvtxRangePushA(range);
        cudaEventRecord(rec.events[stage * 2], m.stream);
        body();
        cudaEventRecord(rec.events[stage * 2 + 1], m.stream);
        rec.used[stage] = true;
        nvtxRangePop();
    };
    auto copy_source = [&](const cuda::DeviceImage& to) {
        cudaMemcpy2DAsync(to.data, to.pitch, src.data, src.pitch, static_cast<std::size_t>(m.width) * 4, m.height,
                          cudaMemcpyDeviceToDevice, m.stream);
    };
    auto note = [&](const std::string& why) {
        if (status.empty()) status = why;
    };
    auto filter = [&](cuda::Mechanism mech, const cuda::DeviceImage& to, const char* side) {
        // The texture mechanism samples the shared optimal-tiled image in place when there is one.
        const cuda::Result r =
            mech == cuda::Mechanism::Texture && m.source_image
                ? cuda::launch_texture_array(job.params, job.border, m.source_image.cuda_array(), src, to, m.stream,
                                             job.policy)
                : cuda::launch(job.params, job.border, mech, job.policy, src, to, m.stream);
        if (!r) {
            copy_source(to);
            note(std::string("CUDA ") + std::string(cuda::mechanism_info(mech).name) + " (" + side + ") not run: " + r.reason +
                 ". Showing the original on that side.");
        }
    };
    auto ops_on = [&](const cuda::DeviceImage& img) {
        const cuda::Result r = cuda::launch_pixel_ops(job.ops, job.pixel_mechanism, job.pixel_policy, img, img, m.stream);
        if (!r) note("CUDA op chain (" + std::string(cuda::to_string(job.pixel_mechanism)) + ") not run: " + r.reason);
    };
    if (job.copy_only) {
        // The same bytes vkCmdCopyBuffer moves on the Vulkan-only path: the whole buffer, padding included.
        run_stage(kStageCopy, "tilelab: CUDA copy", [&] {
            const cudaError_t e = cudaMemcpyAsync(dst.data, src.data, static_cast<std::size_t>(m.pitch) * m.height,
                                                  cudaMemcpyDeviceToDevice, m.stream);
            if (e != cudaSuccess) note(cuda_error("cudaMemcpyAsync", e));
        });
    } else {
        bool fused = false;
        if (job.fuse && !job.ops.empty()) {
            run_stage(kStageFused, "tilelab: CUDA filter + ops fused", [&] {
                const cuda::Result r = cuda::launch_fused(job.params, job.border, job.mechanism, job.policy, job.ops, src, dst, m.stream);
                fused = r.ok;
                if (!r) note("Fused filter + ops not run: " + r.reason + ". Ran as two passes instead.");
            });
            if (!fused) rec.used[kStageFused] = false;  // a refusal's empty interval is not a time
        }
        if (!fused) run_stage(kStageB, "tilelab: CUDA filter B", [&] { filter(job.mechanism, dst, "B"); });
        if (job.second) run_stage(kStageA, "tilelab: CUDA filter A", [&] { filter(*job.second, dst_a, "A"); });
        if (!job.ops.empty() && (!fused || job.second)) {
            run_stage(kStageOps, "tilelab: CUDA op chain", [&] {
                if (!fused) ops_on(dst);
                if (job.second) ops_on(dst_a);
            });
        }
    }
    if (job.time_ops && !job.copy_only && !job.ops.empty()) {
        // Each op alone, from B's output into a scratch image nobody shows: what each op costs
        // with this mechanism (extra passes, after the frame's own work).
        const std::size_t bytes = static_cast<std::size_t>(m.pitch) * m.height;
        if (m.scratch_bytes < bytes) {
            if (m.scratch) cudaFree(m.scratch);
            m.scratch = nullptr;
            m.scratch_bytes = 0;
            if (const cudaError_t e = cudaMalloc(&m.scratch, bytes); e == cudaSuccess) m.scratch_bytes = bytes;
            else note("per-op timing off: " + cuda_error("cudaMalloc", e));
        }
        if (m.scratch) {
            const cuda::DeviceImage scratch{m.scratch, static_cast<std::size_t>(m.pitch), m.width, m.height, PixelFormat::RGBA8};
            for (std::size_t i = 0; i < job.ops.size() && i < static_cast<std::size_t>(cuda::kMaxPixelOps); ++i) {
                const int slot = kStages + static_cast<int>(i);
                std::string label(to_string(job.ops[i].kind));
                for (const auto& info : pixel_op_infos())
                    if (info.kind == job.ops[i].kind) label = std::string(info.label);
                const std::string name = "op " + std::to_string(i + 1) + " " + label;
                CudaStageTiming& t = m.timings[static_cast<std::size_t>(slot)];
                if (t.name != name) t = CudaStageTiming{name, {}, 0, 0, 0, 0, 0};  // another op now: a new history
                run_stage(slot, "tilelab: CUDA one op", [&] {
                    const PixelOp* op = &job.ops[i];
                    const cuda::Result r = cuda::launch_pixel_ops(std::span<const PixelOp>(op, 1), job.pixel_mechanism,
                                                                  job.pixel_policy, dst, scratch, m.stream);
                    if (!r) note("op " + std::to_string(i + 1) + " alone not run: " + r.reason);
                });
            }
        }
    }
    if (job.histogram) {
        run_stage(kStageHistogram, "tilelab: CUDA histogram", [&] {
            const cuda::Result r = m.hist.compute(dst, m.stream);
            if (!r) note("CUDA histogram not computed: " + r.reason);
            else if (cudaEventRecord(m.hist_done, m.stream) == cudaSuccess) m.hist_pending = true;
        });
    }
    rec.pending = true;
    ++m.next;
    std::string why;
    if (!m.timeline.cuda_signal(m.signalled + 1, m.stream, &why)) {
        status = "the CUDA stream could not signal Vulkan: " + why;
        return 0;
    }
    ++m.signalled;
    m.latest = out;
    m.latest_value = m.signalled;
    return m.signalled;
}

void CudaStage::collect_timings() {
    Impl& m = *impl_;
    for (auto& rec : m.ring) {
        if (!rec.pending) continue;
        bool all_done = true;
        for (int s = 0; s < kSlots; ++s)
            if (rec.used[s] && cudaEventQuery(rec.events[s * 2 + 1]) != cudaSuccess) all_done = false;
        cudaGetLastError();  // cudaErrorNotReady is not an error to keep
        if (!all_done) continue;
        for (int s = 0; s < kSlots; ++s) {
            if (!rec.used[s]) continue;
            float ms = 0;
            if (cudaEventElapsedTime(&ms, rec.events[s * 2], rec.events[s * 2 + 1]) != cudaSuccess) {
                cudaGetLastError();
                continue;
            }
            CudaStageTiming& t = m.timings[static_cast<std::size_t>(s)];
            if (t.history.size() >= kHistory) t.history.erase(t.history.begin());
            t.history.push_back(ms);
            t.last_ms = ms;
            summarise(t);
            const double bytes = s == kStageHistogram ? rec.bytes / 2.0 : rec.bytes;  // the histogram only reads
            t.gbps = t.median_ms > 0 ? bytes / (static_cast<double>(t.median_ms) * 1e6) : 0.0;
            t.pct_of_copy = m.copy_gbps > 0 ? 100.0 * t.gbps / m.copy_gbps : 0.0;
        }
        rec.pending = false;
        rec.used = {};
    }
}

void CudaStage::reset_timings() {
    Impl& m = *impl_;
    for (auto& t : m.timings) t = CudaStageTiming{t.name, {}, 0, 0, 0, 0, 0};
    // Events still in flight belong to the old settings: drop them too.
    for (auto& rec : m.ring) {
        rec.pending = false;
        rec.used = {};
    }
}

#else  // !TILELAB_HAVE_CUDA

struct CudaStage::Impl {
    std::vector<CudaStageTiming> timings;
    std::optional<cuda::ChannelHistograms> hist_counts;
};

CudaStage::CudaStage() : impl_(std::make_unique<Impl>()) {}
CudaStage::~CudaStage() = default;

std::unique_ptr<CudaStage> CudaStage::create(const vk::Context&, std::string* why) {
    if (why) *why = "CUDA unavailable: built without CUDA";
    return nullptr;
}
void CudaStage::allocate(int, int) { throw std::runtime_error("built without CUDA"); }
VkBuffer CudaStage::source() const { return VK_NULL_HANDLE; }
VkBuffer CudaStage::filtered(int) const { return VK_NULL_HANDLE; }
VkBuffer CudaStage::second(int) const { return VK_NULL_HANDLE; }
int CudaStage::latest_output() const { return 0; }
std::uint64_t CudaStage::latest_value() const { return 0; }
VkDeviceSize CudaStage::pitch() const { return 0; }
VkDeviceSize CudaStage::size() const { return 0; }
VkSemaphore CudaStage::timeline() const { return VK_NULL_HANDLE; }
void CudaStage::record_source_image_update(VkCommandBuffer) const {}
const std::string& CudaStage::source_image_status() const {
    static const std::string why = "built without CUDA";
    return why;
}
std::uint64_t CudaStage::timeline_value() const { return 0; }
std::uint64_t CudaStage::enqueue(const Job&, std::string& status) {
    status = "built without CUDA";
    return 0;
}
std::uint64_t CudaStage::enqueue_work(const Job&, std::string& status) {
    status = "built without CUDA";
    return 0;
}
double CudaStage::enqueue_host_median_ms() const { return 0.0; }
const std::optional<cuda::ChannelHistograms>& CudaStage::histogram() const { return impl_->hist_counts; }
void CudaStage::collect_timings() {}
const std::vector<CudaStageTiming>& CudaStage::timings() const { return impl_->timings; }
void CudaStage::reset_timings() {}
double CudaStage::copy_gbps() const { return 0.0; }
void CudaStage::synchronize() const {}

#endif

} // namespace tl

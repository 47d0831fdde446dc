// What a frame pays for handing its 4K image Vulkan -> CUDA -> Vulkan, and where the time goes.
// A frame loop shaped like the viewer's (a "prepare" submit with the frame's first timestamp, the
// CUDA copy signalling the exported timeline, a "render" submit that waits for it, reads the
// output and does about the display pass's amount of Vulkan work), run with 2, 3 and 4 frames in
// flight and in several arrangements, against the same frame with the copy done by Vulkan. Per
// arrangement it prints the median frame span (first to last Vulkan timestamp: the latency), the
// GPU frame period and the host's wall time per frame (the throughput), and the hand-off on one
// clock: Vulkan timestamps and CUDA %globaltimer stamps, linked by a measured offset. Speed is
// printed, never asserted; what is asserted is that every frame shows the frame it waited for.
#include "handoff_stamps.hpp"
#include "interop/shared_buffer.hpp"
#include "interop_fixture.hpp"
#include "stencil/copy_roofline.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tl;
using interop_test::InteropFixture;

// How a frame gets its image; every CUDA arrangement copies the same bytes as kVulkanCopy.
enum class Arrangement {
    VulkanCopy,         // vkCmdCopyBuffer in the frame's one submit (the Vulkan-only path)
    CudaMemcpy,         // the viewer today: prepare submit, cudaMemcpyAsync + signal, render submit waits
    CudaKernelCopy,     // the copy as an SM kernel (copy_kernel_2d) instead of cudaMemcpyAsync
    CudaHighPriority,   // the viewer's, on a stream of the greatest priority
    CudaBeforePrepare,  // CUDA enqueued before the prepare submit instead of after it
    CudaOneSubmit,      // no prepare submit: CUDA, then one submit (waiting) with the whole frame
    CudaEmpty,          // no copy: only the stamps, the frame number and the signal (the bare hand-off)
    CudaShowPrevious,   // the render part waits for the previous frame's run and shows its output
    CudaHostWait,       // diagnostic: the host waits for CUDA before submitting the render part
    CudaRunOnce,        // CUDA runs at frame 0 only; every frame waits for that long-reached value
                        // (the viewer with "Re-run every frame" off and nothing changed)
};

struct ArrangementInfo {
    Arrangement arrangement;
    const char* name;
};
constexpr ArrangementInfo kArrangements[] = {
    {Arrangement::VulkanCopy, "vulkan-copy"},
    {Arrangement::CudaMemcpy, "cuda-memcpy (viewer)"},
    {Arrangement::CudaKernelCopy, "cuda-kernel-copy"},
    {Arrangement::CudaHighPriority, "cuda-high-priority"},
    {Arrangement::CudaBeforePrepare, "cuda-before-prepare"},
    {Arrangement::CudaOneSubmit, "cuda-one-submit"},
    {Arrangement::CudaEmpty, "cuda-empty"},
    {Arrangement::CudaShowPrevious, "cuda-show-previous"},
    {Arrangement::CudaHostWait, "cuda-host-wait (diag)"},
    {Arrangement::CudaRunOnce, "cuda-run-once"},
};

constexpr int kWidth = 3840, kHeight = 2160;
constexpr int kMaxInFlight = 4;
constexpr int kOutputs = kMaxInFlight + 1;  // a run never writes a buffer a frame in flight reads
constexpr int kDisplayCopies = 3;           // the display stand-in: ~0.3 ms of 4K copies on H100
constexpr int kFrames = 400;
constexpr int kWarmup = 100;

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}
double median(std::vector<double> v) { return percentile(std::move(v), 0.5); }

void transfer_barrier(VkCommandBuffer cmd, VkPipelineStageFlags dst_stage = VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VkAccessFlags dst_access = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    mb.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, dst_stage, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

struct HandoffFixture : InteropFixture {
    std::size_t pitch = interop::shared_pitch(kWidth, 4);
    VkDeviceSize bytes = static_cast<VkDeviceSize>(pitch) * kHeight;
    std::vector<interop::SharedBuffer> outputs;
    interop::SharedBuffer source;
    vk::Buffer display, scratch;
    std::array<vk::Buffer, kMaxInFlight> readback;
    std::uint64_t* stamps = nullptr;  // device: 2 per frame (CUDA start, CUDA end), %globaltimer ns
    VkQueryPool pool = VK_NULL_HANDLE;  // 4 per frame: begin, prepare end, after the wait, end
    // globaltimer - Vulkan timestamp (ns) lies in [link_lo, link_hi].
    double link_lo = -1e300, link_hi = 1e300;
    double link = 0;  // subtracted from CUDA stamps to put them on Vulkan's time line

    void SetUp() override {
        InteropFixture::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        const auto usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        source = interop::SharedBuffer(*ctx, bytes, usage);
        for (int i = 0; i < kOutputs; ++i) outputs.emplace_back(*ctx, bytes, usage);
        display = vk::Buffer(*ctx, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        scratch = vk::Buffer(*ctx, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        for (auto& r : readback)
            r = vk::Buffer(*ctx, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        ASSERT_EQ(cudaMemset(source.cuda_ptr(), 0x6A, bytes), cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&stamps, sizeof(std::uint64_t) * 2 * kFrames), cudaSuccess);
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 4 * kFrames;
        VK_CHECK(vkCreateQueryPool(ctx->device(), &qi, nullptr, &pool));
    }
    void TearDown() override {
        if (ctx) vkDeviceWaitIdle(ctx->device());
        cudaDeviceSynchronize();
        if (stamps) cudaFree(stamps);
        if (pool) vkDestroyQueryPool(ctx->device(), pool, nullptr);
        InteropFixture::TearDown();
    }

    double vk_ns(std::uint64_t ticks) const { return static_cast<double>(ticks) * ctx->timestamp_period_ns(); }

    // Brackets a CUDA %globaltimer stamp between two Vulkan timestamps (each side finished before the
    // next starts), several times: the offset between the clocks lies in the tightest bracket.
    void link_clocks() {
        cudaStream_t s;
        ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
        for (int rep = 0; rep < 8; ++rep) {
            ctx->one_shot([&](VkCommandBuffer cmd) {
                vkCmdResetQueryPool(cmd, pool, 0, 2);
                vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 0);
            });
            ASSERT_EQ(interop_test::enqueue_stamp(stamps, 0, nullptr, 0, s), cudaSuccess);
            ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
            ctx->one_shot([&](VkCommandBuffer cmd) { vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 1); });
            std::array<std::uint64_t, 2> v{};
            VK_CHECK(vkGetQueryPoolResults(ctx->device(), pool, 0, 2, sizeof(v), v.data(), sizeof(std::uint64_t),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
            std::uint64_t g = 0;
            ASSERT_EQ(cudaMemcpy(&g, stamps, sizeof(g), cudaMemcpyDeviceToHost), cudaSuccess);
            link_lo = std::max(link_lo, static_cast<double>(g) - vk_ns(v[1]));
            link_hi = std::min(link_hi, static_cast<double>(g) - vk_ns(v[0]));
        }
        cudaStreamDestroy(s);
        // The bracket is wide (host round trips lie between its ends: +-450 us on an H100), too wide
        // to place the stamps. But on NVIDIA both clocks are the GPU's global timer in ns since the
        // epoch, so a bracket around 0 means offset 0 exactly; the frames then check it (H100:
        // with offset 0 no frame resumes before its CUDA end; the least gap was 156 us).
        const bool same_clock = link_lo <= 0 && link_hi >= 0;
        link = same_clock ? 0.0 : 0.5 * (link_lo + link_hi);
        std::printf("clock link: %%globaltimer - Vulkan timestamp in [%.1f, %.1f] us: %s\n", link_lo * 1e-3, link_hi * 1e-3,
                    link_lo > link_hi ? "brackets disagree (the clocks drift apart); CUDA stamps placed at the middle"
                    : same_clock      ? "the same clock (offset 0)"
                                      : "different clocks; CUDA stamps placed at the middle of the bracket");
    }

    struct Outcome {
        double span = 0, period = 0, wall = 0;  // ms, medians (wall: host time per frame, a mean)
        double mean_period = 0;                 // ms: GPU time from the first measured frame's end to the last's, per frame
        double period_p10 = 0, period_p90 = 0;  // ms
        double prepare_to_cuda = 0, cuda = 0;   // us, on one clock, medians
        std::array<double, 3> cuda_to_vulkan{};  // us, p10 / median / p90
        double min_cuda_to_vulkan = 0;           // us: below 0 would put a frame's resume before its CUDA end (clock check)
        double render = 0, idle_before = 0;      // us
        std::string detail;                      // a few consecutive frames' events, for the record
        int wrong_frames = 0;
        std::string error;
    };

    Outcome run(Arrangement arr, int in_flight) {
        Outcome o;
        const bool cuda_path = arr != Arrangement::VulkanCopy;
        const bool show_previous = arr == Arrangement::CudaShowPrevious;
        const bool run_once = arr == Arrangement::CudaRunOnce;
        const bool cuda_each_frame = cuda_path && !run_once;  // frames with CUDA stamps
        cudaStream_t stream = nullptr;
        int least = 0, greatest = 0;
        cudaDeviceGetStreamPriorityRange(&least, &greatest);
        const int priority = arr == Arrangement::CudaHighPriority ? greatest : least;
        if (cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority) != cudaSuccess) {
            o.error = "cudaStreamCreateWithPriority failed";
            return o;
        }
        interop::Timeline timeline(*ctx, 0);
        std::vector<VkCommandPool> pools(static_cast<std::size_t>(in_flight));
        std::vector<std::array<VkCommandBuffer, 2>> cmds(static_cast<std::size_t>(in_flight));
        std::vector<VkFence> fences(static_cast<std::size_t>(in_flight));
        std::vector<long> expected(static_cast<std::size_t>(in_flight), -1);  // frame number the slot's frame showed
        for (int i = 0; i < in_flight; ++i) {
            pools[i] = interop_test::make_pool(*ctx);
            VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
            ai.commandPool = pools[i];
            ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
            ai.commandBufferCount = 2;
            VK_CHECK(vkAllocateCommandBuffers(ctx->device(), &ai, cmds[i].data()));
            VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
            fi.flags = VK_FENCE_CREATE_SIGNALED_BIT;
            VK_CHECK(vkCreateFence(ctx->device(), &fi, nullptr, &fences[i]));
        }
        ctx->one_shot([&](VkCommandBuffer cmd) { vkCmdResetQueryPool(cmd, pool, 0, 4 * kFrames); });

        auto check_slot = [&](int slot) {
            if (expected[slot] < 0) return;
            std::uint32_t seen = 0;
            std::memcpy(&seen, readback[slot].mapped(), 4);
            if (seen != static_cast<std::uint32_t>(expected[slot])) ++o.wrong_frames;
        };
        auto enqueue_cuda = [&](int frame, int out) -> bool {
            auto* dst = static_cast<unsigned char*>(outputs[out].cuda_ptr());
            bool ok = interop_test::enqueue_stamp(stamps, 2 * frame, nullptr, 0, stream) == cudaSuccess;
            if (arr == Arrangement::CudaKernelCopy)
                ok = ok && cuda::copy_kernel_2d(dst, source.cuda_ptr(), pitch, pitch, kHeight, stream).ok;
            else if (arr != Arrangement::CudaEmpty)
                ok = ok && cudaMemcpyAsync(dst, source.cuda_ptr(), bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess;
            ok = ok && interop_test::enqueue_stamp(stamps, 2 * frame + 1, reinterpret_cast<std::uint32_t*>(dst),
                                                   static_cast<std::uint32_t>(frame), stream) == cudaSuccess;
            ok = ok && timeline.cuda_signal(static_cast<std::uint64_t>(frame) + 1, stream);
            if (ok && arr == Arrangement::CudaHostWait) ok = cudaStreamSynchronize(stream) == cudaSuccess;
            return ok;
        };
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;

        auto wall_start = std::chrono::steady_clock::now();
        for (int n = 0; n < kFrames && o.error.empty(); ++n) {
            if (n == kWarmup) wall_start = std::chrono::steady_clock::now();
            const int slot = n % in_flight;
            VK_CHECK(vkWaitForFences(ctx->device(), 1, &fences[slot], VK_TRUE, 10'000'000'000ull));
            check_slot(slot);
            VK_CHECK(vkResetFences(ctx->device(), 1, &fences[slot]));
            VK_CHECK(vkResetCommandPool(ctx->device(), pools[slot], 0));
            const int out = n % kOutputs;
            const int shown = run_once ? 0 : show_previous ? (n + kOutputs - 1) % kOutputs : out;
            expected[slot] = run_once ? 0 : show_previous ? n - 1 : n;
            const std::uint64_t wait_value =
                run_once ? 1 : show_previous ? static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n) + 1;
            const auto q = static_cast<std::uint32_t>(4 * n);

            const VkCommandBuffer prepare = cmds[slot][0], render = cmds[slot][1];
            VK_CHECK(vkBeginCommandBuffer(prepare, &bi));
            vkCmdWriteTimestamp(prepare, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, q);
            if (!cuda_path) {
                transfer_barrier(prepare);
                const VkBufferCopy all{0, 0, bytes};
                vkCmdCopyBuffer(prepare, source.buffer(), outputs[out].buffer(), 1, &all);
                transfer_barrier(prepare);
                vkCmdFillBuffer(prepare, outputs[out].buffer(), 0, 4, static_cast<std::uint32_t>(n));
            }
            vkCmdWriteTimestamp(prepare, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, q + 1);
            VK_CHECK(vkEndCommandBuffer(prepare));

            VK_CHECK(vkBeginCommandBuffer(render, &bi));
            vkCmdWriteTimestamp(render, VK_PIPELINE_STAGE_TRANSFER_BIT, pool, q + 2);
            transfer_barrier(render);
            const VkBufferCopy all{0, 0, bytes};
            vkCmdCopyBuffer(render, outputs[shown].buffer(), display.handle(), 1, &all);
            for (int c = 0; c < kDisplayCopies; ++c) {
                transfer_barrier(render);
                vkCmdCopyBuffer(render, display.handle(), scratch.handle(), 1, &all);
            }
            const VkBufferCopy word{0, 0, 4};
            vkCmdCopyBuffer(render, display.handle(), readback[slot].handle(), 1, &word);
            transfer_barrier(render, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
            vkCmdWriteTimestamp(render, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, q + 3);
            VK_CHECK(vkEndCommandBuffer(render));

            auto submit = [&](std::uint32_t count, const VkCommandBuffer* cb, std::uint64_t wait, VkFence fence) {
                VkSemaphore sem = timeline.semaphore();
                VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
                ts.waitSemaphoreValueCount = 1;
                ts.pWaitSemaphoreValues = &wait;
                const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
                VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
                if (wait) {
                    si.pNext = &ts;
                    si.waitSemaphoreCount = 1;
                    si.pWaitSemaphores = &sem;
                    si.pWaitDstStageMask = &stage;
                }
                si.commandBufferCount = count;
                si.pCommandBuffers = cb;
                VK_CHECK(vkQueueSubmit(ctx->queue(), 1, &si, fence));
            };
            bool ok = true;
            switch (arr) {
            case Arrangement::VulkanCopy: submit(2, cmds[slot].data(), 0, fences[slot]); break;
            case Arrangement::CudaBeforePrepare:
                ok = enqueue_cuda(n, out);
                submit(1, &prepare, 0, VK_NULL_HANDLE);
                submit(1, &render, wait_value, fences[slot]);
                break;
            case Arrangement::CudaOneSubmit:
                ok = enqueue_cuda(n, out);
                submit(2, cmds[slot].data(), wait_value, fences[slot]);
                break;
            default:
                submit(1, &prepare, 0, VK_NULL_HANDLE);
                if (!run_once || n == 0) ok = enqueue_cuda(n, out);
                submit(1, &render, wait_value, fences[slot]);
                break;
            }
            if (!ok) o.error = "a CUDA call failed at frame " + std::to_string(n);
        }
        VK_CHECK(vkDeviceWaitIdle(ctx->device()));
        cudaStreamSynchronize(stream);
        auto release = [&] {
            for (int i = 0; i < in_flight; ++i) {
                vkDestroyFence(ctx->device(), fences[i], nullptr);
                vkDestroyCommandPool(ctx->device(), pools[i], nullptr);
            }
            cudaStreamDestroy(stream);
            cudaGetLastError();
        };
        if (!o.error.empty()) {  // frames after the failure were never submitted: no timestamps to read
            release();
            return o;
        }
        const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
        for (int i = 0; i < in_flight; ++i) check_slot(i);

        std::vector<std::uint64_t> t(4 * kFrames);
        VK_CHECK(vkGetQueryPoolResults(ctx->device(), pool, 0, 4 * kFrames, t.size() * sizeof(std::uint64_t), t.data(),
                                       sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        std::vector<std::uint64_t> c(2 * kFrames, 0);
        if (cuda_each_frame) cudaMemcpy(c.data(), stamps, c.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost);
        std::vector<double> span, period, to_cuda, cuda_us, to_vulkan, render_us, idle;
        for (int n = kWarmup; n < kFrames; ++n) {
            const double b = vk_ns(t[4 * n]), prep_end = vk_ns(t[4 * n + 1]), resumed = vk_ns(t[4 * n + 2]),
                         end = vk_ns(t[4 * n + 3]), prev_end = vk_ns(t[4 * n - 1]);
            span.push_back((end - b) * 1e-6);
            period.push_back((end - prev_end) * 1e-6);
            render_us.push_back((end - resumed) * 1e-3);
            idle.push_back((b - prev_end) * 1e-3);
            if (cuda_each_frame) {
                const double c0 = static_cast<double>(c[2 * n]) - link, c1 = static_cast<double>(c[2 * n + 1]) - link;
                to_cuda.push_back((c0 - prep_end) * 1e-3);
                cuda_us.push_back((c1 - c0) * 1e-3);
                to_vulkan.push_back((resumed - c1) * 1e-3);
            }
        }
        o.span = median(span);
        o.period = median(period);
        o.period_p10 = percentile(period, 0.1);
        o.period_p90 = percentile(period, 0.9);
        o.mean_period = (vk_ns(t[4 * kFrames - 1]) - vk_ns(t[4 * kWarmup - 1])) * 1e-6 / (kFrames - kWarmup);
        o.wall = wall_ms / (kFrames - kWarmup);
        o.render = median(render_us);
        o.idle_before = median(idle);
        o.prepare_to_cuda = median(to_cuda);
        o.cuda = median(cuda_us);
        o.cuda_to_vulkan = {percentile(to_vulkan, 0.1), median(to_vulkan), percentile(to_vulkan, 0.9)};
        o.min_cuda_to_vulkan = to_vulkan.empty() ? 0.0 : *std::min_element(to_vulkan.begin(), to_vulkan.end());
        // Six consecutive frames on one time line (us from the first one's begin): B begin, P prepare
        // end, C0/C1 CUDA start/end, R resumed after the wait, E end.
        const double zero = vk_ns(t[4 * kWarmup]);
        char line[256];
        for (int n = kWarmup; n < kWarmup + 6; ++n) {
            const double c0 = cuda_each_frame ? static_cast<double>(c[2 * n]) - link : zero,
                         c1 = cuda_each_frame ? static_cast<double>(c[2 * n + 1]) - link : zero;
            const double b = (vk_ns(t[4 * n]) - zero) * 1e-3, p = (vk_ns(t[4 * n + 1]) - zero) * 1e-3,
                         r = (vk_ns(t[4 * n + 2]) - zero) * 1e-3, e = (vk_ns(t[4 * n + 3]) - zero) * 1e-3;
            if (cuda_each_frame)
                std::snprintf(line, sizeof(line), "    frame %d: B %.1f  P %.1f  C0 %.1f  C1 %.1f  R %.1f  E %.1f\n", n, b, p,
                              (c0 - zero) * 1e-3, (c1 - zero) * 1e-3, r, e);
            else
                std::snprintf(line, sizeof(line), "    frame %d: B %.1f  P %.1f  R %.1f  E %.1f\n", n, b, p, r, e);
            o.detail += line;
        }
        release();
        return o;
    }
};

TEST_F(HandoffFixture, FrameSpanPeriodAndHandoffAt4K) {
    ASSERT_GT(ctx->timestamp_period_ns(), 0.0) << "the queue has no timestamps";
    link_clocks();
    std::printf("4K RGBA8 (%.1f MB) per frame, %d frames after %d warm-up; display stand-in: %d more 4K copies.\n"
                "  span = frame's first to last Vulkan timestamp (latency, median); period = between consecutive frames' "
                "last timestamps (median, p10-p90) and their mean (= GPU time per frame: the throughput); wall = host "
                "time per frame.\n"
                "  Hand-off on one clock (us, medians): prep->cuda = prepare end -> CUDA start; cuda = CUDA start -> "
                "end; cuda->vk = CUDA end -> Vulkan resumes after its wait (p10/p50/p90; min, a clock check: >= 0); "
                "render = resume -> frame end; idle = previous frame's end -> this frame's begin.\n",
                double(bytes) / 1e6, kFrames - kWarmup, kWarmup, kDisplayCopies);
    std::printf("%-22s %3s %7s %7s %13s %7s %7s %10s %6s %20s %7s %6s %6s\n", "arrangement", "fif", "span", "period",
                "p10-p90", "mean", "wall", "prep->cuda", "cuda", "cuda->vk p10/50/90", "min", "render", "idle");
    std::vector<std::string> details;
    for (int in_flight : {2, 3, 4}) {
        for (const auto& a : kArrangements) {
            const Outcome o = run(a.arrangement, in_flight);
            EXPECT_EQ(o.error, "") << a.name;
            EXPECT_EQ(o.wrong_frames, 0) << a.name << ", " << in_flight << " in flight: frames showed another frame's output";
            std::printf("%-22s %3d %7.4f %7.4f %6.4f-%6.4f %7.4f %7.4f ", a.name, in_flight, o.span, o.period, o.period_p10,
                        o.period_p90, o.mean_period, o.wall);
            if (a.arrangement == Arrangement::VulkanCopy || a.arrangement == Arrangement::CudaRunOnce)
                std::printf("%10s %6s %20s %7s", "-", "-", "-", "-");
            else
                std::printf("%10.1f %6.1f %6.1f/%6.1f/%6.1f %7.1f", o.prepare_to_cuda, o.cuda, o.cuda_to_vulkan[0],
                            o.cuda_to_vulkan[1], o.cuda_to_vulkan[2], o.min_cuda_to_vulkan);
            std::printf(" %6.1f %6.1f\n", o.render, o.idle_before);
            std::fflush(stdout);
            details.push_back(std::string(a.name) + ", " + std::to_string(in_flight) + " in flight:\n" + o.detail);
        }
    }
    std::printf("Consecutive frames on one time line (us): B begin, P prepare end, C0/C1 CUDA start/end, R resumed "
                "after the wait, E end\n");
    for (const auto& d : details) std::printf("%s", d.c_str());
}

} // namespace

// The frame loop's two submits around work outside Vulkan, on lavapipe with validation on: when an
// element hands App a timeline, on_prepare's commands are submitted first, on_external runs next
// and returns the value the render submit must wait for, and the render submit (display pass,
// then on_after_render) waits for it. Nothing Vulkan signals, so the outside work never waits for
// Vulkan. Here the "outside work" is a host thread: it signals frame N's value 20 ms after
// on_external returned, first checking that frame N's render part has not run (it waits for it).
#include "app.hpp"
#include "vk/context.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

struct HostExternal : tl::Element {
    const tl::vk::Context* ctx = nullptr;
    VkSemaphore timeline = VK_NULL_HANDLE;
    tl::vk::Buffer rendered;  // on_after_render writes the frame's number here
    std::uint32_t frame = 0;
    bool hand_off = true;     // false: on_external returns 0 (the render part must not wait)
    std::thread worker;       // the "outside work" of the latest frame
    std::vector<std::uint32_t> rendered_before_signal;  // `rendered` just before signalling frame N's value

    void on_attach(tl::App& app) override {
        ctx = &app.context();
        VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        ci.pNext = &type;
        VK_CHECK(vkCreateSemaphore(ctx->device(), &ci, nullptr, &timeline));
        rendered = tl::vk::Buffer(*ctx, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        std::memset(rendered.mapped(), 0, 4);
    }
    void on_detach() override {
        if (worker.joinable()) worker.join();
        rendered = tl::vk::Buffer();
        if (timeline) vkDestroySemaphore(ctx->device(), timeline, nullptr);
        timeline = VK_NULL_HANDLE;
    }
    VkSemaphore external_timeline() override { return timeline; }
    void on_prepare(const tl::FrameInfo&) override { ++frame; }
    void signal(std::uint64_t value) {
        VkSemaphoreSignalInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
        si.semaphore = timeline;
        si.value = value;
        VK_CHECK(vkSignalSemaphore(ctx->device(), &si));
    }
    std::uint64_t on_external(std::uint32_t) override {
        if (!hand_off) return 0;
        if (worker.joinable()) worker.join();
        const std::uint32_t n = frame;
        worker = std::thread([this, n] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            std::uint32_t r = 0;
            std::memcpy(&r, rendered.mapped(), 4);
            rendered_before_signal.push_back(r);  // read by the test thread only after the last join
            signal(n);
        });
        return n;
    }
    void on_after_render(const tl::FrameInfo& f) override {
        vkCmdFillBuffer(f.cmd, rendered.handle(), 0, 4, frame);
        VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(f.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
    }
    std::uint64_t value() const {
        std::uint64_t v = 0;
        vkGetSemaphoreCounterValue(ctx->device(), timeline, &v);
        return v;
    }
    std::uint32_t last_rendered() const {
        std::uint32_t r = 0;
        std::memcpy(&r, rendered.mapped(), 4);
        return r;
    }
};

struct FrameLoopFixture : ::testing::Test {
    tl::vk::Context ctx{[] {
        tl::vk::ContextOptions o;
        o.validation = true;
        o.quiet = true;
        return o;
    }()};
    tl::AppOptions options() const {
        tl::AppOptions o;
        o.headless = true;
        o.size = {160, 120};
        o.frames = 6;
        return o;
    }
};

} // namespace

TEST_F(FrameLoopFixture, RenderPartWaitsForTheValueOnExternalReturns) {
    auto element = std::make_shared<HostExternal>();
    {
        tl::App app(ctx, options(), nullptr);
        app.add(element);
        ASSERT_EQ(app.run(), 0);
        if (element->worker.joinable()) element->worker.join();
        ASSERT_EQ(element->rendered_before_signal.size(), 6u);
        for (std::size_t i = 0; i < element->rendered_before_signal.size(); ++i) {
            // Frame i + 1's render part waits for value i + 1: just before it is signalled, at
            // most frame i has rendered.
            EXPECT_LE(element->rendered_before_signal[i], static_cast<std::uint32_t>(i)) << "frame " << i + 1;
        }
        EXPECT_EQ(element->value(), 6u);
        EXPECT_EQ(element->last_rendered(), 6u);
        // Every frame's span was measured, and in the CUDA-like split the wait is part of it.
        if (app.timers().supported()) {
            ASSERT_FALSE(app.timers().frame_spans().empty());
            for (const auto& f : app.timers().frame_spans()) {
                EXPECT_GT(f.span_ms, 0.0);
                EXPECT_GE(f.wait_ms, 0.0);
                EXPECT_LE(f.wait_ms, f.span_ms);
            }
        }
    }
    EXPECT_EQ(ctx.validation_messages(), 0u);
}

TEST_F(FrameLoopFixture, NoHandOffMeansNoWait) {
    auto element = std::make_shared<HostExternal>();
    element->hand_off = false;
    {
        tl::App app(ctx, options(), nullptr);
        app.add(element);
        ASSERT_EQ(app.run(), 0);  // would hang if the render part waited for a value nobody signals
        EXPECT_EQ(element->value(), 0u);
        EXPECT_EQ(element->last_rendered(), 6u);
        if (app.timers().supported()) {
            for (const auto& f : app.timers().frame_spans()) EXPECT_LT(f.wait_ms, 0.0);  // no wait was marked
        }
    }
    EXPECT_EQ(ctx.validation_messages(), 0u);
}

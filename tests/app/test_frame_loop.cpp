// The frame loop's two submits around work outside Vulkan, on lavapipe with validation on: when an
// element hands App a timeline, on_prepare's commands are submitted first and signal 2N+1,
// on_external runs in between, and the submit with the display pass waits for 2N+2. Here the
// "outside work" is the host (it waits for 2N+1, checks what on_prepare wrote, signals 2N+2).
#include "app.hpp"
#include "vk/context.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

namespace {

struct HostExternal : tl::Element {
    const tl::vk::Context* ctx = nullptr;
    VkSemaphore timeline = VK_NULL_HANDLE;
    tl::vk::Buffer marker;  // on_prepare writes the frame's number here
    std::uint32_t frame = 0;
    bool hand_off = true;   // false: on_external enqueues nothing (the display must not wait)
    std::vector<std::pair<std::uint64_t, std::uint64_t>> values;
    std::vector<std::uint32_t> seen;  // marker values read after waiting for 2N+1

    void on_attach(tl::App& app) override {
        ctx = &app.context();
        VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        ci.pNext = &type;
        VK_CHECK(vkCreateSemaphore(ctx->device(), &ci, nullptr, &timeline));
        marker = tl::vk::Buffer(*ctx, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    }
    void on_detach() override {
        marker = tl::vk::Buffer();
        if (timeline) vkDestroySemaphore(ctx->device(), timeline, nullptr);
        timeline = VK_NULL_HANDLE;
    }
    VkSemaphore external_timeline() override { return timeline; }
    void on_prepare(const tl::FrameInfo& f) override {
        ++frame;
        vkCmdFillBuffer(f.cmd, marker.handle(), 0, 4, frame);
        VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(f.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
    }
    bool on_external(std::uint32_t, std::uint64_t wait_value, std::uint64_t signal_value) override {
        values.emplace_back(wait_value, signal_value);
        if (!hand_off) return false;
        VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wi.semaphoreCount = 1;
        wi.pSemaphores = &timeline;
        wi.pValues = &wait_value;
        if (vkWaitSemaphores(ctx->device(), &wi, 5'000'000'000ull) != VK_SUCCESS) return false;
        std::uint32_t m = 0;
        std::memcpy(&m, marker.mapped(), 4);
        seen.push_back(m);
        VkSemaphoreSignalInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
        si.semaphore = timeline;
        si.value = signal_value;
        VK_CHECK(vkSignalSemaphore(ctx->device(), &si));
        return true;
    }
    std::uint64_t value() const {
        std::uint64_t v = 0;
        vkGetSemaphoreCounterValue(ctx->device(), timeline, &v);
        return v;
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

TEST_F(FrameLoopFixture, ExternalWorkSitsBetweenPrepareAndDisplay) {
    auto element = std::make_shared<HostExternal>();
    {
        tl::App app(ctx, options(), nullptr);
        app.add(element);
        ASSERT_EQ(app.run(), 0);
        ASSERT_EQ(element->values.size(), 6u);
        ASSERT_EQ(element->seen.size(), 6u) << "on_external timed out waiting for the prepare submit's 2N+1";
        for (std::size_t i = 0; i < element->values.size(); ++i) {
            EXPECT_EQ(element->values[i].first, 2 * i + 1);   // prepare done
            EXPECT_EQ(element->values[i].second, 2 * i + 2);  // external done
            // The external step saw this frame's prepare commands finished, not an older frame's.
            EXPECT_EQ(element->seen[i], i + 1);
        }
        EXPECT_EQ(element->value(), 12u);
    }
    EXPECT_EQ(ctx.validation_messages(), 0u);
}

TEST_F(FrameLoopFixture, NoHandOffMeansNoWait) {
    auto element = std::make_shared<HostExternal>();
    element->hand_off = false;
    {
        tl::App app(ctx, options(), nullptr);
        app.add(element);
        ASSERT_EQ(app.run(), 0);  // would hang if the display submit waited for 2N+2
        ASSERT_EQ(element->values.size(), 6u);
        EXPECT_EQ(element->value(), 11u);  // only the prepare submits signalled
    }
    EXPECT_EQ(ctx.validation_messages(), 0u);
}

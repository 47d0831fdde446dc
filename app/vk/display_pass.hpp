// The display pass: draws source / filtered storage buffers into a rectangle of the framebuffer
// (original, filtered, split A|B, diff heat-map), inside a render pass that the caller begins.
#pragma once

#include "context.hpp"

#include <array>

namespace tl::vk {

enum class ViewMode : std::uint32_t { Original = 0, Filtered = 1, Split = 2, Diff = 3 };

// Mirrors the push-constant block of shaders/display.frag (std430-compatible scalar layout).
struct DisplayPush {
    float origin[2] = {0, 0};           // framebuffer pixel of the viewport's top-left corner
    float image_at_origin[2] = {0, 0};  // image coordinate shown at `origin`
    float zoom = 1.0f;                  // framebuffer pixels per image pixel
    float split_x = 0.0f;               // framebuffer x of the split divider
    float gain = 1.0f;                  // diff heat-map gain
    std::uint32_t mode = 0;             // ViewMode
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::uint32_t pitch_px = 0;         // row pitch in pixels
    std::uint32_t flags = 0;            // bit 0: pixel grid when zoomed in
};
static_assert(sizeof(DisplayPush) == 48);

// Where and how to draw: a framebuffer rectangle and the view transform.
struct DisplayView {
    VkRect2D rect{};               // framebuffer rectangle (viewport + scissor)
    float image_at_origin[2] = {0, 0};
    float zoom = 1.0f;
    ViewMode mode = ViewMode::Original;
    float split_x = 0.0f;          // framebuffer x
    float gain = 1.0f;
    bool pixel_grid = true;
};

// CPU mirror of the shader's heat-map, for tests and the UI legend; t in [0,1].
std::array<float, 3> heat_color(float t);

class DisplayPass {
public:
    DisplayPass(const Context& ctx, VkRenderPass render_pass);
    ~DisplayPass();
    DisplayPass(const DisplayPass&) = delete;
    DisplayPass& operator=(const DisplayPass&) = delete;

    // Descriptor sets, one per output buffer a producer alternates between (record() picks one).
    static constexpr std::uint32_t kSets = 3;

    // Points every set at the two RGBA8 buffers. The caller guarantees no frame using the previous
    // buffers is still in flight (image changes are rare: the app waits for the device first).
    void set_images(VkBuffer source, VkBuffer filtered, int width, int height, VkDeviceSize pitch_bytes);
    // Points one set at its pair of buffers (same size and pitch for every set); same guarantee.
    void set_images(std::uint32_t set, VkBuffer source, VkBuffer filtered, int width, int height, VkDeviceSize pitch_bytes);

    // Records the draw from the given set; the render pass must be active. Draws nothing before set_images().
    void record(VkCommandBuffer cmd, const DisplayView& view, std::uint32_t set = 0) const;

private:
    const Context& ctx_;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    std::array<VkDescriptorSet, kSets> sets_{};
    int width_ = 0, height_ = 0;
    std::uint32_t pitch_px_ = 0;
};

} // namespace tl::vk

// The Vulkan compute filters (vk::ComputeFilters) timed for `tilelab bench` with timestamp queries,
// over the same rotation of buffer sets as the CUDA rows, so the two paths compare on one GPU.
#pragma once

#include "filter_spec.hpp"
#include "vk/compute_filters.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tl::cmd {

class VulkanBench {
public:
    // Headless device (the one with this UUID when given, i.e. the CUDA device), `sets` pairs of
    // width x height RGBA8 buffers. nullptr and `why` set when Vulkan or the filters are unusable.
    static std::unique_ptr<VulkanBench> create(int width, int height, int sets,
                                               const std::optional<std::array<std::uint8_t, 16>>& uuid,
                                               std::string& why);
    ~VulkanBench();
    VulkanBench(const VulkanBench&) = delete;
    VulkanBench& operator=(const VulkanBench&) = delete;

    // Median GPU time in microseconds of one dispatch sequence; empty optional and `why` when refused.
    std::optional<double> median_us(const FilterParams& p, Border b, vk::ComputeVariant v, int iterations,
                                    std::string& why);
    std::string device() const;

private:
    VulkanBench() = default;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace tl::cmd

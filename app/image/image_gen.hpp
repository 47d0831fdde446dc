// Procedural test images (zone plate, checkerboard, noise, gradient): deterministic RGBA8, alpha 255.
#pragma once

#include "image.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tl {

enum class Generator { ZonePlate, Checkerboard, Noise, Gradient };

struct GeneratorInfo {
    Generator generator;
    std::string_view name;         // command-line name: "zone-plate", "checkerboard", "noise", "gradient"
    std::string_view label;        // UI label
    std::string_view description;  // one sentence: what it shows and why it is useful
};

std::span<const GeneratorInfo> generator_infos();
std::optional<Generator> parse_generator(std::string_view name);
std::string_view to_string(Generator g);

// Empty when 1 <= w, h <= 16384 (kMaxImageDim); otherwise a sentence with the valid range.
std::string validate_image_size(int w, int h);

// The same (g, w, h, seed) always gives the same bytes, whatever the number of threads used.
// seed only changes Noise. Returns an empty Image when validate_image_size(w, h) is not empty.
Image generate_image(Generator g, int w, int h, std::uint32_t seed = 1);

} // namespace tl

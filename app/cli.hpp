// The program's own command line (window / headless options, image, filter, view), on CLI11.
#pragma once

#include "app.hpp"
#include "commands/commands.hpp"
#include "viewer.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tl {

struct LaunchOptions {
    AppOptions app;
    ViewerSetup viewer;
    bool validate = false;
};

// Registers every top-level flag on `cli` (before parsing); resolve() turns them into options.
class CommandLine {
public:
    explicit CommandLine(CLI::App& cli);
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    // After a successful parse: the options, or nullopt with `error` set (a sentence with the valid range).
    std::optional<LaunchOptions> resolve(std::string& error) const;

private:
    bool headless_ = false;
    int frames_ = 0;
    std::string screenshot_;
    std::string size_ = "1600x900";
    std::string image_;
    std::string generate_;
    std::string gen_size_ = "1024x1024";
    std::uint32_t seed_ = 1;
    cmd::FilterFlags filter_;
    std::string border_ = "clamp";
    std::vector<std::string> ops_;
    std::string stage_ = "filter";
    bool every_frame_ = false;
    std::string pixel_mechanism_;
    bool fuse_ = false;
    bool time_ops_ = false;
    bool diag_host_sync_ = false;
    std::string variant_;
    std::string mechanism_;
    std::string mechanism_a_;
    std::string view_ = "split";
    float gain_ = 4.0f;
    float split_ = 0.5f;
    std::string vsync_ = "on";
    bool validate_ = false;
    float ui_scale_ = 1.0f;
    std::string assets_;
    CLI::Option* radius_opt_ = nullptr;
};

// Parses one --op value "name[:a[:b[:c]]]" (e.g. "gamma:2.2", "levels:0.1:0.9:1.2") into a validated
// op; nullopt with `error` set (naming the valid ops or the range) otherwise.
std::optional<PixelOp> parse_op_flag(const std::string& text, std::string& error);

// Where assets/ is: --assets, else the build-time TILELAB_ASSET_DIR, else next to the executable.
std::filesystem::path find_asset_dir(const std::string& override_dir);

} // namespace tl

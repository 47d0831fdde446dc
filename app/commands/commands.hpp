// The command-line subcommands `apply`, `check` and `bench`: registered on the CLI11 app before
// parsing, run after it. main() builds Commands, parses, and calls run().
#pragma once

#include "filter_spec.hpp"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tl::cmd {

// Exit codes of every command (README, "Exit codes"): a runtime failure (an unreadable image, no
// CUDA for a CUDA-only command, a mismatch in check, a mechanism this GPU cannot run) and a bad
// flag or value (the message names the valid choices or range).
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Filter flags shared by apply (one filter with its parameters).
struct FilterFlags {
    std::string filter = "box";
    int radius = 1;
    float sigma = 1.0f;
    float amount = 1.0f;
    std::string kernel;  // "w,w,..." 9 or 25 weights (user kernel)
    float scale = 1.0f;
    float bias = 0.0f;
};

struct ApplyOptions {
    FilterFlags filter;
    std::string mechanism = "cpu";
    std::string border = "clamp";
    std::string format = "rgba8";
    int stages = 2;
    bool filter_given = false;           // --filter was on the command line (else: ops alone, or an error)
    std::vector<std::string> ops;        // --op name[:a[:b[:c]]], applied in order after the filter
    std::string pixel_mechanism = "cpu"; // cpu (reference) or a pixel mechanism; reads --stages
    bool bulk_store = false;             // bulk: write results with a bulk copy shared -> global
    std::string input;
    std::string output;
};

struct CheckOptions {
    std::vector<std::string> sizes;       // "WxH"; empty = the default set
    std::vector<std::string> filters;     // filter kind names; empty = all
    std::vector<std::string> mechanisms;  // CUDA mechanism names; empty = all
    std::vector<std::string> borders;     // empty = all
    std::vector<std::string> formats;     // empty = rgba8, plus rgba32f on a subset
    std::vector<std::string> pixel_mechanisms;  // pixel mechanism names; empty = all, stages 1..4
    std::string tile;                     // "WxH" output tile for the mechanisms that read one; empty = default
    bool pixel_only = false;              // per-pixel rows (ops, chains, histogram) only
    bool stencil_only = false;            // stencil rows only
    bool quiet = false;                   // only failing rows and the summary
};

struct BenchOptions {
    std::string size = "4k";
    std::vector<std::string> filters;     // filter kind names; empty = all
    std::vector<std::string> mechanisms;  // empty = all CUDA mechanisms
    std::vector<int> stages;              // ldgsts/tma stage counts to sweep; empty = policy default
    std::vector<std::string> tiles;       // WxH output tiles to sweep for tma/tma_ws/cluster; empty = policy default
    std::vector<int> box_radii;           // Box radii to time; empty = those of the check (1, 4, 16, 32)
    std::vector<float> sigmas;            // Gaussian sigmas to time; empty = those of the check (0.5, 1.5, 3, 5, 7, 10)
    std::string border = "clamp";
    std::string json;                     // write results here when set
    int iterations = 20;
    bool pixel = false;                   // also per-pixel rows: chains of 1, 3, 8 ops x mechanism x stages
    std::string pixel_json;               // write the per-pixel rows as JSON to this file when set
};

int run_apply(const ApplyOptions& o);
int run_check(const CheckOptions& o);
int run_bench(const BenchOptions& o);

class DeviceBuffer;  // device_buffer.hpp, CUDA builds only

// The per-pixel rows of `bench --pixel` (pixel_bench.cpp, CUDA builds): op chains of 1, 3 and 8
// ops x pixel mechanism x stages 1..4, and sobel + 3 ops as two launches, timed on the stencil
// bench's rotated RGBA8 buffer sets (`pitch` a multiple of 16) on `stream` (a cudaStream_t), with
// "x copy" against the same roofline `copy_us`. Prints its table; writes o.pixel_json when set
// (a write failure is reported on stderr).
void run_pixel_bench(const BenchOptions& o, int width, int height, std::size_t pitch, Border border,
                     const std::vector<DeviceBuffer>& srcs, const std::vector<DeviceBuffer>& dsts, void* stream,
                     double copy_us);

// Builds FilterParams from the flags; empty optional and `error` set when a flag is invalid.
std::optional<FilterParams> filter_params_from_flags(const FilterFlags& f, std::string& error);

// Parses "WxH" or the names 1080p / 4k / 8k; false when it is neither.
bool parse_size(const std::string& text, int& width, int& height);
// Parses an output tile "WxH" with 1..1024 each (bench --tiles, check --tile).
bool parse_tile(const std::string& text, int& width, int& height);

class Commands {
public:
    explicit Commands(CLI::App& app);
    Commands(const Commands&) = delete;  // CLI11 holds pointers into the option structs
    Commands& operator=(const Commands&) = delete;

    // Exit code of the subcommand that was chosen on the command line; nullopt when none was.
    std::optional<int> run();

private:
    CLI::App* apply_ = nullptr;
    CLI::Option* apply_filter_ = nullptr;
    CLI::App* check_ = nullptr;
    CLI::App* bench_ = nullptr;
    ApplyOptions apply_opts_;
    CheckOptions check_opts_;
    BenchOptions bench_opts_;
};

} // namespace tl::cmd

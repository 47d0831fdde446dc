// Per-pixel choices shared by apply, check and bench: the --pixel-mechanism flag (cpu or a row of
// the pixel mechanism table, with --stages), the mechanism x stages sweep, and the standard op
// cases (every op alone, chains of 1, 3 and 8). Header-only so the CPU unit tests can use it
// without linking the app library.
#pragma once

#include "pixel_api.hpp"
#include "pixel_ops.hpp"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tl::cmd {

// One way to run a chain: the CPU reference (mechanism empty) or a CUDA mechanism with a policy.
struct PixelRun {
    std::optional<cuda::PixelMechanism> mechanism;  // nullopt: tl::reference_pixel_ops on the CPU
    cuda::PixelPolicy policy;
    std::string label;  // "cpu", "plain", "vector", "ldgsts s2", "bulk s4", "bulk-st s4" (bulk store)
};

// Whether the mechanism reads PixelPolicy::stages (the others ignore it, so sweeping it is noise).
inline bool pixel_pipelined(cuda::PixelMechanism m) {
    return m == cuda::PixelMechanism::Ldgsts || m == cuda::PixelMechanism::Bulk;
}

inline std::string pixel_run_label(cuda::PixelMechanism m, const cuda::PixelPolicy& p) {
    std::string s(cuda::to_string(m));
    if (m == cuda::PixelMechanism::Bulk && p.bulk_store) s += "-st";
    if (pixel_pipelined(m)) s += " s" + std::to_string(p.stages);
    return s;
}

// "cpu, plain, vector, ldgsts, bulk" for messages and --help.
inline std::string pixel_mechanism_names() {
    std::string s = "cpu";
    for (const auto& info : cuda::pixel_mechanism_infos()) s += ", " + std::string(info.name);
    return s;
}

// --pixel-mechanism NAME with --stages N: nullopt with `error` set (naming the valid choices or
// the range) when either is wrong. Stages are checked for every mechanism, like the stencil's.
inline std::optional<PixelRun> parse_pixel_run(const std::string& name, int stages, std::string& error) {
    if (stages < 1 || stages > 4) {
        error = "--stages " + std::to_string(stages) + " is out of range: valid 1..4";
        return std::nullopt;
    }
    PixelRun run;
    run.policy.stages = stages;
    if (name == "cpu") {
        run.label = "cpu";
        return run;
    }
    const auto m = cuda::parse_pixel_mechanism(name);
    if (!m) {
        error = "unknown pixel mechanism '" + name + "' (choose one of: " + pixel_mechanism_names() + ")";
        return std::nullopt;
    }
    run.mechanism = *m;
    run.label = pixel_run_label(*m, run.policy);
    return run;
}

// Every CUDA pixel mechanism, the pipelined ones once per stage count 1..4, in table order; bulk
// once more with its bulk store (shared -> global) at each stage count.
inline std::vector<PixelRun> pixel_mechanism_sweep() {
    std::vector<PixelRun> out;
    for (const auto& info : cuda::pixel_mechanism_infos()) {
        const int last = pixel_pipelined(info.mechanism) ? 4 : 1;
        for (bool store : {false, true}) {
            if (store && info.mechanism != cuda::PixelMechanism::Bulk) continue;
            for (int st = 1; st <= last; ++st) {
                PixelRun r;
                r.mechanism = info.mechanism;
                if (pixel_pipelined(info.mechanism)) r.policy.stages = st;
                r.policy.bulk_store = store;
                r.label = pixel_run_label(info.mechanism, r.policy);
                out.push_back(r);
            }
        }
    }
    return out;
}

// A named chain, as the check and bench tables show it.
struct PixelCase {
    std::string label;
    std::vector<PixelOp> ops;
};

namespace pixel_detail {

inline PixelOp op(PixelOpKind k, float a = 0, float b = 1, float c = 1) {
    PixelOp o = default_pixel_op(k);
    o.a = a;
    o.b = b;
    o.c = c;
    return o;
}

inline PixelOp matrix(std::array<float, 9> m) {
    PixelOp o = default_pixel_op(PixelOpKind::ColorMatrix);
    o.matrix = m;
    return o;
}

// Tables whose neighbouring entries differ a lot, so an index off by one shows.
inline PixelOp random_lut(unsigned seed) {
    PixelOp o = default_pixel_op(PixelOpKind::Lut);
    std::mt19937 rng(seed);
    for (auto& table : o.lut)
        for (auto& v : table) v = static_cast<std::uint8_t>(rng() & 0xffu);
    return o;
}

} // namespace pixel_detail

// Every op kind alone, with parameters far from identity (its label is the op's name).
inline std::vector<PixelCase> pixel_single_op_cases() {
    using namespace pixel_detail;
    std::vector<PixelCase> out;
    for (const auto& info : pixel_op_infos()) {
        PixelOp o = default_pixel_op(info.kind);
        switch (info.kind) {
        case PixelOpKind::BrightnessContrast: o = op(info.kind, 0.1f, 1.7f); break;
        case PixelOpKind::Gamma: o = op(info.kind, 2.2f); break;
        case PixelOpKind::Saturation: o = op(info.kind, 1.8f); break;
        case PixelOpKind::Grayscale:
        case PixelOpKind::Invert: break;
        case PixelOpKind::Threshold: o = op(info.kind, 0.45f); break;
        case PixelOpKind::Levels: o = op(info.kind, 0.1f, 0.85f, 0.7f); break;
        case PixelOpKind::ColorMatrix: o = matrix({1.2f, -0.3f, 0.1f, -0.2f, 1.1f, 0.1f, 0.05f, -0.4f, 1.35f}); break;
        case PixelOpKind::Lut: o = random_lut(7); break;
        }
        out.push_back({std::string(info.name), {o}});
    }
    return out;
}

// Chains of 1, 3 and 8 ops: arithmetic per pixel grows while the bytes moved stay the same.
// Threshold and Lut turn a last-place difference into a large one and only powf (Gamma, Levels)
// differs in the last place between host and device, so LUTs come before any power.
inline std::vector<PixelCase> pixel_chain_cases() {
    using namespace pixel_detail;
    const PixelOp mixer = matrix({1.2f, -0.3f, 0.1f, -0.2f, 1.1f, 0.1f, 0.05f, -0.4f, 1.35f});
    return {
        {"chain1", {op(PixelOpKind::Invert)}},
        {"chain3", {random_lut(11), op(PixelOpKind::BrightnessContrast, -0.05f, 1.3f), op(PixelOpKind::Gamma, 1.6f)}},
        {"chain8",
         {op(PixelOpKind::Invert), random_lut(13), mixer, op(PixelOpKind::Saturation, 1.5f),
          op(PixelOpKind::BrightnessContrast, 0.05f, 1.2f), op(PixelOpKind::Levels, 0.05f, 0.95f, 1.2f),
          op(PixelOpKind::Gamma, 0.9f), op(PixelOpKind::Invert)}},
    };
}

} // namespace tl::cmd

// Each mechanism really emits the instruction it claims: the SASS of libtilelab_cuda.a (from
// cuobjdump, which needs no GPU) has that instruction in the mechanism's kernels, and the
// plain-load mechanisms have none of the asynchronous-copy instructions.
#include "stencil_api.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace {

// Function name -> its SASS text, for every kernel in the library.
std::map<std::string, std::string> dump_sass() {
    std::map<std::string, std::string> fns;
    // The configure-time path, else the toolkit's usual place, else PATH (the build machine
    // may have had no cuobjdump while the GPU machine does).
    std::string tool = TILELAB_CUOBJDUMP;
    if (tool.empty() || tool.find("NOTFOUND") != std::string::npos) {
        tool = "/usr/local/cuda/bin/cuobjdump";
        if (FILE* f = std::fopen(tool.c_str(), "rb")) std::fclose(f);
        else tool = "cuobjdump";
    }
    const std::string cmd = "\"" + tool + "\" -sass \"" + std::string(TILELAB_CUDA_LIBRARY) + "\" 2>/dev/null";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    if (!pipe) return fns;
    std::array<char, 4096> line{};
    std::string current;
    while (fgets(line.data(), static_cast<int>(line.size()), pipe.get())) {
        const std::string l = line.data();
        const auto pos = l.find("Function : ");
        if (pos != std::string::npos) {
            current = l.substr(pos + 11);
            while (!current.empty() && (current.back() == '\n' || current.back() == ' ')) current.pop_back();
            continue;
        }
        if (!current.empty()) fns[current] += l;
    }
    return fns;
}

const std::map<std::string, std::string>& sass() {
    static const auto s = dump_sass();
    return s;
}

constexpr std::array<const char*, 4> kAsyncInstructions{"LDGSTS", "UTMALDG", "UBLKCP", "UCGABAR_ARV"};

TEST(Sass, EachMechanismKernelContainsItsInstruction) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    for (const auto& m : tl::cuda::mechanism_infos()) {
        const std::string tag = "stencil_" + std::string(m.name) + "_kernel";
        int kernels = 0, with_instruction = 0;
        for (const auto& [name, text] : sass()) {
            if (name.find(tag) == std::string::npos) continue;
            ++kernels;
            if (!m.instruction.empty() && text.find(std::string(m.instruction)) != std::string::npos) ++with_instruction;
        }
        EXPECT_GT(kernels, 0) << "no kernel named *" << tag << "* in the library";
        if (!m.instruction.empty())
            EXPECT_EQ(with_instruction, kernels)
                << m.name << ": " << (kernels - with_instruction) << " of " << kernels << " kernels lack "
                << m.instruction << " (did the async copy fall back to plain loads?)";
    }
}

TEST(Sass, PlainLoadMechanismsUseNoAsyncCopies) {
    if (sass().empty()) GTEST_SKIP() << "cuobjdump not found or the library has no SASS";
    for (const char* plain : {"stencil_global_kernel", "stencil_smem_kernel", "stencil_texture_kernel"}) {
        int kernels = 0;
        for (const auto& [name, text] : sass()) {
            if (name.find(plain) == std::string::npos) continue;
            ++kernels;
            for (const char* ins : kAsyncInstructions)
                EXPECT_EQ(text.find(ins), std::string::npos) << plain << " contains " << ins;
        }
        EXPECT_GT(kernels, 0) << "no kernel named *" << plain << "*";
    }
}

} // namespace

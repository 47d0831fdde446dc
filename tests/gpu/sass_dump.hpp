// The SASS of every kernel in libtilelab_cuda.a, by function name, from cuobjdump (which needs
// no GPU). Shared by the SASS tests of the stencil and per-pixel mechanisms.
#pragma once

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace tl::test {

// Function name -> its SASS text, for every kernel in the library.
inline std::map<std::string, std::string> dump_sass() {
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

// Dumped once per process.
inline const std::map<std::string, std::string>& library_sass() {
    static const auto s = dump_sass();
    return s;
}

} // namespace tl::test

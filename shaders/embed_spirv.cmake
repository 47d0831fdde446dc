# Wraps glslc's -mfmt=num output (comma-separated uint32 words) into a C++ header.
file(READ ${NUM} words)
file(WRITE ${HDR} "// Generated from GLSL by glslc; do not edit.\n#pragma once\n#include <cstdint>\ninline constexpr std::uint32_t ${VAR}[] = {\n${words}\n};\n")

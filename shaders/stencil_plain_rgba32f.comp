#version 450
// Plain stencil filter, RGBA32F buffers (see stencil_plain.glsl).
#define FORMAT_RGBA32F 1
#include "stencil_plain.glsl"

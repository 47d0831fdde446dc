#version 450
// Per-pixel op chain, RGBA32F buffers (see pixel_ops.glsl).
#define FORMAT_RGBA32F 1
#include "pixel_ops.glsl"

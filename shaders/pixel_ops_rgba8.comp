#version 450
// Per-pixel op chain, RGBA8 buffers (see pixel_ops.glsl).
#define FORMAT_RGBA8 1
#include "pixel_ops.glsl"

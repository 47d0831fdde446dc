#version 450
// Shared-memory tiled 3x3 / 5x5 stencil filter, RGBA32F buffers (see stencil_tiled.glsl).
#define FORMAT_RGBA32F 1
#include "stencil_tiled.glsl"

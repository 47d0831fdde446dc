#version 450
// Plain stencil filter, RGBA8 buffers (see stencil_plain.glsl).
#define FORMAT_RGBA8 1
#include "stencil_plain.glsl"

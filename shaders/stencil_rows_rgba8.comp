#version 450
// Separable Box / Gaussian, rows pass from RGBA8 source to the float intermediate (see stencil_separable.glsl).
#define FORMAT_RGBA8 1
#define STENCIL_ROWS 1
#include "stencil_separable.glsl"

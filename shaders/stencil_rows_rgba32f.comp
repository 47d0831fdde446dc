#version 450
// Separable Box / Gaussian, rows pass from RGBA32F source to the float intermediate (see stencil_separable.glsl).
#define FORMAT_RGBA32F 1
#define STENCIL_ROWS 1
#include "stencil_separable.glsl"

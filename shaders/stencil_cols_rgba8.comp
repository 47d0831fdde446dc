#version 450
// Separable Box / Gaussian, columns pass from the float intermediate to RGBA8 destination (see stencil_separable.glsl).
#define FORMAT_RGBA8 1
#include "stencil_separable.glsl"

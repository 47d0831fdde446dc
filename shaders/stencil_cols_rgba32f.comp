#version 450
// Separable Box / Gaussian, columns pass from the float intermediate to RGBA32F destination (see stencil_separable.glsl).
#define FORMAT_RGBA32F 1
#include "stencil_separable.glsl"

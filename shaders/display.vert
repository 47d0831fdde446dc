#version 450
// Display pass vertex shader: one triangle covering the viewport rectangle (set by viewport/scissor).
void main() {
    const vec2 pos = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(pos * 2.0 - 1.0, 0.0, 1.0);
}

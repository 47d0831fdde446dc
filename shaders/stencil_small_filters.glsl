// The 3x3 and 5x5 filters (Sobel, Laplacian, Sharpen, Emboss, User) over a window accessor
// WIN(dx, dy) -> vec4 around centre p, which the including shader defines first (global loads or a
// shared-memory tile). RGB filtered, alpha from the centre.
vec4 small_filter(ivec2 p) {
    const vec4 e = WIN(0, 0);
    if (KIND == KIND_SOBEL) {
        const vec3 a = WIN(-1, -1).rgb, b = WIN(0, -1).rgb, c = WIN(1, -1).rgb;
        const vec3 d = WIN(-1, 0).rgb, f = WIN(1, 0).rgb;
        const vec3 g = WIN(-1, 1).rgb, h = WIN(0, 1).rgb, i = WIN(1, 1).rgb;
        const vec3 gx = (c - a) + 2.0 * (f - d) + (i - g);
        const vec3 gy = (g - a) + 2.0 * (h - b) + (i - c);
        return vec4(sqrt(gx * gx + gy * gy), e.a);
    }
    if (KIND == KIND_LAPLACIAN) {
        const vec3 s = (WIN(-1, 0).rgb + WIN(1, 0).rgb) + (WIN(0, -1).rgb + WIN(0, 1).rgb) -
                       4.0 * e.rgb;
        return vec4(abs(s), e.a);
    }
    if (KIND == KIND_SHARPEN) {
        const vec3 blur = (1.0 / 16.0) *
            ((WIN(-1, -1).rgb + WIN(1, -1).rgb + WIN(-1, 1).rgb + WIN(1, 1).rgb) +
             2.0 * (WIN(0, -1).rgb + WIN(-1, 0).rgb + WIN(1, 0).rgb + WIN(0, 1).rgb) +
             4.0 * e.rgb);
        return vec4(e.rgb + pc.amount * (e.rgb - blur), e.a);
    }
    if (KIND == KIND_EMBOSS) {
        const vec3 s = (WIN(1, 0).rgb + WIN(0, 1).rgb + e.rgb) +
                       2.0 * (WIN(1, 1).rgb - WIN(-1, -1).rgb) - (WIN(0, -1).rgb + WIN(-1, 0).rgb);
        return vec4(s, e.a);
    }
    // KIND_USER: 3x3 or 5x5, scale * sum(w * p) + bias
    const int r = pc.radius;
    const int n = 2 * r + 1;
    vec3 acc = vec3(0.0);
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            acc += weights[(dy + r) * n + dx + r] * WIN(dx, dy).rgb;
    return vec4(pc.scale * acc + pc.bias, e.a);
}

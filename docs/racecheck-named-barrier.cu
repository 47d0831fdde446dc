// compute-sanitizer racecheck on a named-barrier hand-over that is correct by construction
// (session 26, H200, CUDA 13.0, driver 580.159.04). Four writer warps fill a shared buffer and
// `bar.arrive` on barrier 1; one reader warp `bar.sync`s on it, reads, and `bar.arrive`s on
// barrier 2, which the writers `bar.sync` on before they rewrite the buffer: the Box stream's
// hand-over of column sums between its column warps and its teams (tma_box_stream.cu).
//
//   nvcc -arch=sm_90 -lineinfo -o named_bar_race docs/racecheck-named-barrier.cu
//   compute-sanitizer --tool racecheck ./named_bar_race 1   ->  0 hazards
//   compute-sanitizer --tool racecheck ./named_bar_race 2   ->  1 hazard (the reads, line 32)
//
// The sums come out right every time. racecheck takes the writers' second round as racing with
// the reader's first-round loads, so it does not see the reader's bar.arrive -> the writers'
// bar.sync as ordering them. It reports the same on the Box stream wherever a segment has more
// than one block (3840x900 and up), and nothing where every segment is one block (300x257 and
// down, the sizes the gpu-labelled sanitizer tests run).
#include <cstdio>
#include <cstdlib>

__global__ void handover(int rounds, int* out) {
    __shared__ int buf[128];
    const int tid = threadIdx.x;
    if (tid < 128) {  // writers: warps 0-3
        for (int i = 0; i < rounds; ++i) {
            if (i > 0) asm volatile("bar.sync 2, 160;" ::: "memory");  // the reader is done with i - 1
            buf[tid] = i * 1000 + tid;
            asm volatile("bar.arrive 1, 160;" ::: "memory");  // buffer i is in
        }
    } else {  // reader: warp 4
        int s = 0;
        for (int i = 0; i < rounds; ++i) {
            asm volatile("bar.sync 1, 160;" ::: "memory");
            for (int j = 0; j < 4; ++j) s += buf[(tid - 128) * 4 + j];
            if (i + 1 < rounds) asm volatile("bar.arrive 2, 160;" ::: "memory");
        }
        out[tid - 128] = s;
    }
}

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
    int* d = nullptr;
    cudaMalloc(&d, 32 * sizeof(int));
    handover<<<1, 160>>>(rounds, d);
    int h[32] = {};
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int want = 0;
    for (int i = 0; i < rounds; ++i)
        for (int j = 0; j < 4; ++j) want += i * 1000 + j;
    std::printf("%d rounds: lane 0 summed %d (expected %d), %s\n", rounds, h[0], want,
                cudaGetErrorString(cudaGetLastError()));
    cudaFree(d);
    return h[0] == want ? 0 : 1;
}

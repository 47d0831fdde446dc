// How `tilelab bench` times a launch: the median GPU time of many runs over rotating buffer sets,
// measured between two cudaEvents, with each run enqueued behind a short GPU-side delay so the
// host's launch work (validation, tensor-map encoding, parameter packing) overlaps the delay and
// is not counted as GPU time. The host time of each launch call is measured too and reported
// apart. CUDA builds only.
#pragma once

#include "device_buffer.hpp"  // cuda_error_text
#include "stream_delay.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tl::cmd {

class GpuTimer {
public:
    // Longer than any launch call's host time seen (TMA mechanisms encode two tensor maps): the
    // timed work must already be queued when the delay ends.
    static constexpr unsigned kDelayUs = 100;

    GpuTimer() {
        cudaEventCreate(&a_);
        cudaEventCreate(&b_);
    }
    ~GpuTimer() {
        cudaEventDestroy(a_);
        cudaEventDestroy(b_);
    }
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;

    // Median GPU microseconds of `iterations` runs of fn(set), the set rotating, after one untimed
    // pass over every set; fn returns an error text or "". Empty optional with `why` set on error.
    // host_median_us: median host time of the fn calls.
    std::optional<double> median_us(int sets, int iterations, cudaStream_t s, const std::function<std::string(int)>& fn,
                                    std::string& why, double* host_median_us = nullptr) {
        for (int i = 0; i < sets; ++i)
            if (auto r = fn(i); !r.empty()) {
                why = r;
                return std::nullopt;
            }
        std::vector<double> t, host;
        for (int i = 0; i < iterations; ++i) {
            if (auto r = cuda::enqueue_stream_delay(s, kDelayUs); !r.empty()) {
                why = r;
                return std::nullopt;
            }
            cudaEventRecord(a_, s);
            const auto h0 = std::chrono::steady_clock::now();
            if (auto r = fn(i % sets); !r.empty()) {
                why = r;
                return std::nullopt;
            }
            host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count());
            cudaEventRecord(b_, s);
            if (auto e = cudaEventSynchronize(b_); e != cudaSuccess) {
                why = cuda_error_text("cudaEventSynchronize", e);
                (void)cudaGetLastError();
                return std::nullopt;
            }
            float ms = 0;
            cudaEventElapsedTime(&ms, a_, b_);
            t.push_back(double(ms) * 1000.0);
        }
        if (host_median_us) *host_median_us = median(host);
        return median(t);
    }

private:
    static double median(std::vector<double>& v) {
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];
    }
    cudaEvent_t a_{}, b_{};
};

} // namespace tl::cmd

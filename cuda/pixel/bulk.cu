// Mechanism "bulk": the ldgsts ring, but each batch arrives as one-dimensional bulk copies
// (cp.async.bulk ... mbarrier::complete_tx::bytes -> SASS UBLKCP, sm_90) issued by one elected
// thread, completion counted in bytes by an mbarrier per slot; optionally the results leave by
// a bulk copy shared -> global too. The copy engine does the address work: one instruction
// moves up to a whole row piece instead of one LDGSTS per 16 bytes per thread.
#include "pixel_kernels.cuh"

#include <cuda/ptx>

#include <algorithm>

namespace tl::cuda::pixel {

namespace {

namespace ptx = ::cuda::ptx;

// Chunks a thread computes together (the default batch gives each thread 4 per batch).
constexpr int kGroup = 4;

// Issues bulk copies for chunks [first, first + count) of the image: one copy per row piece
// (a batch of a pitched image may span rows; a tightly packed image is one row, one copy).
// Dir = true: global -> shared (completing on `bar`); false: shared -> global (bulk group).
template <bool ToShared>
__device__ __forceinline__ void bulk_row_pieces(const PixelGrid& g, unsigned first, unsigned count, uint4* slot,
                                                std::uint64_t* bar) {
    unsigned c = first;
    const unsigned end = first + count;
    while (c < end) {
        const unsigned row = c / g.row_chunks;
        const unsigned col = c - row * g.row_chunks;
        const unsigned n = min(end - c, g.row_chunks - col);
        uint4* s = slot + (c - first);
        const std::uint32_t bytes = n * 16u;
        if constexpr (ToShared) {
            ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, s,
                               g.src + std::size_t(row) * g.src_pitch + std::size_t(col) * 16u, bytes, bar);
        } else {
            ptx::cp_async_bulk(ptx::space_global, ptx::space_shared,
                               g.dst + std::size_t(row) * g.dst_pitch + std::size_t(col) * 16u, s, bytes);
        }
        c += n;
    }
}

// Ring: (Stages, batch_chunks) uint4 in dynamic shared memory, 128-byte aligned; full[s] is the
// mbarrier of slot s (arrival count 1: the elected thread's arrive.expect_tx; the phase then
// completes when the announced bytes have landed). The CTA's k-th batch uses slot k % Stages and
// waits for phase parity (k / Stages) & 1 of its barrier.
template <class Fmt, int Stages, bool BulkStore>
__global__ void pixel_bulk_kernel(const PixelGrid g, const __grid_constant__ OpsBlock ops, const unsigned batch_chunks) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) uint4 ring[];  // then the chain's LUTs, staged as floats
    StagedLuts& luts = *reinterpret_cast<StagedLuts*>(ring + Stages * batch_chunks);
    __shared__ std::uint64_t full[Stages];
    const bool elected = threadIdx.x == 0;

    // The CTA's batches: b = blockIdx.x, blockIdx.x + gridDim.x, ... (round-robin; one contiguous
    // share per CTA measured slower, as in ldgsts.cu).
    const unsigned num_batches = (g.total_chunks + batch_chunks - 1) / batch_chunks;
    const unsigned batches = blockIdx.x < num_batches ? (num_batches - blockIdx.x + gridDim.x - 1) / gridDim.x : 0u;
    auto batch_first = [&](unsigned k) { return (blockIdx.x + k * gridDim.x) * batch_chunks; };
    auto batch_length = [&](unsigned k) { return min(batch_chunks, g.total_chunks - batch_first(k)); };

    // Elected thread only: announce the bytes, then issue the copies of the CTA's k-th batch.
    auto issue = [&](unsigned k) {
        if (k >= batches) return;
        const unsigned slot = k % Stages;
        const unsigned n = batch_length(k);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[slot], n * 16u);
        bulk_row_pieces<true>(g, batch_first(k), n, ring + slot * batch_chunks, &full[slot]);
    };

    if (elected) {
#pragma unroll
        for (int s = 0; s < Stages; ++s) ptx::mbarrier_init(&full[s], 1);
        // Make the initialised barriers visible to the async proxy that will complete them.
        ptx::fence_proxy_async(ptx::space_shared);
        // Fill the ring first; the block stages the LUTs while those copies fly. (The other threads
        // touch the barriers only after the __syncthreads below.)
#pragma unroll
        for (int s = 0; s < Stages; ++s) issue(unsigned(s));
    }
    load_luts(ops, luts);
    __syncthreads();
    process_tails<Fmt>(g, ops, luts);  // while the first batches land

    for (unsigned k = 0; k < batches; ++k) {
        const unsigned first = batch_first(k);
        const unsigned slot = k % Stages;
        const unsigned n = batch_length(k);
        while (!ptx::mbarrier_try_wait_parity(&full[slot], (k / Stages) & 1u)) {
        }
        uint4* data = ring + slot * batch_chunks;
        process_batch<Fmt, kGroup>(n, ops, luts, [&](unsigned j) { return data[j]; }, [&](unsigned j, uint4 r) {
            if constexpr (BulkStore)
                data[j] = r;  // in place; the slot leaves by bulk copy below
            else
                *reinterpret_cast<uint4*>(g.dst + chunk_offset(g, first + j, g.dst_pitch)) = r;
        });
        if constexpr (BulkStore) {
            // Each writer orders its generic-proxy stores before the async proxy reads them.
            ptx::fence_proxy_async(ptx::space_shared);
        }
        __syncthreads();  // the slot is fully consumed (and, with BulkStore, fully written)
        if (elected) {
            if constexpr (BulkStore) {
                bulk_row_pieces<false>(g, first, n, data, nullptr);
                ptx::cp_async_bulk_commit_group();
                // The slot is refilled next: the store must have finished reading it.
                ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
            }
            issue(k + Stages);
        }
    }
    if constexpr (BulkStore) {
        if (elected) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});  // stores complete before exit
    }
#else
    __trap();  // never launched: can_run_pixel refuses bulk below compute capability 9.0
#endif
}

template <class Fmt, int Stages, bool BulkStore>
Result launch_variant(const LaunchArgs& a, unsigned batch_chunks) {
    const auto kernel = pixel_bulk_kernel<Fmt, Stages, BulkStore>;
    const int block = a.policy.block;
    const std::size_t smem = std::size_t(Stages) * batch_chunks * 16u + staged_lut_bytes(a.ops);
    // Static shared memory counts against the default 48 KiB too, so opt in whenever the
    // dynamic part alone nears it (3 stages x 16 KiB is exactly 48 KiB and did not fit).
    if (smem >= 40u * 1024u) {
        if (auto r = reserve_dynamic_smem(reinterpret_cast<const void*>(kernel), "pixel_bulk_kernel", smem, a.device); !r)
            return r;
    }
    const long long batches = (static_cast<long long>(a.grid.total_chunks) + batch_chunks - 1) / batch_chunks;
    int grid = 0;
    if (auto r = occupancy_grid(reinterpret_cast<const void*>(kernel), "pixel_bulk_kernel", block, smem,
                                std::max<long long>(batches, 1), a.device, grid);
        !r)
        return r;
    kernel<<<grid, block, smem, a.stream>>>(a.grid, a.ops, batch_chunks);
    return launch_outcome("pixel_bulk_kernel");
}

template <class Fmt, bool BulkStore>
Result launch_store(const LaunchArgs& a, unsigned batch_chunks) {
    switch (a.policy.stages) {
    case 1: return launch_variant<Fmt, 1, BulkStore>(a, batch_chunks);
    case 2: return launch_variant<Fmt, 2, BulkStore>(a, batch_chunks);
    case 3: return launch_variant<Fmt, 3, BulkStore>(a, batch_chunks);
    default: return launch_variant<Fmt, 4, BulkStore>(a, batch_chunks);
    }
}

template <class Fmt>
Result launch_fmt(const LaunchArgs& a) {
    const int batch_px = a.policy.batch_pixels;
    const unsigned batch_chunks = batch_px > 0 ? unsigned(batch_px / Fmt::pixels_per_chunk)
                                               : unsigned(default_batch_chunks(PixelMechanism::Bulk, a.policy.block));
    return a.policy.bulk_store ? launch_store<Fmt, true>(a, batch_chunks) : launch_store<Fmt, false>(a, batch_chunks);
}

} // namespace

int bulk_kernel_binary_version() {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, pixel_bulk_kernel<Rgba8, 2, false>) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return attr.binaryVersion;
}

Result launch_bulk(const LaunchArgs& a) {
    return a.grid.format == int(PixelFormat::RGBA8) ? launch_fmt<Rgba8>(a) : launch_fmt<Rgba32f>(a);
}

} // namespace tl::cuda::pixel

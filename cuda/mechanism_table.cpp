// The mechanism table: one row per way of moving a stencil tile; it drives the UI, the command
// line, the benchmark and the tests, so a new mechanism appears everywhere by adding a row here.
#include "stencil_api.hpp"

#include <array>

namespace tl::cuda {

namespace {

constexpr std::array<MechanismInfo, 8> kMechanisms{{
    {Mechanism::Global, "global", "Global loads", 5, 0, "",
     "Every thread computes its own output pixels and reads each of its (2R+1)^2 neighbours with "
     "an ordinary load from global memory. Nothing is staged by the program: the L1 and L2 caches "
     "are what stop neighbouring threads from fetching the same bytes from DRAM again. A byte "
     "crosses DRAM about once (L2 keeps the rows the block works on), but it crosses the L2->SM "
     "path and the load unit up to (2R+1)^2 times, once per neighbour that needs it, and every "
     "load carries its own border test. Cheap for 3x3 filters, where the caches absorb the reuse; "
     "load-instruction bound for wide windows. Needs nothing from the GPU (CC 5.0).",
     {.block = true}},
    {Mechanism::Texture, "texture", "Texture object", 5, 0, "",
     "The source lives in a CUDA array (the layout an optimal-tiled Vulkan image has when it is "
     "shared with CUDA) and is read through a texture object. The texture unit does the border "
     "work in hardware (clamp -> cudaAddressModeClamp, zero -> cudaAddressModeBorder); mirror is "
     "folded in software because CUDA only mirrors normalised coordinates, and its mirror has a "
     "different period at the edge. The block-linear (tiled) layout keeps 2D neighbours in the "
     "same cache lines, so vertical neighbours hit the texture cache as well as horizontal ones. "
     "Each byte still goes through the texture pipe once per neighbour. In the viewer the source "
     "is also kept as a shared optimal-tiled Vulkan image, imported as a CUDA mipmapped array, and "
     "sampled in place. apply, check and bench take linear device pointers, so there this mechanism "
     "first copies the source into a CUDA array it owns: one extra device-to-device read and write "
     "of the image, counted in its time.",
     {.block = true}},
    {Mechanism::Registers, "registers", "Register window", 5, 0, "LDG.E.128",
     "3x3 filters on RGBA8 without shared memory or asynchronous copies: each thread takes 4 "
     "adjacent output columns by 3 output rows at a time, and first loads the 5 input rows it needs "
     "straight into registers, one 16-byte load (LDG.E.128) of its 4 pixels plus two 4-byte "
     "loads of their left and right neighbours per row, all in flight before the first output "
     "is computed. It then slides a 3-row window down them: each row is unpacked once and "
     "serves three output rows, and each output row leaves as one 16-byte store. A warp reads "
     "one 512-byte span per row; the rows just above and below a thread's 3 come again from L2 "
     "for the threads next to it (5 rows read per 3 written). Filters with integer weights "
     "(box, Sobel, Laplacian, sharpen, emboss, and user kernels whose weights are integers or "
     "dyadic fractions) sum in 16-bit integer lanes, two channels per register. On a GPU whose "
     "DRAM outpaces its SMs (see below), user kernels "
     "run in 16-bit fixed point where that is exact or within 1/16 LSB of the exact sum: each "
     "weight times scale becomes an integer q = round(w 2^s), each input row is regrouped once "
     "into byte pairs of one channel (6 PRMT per row of 4 outputs), and one dp2a (IDP.2A.S16.U8 "
     "in SASS: two signed 16-bit weights times two bytes, added to a 32-bit sum) takes two taps, "
     "18 per output where the float form took 27 FFMA; an arithmetic shift per channel and two "
     "saturating packs (cvt.pack.sat.u8.s32, I2IP) end each output (H200 4K non-dyadic weights "
     "25.3-25.6 -> 23.1-23.3 us, 1.15x the copy; on the H100, DRAM-bound, it was 8K 126 us "
     "against 103-110). Other user kernels sum in float one channel "
     "at a time, each byte taken as the float with those bits "
     "(the denormal p x 2^-149, one PRMT and no conversion) against weights scaled by a power of "
     "two (64 registers; all channels at once needed 95), and each sum becomes its byte in one "
     "multiply and one saturating conversion (cvt.rni.sat.u8.f32, F2IP.U8 in SASS) where an "
     "FFMA and two FMNMX did (H200 4K 26.7-26.9 -> 25.4-25.7 us). Wider filters "
     "and RGBA32F are not offered: the window holds 3 rows of 6 packed pixels. Where memory is "
     "fast for the SMs this is issue-bound: on an H200 (4K copy 20.1 us) Sobel took 29.7 us, "
     "as on an H100 (30.4, copy 25.4), with 76% of the issue slots busy (ncu). Since then, on "
     "the H200: Sobel's magnitude in half precision (two channels per HFMA2, one f32 "
     "sqrt.approx per channel; 1 LSB off the exact rounding for 0.07% of gradient pairs), the G "
     "of two neighbouring outputs in one register (6 lane registers per 4 outputs instead of 8), "
     "and, where the GPU has at least 16 DRAM bytes per SM cycle (H200 18.4, H100 12.8), the "
     "heavy filters load an inside item's 5 rows through one address instead of testing each row "
     "against the border (~30 instructions per row), and place a work item with one multiply-"
     "high instead of a division: Sobel 28.6 -> 24.0 us, 1.20x the copy. There the user 3x3 "
     "kernel's integer form (integer weights whose scale is not dyadic, which the fixed-point form "
     "holds only approximately) also ends each channel in one FFMA on the lane's raw float bits, its "
     "lane bias and rounding constant folded in where that is exact: 24.5 -> 23.5 us (1.17x); "
     "sharpen's float finish (amounts that are not dyadic, such as 0.3) likewise reads the lane "
     "under high bits and a bias chosen so that its FFMA needs no FADD before it, moving the "
     "rounding point by at most 2^-12 LSB (0.3: 1.6e-5): 24.6 -> 23.6 us (1.17x). "
     "On the H100 that "
     "load form made them slower (its DRAM prefers the loads spaced out), so there they keep "
     "the per-row test.",
     {}},
    {Mechanism::Smem, "smem", "Shared-memory tile", 5, 0, "",
     "A block cooperatively copies its tile plus a halo of R pixels on every side, "
     "(TILE_H + 2R) x (TILE_W + 2R) pixels, from global into shared memory with ordinary loads "
     "(global -> register -> shared), waits at __syncthreads, and then each thread computes a "
     "column of outputs from shared memory. Each byte crosses DRAM and L2 once (plus the halo "
     "overlap between tiles, 2R/TILE of the image), and shared memory serves all (2R+1)^2 reuses. "
     "Box and Gaussian are computed separably inside the tile (vertical sums into a float strip "
     "in shared memory, then horizontal sums), so the arithmetic per output grows with 2R+1, not "
     "(2R+1)^2. The halo grows with the radius all the same: a 64x32 tile at radius 16 loads "
     "64 x 96 pixels, three times its outputs, each with a border test, and Box r=16 takes about "
     "ten times a copy (H100, 4K: 259 us against 25.6), where tma's streaming kernel takes 1.3x. "
     "A user 5x5 "
     "kernel on RGBA8 sums in float one channel at a time over the raw bytes (each byte the float "
     "with its bits), 4 outputs x 4 rows per thread. The cost: "
     "registers and threads stall while the loads are in flight, and the load->store through "
     "registers is an instruction per 4 or 16 bytes.",
     {.block = true}},
    {Mechanism::Ldgsts, "ldgsts", "LDGSTS async copy", 8, 0, "LDGSTS",
     "Ampere's asynchronous copy (cp.async, SASS LDGSTS) moves 16-byte chunks straight from "
     "global into shared memory without passing through registers; the thread only issues the "
     "copy and later waits on it. Persistent blocks (one grid of #SMs x occupancy) loop over the "
     "tiles and keep the next `stages` tiles in flight in a ring of shared buffers while they "
     "compute the current one, so DRAM latency hides behind arithmetic. 16-byte copies need "
     "16-byte aligned addresses: the tile's x start is aligned down to 4 pixels and a slightly "
     "wider span is loaded; pixels whose source lies outside the image are filled afterwards by "
     "the border rule with plain loads. Each byte crosses DRAM and L2 once (plus the halo), and "
     "the copy costs one instruction per 16 bytes with no register traffic. RGBA8 Sobel, "
     "Laplacian, sharpen and emboss are computed on the bytes in integers, two channels per "
     "32-bit register; a user 5x5 kernel in float over the raw bytes, one channel at a time.",
     {.block = true, .stages = true}},
    {Mechanism::Tma, "tma", "TMA tile", 9, 0, "UTMALDG",
     "Hopper's Tensor Memory Accelerator copies a whole 2D box of the image to shared memory from "
     "one instruction (UTMALDG) issued by a single thread, described by a tensor map made on the "
     "host; the block waits on an mbarrier that the copy signals with the byte count. Address "
     "generation, bounds checks and the zero fill of out-of-bounds parts are done by the copy "
     "engine, not by threads. Each byte crosses DRAM and L2 once (plus the halo). TMA only "
     "fills with zeros, so clamp and mirror borders need a fix-up pass over edge tiles; boxes are "
     "at most 256 per dimension and their inner extent a multiple of 16 bytes. Box on RGBA8 "
     "(radius 2 to 32) streams instead: a block walks down a 128-column strip through a ring of "
     "TMA row boxes keeping integer running sums (down each column, then across the column sums), "
     "so one row enters and one leaves per output row whatever the radius, and borders are read "
     "by folding rows and columns inside the ring. Beyond radius 8 every other segment of a strip "
     "is walked upwards, so two blocks start at a shared edge (and two end at one) and read its "
     "rows from DRAM once. A segment's first output takes its window from the warm-up rows, so "
     "the first block waits for 2R + 16 rows (three 16-row boxes at radius 16), and each strip's "
     "bottom segment is launched first: on an SM the block launched last runs slowest (the "
     "schedulers favour older warps). From radius 8 to 16 (from radius 2 on a GPU whose DRAM "
     "outpaces its SMs, such as the H200) the block is warp-specialised: five warps "
     "sum down the columns while four one-warp teams sum across, each on 4 of a block's 16 "
     "rows, and named barriers (BAR.ARV, BAR.SYNC) hand each team its column sums and back, so "
     "one block's vertical pass overlaps the last one's horizontal pass (288 threads, 71-72 "
     "registers and 61-76 KiB of shared memory per block: three blocks per SM). Below radius 8 the "
     "first team's rows are double-buffered, so the column warps need not wait at each block's "
     "start for that team to finish the block before (on an H200, 4K, radius 2-7: 27.2-28.3 -> "
     "25.9-27.2 us). The warp-specialised ring rows carry the halo the radius needs, rounded "
     "up to 16 bytes, not the 16-pixel class's 16 (148 pixels instead of 164 at radius 5-8: 10% "
     "fewer bytes per TMA box; H200 4K radius 2-7 mean 26.6 -> 26.3 us, H100 4K radius 8 "
     "31.3-31.5 -> 30.7-30.8 us). Up to radius 11 each column warp keeps "
     "the last 2R + 1 pixels of its column in registers, so the pixel that leaves the window is "
     "never read back from shared memory (H200 4K, radius 2-7: 25.9-26.7 -> 25.1-25.9 us, "
     "1.24-1.28x the copy; radius 8: 27.9-28.4 -> 26.4-26.6). From radius 8 on a GPU whose DRAM "
     "outpaces its SMs, the producer issues the next TMA boxes at the end of each block's "
     "vertical pass rather than after the column warps' wait for the first team: the same boxes, "
     "sooner (H200 4K radius 16: 29.6-29.9 -> 29.2-29.6 us, 8K 100.7-101.6 -> 97.7-98.0; on an "
     "H100 it lost, 8K radius 12 106.4 -> 111.2). With that refill, radius 9-15 count "
     "their rows from a few rows above the first window, so that each block's entering rows "
     "fill exactly one TMA box, as at radius 8 and 16, and the ring is one box shallower (H200 "
     "4K radius 9: 26.8-27.2 -> 26.1-26.5 us, radius 12: 28.0-28.2 -> 27.2-27.5). The block "
     "that reaches past the image's top or bottom edge folds each of its rows once per warp "
     "(one lane a row, the offsets shuffled to the others) instead of in every lane; it had "
     "taken ~6 us instead of ~1.5 (radius 12-16). In the 8-row "
     "blocks the smaller radii take elsewhere, output rows leave the same "
     "way they came: written to shared memory (128-byte swizzled), then stored by TMA boxes "
     "(UTMASTG); wider radii store from registers, neighbouring lanes trading 16-byte pieces so "
     "that every store writes whole 32-byte sectors. Gaussian on RGBA8 "
     "(every sigma, 0.5-10) streams too, down 64-column strips through a ring of 8-row TMA boxes "
     "(128-column strips of 8 warps from radius 9: 24 warps per SM instead of 20, on an H200 "
     "4K sigma 3 35.7-36.2 -> 35.3 us), and each warp runs the two 1D passes on 16 columns as "
     "band-matrix products on the tensor cores "
     "(mma.sync, HMMA in SASS), keeping the last rows' horizontal results in registers (from "
     "radius 9 the vertical pass takes two 8-row blocks per m16n8k16, 6 HMMA per warp and step "
     "instead of 12, on a window that stays in fixed registers while the weights follow it, and "
     "the ring offsets and output address just advance each step: on an H200 4K sigma 3 went "
     "34.7-34.9 -> 30.0-30.1 us in session 25, 1.5x the copy): bytes "
     "become fp16 exactly and sums stay fp32, within a third of a level of the reference. Above "
     "sigma 4 (radius 13-30) the same kernel takes wider bands, 4 warps of 118-164 registers "
     "each: (3, 5), (4, 7) or (5, 9) 16-column k-blocks and 8-row blocks, 24-42 HMMA per warp and "
     "step, and its time follows that tensor-core work (H200 4K sigma 5 / 7 / 10: 41 / 52 / 69 us, "
     "2.1-3.5x the copy; sigma 10 took 1071 us on the tile path before). These "
     "two streaming kernels ignore the tile size (and take the tile path when a TMA store is "
     "asked for). Their strips are cut where per-block clocks showed the time going: the "
     "Gaussian's edge strips, which fold columns in every warp, take more and shorter segments "
     "where the GPU has block slots to spare, and from radius 12 the Box's top and bottom "
     "segments, which fold the border rows, are a block shorter (on an H200, 4K: Gaussian sigma "
     "3 30.5-30.9 -> 29.1-29.6 us, 1.46x the copy; box radius 16 32.2-32.4 -> 30.8-31.1). The "
     "RGBA8 3x3 filters (Sobel, Laplacian, sharpen, emboss, box "
     "r=1) are computed on the bytes in integers, two channels per 32-bit register, with column "
     "sums shared by neighbouring outputs; only Sobel's magnitude (fp16 pairs, then one f32 "
     "sqrt per channel) and sharpen's amount use float. "
     "A user 3x3 or 5x5 kernel sums in float one channel at a time over the raw bytes (each byte "
     "read as the denormal float with its bits, as on `registers`, so a byte costs one PRMT and "
     "a tap one FFMA); for 5x5, each converted row is added into the sums of every output row "
     "whose window holds it, so 16 sums are open at once and the kernel holds 80 registers.",
     {.tile = true, .stages = true, .tma_store = true}},
    {Mechanism::TmaWs, "tma_ws", "TMA warp-specialised", 9, 0, "UTMALDG",
     "The TMA mechanism with warp specialisation: one producer warp only issues TMA copies into "
     "a ring of `stages` shared buffers and waits for slots to be released; consumer warps only "
     "wait on the full barriers, compute and release the slot. Loads of later tiles overlap the "
     "math of the current one without the consumers spending a single instruction on address "
     "arithmetic. Each byte crosses DRAM and L2 once (plus the halo); the price is a warp that "
     "does no math and the barrier traffic per stage. The consumers compute as tma does (RGBA8 "
     "3x3 filters in integers, two channels per register; a user 5x5 kernel in float over the "
     "raw bytes, one channel at a time).",
     {.tile = true, .stages = true}},
    {Mechanism::Cluster, "cluster", "Thread-block cluster", 9, 0, "UCGABAR_ARV",
     "Hopper thread-block clusters: the CTAs of a cluster (stacked along y) run at the same time "
     "on neighbouring SMs and can read each other's shared memory (distributed shared memory). "
     "Each CTA loads its own tile once; the halo rows that a neighbouring CTA of the same cluster "
     "already holds are read from that CTA's shared memory over the SM-to-SM network instead of "
     "being fetched again from L2, so halo bytes cross L2 once per cluster rather than once per "
     "block. The CTAs meet at a cluster barrier (SASS UCGABAR_ARV / UCGABAR_WAIT) before reading "
     "a neighbour's tile and again before any of them may exit: that wait is the price of sharing.",
     {.tile = true, .cluster_size = true}},
}};

} // namespace

std::span<const MechanismInfo> mechanism_infos() { return kMechanisms; }

const MechanismInfo& mechanism_info(Mechanism m) {
    for (const auto& row : kMechanisms)
        if (row.mechanism == m) return row;
    return kMechanisms.front();  // unreachable: every enum value has a row
}

std::optional<Mechanism> parse_mechanism(std::string_view name) {
    for (const auto& row : kMechanisms)
        if (row.name == name) return row.mechanism;
    return std::nullopt;
}

} // namespace tl::cuda

// Mechanism "tma": Hopper tile movement (kernel lands in the next commit; until then it refuses).
#include "mechanisms.hpp"

namespace tl::cuda::detail {

Result launch_tma(const LaunchArgs&) {
    return Result::fail("tma: kernel not built yet in this revision of the library");
}

} // namespace tl::cuda::detail

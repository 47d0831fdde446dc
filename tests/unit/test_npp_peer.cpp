// The bench's NPP peer plugin when it cannot be used: a missing file, a library that is not the
// plugin, and the default search path (no GPU or NPP needed: nothing is loaded successfully).
#if TILELAB_HAVE_CUDA
#include "stencil/npp_peer.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

TEST(NppPeer, MissingFileSaysNotLoadedWithTheLoaderReason) {
    std::string why;
    auto peer = tl::cuda::NppPeer::open("/nonexistent/dir/libtilelab_npp.so", why);
    EXPECT_EQ(peer, nullptr);
    EXPECT_EQ(why.rfind("NPP peer not loaded: ", 0), 0u) << why;
    EXPECT_NE(why.find("/nonexistent/dir/libtilelab_npp.so"), std::string::npos) << why;
    EXPECT_NE(why.find("No such file"), std::string::npos) << why;
}

TEST(NppPeer, LibraryWithoutTheEntryPointsIsRefusedByName) {
    // libm is on every glibc system and exports none of the plugin's symbols.
    std::string why;
    auto peer = tl::cuda::NppPeer::open("libm.so.6", why);
    EXPECT_EQ(peer, nullptr);
    EXPECT_EQ(why.rfind("NPP peer not loaded: ", 0), 0u) << why;
    EXPECT_NE(why.find("tilelab_npp_"), std::string::npos) << why;
}

TEST(NppPeer, EnvironmentVariableChoosesThePluginPath) {
    const char* old = std::getenv("TILELAB_NPP_PLUGIN");
    const std::string saved = old ? old : "";
    setenv("TILELAB_NPP_PLUGIN", "/opt/somewhere/libtilelab_npp.so", 1);
    EXPECT_EQ(tl::cuda::default_npp_plugin_path(), "/opt/somewhere/libtilelab_npp.so");
    unsetenv("TILELAB_NPP_PLUGIN");
    const std::string beside = tl::cuda::default_npp_plugin_path();
    EXPECT_NE(beside.find("/libtilelab_npp.so"), std::string::npos) << beside;
    EXPECT_NE(beside, "/opt/somewhere/libtilelab_npp.so");
    if (old) setenv("TILELAB_NPP_PLUGIN", saved.c_str(), 1);
}

TEST(NppPeer, FormulaMatchIsHonestAboutSobelAndLaplacian) {
    using tl::FilterKind;
    EXPECT_TRUE(tl::cuda::NppPeer::match({.kind = FilterKind::Box}).same_formula);
    EXPECT_TRUE(tl::cuda::NppPeer::match({.kind = FilterKind::Gaussian}).same_formula);
    EXPECT_FALSE(tl::cuda::NppPeer::match({.kind = FilterKind::Sobel}).same_formula);
    EXPECT_FALSE(tl::cuda::NppPeer::match({.kind = FilterKind::Laplacian}).same_formula);
    tl::FilterParams user{.kind = FilterKind::UserKernel};
    user.user_bias = 0.25f;
    EXPECT_FALSE(tl::cuda::NppPeer::match(user).same_formula);
}

TEST(NppPeer, FixedGaussianOnlyWhereNppHasTheMaskSize) {
    using tl::cuda::NppPeer;
    using tl::cuda::NppVariant;
    tl::FilterParams g{.kind = tl::FilterKind::Gaussian};
    g.sigma = 0.5f;  // radius 2: 5x5
    EXPECT_TRUE(NppPeer::has(g, NppVariant::FixedGaussian));
    EXPECT_FALSE(NppPeer::match(g, NppVariant::FixedGaussian).same_formula);
    g.sigma = 2.3f;  // radius 7: 15x15, NPP's largest
    EXPECT_TRUE(NppPeer::has(g, NppVariant::FixedGaussian));
    g.sigma = 3.0f;  // radius 9: 19x19
    EXPECT_FALSE(NppPeer::has(g, NppVariant::FixedGaussian));
    EXPECT_FALSE(NppPeer::has({.kind = tl::FilterKind::Box}, NppVariant::FixedGaussian));
    EXPECT_TRUE(NppPeer::has({.kind = tl::FilterKind::Box}, NppVariant::Closest));
}

} // namespace
#endif

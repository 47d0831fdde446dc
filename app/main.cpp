// tilelab: parse the command line, make the Vulkan context, add the viewer, run.
#include "app.hpp"
#include "cli.hpp"
#include "commands/commands.hpp"
#include "cuda_stage.hpp"
#include "viewer.hpp"
#include "vk/compute_filters.hpp"
#include "vk/context.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

int main(int argc, char** argv) {
    CLI::App cli{"tilelab: 2D stencil filters on the GPU, and what each way of moving the data costs.\n"
                 "Without a subcommand it opens the interactive viewer (or renders offscreen with --headless)."};
    cli.footer("Examples:\n"
               "  tilelab --filter gaussian --sigma 3 --view split\n"
               "  tilelab --headless --frames 30 --screenshot out.png --generate zone-plate --view diff\n"
               "  tilelab apply --help    tilelab check --help    tilelab bench --help");
    cli.set_version_flag("--version", std::string("tilelab ") + TILELAB_VERSION);
    tl::CommandLine command_line(cli);
    tl::cmd::Commands commands(cli);
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return cli.exit(e);
    } catch (const CLI::ExtrasError& e) {
        cli.exit(e);
        std::cerr << "\n" << cli.help();
        return 2;
    } catch (const CLI::ParseError& e) {
        const int rc = cli.exit(e);
        return rc == 0 ? 0 : 2;
    }
    if (auto rc = commands.run()) return *rc;

    std::string error;
    const auto options = command_line.resolve(error);
    if (!options) {
        std::fprintf(stderr, "tilelab: %s\nRun with --help for more information.\n", error.c_str());
        return 2;
    }

    try {
        std::unique_ptr<tl::Window> window;
        if (!options->app.headless) {
            std::string why;
            window = tl::Window::open(options->app, why);
            if (!window) {
                std::fprintf(stderr,
                             "tilelab: cannot open a window: %s.\n"
                             "To render without a display, run headless, e.g.\n"
                             "  tilelab --headless --frames 30 --screenshot out.png\n",
                             why.c_str());
                return 1;
            }
        }
        tl::vk::ContextOptions context_options;
        context_options.validation = options->validate;
        context_options.want_swapchain = window != nullptr;
        if (window) context_options.instance_extensions = tl::Window::required_instance_extensions();
        for (const char* ext : tl::vk::ComputeFilters::required_device_extensions())
            context_options.optional_device_extensions.emplace_back(ext);
        // The Vulkan device is chosen to be the CUDA device (UUID), with the sharing extensions.
        tl::InteropDecision interop = tl::prepare_interop(context_options);
        tl::vk::Context context(context_options);
        tl::finish_interop(interop, context);

        int rc = 0;
        {
            tl::App app(context, options->app, window.get());
            tl::ViewerSetup setup = options->viewer;
            setup.interop = interop;
            app.add(std::make_shared<tl::Viewer>(std::move(setup)));
            rc = app.run();
        }
        if (context.validation_enabled())
            std::fprintf(stderr, "Vulkan validation: %u messages\n", context.validation_messages());
        return rc;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tilelab: %s\n", e.what());
        return 1;
    }
}

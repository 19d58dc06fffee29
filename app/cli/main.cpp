// glueprof: the headless CLI. Parses the command line, runs the chosen command and maps errors to
// the documented exit codes (docs/cli.md): 0 ok, 1 usage, 2 input/IO/config, 3 regression.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/Progress.h"
#include "app/cli/RankLauncher.h"
#include "profiler/core/Error.h"

int main(int argc, char** argv) {
    using namespace glueprof;
    CLI::App app{"glueprof: where an LLM fine-tuning step loses time outside the math kernels"};
    app.require_subcommand(1);
    cli::Action action;
    cli::registerAbCommand(app, action);
    cli::registerRunCommand(app, action);
    cli::registerListCommand(app, action);
    cli::registerAdviseCommand(app, action);
    cli::registerCheckCommand(app, action);
    cli::registerExportCommand(app, action);
    cli::registerReportCommand(app, action);
    cli::registerSimulateCommand(app, action);
    cli::registerImportCommand(app, action);
    cli::registerCompareCommand(app, action);
    cli::registerProfileCommand(app, action);
    cli::registerDoctorCommand(app, action);
    cli::rememberCommandLine(argc, argv);  // what `--nproc` starts each rank with
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // A first word that is no command: name it and the commands, not only "a subcommand is
        // required".
        std::string commands;
        bool known = false;
        for (const CLI::App* sub : app.get_subcommands({})) {
            commands += (commands.empty() ? "" : ", ") + sub->get_name();
            known = known || (argc > 1 && sub->get_name() == argv[1]);
        }
        if (argc > 1 && argv[1][0] != '-' && !known) {
            std::cerr << "glueprof: unknown command '" << argv[1] << "'; the commands are "
                      << commands << " (see glueprof --help)\n";
            return static_cast<int>(ExitCode::kUsage);
        }
        std::cerr << "glueprof: " << e.what() << " (see glueprof --help)\n";
        return static_cast<int>(ExitCode::kUsage);
    }
    try {
        return action ? action() : static_cast<int>(ExitCode::kUsage);
    } catch (const GlueprofError& e) {
        cli::endProgressLine();  // the message starts its own line
        std::cerr << cli::messagePrefix() << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        // Only the first line: libtorch appends a backtrace to its messages.
        std::string message = e.what();
        std::cerr << cli::messagePrefix()
                  << "internal error: " << message.substr(0, message.find('\n')) << "\n";
        return static_cast<int>(ExitCode::kInput);
    }
}

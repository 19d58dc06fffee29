#include "app/cli/CliMain.h"

#include <cctype>
#include <exception>
#include <iostream>
#include <string>

#include "app/cli/ErrorLine.h"
#include "profiler/core/Error.h"

namespace glueprof::cli {

int runCommandLine(int argc, char** argv, const Registration& registerCommands) {
    CLI::App app{"glueprof: where an LLM fine-tuning step loses time outside the math kernels"};
    app.require_subcommand(1);
    Action action;
    registerCommands(app, action);
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
        // An option the command does not have: name it, not every word CLI11 could not place
        // ("-- --bogus" for `profile --bogus -- CMD`).
        if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && known) {
            const CLI::App* command = app.get_subcommand(argv[1]);
            for (int i = 2; i < argc && std::string(argv[i]) != "--"; ++i) {
                const std::string word = argv[i];
                // Not an option: a value ("-1", "-0.5") or the program's words after "--".
                if (word.size() < 2 || word[0] != '-' || std::isdigit(word[1]) != 0) continue;
                const std::string name = word.substr(0, word.find('='));
                bool has = false;
                for (const CLI::Option* option : command->get_options())
                    has = has || option->check_name(name);
                if (has) continue;
                std::cerr << "glueprof: " << argv[1] << " has no option '" << name
                          << "' (see glueprof " << argv[1] << " --help)\n";
                return static_cast<int>(ExitCode::kUsage);
            }
        }
        std::cerr << "glueprof: " << e.what() << " (see glueprof --help)\n";
        return static_cast<int>(ExitCode::kUsage);
    }
    try {
        return action ? action() : static_cast<int>(ExitCode::kUsage);
    } catch (const GlueprofError& e) {
        endProgressLine();  // the message starts its own line
        std::cerr << messagePrefix() << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        // Only the first line: libtorch appends a backtrace to its messages.
        std::string message = e.what();
        std::cerr << messagePrefix() << "internal error: " << message.substr(0, message.find('\n'))
                  << "\n";
        return static_cast<int>(ExitCode::kInput);
    }
}

}  // namespace glueprof::cli

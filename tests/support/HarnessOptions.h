#pragma once
// The command line of a test harness binary (the fuzzers of tests/fuzz): `--name VALUE` options,
// each read by a setter, and `--flag` switches. An unknown option or one without its value ends
// the process with exit 2 and one line naming it, as a usage error of glueprof's own does.
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>

namespace glueprof::testing {

struct HarnessOptions {
    std::map<std::string, std::function<void(const std::string&)>> valued;
    std::map<std::string, std::function<void()>> switches;

    void parse(const char* tool, int argc, char** argv) const {
        for (int i = 1; i < argc; ++i) {
            const std::string name = argv[i];
            if (const auto s = switches.find(name); s != switches.end()) {
                s->second();
                continue;
            }
            const auto v = valued.find(name);
            if (v == valued.end()) {
                std::cerr << tool << ": unknown option '" << name << "'\n";
                std::exit(2);
            }
            if (i + 1 >= argc) {
                std::cerr << tool << ": " << name << " needs a value\n";
                std::exit(2);
            }
            v->second(argv[++i]);
        }
    }
};

}  // namespace glueprof::testing

#pragma once
// Runs the real glueprof binary (GLUEPROF_CLI) as a user would, each test in its own temporary
// directory: exit code, stdout and stderr of one command, and helpers for files. CliTest is the
// fixture of the command tests (AbCommandTest.cpp, RunCommandTest.cpp, ... one file per command).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/profiler/import/ImportFixtures.h"

namespace glueprof::testing {

struct CliResult {
    int exitCode = -1;
    std::string out;
    std::string err;
};

class CliHarness : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = std::filesystem::temp_directory_path() /
                (std::string("glueprof-cli-") +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }

    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    // `glueprof ARGS` with ENVIRONMENT ("NAME=value ...") before it, stdout and stderr caught in
    // the files STDOUT_NAME and STDERR_NAME of the test's directory (distinct names let commands
    // run at once).
    CliResult run(const std::string& args, const std::string& environment = "",
                  const std::string& stdoutName = "out.txt",
                  const std::string& stderrName = "err.txt") const {
        return runBinary(GLUEPROF_CLI, args, environment, stdoutName, stderrName);
    }

    // The same with another executable (a copy of glueprof, glueprof-torch).
    CliResult runBinary(const std::string& binary, const std::string& args,
                        const std::string& environment = "",
                        const std::string& stdoutName = "out.txt",
                        const std::string& stderrName = "err.txt") const {
        const std::string command = environment + (environment.empty() ? "" : " ") + binary + " " +
                                    args + " >" + path(stdoutName) + " 2>" + path(stderrName);
        const int status = std::system(command.c_str());
        CliResult r;
        r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = slurp(path(stdoutName));
        r.err = slurp(path(stderrName));
        return r;
    }

    static std::string slurp(const std::string& file) {
        std::ifstream in(file, std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

    std::filesystem::path m_dir;
};

// One fixture class for every file of the suite: GoogleTest refuses a suite whose tests derive
// from different classes (as a class of the same name in each file's anonymous namespace would).
class CliTest : public CliHarness {
  protected:
    // A real trace of tests/fixtures/import (ImportFixtures.h), for `import` and `compare`.
    static std::string sharedFixture(const std::string& name) { return importFixture(name); }
};

}  // namespace glueprof::testing

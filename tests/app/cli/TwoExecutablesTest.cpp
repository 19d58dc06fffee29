// glueprof and glueprof-torch (docs/cli.md, "Two executables"): the commands that read and write
// databases run without libtorch; the others are handed to glueprof-torch beside glueprof, and
// without it they fail with the documented message and exit code.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

using Result = testing::CliResult;
using testing::CliTest;

// The libraries the dynamic loader initialized, as LD_DEBUG=libs names them ("calling init:
// /path/libtorch_cpu.so"): their file names, one per line. Its search paths are not counted (a
// libtorch folder on LD_LIBRARY_PATH is named there whether or not one is loaded).
std::string initializedLibraries(const std::string& loaderLog) {
    std::istringstream lines(loaderLog);
    std::string line;
    std::string names;
    const std::string mark = "calling init: ";
    while (std::getline(lines, line)) {
        const std::size_t at = line.find(mark);
        if (at == std::string::npos) continue;
        names += std::filesystem::path(line.substr(at + mark.size())).filename().string() + "\n";
    }
    return names;
}

bool loadsTorch(const std::string& loaderLog) {
    const std::string names = initializedLibraries(loaderLog);
    return names.find("libtorch") != std::string::npos || names.find("libc10") != std::string::npos;
}

TEST_F(CliTest, DatabaseCommandsLoadNoLibtorchAndTorchCommandsDo) {
    const std::string db = path("t.sqlite");
    Result imported =
        run("import " + sharedFixture("kineto/hta-trace_compare-base.json.gz") + " --db " + db,
            "LD_DEBUG=libs");
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    EXPECT_NE(initializedLibraries(imported.err).find("libsqlite3"), std::string::npos)
        << "no LD_DEBUG output: " << imported.err;
    EXPECT_FALSE(loadsTorch(imported.err)) << initializedLibraries(imported.err);

    Result report =
        run("report --db " + db + " --format json --out " + path("r.json"), "LD_DEBUG=libs");
    ASSERT_EQ(report.exitCode, 0) << report.err;
    EXPECT_FALSE(loadsTorch(report.err)) << initializedLibraries(report.err);

    Result doctor = run("doctor", "LD_DEBUG=libs");
    ASSERT_EQ(doctor.exitCode, 0) << doctor.err;
    EXPECT_NE(initializedLibraries(doctor.err).find("libtorch_cpu.so"), std::string::npos)
        << initializedLibraries(doctor.err);
    EXPECT_NE(doctor.out.find("libtorch "), std::string::npos) << doctor.out;
}

// A glueprof copied away from its glueprof-torch: the database commands still run; a torch
// command exits 2 naming the missing executable and where it looked, and writes nothing.
TEST_F(CliTest, ATorchCommandWithoutGlueprofTorchBesideItExitsTwoNamingIt) {
    const std::filesystem::path alone = path("alone");
    std::filesystem::create_directories(alone);
    std::filesystem::copy_file(GLUEPROF_CLI, alone / "glueprof");
    const std::string glueprof = (alone / "glueprof").string();
    const std::string db = path("t.sqlite");

    const Result refused = runBinary(glueprof, "run --preset tiny --steps 1 --db " + db);
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_NE(refused.err.find("glueprof: cannot start " + (alone / "glueprof-torch").string() +
                               " (No such file or directory), which runs 'run'; build it (make "
                               "build) or install it beside glueprof"),
              std::string::npos)
        << refused.err;
    EXPECT_FALSE(std::filesystem::exists(db));

    const Result imported =
        runBinary(glueprof, "import " + sharedFixture("kineto/hta-trace_compare-base.json.gz") +
                                " --db " + db);
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    const Result listed = runBinary(glueprof, "list --db " + db);
    ASSERT_EQ(listed.exitCode, 0) << listed.err;
    EXPECT_NE(listed.out.find("hta-trace_compare-base.json.gz"), std::string::npos);
    const Result help = runBinary(glueprof, "--help");
    ASSERT_EQ(help.exitCode, 0);
    EXPECT_NE(help.out.find("one traced run of the reference trainer"), std::string::npos);
}

// glueprof-torch alone has every command, the database ones too.
TEST_F(CliTest, GlueprofTorchAloneRunsTheDatabaseCommandsToo) {
    const std::string torch =
        (std::filesystem::path(GLUEPROF_CLI).parent_path() / "glueprof-torch").string();
    const std::string db = path("t.sqlite");
    const Result imported = runBinary(
        torch, "import " + sharedFixture("kineto/hta-trace_compare-base.json.gz") + " --db " + db);
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    const Result listed = runBinary(torch, "list --db " + db);
    ASSERT_EQ(listed.exitCode, 0) << listed.err;
    EXPECT_NE(listed.out.find("hta-trace_compare-base.json.gz"), std::string::npos);
}

}  // namespace
}  // namespace glueprof

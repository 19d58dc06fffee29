// glueprof and glueprof-torch (docs/cli.md, "Two executables"): the commands that read and write
// databases run without libtorch; the others are handed to glueprof-torch beside glueprof, and
// without it they fail with the documented message and exit code.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

using Result = testing::CliResult;
using testing::CliTest;

// The dynamic loader's own account (LD_DEBUG=libs names every library it initializes): an import
// and a report load no libtorch, doctor does.
TEST_F(CliTest, DatabaseCommandsLoadNoLibtorchAndTorchCommandsDo) {
    const std::string db = path("t.sqlite");
    Result imported =
        run("import " + sharedFixture("kineto/hta-trace_compare-base.json.gz") + " --db " + db,
            "LD_DEBUG=libs");
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    EXPECT_NE(imported.err.find("calling init: "), std::string::npos) << "no LD_DEBUG output";
    EXPECT_EQ(imported.err.find("libtorch"), std::string::npos) << imported.err;
    EXPECT_EQ(imported.err.find("libc10"), std::string::npos) << imported.err;

    Result report =
        run("report --db " + db + " --format json --out " + path("r.json"), "LD_DEBUG=libs");
    ASSERT_EQ(report.exitCode, 0) << report.err;
    EXPECT_EQ(report.err.find("libtorch"), std::string::npos) << report.err;

    Result doctor = run("doctor", "LD_DEBUG=libs");
    ASSERT_EQ(doctor.exitCode, 0) << doctor.err;
    EXPECT_NE(doctor.err.find("libtorch_cpu.so"), std::string::npos) << doctor.err;
    EXPECT_NE(doctor.out.find("libtorch "), std::string::npos) << doctor.out;
}

// A glueprof copied away from its glueprof-torch: the database commands still work; a torch command
// exits 2 naming the missing executable and where it looked, and writes nothing.
TEST_F(CliTest, ATorchCommandWithoutGlueprofTorchBesideItExitsTwoNamingIt) {
    const std::filesystem::path alone = path("alone");
    std::filesystem::create_directories(alone);
    std::filesystem::copy_file(GLUEPROF_CLI, alone / "glueprof");
    const std::string glueprof = (alone / "glueprof").string();
    const std::string db = path("t.sqlite");
    const std::string command = glueprof + " run --preset tiny --steps 1 --db " + db + " >" +
                                path("out.txt") + " 2>" + path("err.txt");
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
    const std::string err = slurp(path("err.txt"));
    EXPECT_NE(err.find("glueprof: cannot start " + (alone / "glueprof-torch").string()),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("which runs 'run'; build it (make build) or install it beside glueprof"),
              std::string::npos)
        << err;
    EXPECT_FALSE(std::filesystem::exists(db));

    const std::string list = glueprof + " --help >" + path("out.txt") + " 2>&1";
    ASSERT_EQ(std::system(list.c_str()), 0);
    EXPECT_NE(slurp(path("out.txt")).find("one traced run of the reference trainer"),
              std::string::npos);
}

}  // namespace
}  // namespace glueprof

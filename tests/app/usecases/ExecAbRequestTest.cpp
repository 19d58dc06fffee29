// The pure parts of the program use cases: commands split as a shell splits words, a profiled
// program's label.
#include <gtest/gtest.h>

#include "app/usecases/ExecAbRequest.h"
#include "app/usecases/ProfileRequest.h"
#include "profiler/core/Error.h"

namespace glueprof {
namespace {

using Words = std::vector<std::string>;

TEST(ExecAbRequestTest, CommandsSplitAsAShellSplitsWordsWithoutExpanding) {
    EXPECT_EQ(splitCommand("python3 train.py --steps 4"),
              (Words{"python3", "train.py", "--steps", "4"}));
    EXPECT_EQ(splitCommand("  a   'b c'  \"d \\\"e\\\"\" f\\ g "),
              (Words{"a", "b c", "d \"e\"", "f g"}));
    EXPECT_EQ(splitCommand("echo $HOME '' \"\""), (Words{"echo", "$HOME", "", ""}));
    EXPECT_EQ(splitCommand(""), Words{});
    try {
        splitCommand("python3 'train.py");
        FAIL() << "an unterminated quote was accepted";
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kUsage);
        EXPECT_NE(std::string(e.what()).find("unterminated single quote"), std::string::npos);
    }
}

TEST(ExecAbRequestTest, AProfiledProgramIsLabelledByItsScriptOrModule) {
    EXPECT_EQ(programLabel({"python3", "-u", "dir/train.py", "--x"}), "train.py");
    EXPECT_EQ(programLabel({"python", "-m", "pkg.train"}), "pkg.train");
    EXPECT_EQ(programLabel({"torchrun", "--nproc-per-node", "2", "ft.py"}), "ft.py");
    EXPECT_EQ(
        programLabel({"python3", "-m", "torch.distributed.run", "--nproc-per-node", "2", "ddp.py"}),
        "ddp.py");
    EXPECT_EQ(programLabel({"/opt/bin/trainer", "8"}), "trainer");
}

TEST(ExecAbRequestTest, ABadRequestIsAUsageErrorBeforeAnythingRuns) {
    ExecAbRequest request;
    request.baseline = {"true"};
    try {
        runExecAb(request);
        FAIL();
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kUsage);
    }
    request.optimized = {"true"};
    request.optimizedEnvironment = {"NOEQUALS"};
    try {
        runExecAb(request);
        FAIL();
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kUsage);
        EXPECT_NE(std::string(e.what()).find("'NOEQUALS' is no NAME=VALUE"), std::string::npos);
    }
}

}  // namespace
}  // namespace glueprof

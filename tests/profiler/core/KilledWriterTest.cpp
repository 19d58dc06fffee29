// A writer SIGKILLed mid-run (a real child process) leaves a readable database in which every
// step that has a steps row also has all of its events, and the run reads as "aborted".
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceWriter.h"

namespace glueprof {
namespace {

constexpr int kEventsPerStep = 500;

[[noreturn]] void writeStepsForever(const std::string& db) {
    TraceWriter writer(db);
    RunId run = writer.beginRun(RunInfo{"killed", "", "", "{}", "[]", "{}", "", {}});
    LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
    StringId name = writer.intern("work");
    for (std::int32_t step = 0;; ++step) {
        for (int i = 0; i < kEventsPerStep; ++i) {
            Event e;
            e.run = run;
            e.lane = lane;
            e.name = name;
            e.startNs = step * 1000000 + i;
            e.endNs = e.startNs + 1;
            e.step = step;
            writer.record(e);
        }
        writer.recordStep(StepRecord{
            run,
            StepInfo{step, step * 1000000, step * 1000000 + kEventsPerStep, false, 0, 1.0, 0}});
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

TEST(KilledWriterTest, SigkillMidRunKeepsEveryFinishedStepWithAllItsEvents) {
    const std::string db = (std::filesystem::temp_directory_path() /
                            ("glueprof-killed-" + std::to_string(getpid()) + ".sqlite"))
                               .string();
    std::filesystem::remove(db);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) writeStepsForever(db);

    std::int64_t steps = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (steps < 5 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        try {
            auto runs = TraceReader(db).listRuns();
            if (!runs.empty()) steps = runs[0].stepCount;
        } catch (const std::exception&) {
            // the child has not created the schema yet
        }
    }
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_GE(steps, 5) << "the child wrote too few steps before the deadline";

    TraceReader reader(db);
    auto runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, "running");
    EXPECT_EQ(runs[0].displayStatus(), "aborted");
    TraceModel model = reader.loadRun(runs[0].id);
    std::map<std::int32_t, int> eventsPerStep;
    for (const Event& e : model.eventsOnLane(0)) ++eventsPerStep[e.step];
    ASSERT_GE(model.steps().size(), 5u);
    for (const StepInfo& s : model.steps()) {
        EXPECT_EQ(eventsPerStep[s.step], kEventsPerStep) << "step " << s.step;
    }
    std::filesystem::remove(db);
    std::filesystem::remove(db + "-wal");
    std::filesystem::remove(db + "-shm");
}

}  // namespace
}  // namespace glueprof

#pragma once
// The one A/B entry point: validates a request (toggles, then RecordingChecks: device, memory, the
// database's directory) before anything is written, opens one CaptureSession and runs each toggle's
// A/B in it. `glueprof ab`, the desktop app's Run A/B and any later caller use it; they only choose
// the request and show progress. Torch-free header.
#include <functional>
#include <string>
#include <vector>

#include "reference_trainer/AbRunner.h"
#include "reference_trainer/TrainConfig.h"

namespace glueprof {

struct AbRequest {
    TrainConfig config;                // preset, overrides and device of both arms
    std::vector<std::string> toggles;  // by name; with `all`, every toggle the model can run
    bool all = false;
    AbSchedule schedule;
    std::string db = "runs.sqlite";
};

struct SkippedToggle {
    std::string toggle;
    std::string reason;
};

struct ToggleRuns {
    std::string toggle;
    AbRuns runs;
};

struct AbOutcome {
    std::vector<ToggleRuns> comparisons;  // in the order they ran
    std::vector<SkippedToggle> skipped;   // `all` on a model a toggle cannot run on
};

// What a caller hears while the suite runs; every member may be empty. A callback may throw to
// stop the suite (the runs in progress are then marked failed and the exception propagates).
struct AbProgress {
    std::function<void(const std::string& line)> notice;  // capture status, schema upgrade
    std::function<void(const std::string& toggle, int index, int count)> toggleStarted;
    ProgressCallback step;
    std::function<void(const std::string& toggle)> toggleFinished;
};

// The toggles a request runs, and those it skips; throws a usage error for an unknown name, a
// toggle the model cannot run, or no toggle at all.
std::vector<const Toggle*> chooseToggles(const AbRequest& request,
                                         std::vector<SkippedToggle>& skipped);

// Runs the request; the database is opened only after every check passed.
AbOutcome runAbSuite(const AbRequest& request, const AbProgress& progress = {});

class RankGroup;

// The A/B of each of `toggles` in `session`, in order, sharing the request's budget (what a toggle
// leaves unused goes to the ones after it). With a rank group, this process's rank of a
// data-parallel A/B (DistributedRun.h); runAbSuite is this in one process, after the checks.
std::vector<ToggleRuns> runAbToggles(const AbRequest& request,
                                     const std::vector<const Toggle*>& toggles,
                                     CaptureSession& session, const AbProgress& progress,
                                     RankGroup* group = nullptr);

}  // namespace glueprof

#pragma once
// The `glueprof simulate` use case: the pipeline simulator on costs from a cost file, measured on
// a trainer preset, or replayed from an executed pipeline run; each schedule's simulation recorded
// into the trace store (simulated-worker lanes, through a CaptureSession) and analyzed by the
// bubble analyzer; --predict adds P = 2..8. Every check runs before the database is touched. The
// CLI renders the results (app/report SimulationText.h, ResultsJson.h); any face may.
// Torch-free header.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/report/SimulationResults.h"
#include "reference_trainer/AbRunner.h"

namespace glueprof {

struct SimulationRequest {
    std::vector<std::string> schedules;  // empty: the replayed run's, else roundpipe
    int workers = 0;                     // 0: the cost file's, else 2
    int microbatches = 0;                // 0: the cost file's, else workers + 1
    int iterations = 1;
    bool async = false;  // RoundPipe's asynchronous optimizer
    // The costs, exactly one of: a cost file, a preset measured on this machine, an executed
    // pipeline run in `db` (long long as the CLI reads it; <= 0: none).
    std::string costs;
    std::string preset;
    long long replay = 0;
    double scale = 1.0;          // of the preset
    std::int64_t seqLen = 0;     // of the preset; 0: its own
    std::string device = "cpu";  // of the run that measures a preset
    std::string partition;       // "7,7,7,7" as written (RoundPipe: its forward partition)
    std::string backwardPartition;
    double hopMs = -1.0;        // < 0: the cost file's
    double optimizerMs = -1.0;  // < 0: the cost file's
    bool predict = false;
    std::string db = "runs.sqlite";
};

// What a caller hears while the simulation runs; every member may be empty.
struct SimulationProgress {
    std::function<void(const std::string& line)> notice;  // capture status, schema upgrade
    ProgressCallback step;                                // the preset's measuring run
    std::function<void(const MeasuredCosts& measured)> measured;
};

// Usage errors for a request that cannot run (not exactly one cost source, an unknown schedule or
// preset, a malformed partition, one the simulator refuses); input errors for costs that cannot be
// read and a simulation too large.
SimulationResults runSimulation(const SimulationRequest& request,
                                const SimulationProgress& progress = {});

}  // namespace glueprof

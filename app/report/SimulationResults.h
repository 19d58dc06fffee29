#pragma once
// What `glueprof simulate` says (app/usecases/SimulationRequest.h runs it): each simulated
// schedule with its bubbles, the executed run it replays when there is one, the predictions for
// other P, and the costs it measured on a preset. Plain numbers, so the report layer renders them
// without the simulator (SimulationText.h, ResultsJson.h).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/PipelineBubbles.h"
#include "profiler/core/Event.h"

namespace glueprof {

// Per-layer costs measured on a preset (`simulate --preset`): layer 0's, per micro-batch.
struct MeasuredCosts {
    std::string preset;
    RunId run = 0;  // the measuring run
    std::size_t layers = 0;
    std::size_t microbatches = 0;  // micro-batches measured
    double forwardMs = 0.0;        // median of layer 0
    double backwardMs = 0.0;
    double headForwardMs = 0.0;
    double headBackwardMs = 0.0;
};

// The executed pipeline run a simulation replays (`simulate --replay`): same plan, same P.
struct ExecutedPipeline {
    RunId run = 0;
    std::string label;
    double makespanMs = 0.0;  // the median measured step's
    double bubbleRatio = 0.0;
    std::size_t steps = 0;
};

struct SimulatedSchedule {
    std::string schedule;  // gpipe, 1f1b, looped-bfs, roundpipe
    int workers = 0;
    int microbatches = 0;
    int iterations = 0;
    bool asynchronousOptimizer = false;
    std::vector<int> forwardPartition;
    std::optional<std::vector<int>> backwardPartition;  // RoundPipe's
    double makespanMs = 0.0;
    double hopTotalMs = 0.0;
    double hopExposedMs = 0.0;
    BubbleResult bubbles;  // of the simulated run
    RunId run = 0;         // where it is stored
    std::optional<ExecutedPipeline> executed;
};

// One schedule of a prediction row.
struct PredictedSchedule {
    std::string schedule;
    double makespanMs = 0.0;
    double bubbleRatio = 0.0;
};

// `simulate --predict`: one row per P, Looped-BFS then RoundPipe.
struct PredictionRow {
    int workers = 0;
    std::vector<PredictedSchedule> schedules;
};

struct SimulationResults {
    std::string db;
    std::vector<SimulatedSchedule> simulations;  // in the order the schedules were given
    bool predicted = false;                      // --predict
    std::vector<PredictionRow> predictions;
};

}  // namespace glueprof

#pragma once
// A discrete-event simulator of pipeline-parallel training on P workers, with the semantics of the
// RoundPipe artifact's pp-simulate (ITcarrot/RoundPipe-artifact, pp-simulate/simulator.py), so its
// published numbers are reproduced:
//   - GPipe, 1F1B (PyTorch's Schedule1F1B order) and Looped-BFS (stage s bound to worker s mod P,
//   all
//     forwards of a worker's stages in order, then the backwards in reverse) run as per-worker
//     plans: repeatedly the ready action with the earliest start runs (ties: the lower worker);
//   - RoundPipe deals stages round-robin to a stateless worker pool: per round of up to P
//     micro-batches, forward stage s runs on worker (r + s) mod P and backward stage s on worker
//     (r + F + s) mod P (the job counter continues from forward into backward); the next round
//     starts on the worker that is free first. Backward stage 0 is the LM head, a fused forward +
//     backward that is not recomputed; forward and backward partitions differ;
//   - a forward waits for the previous stage's forward of its micro-batch, a backward for its own
//     forward (same worker under the bound schedules) and the next stage's backward (RoundPipe: for
//     the last forward stage and the previous backward stage); each hand-off between different
//     workers costs `hopMs`; a backward of a stage recomputes its layers first (layers x (f + b) in
//     all);
//   - iterations: with a synchronous optimizer the next iteration starts after every backward and
//     `optimizerMs`; RoundPipe's asynchronous variant (one-step-stale weights) does not wait.
#include <cstdint>
#include <string>
#include <vector>

namespace glueprof::pipeline {

enum class Schedule { kGPipe, kOneFOneB, kLoopedBfs, kRoundPipe };
enum class OptimizerMode { kSynchronous, kAsynchronous };

const char* toString(Schedule schedule);
// "gpipe", "1f1b", "looped-bfs", "roundpipe"; throws std::invalid_argument naming the choices.
Schedule parseSchedule(const std::string& name);

// Per micro-batch costs in milliseconds.
struct PipelineCosts {
    std::vector<double> forwardMs;    // per layer
    std::vector<double> recomputeMs;  // per layer; empty = the forward costs
    std::vector<double> backwardMs;   // per layer, without the recompute
    double headForwardMs = 0.0;       // the LM head (and loss)
    double headBackwardMs = 0.0;
    double hopMs = 0.0;        // one hand-off between different workers
    double optimizerMs = 0.0;  // between iterations (synchronous optimizer)

    std::size_t layers() const { return forwardMs.size(); }
    double recompute(std::size_t layer) const {
        return recomputeMs.empty() ? forwardMs[layer] : recomputeMs[layer];
    }
    // Uniform costs, as the artifact takes them.
    static PipelineCosts uniform(int layers, double forwardMs, double backwardMs,
                                 double headForwardMs, double headBackwardMs, double hopMs);
};

struct SimulationSpec {
    Schedule schedule = Schedule::kLoopedBfs;
    int workers = 2;
    int microbatches = 2;
    int iterations = 1;
    OptimizerMode optimizer = OptimizerMode::kSynchronous;
    // Layers per stage. The bound schedules put the LM head in the last stage (it may hold 0
    // layers); RoundPipe's forward partition has no head, and its backward partition starts with
    // the head stage.
    std::vector<int> forwardPartition;
    std::vector<int> backwardPartition;  // RoundPipe only
    PipelineCosts costs;
};

struct SimOp {
    enum class Kind { kForward, kRecompute, kBackward };
    Kind kind = Kind::kForward;
    // Part of the backward pass (a recompute, RoundPipe's head forward in its backward stage 0, a
    // backward): one backward job with the backward op that follows it.
    bool backwardPass = false;
    int worker = 0;
    int stage = 0;  // index in its partition (RoundPipe backward: in the backward partition)
    int microbatch = 0;
    int iteration = 0;
    double startMs = 0.0;
    double endMs = 0.0;
    // The stage has work for this op: layers, or the LM head (on the last stage). An op of a stage
    // of 0 layers without the head holds its place in the plan (hand-offs into and out of it cost
    // the hop) but, as in the artifact, whose statistics come from per-layer events, it ends
    // neither the makespan nor an iteration.
    bool hasWork = true;
};

struct SimulationResult {
    double makespanMs = 0.0;    // the last end of an op with work
    std::vector<SimOp> ops;     // by start; empty ops (stages of 0 layers) included
    double hopTotalMs = 0.0;    // every cross-worker hand-off
    double hopExposedMs = 0.0;  // the part that delayed an op
    std::vector<double> iterationEndMs;
};

// What one simulation may hold; the `simulate` flags and cost files share these bounds.
constexpr int kMaxLayers = 65536;
constexpr int kMaxWorkers = 1024;
constexpr int kMaxMicrobatches = 1 << 20;
constexpr int kMaxIterations = 1000;
// About 650 bytes each in memory while simulated, analyzed and stored (measured: 700k ops in
// 460 MB), so the largest simulation takes about 1.3 GB and a few seconds.
constexpr std::int64_t kMaxSimulatedOps = 2'000'000;
constexpr std::int64_t kBytesPerSimulatedOp = 650;
// One cost (a layer's per micro-batch, the head's, a hop, the optimizer's) is at most this many
// milliseconds, so the largest simulation's makespan stays within int64 nanoseconds.
constexpr double kMaxCostMs = 1e6;
// From 0 to kMaxCostMs (so not NaN or infinite).
bool isValidCostMs(double ms);

// At most this many ops: per iteration and micro-batch, a forward, a recompute and a backward for
// each stage of its longer partition.
std::int64_t simulatedOpBound(const SimulationSpec& spec);
// "" when SPEC's simulation fits in kMaxSimulatedOps, else its size and what to change.
std::string simulationSizeProblem(const SimulationSpec& spec);

// Throws std::invalid_argument with what is wrong and what to change: a count out of its bound, a
// simulation too large (simulationSizeProblem), a cost out of range, partitions that do not cover
// the layers.
void validateSimulation(const SimulationSpec& spec);
// Validates, then simulates.
SimulationResult simulate(const SimulationSpec& spec);

// Balanced partition of `layers` into `stages` (earlier stages take the remainder).
std::vector<int> balancedPartition(int layers, int stages);

}  // namespace glueprof::pipeline

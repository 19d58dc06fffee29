#pragma once
// The reference trainer cut into pipeline stages and run by P virtual workers on one machine (the
// `roundpipe` toggle and its Looped-BFS baseline). On CPU each worker is a thread with its own
// intra-op thread count; on CUDA each worker is a host thread with its own stream on the GPU
// (WorkerStreams), and each job ends with its thread waiting for that stream, so the worker lanes
// show device time.
//
// Each step, the pipeline simulator (optimizations/pipeline_schedule) plans the jobs: which worker
// runs which stage of which micro-batch, in which order (Looped-BFS: stage s bound to worker s mod
// P; RoundPipe: stages dealt round-robin to the pool, its LM head a fused forward + backward
// stage). The plan comes from estimated costs (parameters per layer; the executor does not time
// itself to plan); the workers then run it for real, each waiting for the activations and gradients
// it needs.
//   forward job:  embedding (stage 0) and the stage's layers without autograd, keeping each layer's
//                 input (layer-level checkpointing, as the plain trainer); Looped-BFS's last stage
//                 also computes the loss;
//   backward job: recompute the stage from its first layer's input with autograd (it needs only
//   that
//                 input, so it runs while the next stage's backward still computes its gradient),
//                 then wait for the gradient of its output and compute the gradients of the stage's
//                 input and parameters (the head stage starts from the loss);
//   optimizer:    on its own thread once all jobs are done: per parameter the micro-batches'
//                 gradients summed in micro-batch order (what the plain trainer's accumulation
//                 does), then AdamW. Synchronous: the next step's jobs start after it.
// Ranges on each worker's pipeline-worker lane: forward / recompute / backward (layer tag = stage,
// micro-batch tag), wait (blocked on a dependency); ops and layer ranges on the worker's host lane.
// RoundPipe's workers are stateless: each keeps a replica of the model and, before a job of a stage
// it does not hold, uploads that stage's weights from the host master copy (an `upload` range with
// its bytes); the gradients it computes are downloaded to the optimizer's host slots (`download`).
// Looped-BFS workers own their stages (the weight binding): they compute on the master weights.
// On CUDA, RoundPipe's master weights stay in pinned host memory (the trainer keeps its model on
// the host, pipelineKeepsMasterOnHost) and the optimizer updates them there; uploads are
// host-to-device copies into the worker's replica on its stream, downloads device-to-host copies
// into pinned buffers. Looped-BFS's master weights and optimizer live on the GPU. RoundPipe's
// asynchronous optimizer (PipelineSettings::asyncOptimizer): the optimizer of step k runs while
// step k + 1 computes on the weights published before update k (one step stale, deterministic:
// uploads read a snapshot, never the weights being updated).
// Several GPUs: worker w runs on GPU w mod D; activations and gradients handed to a worker on
// another GPU are copied there; Looped-BFS's stages live on their worker's GPU (placeBoundStages).
#include <torch/torch.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "optimizations/packed_metadata/PackedMetadata.h"
#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/WorkerStreams.h"
#include "reference_trainer/data/PackedBatches.h"
#include "reference_trainer/model/Decoder.h"

namespace glueprof {

class Trainer;

// A pipeline needs at least workers + 1 micro-batches (RoundPipe's default): the config a pipelined
// trainer runs (both arms of the roundpipe A/B get the same count); unchanged without a pipeline.
TrainConfig withPipelineMicrobatches(TrainConfig config);
// The plan for a config: partitions and estimated per-layer costs (ms-scaled parameter counts).
// Stored in a pipelined run's config JSON as "pipeline_plan" (`glueprof simulate --replay` reads
// it).
pipeline::SimulationSpec pipelineSpec(const TrainConfig& config);
// RoundPipe on CUDA keeps the master weights (and the optimizer) in host memory; the trainer builds
// its model there instead of on the device.
bool pipelineKeepsMasterOnHost(const TrainConfig& config);

class PipelineExecutor {
  public:
    PipelineExecutor(Trainer& trainer, HostTracer* tracer);
    ~PipelineExecutor();
    PipelineExecutor(const PipelineExecutor&) = delete;
    PipelineExecutor& operator=(const PipelineExecutor&) = delete;

    // Runs every micro-batch of optimizer step `step` through the pipeline and the optimizer;
    // returns the sum of the micro-batch losses (each already divided by M, as Trainer::step sums).
    double step(std::int32_t step);
    // Waits for work the last step left running (RoundPipe's asynchronous optimizer) and throws its
    // failure.
    void finish() { joinOptimizer(); }
    const pipeline::SimulationSpec& spec() const { return m_spec; }

  private:
    struct Job {
        bool backward = false;
        int stage = 0;
        int microbatch = 0;
        std::int64_t firstLayer = 0;
        std::int64_t layers = 0;
        bool head = false;  // ends with the final norm, LM head and loss
    };
    struct StepState;
    using HandOffs =
        std::map<std::pair<std::int64_t, int>, torch::Tensor>;  // (layer, micro-batch) -> tensor

    void buildJobs(const pipeline::SimulationResult& plan);
    void placeBoundStages();
    void workerLoop(int worker);
    void runJob(int worker, const Job& job, StepState& state);
    // The tensor another job publishes under `key`, on this worker's device; blocks until it is
    // there (a `wait` range of the job). Undefined when the step failed meanwhile.
    torch::Tensor awaitHandOff(int worker, const Job& job, StepState& state, HandOffs& from,
                               std::pair<std::int64_t, int> key);
    void optimizerStep(StepState& state);
    // The model a worker computes with: the master for Looped-BFS, its replica for RoundPipe.
    Decoder& modelOf(int worker);
    std::vector<torch::Tensor> jobParameters(const Job& job, Decoder& model) const;
    static std::vector<torch::Tensor> jobState(const Job& job, Decoder& model);
    // RoundPipe: copies the job's stage weights into the worker's replica unless it holds them
    // already.
    void upload(int worker, const Job& job, StepState& state);
    void joinOptimizer();
    // A range on a lane of `run` (written directly: an asynchronous optimizer may outlive the run's
    // turn).
    void recordRange(RunId run, LaneId lane, const char* name, EventKind kind, Category category,
                     TimestampNs start, TimestampNs end, std::int32_t step, std::int32_t stage,
                     std::int32_t microbatch, std::int64_t bytes = 0);
    // The lane of `run` for worker w (its pipeline-worker lane) or, for kOptimizerLane, the
    // optimizer's host lane; created on first use.
    static constexpr int kOptimizerLane = -1;
    LaneId laneOf(RunId run, int worker);

    Trainer& m_trainer;
    HostTracer* m_tracer;
    pipeline::SimulationSpec m_spec;
    WorkerStreams m_streams;
    std::vector<std::vector<Job>> m_jobs;  // per worker, in plan order
    std::map<const void*, std::size_t>
        m_paramIndex;                 // trainable parameter (master or replica) -> index
    std::vector<Decoder> m_replicas;  // RoundPipe: one per worker
    std::vector<std::tuple<std::int64_t, std::int64_t, bool, std::int64_t>>
        m_resident;  // per worker: held stage, version
    // The weights uploads read: the master itself (synchronous) or, asynchronously, two published
    // snapshots, step j reading snapshot j mod 2 (written by the optimizer of step j - 2).
    std::vector<std::vector<torch::Tensor>> m_snapshots;
    std::map<const void*, std::size_t>
        m_snapshotPosition;                   // master parameter or buffer -> snapshot index
    std::unique_ptr<StepState> m_optimizing;  // the step whose optimizer runs on m_optimizerThread
    std::thread m_optimizerThread;
    std::exception_ptr m_optimizerFailure;
    std::vector<std::unique_ptr<PackedMetadataProvider>>
        m_packed;  // one per worker (not thread-safe)
    std::map<std::pair<RunId, int>, LaneId> m_lanes;

    // Workers wait for a step, run their jobs, report done.
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::int64_t m_generation = 0;
    int m_running = 0;
    bool m_stop = false;
    StepState* m_state = nullptr;
    std::vector<std::thread> m_threads;
};

}  // namespace glueprof

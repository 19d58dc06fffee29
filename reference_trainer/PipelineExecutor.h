#pragma once
// The reference trainer cut into pipeline stages and run by P virtual workers on one machine (the
// `roundpipe` toggle and its Looped-BFS baseline). The executor wires the parts in
// reference_trainer/pipeline/ and runs a step through them:
//   PipelineJob       the plan's jobs: which worker runs which pass of which stage of which
//                     micro-batch, in which order (from the pipeline simulator);
//   WorkerPool        one host thread per worker (on CUDA with its own stream) running its jobs;
//   PipelineStep      one step's micro-batches on each device and its HandOffs: the activations
//                     and gradients jobs publish and await, and the step's first failure;
//   JobRunner         forward and backward jobs;
//   StageReplicas     RoundPipe's per-worker replicas: uploads from the host master copy, gradient
//                     downloads, the snapshots the asynchronous optimizer's uploads read;
//   PipelineOptimizer the optimizer on its own thread (asynchronous under RoundPipe's option);
//   PipelineRecorder  the pipeline's ranges on worker and optimizer lanes.
// On CPU each worker is a thread with its own intra-op thread count; on CUDA each worker is a host
// thread with its own stream on the GPU (WorkerStreams), and each job ends with its thread waiting
// for that stream, so the worker lanes show device time.
// Several GPUs: worker w runs on GPU w mod D; activations and gradients handed to a worker on
// another GPU are copied there; Looped-BFS's stages live on their worker's GPU (placeBoundStages).
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/WorkerStreams.h"
#include "reference_trainer/pipeline/HandOffs.h"
#include "reference_trainer/pipeline/JobRunner.h"
#include "reference_trainer/pipeline/PipelineJob.h"
#include "reference_trainer/pipeline/PipelineOptimizer.h"
#include "reference_trainer/pipeline/PipelineRecorder.h"
#include "reference_trainer/pipeline/PipelineStep.h"
#include "reference_trainer/pipeline/StageReplicas.h"
#include "reference_trainer/pipeline/WorkerPool.h"

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
    void finish() { m_optimizer->join(); }
    const pipeline::SimulationSpec& spec() const { return m_spec; }

  private:
    // The micro-batches of `step` on every device the workers use, contexts and rotary tables
    // filled, and the step's lanes made.
    std::unique_ptr<PipelineStep> loadStep(std::int32_t step);
    // Worker w's jobs of the step, in plan order, until one of the step's jobs fails.
    void runJobs(int worker, PipelineStep& step);
    // Looped-BFS on several GPUs: each stage's weights on its worker's device.
    void placeBoundStages();

    Trainer& m_trainer;
    HostTracer* m_tracer;
    pipeline::SimulationSpec m_spec;
    WorkerStreams m_streams;
    PipelineRecorder m_recorder;
    std::vector<std::vector<PipelineJob>> m_jobs;  // per worker, in plan order
    ParameterIndex m_parameterIndex;
    std::optional<StageReplicas> m_replicas;  // RoundPipe only
    std::optional<JobRunner> m_jobRunner;
    std::optional<PipelineOptimizer> m_optimizer;
    // Last: its threads start once everything they use is built, and stop before it goes.
    std::optional<WorkerPool> m_workers;
};

}  // namespace glueprof

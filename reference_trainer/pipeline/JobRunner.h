#pragma once
// Runs one job of the plan on a worker, on the worker's model (the master for Looped-BFS, its
// replica for RoundPipe), with bf16 autocast on CUDA as the single-worker trainer:
//   forward job:  embedding (stage 0) and the stage's layers without autograd, keeping each layer's
//                 input (layer-level checkpointing, as the plain trainer); Looped-BFS's last stage
//                 also computes the loss;
//   backward job: recompute the stage from its first layer's input with autograd (it needs only
//                 that input, so it runs while the next stage's backward still computes its
//                 gradient), then wait for the gradient of its output and compute the gradients of
//                 the stage's input and parameters (the head stage starts from the loss).
// Each job ends with its worker's thread waiting for its stream (WorkerStreams), so its range on
// the worker lane shows device time and its outputs are complete before another worker reads them.
// Several GPUs: worker w runs on GPU w mod D; activations and gradients handed to a worker on
// another GPU are copied there.
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "optimizations/packed_metadata/PackedMetadata.h"
#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "reference_trainer/WorkerStreams.h"
#include "reference_trainer/model/Decoder.h"
#include "reference_trainer/pipeline/HandOffs.h"
#include "reference_trainer/pipeline/PipelineJob.h"
#include "reference_trainer/pipeline/PipelineRecorder.h"
#include "reference_trainer/pipeline/PipelineStep.h"
#include "reference_trainer/pipeline/StageReplicas.h"

namespace glueprof {

class HostTracer;
class Trainer;

class JobRunner {
  public:
    // `replicas` is null without RoundPipe (the workers compute on the master).
    JobRunner(Trainer& trainer, HostTracer* tracer, const pipeline::SimulationSpec& spec,
              const WorkerStreams& streams, const ParameterIndex& index, StageReplicas* replicas,
              PipelineRecorder& recorder);

    // Runs `job` on `worker` and publishes its outputs to the step's hand-offs; returns early when
    // the step failed while the job waited.
    void run(int worker, const PipelineJob& job, PipelineStep& step);

  private:
    struct Pass;
    struct Recomputed {
        torch::Tensor stageInput;  // the input as a leaf that requires grad; undefined from tokens
        torch::Tensor root;        // the stage's output, or the head's loss
    };

    void forward(Pass& pass);
    void backward(Pass& pass);
    Recomputed recompute(Pass& pass);
    static std::vector<torch::Tensor> gradients(const Recomputed& graph,
                                                const std::vector<torch::Tensor>& params,
                                                const torch::Tensor& outputGrad, bool head);
    void publishBackward(Pass& pass, const Recomputed& graph,
                         const std::vector<torch::Tensor>& params,
                         const std::vector<torch::Tensor>& grads);
    // The tensor another job publishes under `key`, on this worker's device; blocks until it is
    // there (a `wait` range of the job). Undefined when the step failed meanwhile.
    torch::Tensor await(const Pass& pass, HandOffs::Kind kind, const HandOffs::Key& key);
    // The micro-batch's loss from the head's logits, divided by M as Trainer::step does.
    torch::Tensor scaledLoss(const torch::Tensor& logits, const PackedBatch& batch) const;
    void record(const Pass& pass, const char* name, EventKind kind, Category category,
                TimestampNs start, TimestampNs end);
    Decoder& modelOf(int worker);

    Trainer& m_trainer;
    const pipeline::SimulationSpec& m_spec;
    const WorkerStreams& m_streams;
    const ParameterIndex& m_index;
    StageReplicas* m_replicas;
    PipelineRecorder& m_recorder;
    std::vector<std::unique_ptr<PackedMetadataProvider>>
        m_packed;  // one per worker (not thread-safe)
};

}  // namespace glueprof

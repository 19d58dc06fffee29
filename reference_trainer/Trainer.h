#pragma once
// The reference trainer: a decoder trained with AdamW on packed micro-batches with gradient
// accumulation, every phase inside a ScopedRange. With a pipeline mode set (the roundpipe toggle
// and its Looped-BFS baseline) the steps run through a PipelineExecutor on several workers, with at
// least workers + 1 micro-batches per step; RoundPipe on CUDA keeps the model (the master weights)
// and AdamW on the host, its workers computing on device replicas. Optimizer step `s` consumes
// micro-batches s*M .. s*M+M-1 of the deterministic dataset, so two trainers of one config see the
// same data.
#include <torch/torch.h>

#include <cstdint>
#include <memory>

#include "optimizations/activation_offload/ActivationOffload.h"
#include "optimizations/packed_metadata/PackedMetadata.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/data/PackedBatches.h"
#include "reference_trainer/model/Decoder.h"

namespace glueprof {

class PipelineExecutor;
class RankGroup;
class GradientSync;

struct StepResult {
    double loss = 0.0;
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
};

// Throws an input error when config.device is not usable in this build / on this machine.
// On cuda, GPU `config.cudaDevice`, made the current device (NCCL and new streams take it).
torch::Device resolveDevice(const TrainConfig& config);

class Trainer {
  public:
    // tracer may be null (tracing off). Seeds torch with config.seed before building the model.
    // With a rank group (data parallelism), the trainer trains on its rank's shard of the batches
    // (micro-batch i of the data set goes to rank i mod world size) and averages the gradients
    // across ranks before each optimizer step, so every rank's weights stay identical.
    Trainer(const TrainConfig& config, HostTracer* tracer, RankGroup* group = nullptr);
    // Not copyable or movable: a pipeline executor keeps a reference to its trainer.
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    // One optimizer step; with a tracer, writes the step record and its counters to `run`.
    StepResult step(std::int32_t step, bool warmup = false, std::int32_t block = 0);
    // After the last step: waits for work it left running (a pipeline's asynchronous optimizer) and
    // throws its failure, so a run is complete only when everything it started has ended.
    void finish();

    // A forward context for a device batch; it must outlive the batch's backward.
    ForwardContext makeContext(const PackedBatch& deviceBatch);
    // Forward of one device batch: the mean loss over its labelled tokens (graph kept) and, when
    // asked, the logits [1,T,V].
    torch::Tensor forwardLoss(const PackedBatch& deviceBatch, ForwardContext& context,
                              torch::Tensor* logits = nullptr);
    // The mean cross-entropy of logits [1,T,V] against the batch's labels (ignoring document ends).
    torch::Tensor lossOf(const torch::Tensor& logits, const PackedBatch& deviceBatch) const;

    Decoder& model() { return m_model; }
    const TrainConfig& config() const { return m_config; }
    const PackedBatches& data() const { return m_data; }
    PackedMetadataProvider& packedMetadata() { return m_packed; }
    ActivationOffloader& offloader() { return *m_offloader; }
    // The parameters the optimizer updates (all, or only the LoRA adapters).
    std::vector<torch::Tensor> trainableParameters() const;
    torch::Device device() const { return m_device; }
    torch::optim::Optimizer& optimizer() { return *m_optimizer; }
    ~Trainer();

  private:
    // The data set's index of this rank's `microbatch`-th micro-batch (its own, with one process).
    std::int64_t datasetIndex(std::int64_t microbatch) const;

    TrainConfig m_config;
    torch::Device m_device;
    HostTracer* m_tracer;
    PackedBatches m_data;
    Decoder m_model{nullptr};
    std::unique_ptr<torch::optim::AdamW> m_optimizer;
    PackedMetadataProvider m_packed;
    std::unique_ptr<ActivationOffloader> m_offloader;
    std::unique_ptr<PipelineExecutor>
        m_pipeline;      // the roundpipe toggle and its baseline; null: one worker
    RankGroup* m_group;  // null: one process
    std::unique_ptr<GradientSync> m_gradientSync;  // with a group: the gradients' average
};

}  // namespace glueprof

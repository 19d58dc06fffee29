#include "reference_trainer/Trainer.h"

#include <fmt/format.h>

#include <algorithm>

#include "profiler/core/Error.h"
#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "profiler/torch_ops/CudaDevice.h"
#include "reference_trainer/PipelineExecutor.h"
#include "reference_trainer/distributed/GradientSync.h"
#include "reference_trainer/distributed/RankGroup.h"
#include "reference_trainer/model/Autocast.h"

namespace glueprof {

torch::Device resolveDevice(const TrainConfig& config) {
    if (config.device == "cpu") return torch::kCPU;
    if (config.device == "cuda") {
        std::string why;
        if (!cudaDeviceAvailable(config.cudaDevice, why)) throw inputError("--device cuda: " + why);
        useCudaDevice(config.cudaDevice);
        return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(config.cudaDevice));
    }
    throw usageError(fmt::format("unknown device '{}': use cpu or cuda", config.device));
}

Trainer::Trainer(const TrainConfig& config, HostTracer* tracer, RankGroup* group)
    : m_config(withPipelineMicrobatches(config)),
      m_device(resolveDevice(config)),
      m_tracer(tracer),
      m_data(m_config),
      m_packed(config.optimizations.packedMetadata, tracer),
      m_group(group != nullptr && group->worldSize() > 1 ? group : nullptr) {
    torch::manual_seed(config.seed);
    // Softmax over a 100k+ vocabulary leaves most logit gradients denormal; x86 arithmetic on
    // denormals is ~10x slower (the LM head's backward of qwen3-0.6b at --scale 0.1: 11.7 s -> ~1
    // s). Flushed to zero in both arms alike, as CPU training setups do.
    at::globalContext().setFlushDenormal(true);
    m_model = Decoder(config.model, config.lora, config.seqLen, config.checkpoint);
    // RoundPipe on CUDA keeps the master weights and the optimizer on the host; its workers upload
    // them.
    m_model->to(pipelineKeepsMasterOnHost(m_config) ? torch::Device(torch::kCPU) : m_device);
    m_optimizer = std::make_unique<torch::optim::AdamW>(
        trainableParameters(), torch::optim::AdamWOptions(config.learningRate).weight_decay(0.0));
    m_offloader =
        std::make_unique<ActivationOffloader>(config.optimizations.offload, m_device,
                                              config.model.layers, config.offloadMinBytes, tracer);
    if (config.optimizations.pipeline.mode != PipelineMode::kOff) {
        if (m_group != nullptr) {
            throw usageError(
                "the roundpipe toggle pipelines one process's model; it does not combine with "
                "several ranks (--nproc / WORLD_SIZE) yet: run it with one");
        }
        m_pipeline = std::make_unique<PipelineExecutor>(*this, tracer);
    }
    if (m_group != nullptr)
        m_gradientSync = std::make_unique<GradientSync>(*m_group, trainableParameters(),
                                                        config.optimizations.gradientSync, tracer);
}

Trainer::~Trainer() = default;

void Trainer::finish() {
    if (m_pipeline) m_pipeline->finish();
}

std::vector<torch::Tensor> Trainer::trainableParameters() const {
    std::vector<torch::Tensor> trainable;
    for (const torch::Tensor& p : m_model->parameters()) {
        if (p.requires_grad()) trainable.push_back(p);
    }
    return trainable;
}

std::int64_t Trainer::datasetIndex(std::int64_t microbatch) const {
    if (m_group == nullptr) return microbatch;
    return microbatch * m_group->worldSize() + m_group->rank();
}

ForwardContext Trainer::makeContext(const PackedBatch& batch) {
    ForwardContext context;
    context.batch = &batch;
    context.packedMetadata = &m_packed;
    context.tracer = m_tracer;
    context.moeRouting = m_config.optimizations.moeRouting;
    context.offloader = m_offloader.get();
    return context;
}

torch::Tensor Trainer::forwardLoss(const PackedBatch& batch, ForwardContext& context,
                                   torch::Tensor* logitsOut) {
    torch::Tensor logits = m_model->forward(batch.tokens, batch.positions, context);
    if (logitsOut != nullptr) *logitsOut = logits;
    return lossOf(logits, batch);
}

torch::Tensor Trainer::lossOf(const torch::Tensor& logits, const PackedBatch& batch) const {
    return torch::nn::functional::cross_entropy(
        logits.view({-1, m_config.model.vocab}), batch.labels.view({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(kIgnoreLabel));
}

StepResult Trainer::step(std::int32_t step, bool warmup, std::int32_t block) {
    StepResult result;
    result.startNs = Clock::nowNs();
    {
        ScopedRange stepRange(m_tracer, names::kStep, Category::kPhase, Tags{step, kNoTag, kNoTag});
        if (!m_pipeline)
            m_optimizer
                ->zero_grad();  // the pipeline sets every gradient (maybe on its optimizer thread)
        m_offloader->beginStep();
        torch::Tensor lossSum = torch::zeros({}, torch::TensorOptions().device(m_device));
        const std::int64_t m = m_pipeline ? 0 : m_config.microbatches;  // the pipeline runs its own
        if (m_pipeline) lossSum += m_pipeline->step(step);
        for (std::int64_t mb = 0; mb < m; ++mb) {
            const Tags microbatch{kNoTag, kNoTag, static_cast<std::int32_t>(mb)};
            PackedBatch batch;
            {
                ScopedRange range(m_tracer, names::kLoadBatch, Category::kData, microbatch);
                batch = m_data.batch(datasetIndex(step * m + mb)).toDevice(m_device);
            }
            // The context lives until this micro-batch's backward (checkpoint recompute uses it).
            ForwardContext context = makeContext(batch);
            torch::Tensor loss;
            {
                ScopedRange range(m_tracer, names::kForward, Category::kPhase, microbatch);
                CudaAutocast autocast(m_device.is_cuda());
                loss = forwardLoss(batch, context).to(torch::kFloat) / static_cast<double>(m);
            }
            {
                ScopedRange range(m_tracer, names::kBackward, Category::kPhase, microbatch);
                if (m_gradientSync && mb == m - 1) m_gradientSync->beforeLastBackward();
                loss.backward();
            }
            lossSum += loss.detach();
        }
        if (m_gradientSync) m_gradientSync->averageAfterBackward();
        if (!m_pipeline) {  // the pipeline's optimizer ran on its own thread
            ScopedRange range(m_tracer, names::kOptimizer, Category::kOptimizer);
            m_optimizer->step();
        }
        result.loss = lossSum.item<double>();  // the one host read a training loop needs (logging)
        spinCalibrationDelay(m_config.optimizations.calibration, result.startNs, m_tracer);
    }
    result.endNs = Clock::nowNs();
    if (m_tracer != nullptr) {
        const std::int64_t tokens = m_config.seqLen * m_config.microbatches;
        m_tracer->endStep(StepRecord{
            m_tracer->run(),
            StepInfo{step, result.startNs, result.endNs, warmup, block, result.loss, tokens}});
    }
    return result;
}

}  // namespace glueprof

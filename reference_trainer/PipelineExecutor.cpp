#include "reference_trainer/PipelineExecutor.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <set>
#include <stdexcept>
#include <utility>

#include "optimizations/pipeline_schedule/Partitioner.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "reference_trainer/Trainer.h"

namespace glueprof {

TrainConfig withPipelineMicrobatches(TrainConfig config) {
    const PipelineSettings& p = config.optimizations.pipeline;
    if (p.mode != PipelineMode::kOff)
        config.microbatches = std::max<std::int64_t>(config.microbatches, p.workers + 1);
    return config;
}

pipeline::SimulationSpec pipelineSpec(const TrainConfig& config) {
    const PipelineSettings& s = config.optimizations.pipeline;
    const auto layers = static_cast<int>(config.model.layers);
    pipeline::SimulationSpec spec;
    spec.workers = s.workers;
    spec.microbatches = static_cast<int>(config.microbatches);
    // Estimated costs: forward time grows with the parameters a token meets (a layer's projections,
    // the head's hidden x vocab), backward about twice the forward. Only their ratios shape the
    // plan.
    const double h = static_cast<double>(config.model.hidden);
    const double kv = static_cast<double>(config.model.kvHeads * config.model.headDim);
    const double q = static_cast<double>(config.model.heads * config.model.headDim);
    const double mlp = 3.0 * h * static_cast<double>(config.model.intermediate) *
                       (config.model.isMoe() ? static_cast<double>(config.model.topK) : 1.0);
    const double layer = (h * q + 2.0 * h * kv + q * h + mlp) / 1e6;
    const double head = h * static_cast<double>(config.model.vocab) / 1e6;
    spec.costs =
        pipeline::PipelineCosts::uniform(layers, layer, 2.0 * layer, head, 2.0 * head, 0.0);
    if (s.mode == PipelineMode::kRoundPipe) {
        spec.schedule = pipeline::Schedule::kRoundPipe;
        if (s.asyncOptimizer) spec.optimizer = pipeline::OptimizerMode::kAsynchronous;
        const pipeline::RoundPipePartition p = pipeline::roundPipePartition(spec.costs);
        spec.forwardPartition = p.forward;
        spec.backwardPartition = p.backward;
    } else {
        spec.schedule = pipeline::Schedule::kLoopedBfs;
        spec.forwardPartition = s.loopedBfsPartition.empty()
                                    ? pipeline::loopedBfsPartition(layers, s.workers)
                                    : s.loopedBfsPartition;
    }
    return spec;
}

bool pipelineKeepsMasterOnHost(const TrainConfig& config) {
    return config.optimizations.pipeline.mode == PipelineMode::kRoundPipe &&
           config.device == "cuda";
}

namespace {

// The simulated plan of `spec`; also checks the partition against the model before any thread
// starts.
pipeline::SimulationResult planOf(const pipeline::SimulationSpec& spec) {
    try {
        return pipeline::simulate(spec);
    } catch (const std::invalid_argument& e) {
        throw inputError(fmt::format("pipeline: {}", e.what()));
    }
}

}  // namespace

PipelineExecutor::PipelineExecutor(Trainer& trainer, HostTracer* tracer)
    : m_trainer(trainer),
      m_tracer(tracer),
      m_spec(pipelineSpec(trainer.config())),
      m_streams(trainer.device(), m_spec.workers),
      m_recorder(tracer) {
    const pipeline::SimulationResult plan = planOf(m_spec);
    const std::vector<torch::Tensor> trainable = trainer.trainableParameters();
    for (std::size_t i = 0; i < trainable.size(); ++i)
        m_parameterIndex[trainable[i].unsafeGetTensorImpl()] = i;
    m_jobs = jobsOfPlan(m_spec, plan);
    if (m_spec.schedule == pipeline::Schedule::kLoopedBfs && m_streams.devices().size() > 1)
        placeBoundStages();
    if (m_spec.schedule == pipeline::Schedule::kRoundPipe) {
        m_replicas.emplace(trainer, m_streams, m_spec.workers, m_recorder,
                           trainer.config().optimizations.pipeline.asyncOptimizer);
        m_replicas->indexParameters(m_parameterIndex);
    }
    StageReplicas* replicas = m_replicas ? &*m_replicas : nullptr;
    m_jobRunner.emplace(trainer, tracer, m_spec, m_streams, m_parameterIndex, replicas, m_recorder);
    m_optimizer.emplace(trainer, m_streams, m_spec.workers, m_parameterIndex, replicas, m_recorder);
    m_workers.emplace(m_streams, m_spec.workers,
                      trainer.config().optimizations.pipeline.threadsPerWorker);
}

PipelineExecutor::~PipelineExecutor() {
    try {
        m_optimizer->join();
    } catch (...) {
        // Only reached when the trainer goes away without finish(), i.e. while another exception
        // already unwinds the run: that one is reported, this one cannot be.
    }
    // Then m_workers, the last member, stops and joins the worker threads.
}

// Looped-BFS on several GPUs: each stage's weights move to its worker's device (in place, so the
// optimizer keeps them); a tied embedding stays with the embedding stage and the head copies it
// over.
void PipelineExecutor::placeBoundStages() {
    std::set<const void*> placed;
    torch::NoGradGuard noGrad;
    for (int w = 0; w < m_spec.workers; ++w) {
        for (const PipelineJob& job : m_jobs[static_cast<std::size_t>(w)]) {
            if (job.backward) continue;
            for (torch::Tensor t : jobState(job, m_trainer.model())) {
                if (!placed.insert(t.unsafeGetTensorImpl()).second) continue;
                t.set_data(t.data().to(m_streams.device(w)));
            }
        }
    }
}

double PipelineExecutor::step(std::int32_t step) {
    std::unique_ptr<PipelineStep> owned = loadStep(step);
    PipelineStep& state = *owned;
    m_workers->runOnEach([&](int worker) { runJobs(worker, state); });
    if (std::exception_ptr failure = state.handOffs.failure()) std::rethrow_exception(failure);
    // The losses summed in float in micro-batch order, exactly as Trainer::step sums them.
    torch::Tensor lossSum = torch::zeros({}, torch::TensorOptions().device(m_trainer.device()));
    for (const torch::Tensor& l : state.handOffs.losses()) {
        if (l.defined()) lossSum += l.to(lossSum.device());
    }
    const double loss = lossSum.item<double>();
    // The optimizer on its own thread, after every job: waited for now (synchronous), or left
    // running under the next step (RoundPipe's asynchronous variant; one update at a time).
    m_optimizer->start(std::move(owned));
    return loss;
}

std::unique_ptr<PipelineStep> PipelineExecutor::loadStep(std::int32_t step) {
    const int m = static_cast<int>(m_trainer.config().microbatches);
    auto state = std::make_unique<PipelineStep>(step, m_tracer != nullptr ? m_tracer->run() : 0, m,
                                                m_parameterIndex.size());
    state->inputs.resize(m_streams.devices().size());
    for (int mb = 0; mb < m; ++mb) {
        ScopedRange range(m_tracer, names::kLoadBatch, Category::kData, Tags{kNoTag, kNoTag, mb});
        const PackedBatch host = m_trainer.data().batch(static_cast<std::int64_t>(step) * m + mb);
        for (std::size_t d = 0; d < state->inputs.size(); ++d)
            state->inputs[d].batches.push_back(host.toDevice(m_streams.devices()[d]));
    }
    for (PipelineStep::DeviceInputs& on : state->inputs) {
        for (const PackedBatch& batch : on.batches) {
            on.contexts.push_back(m_trainer.makeContext(batch));
            torch::NoGradGuard noGrad;
            // Every stage needs them (stage 0's jobs only embed the tokens).
            m_trainer.model()->fillRotary(batch.positions, on.contexts.back());
        }
    }
    // The workers' streams read the batches and rotary tables made on this thread's one.
    m_streams.finishCurrent();
    if (m_tracer != nullptr && state->run != 0) {
        for (int w = 0; w < m_spec.workers; ++w) m_recorder.laneOf(state->run, w);
    }
    return state;
}

void PipelineExecutor::runJobs(int worker, PipelineStep& step) {
    for (const PipelineJob& job : m_jobs[static_cast<std::size_t>(worker)]) {
        if (step.handOffs.failed()) break;
        try {
            m_jobRunner->run(worker, job, step);
        } catch (...) {
            step.handOffs.fail(std::current_exception());  // wakes workers waiting on this job
            break;
        }
    }
}

}  // namespace glueprof

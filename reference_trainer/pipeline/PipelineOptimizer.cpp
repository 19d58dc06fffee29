#include "reference_trainer/pipeline/PipelineOptimizer.h"

#include <utility>

#include "profiler/core/Clock.h"
#include "profiler/core/TraceNames.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/Trainer.h"

namespace glueprof {

PipelineOptimizer::PipelineOptimizer(Trainer& trainer, const WorkerStreams& streams, int workers,
                                     const ParameterIndex& index, StageReplicas* replicas,
                                     PipelineRecorder& recorder)
    : m_trainer(trainer),
      m_streams(streams),
      m_workers(workers),
      m_index(index),
      m_replicas(replicas),
      m_recorder(recorder) {}

PipelineOptimizer::~PipelineOptimizer() {
    // The executor joins (and reports) before it goes; this only keeps a thread from outliving us.
    if (m_thread.joinable()) m_thread.join();
}

void PipelineOptimizer::start(std::unique_ptr<PipelineStep> step) {
    join();
    m_updating = std::move(step);
    m_thread = std::thread([this] {
        try {
            HostTracer::nameThisThread("optimizer");
            update(*m_updating);
        } catch (...) {
            m_failure = std::current_exception();
        }
    });
    if (m_replicas == nullptr || !m_replicas->snapshotted()) join();
}

void PipelineOptimizer::join() {
    if (m_thread.joinable()) m_thread.join();
    m_updating.reset();
    if (m_failure) std::rethrow_exception(std::exchange(m_failure, nullptr));
}

void PipelineOptimizer::update(PipelineStep& step) {
    const TimestampNs start = Clock::nowNs();
    const std::vector<torch::Tensor> trainable = m_trainer.trainableParameters();
    for (int w = 0; w < m_workers; ++w) m_streams.finish(w);  // every gradient is complete
    torch::NoGradGuard noGrad;
    for (const torch::Tensor& p : trainable)
        p.mutable_grad() = summedGradient(step, m_index.at(p.unsafeGetTensorImpl()));
    m_trainer.optimizer().step();
    // The next step's workers read the updated weights on their own streams.
    m_streams.finishCurrent();
    if (m_replicas != nullptr) m_replicas->publishSnapshot(step.step);
    // Recorded into the step's own run on an "optimizer" lane of it: the tracer may already record
    // the other A/B arm while an asynchronous update finishes.
    m_recorder.record(step.run, m_recorder.laneOf(step.run, PipelineRecorder::kOptimizerLane),
                      names::kOptimizer, EventKind::kRange, Category::kOptimizer, start,
                      Clock::nowNs(), step.step, kNoTag, kNoTag);
}

torch::Tensor PipelineOptimizer::summedGradient(const PipelineStep& step, std::size_t index) {
    torch::Tensor sum;
    // Micro-batch order, as accumulation does.
    for (const auto& perMicrobatch : step.handOffs.parameterGrads()) {
        const std::vector<torch::Tensor>& parts = perMicrobatch[index];
        if (parts.empty()) continue;
        // A micro-batch's parts summed first, as autograd sums a tied weight's two uses (at most
        // two parts, so their order does not change the bits).
        torch::Tensor g = parts.front();
        for (std::size_t k = 1; k < parts.size(); ++k) g = g + parts[k];
        if (!sum.defined()) {
            sum = g.clone();
        } else {
            sum.add_(g);
        }
    }
    return sum;
}

}  // namespace glueprof

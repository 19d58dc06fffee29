#include "reference_trainer/pipeline/StageReplicas.h"

#include "profiler/core/Clock.h"
#include "reference_trainer/Trainer.h"

namespace glueprof {

StageReplicas::StageReplicas(Trainer& trainer, const WorkerStreams& streams, int workers,
                             PipelineRecorder& recorder, bool snapshots)
    : m_trainer(trainer), m_streams(streams), m_recorder(recorder) {
    buildReplicas(workers);
    if (m_streams.queued()) pinMaster();
    m_resident.assign(static_cast<std::size_t>(workers), {-1, -1, false, -1});
    if (snapshots) takeSnapshots();
}

void StageReplicas::buildReplicas(int workers) {
    const TrainConfig& c = m_trainer.config();
    // Replicas are built as the master was; the RNG the data and training draw from is left as it
    // was.
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    const at::Tensor rngState = generator.get_state();
    for (int w = 0; w < workers; ++w) {
        m_replicas.emplace_back(c.model, c.lora, c.seqLen, c.checkpoint);
        m_replicas.back()->to(m_streams.device(w));
    }
    generator.set_state(rngState);
}

// The host master copy in pinned memory, so uploads are asynchronous copies on the worker's stream
// (set_data keeps the tensors the optimizer and the model hold).
void StageReplicas::pinMaster() {
    torch::NoGradGuard noGrad;
    for (torch::Tensor t : m_trainer.model()->state()) t.set_data(t.data().pin_memory());
}

void StageReplicas::takeSnapshots() {
    m_snapshots.resize(2);
    for (const torch::Tensor& t : m_trainer.model()->state()) {
        m_snapshotPosition[t.unsafeGetTensorImpl()] = m_snapshots[0].size();
        for (auto& snapshot : m_snapshots) snapshot.push_back(m_streams.hostBuffer(t).copy_(t));
    }
}

void StageReplicas::indexParameters(ParameterIndex& index) const {
    // Decoder::parameters() has one order for the master and every replica built like it.
    const std::vector<torch::Tensor> master = m_trainer.model()->parameters();
    for (const Decoder& replica : m_replicas) {
        const std::vector<torch::Tensor> parameters = replica->parameters();
        for (std::size_t i = 0; i < master.size(); ++i) {
            auto slot = index.find(master[i].unsafeGetTensorImpl());
            if (slot != index.end()) index[parameters[i].unsafeGetTensorImpl()] = slot->second;
        }
    }
}

void StageReplicas::upload(int worker, const PipelineJob& job, const PipelineStep& step) {
    HeldStage& resident = m_resident[static_cast<std::size_t>(worker)];
    const HeldStage wanted =
        std::make_tuple(job.firstLayer, job.layers, job.head, static_cast<std::int64_t>(step.step));
    if (resident == wanted) return;  // the worker holds this stage's weights of this step already
    const TimestampNs start = Clock::nowNs();
    const std::int64_t bytes = copyStage(worker, job, step.step);
    m_streams.finish(worker);
    resident = wanted;
    m_recorder.record(step.run, m_recorder.laneOf(step.run, worker), "upload", EventKind::kRange,
                      Category::kPipeline, start, Clock::nowNs(), step.step, job.stage,
                      job.microbatch, bytes);
}

std::int64_t StageReplicas::copyStage(int worker, const PipelineJob& job, std::int32_t step) {
    const std::vector<torch::Tensor> master = jobState(job, m_trainer.model());
    const std::vector<torch::Tensor> replica = jobState(job, model(worker));
    std::int64_t bytes = 0;
    torch::NoGradGuard noGrad;
    // Pinned host memory on CUDA: copies queued on the worker's stream.
    const bool async = m_streams.queued();
    for (std::size_t k = 0; k < master.size(); ++k) {
        replica[k].copy_(uploadSource(master[k], step), async);
        bytes += static_cast<std::int64_t>(replica[k].nbytes());
    }
    return bytes;
}

const torch::Tensor& StageReplicas::uploadSource(const torch::Tensor& master,
                                                 std::int32_t step) const {
    if (m_snapshots.empty()) return master;
    // Asynchronous optimizer: the snapshot of this step (the weights before the update still
    // running).
    return m_snapshots[static_cast<std::size_t>(step % 2)]
                      [m_snapshotPosition.at(master.unsafeGetTensorImpl())];
}

void StageReplicas::download(int worker, const PipelineJob& job, const PipelineStep& step,
                             std::vector<torch::Tensor>& grads, std::size_t first) {
    const TimestampNs start = Clock::nowNs();
    std::int64_t bytes = 0;
    for (std::size_t i = first; i < grads.size(); ++i) {
        if (!grads[i].defined()) continue;
        grads[i] = m_streams.hostBuffer(grads[i]).copy_(grads[i], m_streams.queued());
        bytes += static_cast<std::int64_t>(grads[i].nbytes());
    }
    m_streams.finish(worker);
    m_recorder.record(step.run, m_recorder.laneOf(step.run, worker), "download", EventKind::kRange,
                      Category::kPipeline, start, Clock::nowNs(), step.step, job.stage,
                      job.microbatch, bytes);
}

void StageReplicas::publishSnapshot(std::int32_t step) {
    if (m_snapshots.empty()) return;
    std::vector<torch::Tensor>& snapshot = m_snapshots[static_cast<std::size_t>(step % 2)];
    torch::NoGradGuard noGrad;
    for (const torch::Tensor& t : m_trainer.model()->state())
        snapshot[m_snapshotPosition.at(t.unsafeGetTensorImpl())].copy_(t);
}

}  // namespace glueprof

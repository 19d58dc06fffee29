#include "reference_trainer/pipeline/JobRunner.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "profiler/core/Clock.h"
#include "profiler/core/TraceNames.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/Trainer.h"
#include "reference_trainer/model/Autocast.h"

namespace glueprof {

// What one job works with.
struct JobRunner::Pass {
    int worker;
    const PipelineJob& job;
    PipelineStep& step;
    Decoder& model;
    LaneId lane;               // the worker's lane (0: not recorded)
    ForwardContext context;    // the micro-batch's, with this worker's packed-metadata provider
    const PackedBatch& batch;  // on this worker's device
    torch::Tensor input;       // the stage's input activation; undefined when it starts from tokens
};

JobRunner::JobRunner(Trainer& trainer, HostTracer* tracer, const pipeline::SimulationSpec& spec,
                     const WorkerStreams& streams, const ParameterIndex& index,
                     StageReplicas* replicas, PipelineRecorder& recorder)
    : m_trainer(trainer),
      m_spec(spec),
      m_streams(streams),
      m_index(index),
      m_replicas(replicas),
      m_recorder(recorder) {
    for (int w = 0; w < spec.workers; ++w) {
        m_packed.push_back(std::make_unique<PackedMetadataProvider>(
            trainer.config().optimizations.packedMetadata, tracer));
    }
}

namespace {

// The worker thread's tags for one job: the ops it runs (read by the op observer from the thread's
// tags) belong to the job's step and micro-batch; without them a worker's ops are in no step, and
// the per-step sync points and op counts miss them.
class JobTags {
  public:
    JobTags(std::int32_t step, std::int32_t microbatch) : m_outer(HostTracer::currentTags()) {
        Tags tags = m_outer;
        tags.step = step;
        tags.microbatch = microbatch;
        HostTracer::setCurrentTags(tags);
    }
    ~JobTags() { HostTracer::setCurrentTags(m_outer); }
    JobTags(const JobTags&) = delete;
    JobTags& operator=(const JobTags&) = delete;

  private:
    Tags m_outer;
};

}  // namespace

void JobRunner::run(int worker, const PipelineJob& job, PipelineStep& step) {
    const JobTags tags(step.step, job.microbatch);
    Decoder& model = modelOf(worker);
    const LaneId lane = m_recorder.laneOf(step.run, worker);
    // RoundPipe: the stage's weights first; they do not depend on the input, so the upload runs
    // while the input may still be on its way.
    if (m_replicas != nullptr) m_replicas->upload(worker, job, step);
    const auto mb = static_cast<std::size_t>(job.microbatch);
    const PipelineStep::DeviceInputs& here = step.inputs[m_streams.slot(worker)];
    Pass pass{worker, job, step, model, lane, here.contexts[mb], here.batches[mb], {}};
    pass.context.packedMetadata = m_packed[static_cast<std::size_t>(worker)].get();
    pass.context.offloader = nullptr;
    // The input activation, unless the job starts from the tokens. A backward job waits for the
    // gradient of its output only after its recompute, which needs the input alone (as the
    // simulator plans it).
    if (!job.startsFromTokens()) {
        pass.input = await(pass, HandOffs::Kind::kActivation, {job.firstLayer, job.microbatch});
        if (!pass.input.defined()) return;  // the step failed
    }
    if (job.backward) {
        backward(pass);
    } else {
        forward(pass);
    }
}

void JobRunner::forward(Pass& pass) {
    const PipelineJob& job = pass.job;
    const TimestampNs start = Clock::nowNs();
    torch::NoGradGuard noGrad;
    CudaAutocast autocast(m_trainer.device().is_cuda());
    // The rotary tables of the context are filled per step, so stage 0 only embeds.
    torch::Tensor h =
        job.startsFromTokens() ? pass.model->embedTokens(pass.batch.tokens) : pass.input;
    // Each layer's input (what its backward job recomputes from), then the stage's output.
    std::vector<std::pair<std::int64_t, torch::Tensor>> kept;
    for (std::int64_t l = job.firstLayer; l < job.endLayer(); ++l) {
        kept.emplace_back(l, h);
        h = pass.model->runLayers(h, l, 1, pass.context);
    }
    kept.emplace_back(job.endLayer(), h);
    HandOffs::Outputs outputs;
    if (job.head) outputs.loss = scaledLoss(pass.model->head(h), pass.batch);
    // The outputs are complete before another worker's stream reads them.
    m_streams.finish(pass.worker);
    record(pass, names::kForward, EventKind::kRange, Category::kMath, start, Clock::nowNs());
    for (auto& [layer, tensor] : kept) {
        // The stage's own input was published by the job that computed it.
        if (layer != job.firstLayer || job.startsFromTokens())
            outputs.activations.emplace_back(HandOffs::Key{layer, job.microbatch}, tensor);
    }
    pass.step.handOffs.publish(job.microbatch, std::move(outputs));
}

void JobRunner::backward(Pass& pass) {
    const PipelineJob& job = pass.job;
    pass.context.recompute = true;
    const TimestampNs recomputeStart = Clock::nowNs();
    torch::AutoGradMode enableGrad(true);
    const Recomputed graph = recompute(pass);
    m_streams.finish(pass.worker);
    const TimestampNs recomputeEnd = Clock::nowNs();
    torch::Tensor outputGrad;
    TimestampNs backwardStart = recomputeEnd;  // a head's backward follows its forward directly
    if (!job.head) {
        outputGrad = await(pass, HandOffs::Kind::kGradient, {job.endLayer(), job.microbatch});
        if (!outputGrad.defined()) return;
        backwardStart = Clock::nowNs();
    }
    // RoundPipe's head stage runs the head forward for the first time here: a forward, not a
    // recompute.
    const bool headForward =
        job.head && job.layers == 0 && m_spec.schedule == pipeline::Schedule::kRoundPipe;
    record(pass, headForward ? names::kForward : names::kRecompute, EventKind::kRange,
           Category::kMath, recomputeStart, recomputeEnd);
    const std::vector<torch::Tensor> params = jobParameters(job, pass.model);
    std::vector<torch::Tensor> grads = gradients(graph, params, outputGrad, job.head);
    m_streams.finish(pass.worker);
    record(pass, names::kBackward, EventKind::kRange, Category::kMath, backwardStart,
           Clock::nowNs());
    // RoundPipe: the parameters' gradients leave the worker's replica for the optimizer's host
    // slots (the input's gradient, first in grads, stays on the device for the next job).
    if (m_replicas != nullptr)
        m_replicas->download(pass.worker, job, pass.step, grads,
                             graph.stageInput.defined() ? 1 : 0);
    publishBackward(pass, graph, params, grads);
}

// The stage again with autograd, from its input (or the tokens) to its output (or the loss).
JobRunner::Recomputed JobRunner::recompute(Pass& pass) {
    Recomputed graph;
    CudaAutocast autocast(m_trainer.device().is_cuda());
    torch::Tensor h;
    if (pass.job.startsFromTokens()) {
        h = pass.model->embedTokens(pass.batch.tokens);
    } else {
        graph.stageInput = pass.input.detach().requires_grad_(true);
        h = graph.stageInput;
    }
    h = pass.model->runLayers(h, pass.job.firstLayer, pass.job.layers, pass.context);
    graph.root = pass.job.head ? scaledLoss(pass.model->head(h), pass.batch) : h;
    return graph;
}

// The gradients of the stage's input (first, when it has one) and of `params`, from the gradient
// of its output (or, from the head's loss, none); empty when nothing requires them.
std::vector<torch::Tensor> JobRunner::gradients(const Recomputed& graph,
                                                const std::vector<torch::Tensor>& params,
                                                const torch::Tensor& outputGrad, bool head) {
    std::vector<torch::Tensor> inputs;
    if (graph.stageInput.defined()) inputs.push_back(graph.stageInput);
    inputs.insert(inputs.end(), params.begin(), params.end());
    if (inputs.empty() || !graph.root.requires_grad()) return {};
    return torch::autograd::grad({graph.root}, inputs, {head ? torch::Tensor() : outputGrad},
                                 /*retain_graph=*/false, /*create_graph=*/false,
                                 /*allow_unused=*/true);
}

void JobRunner::publishBackward(Pass& pass, const Recomputed& graph,
                                const std::vector<torch::Tensor>& params,
                                const std::vector<torch::Tensor>& grads) {
    const PipelineJob& job = pass.job;
    HandOffs::Outputs outputs;
    std::size_t next = 0;
    if (graph.stageInput.defined()) {
        outputs.gradients.emplace_back(
            HandOffs::Key{job.firstLayer, job.microbatch},
            grads.empty() ? torch::zeros_like(graph.stageInput) : grads[next]);
        ++next;
    }
    for (const torch::Tensor& p : params) {
        const torch::Tensor g = grads.empty() ? torch::Tensor() : grads[next++];
        if (g.defined())
            outputs.parameterGrads.emplace_back(m_index.at(p.unsafeGetTensorImpl()), g);
    }
    if (job.head && m_spec.schedule == pipeline::Schedule::kRoundPipe)
        outputs.loss = graph.root.detach();  // RoundPipe's forward never reached the loss
    pass.step.handOffs.publish(job.microbatch, std::move(outputs));
}

torch::Tensor JobRunner::await(const Pass& pass, HandOffs::Kind kind, const HandOffs::Key& key) {
    const TimestampNs start = Clock::nowNs();
    const std::optional<torch::Tensor> published = pass.step.handOffs.await(kind, key);
    if (!published) return {};
    // From another GPU: copied here (complete on the producer's stream when it was published).
    torch::Tensor tensor = published->to(m_streams.device(pass.worker));
    record(pass, "wait", EventKind::kWait, Category::kPipeline, start, Clock::nowNs());
    return tensor;
}

torch::Tensor JobRunner::scaledLoss(const torch::Tensor& logits, const PackedBatch& batch) const {
    const double scale = static_cast<double>(m_trainer.config().microbatches);
    return m_trainer.lossOf(logits, batch).to(torch::kFloat) / scale;
}

void JobRunner::record(const Pass& pass, const char* name, EventKind kind, Category category,
                       TimestampNs start, TimestampNs end) {
    m_recorder.record(pass.step.run, pass.lane, name, kind, category, start, end, pass.step.step,
                      pass.job.stage, pass.job.microbatch);
}

Decoder& JobRunner::modelOf(int worker) {
    return m_replicas == nullptr ? m_trainer.model() : m_replicas->model(worker);
}

}  // namespace glueprof

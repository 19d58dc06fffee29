#include "reference_trainer/PipelineExecutor.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <set>
#include <utility>

#include <c10/core/StreamGuard.h>

#include "optimizations/pipeline_schedule/Partitioner.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "reference_trainer/Trainer.h"
#include "reference_trainer/model/Autocast.h"

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

// What the jobs of one step hand each other, guarded by the executor's mutex.
struct PipelineExecutor::StepState {
    std::int32_t step = 0;
    RunId run = 0;  // the run the step belongs to (an asynchronous optimizer may end after the next
                    // arm began)
    struct DeviceInputs {  // the micro-batches on one of the workers' devices
        std::vector<PackedBatch> batches;
        std::vector<ForwardContext> contexts;  // pointing into batches
    };
    std::vector<DeviceInputs> inputs;  // per device (WorkerStreams::slot)
    HandOffs activations;              // (layer, mb) -> that layer's input
    HandOffs gradients;                // (layer, mb) -> grad of its input
    // [mb][parameter]: its gradient, in parts (a tied embedding meets two stages); summed by the
    // optimizer.
    std::vector<std::vector<std::vector<torch::Tensor>>> parameterGrads;
    std::vector<torch::Tensor> losses;  // per micro-batch (already / M), float
    std::exception_ptr failure;
};

PipelineExecutor::PipelineExecutor(Trainer& trainer, HostTracer* tracer)
    : m_trainer(trainer),
      m_tracer(tracer),
      m_spec(pipelineSpec(trainer.config())),
      m_streams(trainer.device(), m_spec.workers) {
    pipeline::SimulationResult plan;
    try {
        plan = pipeline::simulate(
            m_spec);  // also checks the partition against the model before any thread starts
    } catch (const std::invalid_argument& e) {
        throw inputError(fmt::format("pipeline: {}", e.what()));
    }
    const std::vector<torch::Tensor> trainable = trainer.trainableParameters();
    for (std::size_t i = 0; i < trainable.size(); ++i)
        m_paramIndex[trainable[i].unsafeGetTensorImpl()] = i;
    buildJobs(plan);
    if (m_spec.schedule == pipeline::Schedule::kLoopedBfs && m_streams.devices().size() > 1)
        placeBoundStages();
    if (m_spec.schedule == pipeline::Schedule::kRoundPipe) {
        const TrainConfig& c = trainer.config();
        // Replicas are built as the master was; the RNG the data and training draw from is left as
        // it was.
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        const at::Tensor rngState = generator.get_state();
        const std::vector<torch::Tensor> master = trainer.model()->parameters();
        for (int w = 0; w < m_spec.workers; ++w) {
            m_replicas.emplace_back(c.model, c.lora, c.seqLen, c.checkpoint);
            m_replicas.back()->to(m_streams.device(w));
            const std::vector<torch::Tensor> replica = m_replicas.back()->parameters();
            for (std::size_t i = 0; i < master.size(); ++i) {
                auto index = m_paramIndex.find(master[i].unsafeGetTensorImpl());
                if (index != m_paramIndex.end())
                    m_paramIndex[replica[i].unsafeGetTensorImpl()] = index->second;
            }
        }
        generator.set_state(rngState);
        if (m_streams.queued()) {
            // The host master copy in pinned memory, so uploads are asynchronous copies on the
            // worker's stream (set_data keeps the tensors the optimizer and the model hold).
            torch::NoGradGuard noGrad;
            for (torch::Tensor t : trainer.model()->state()) t.set_data(t.data().pin_memory());
        }
        m_resident.assign(static_cast<std::size_t>(m_spec.workers), {-1, -1, false, -1});
        if (c.optimizations.pipeline.asyncOptimizer) {
            m_snapshots.resize(2);
            for (const torch::Tensor& t : trainer.model()->state()) {
                m_snapshotPosition[t.unsafeGetTensorImpl()] = m_snapshots[0].size();
                for (auto& snapshot : m_snapshots)
                    snapshot.push_back(m_streams.hostBuffer(t).copy_(t));
            }
        }
    }
    for (int w = 0; w < m_spec.workers; ++w) {
        m_packed.push_back(std::make_unique<PackedMetadataProvider>(
            trainer.config().optimizations.packedMetadata, tracer));
    }
    for (int w = 0; w < m_spec.workers; ++w) m_threads.emplace_back([this, w] { workerLoop(w); });
}

PipelineExecutor::~PipelineExecutor() {
    try {
        joinOptimizer();
    } catch (...) {
        // Only reached when the trainer goes away without finish(), i.e. while another exception
        // already unwinds the run: that one is reported, this one cannot be.
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads) t.join();
}

// Jobs per worker from the simulated plan: consecutive ops of one (pass, stage, micro-batch) form a
// job.
void PipelineExecutor::buildJobs(const pipeline::SimulationResult& plan) {
    const auto layers = static_cast<std::int64_t>(m_spec.costs.layers());
    auto firstLayerOf = [](const std::vector<int>& partition, int stage, bool fromTop,
                           std::int64_t total) {
        std::int64_t before = 0;
        for (int s = 0; s < stage; ++s) before += partition[static_cast<std::size_t>(s)];
        return fromTop ? total - before - partition[static_cast<std::size_t>(stage)] : before;
    };
    m_jobs.assign(static_cast<std::size_t>(m_spec.workers), {});
    for (const pipeline::SimOp& op : plan.ops) {
        std::vector<Job>& jobs = m_jobs[static_cast<std::size_t>(op.worker)];
        if (!jobs.empty() && jobs.back().backward == op.backwardPass &&
            jobs.back().stage == op.stage && jobs.back().microbatch == op.microbatch) {
            continue;  // the backward op after its recompute (or head forward): the same job
        }
        Job job;
        job.backward = op.backwardPass;
        job.stage = op.stage;
        job.microbatch = op.microbatch;
        if (m_spec.schedule == pipeline::Schedule::kRoundPipe) {
            if (!job.backward) {
                job.firstLayer = firstLayerOf(m_spec.forwardPartition, op.stage, false, layers);
                job.layers = m_spec.forwardPartition[static_cast<std::size_t>(op.stage)];
            } else if (op.stage == 0) {
                job.firstLayer = layers;  // the head stage
                job.head = true;
            } else {
                std::vector<int> fromTop(m_spec.backwardPartition.begin() + 1,
                                         m_spec.backwardPartition.end());
                job.firstLayer = firstLayerOf(fromTop, op.stage - 1, true, layers);
                job.layers = fromTop[static_cast<std::size_t>(op.stage - 1)];
            }
        } else {
            job.firstLayer = firstLayerOf(m_spec.forwardPartition, op.stage, false, layers);
            job.layers = m_spec.forwardPartition[static_cast<std::size_t>(op.stage)];
            job.head = op.stage == static_cast<int>(m_spec.forwardPartition.size()) - 1;
        }
        jobs.push_back(job);
    }
}

// Looped-BFS on several GPUs: each stage's weights move to its worker's device (in place, so the
// optimizer keeps them); a tied embedding stays with the embedding stage and the head copies it
// over.
void PipelineExecutor::placeBoundStages() {
    std::set<const void*> placed;
    torch::NoGradGuard noGrad;
    for (int w = 0; w < m_spec.workers; ++w) {
        for (const Job& job : m_jobs[static_cast<std::size_t>(w)]) {
            if (job.backward) continue;
            for (torch::Tensor t : jobState(job, m_trainer.model())) {
                if (!placed.insert(t.unsafeGetTensorImpl()).second) continue;
                t.set_data(t.data().to(m_streams.device(w)));
            }
        }
    }
}

torch::Tensor PipelineExecutor::awaitHandOff(int worker, const Job& job, StepState& state,
                                             HandOffs& from, std::pair<std::int64_t, int> key) {
    const TimestampNs start = Clock::nowNs();
    torch::Tensor tensor;
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_wake.wait(lock, [&] { return state.failure || from.count(key) != 0; });
        if (state.failure) return {};
        tensor = from.at(key);
    }
    // From another GPU: copied here (complete on the producer's stream when it was published).
    tensor = tensor.to(m_streams.device(worker));
    recordRange(state.run, state.run != 0 ? laneOf(state.run, worker) : 0, "wait", EventKind::kWait,
                Category::kPipeline, start, Clock::nowNs(), state.step, job.stage, job.microbatch);
    return tensor;
}

LaneId PipelineExecutor::laneOf(RunId run, int worker) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto [it, added] = m_lanes.try_emplace({run, worker}, 0);
    if (!added) return it->second;
    // Worker lanes are made in worker order (by the main thread at the step start), so worker w is
    // lane w.
    it->second =
        worker == kOptimizerLane
            ? m_tracer->writer().addLane(run, LaneKind::kHostThread, "optimizer", -1, -1)
            : m_tracer->writer().addLane(run, LaneKind::kPipelineWorker,
                                         fmt::format("pipeline worker {}", worker), -1, worker);
    return it->second;
}

double PipelineExecutor::step(std::int32_t step) {
    const TrainConfig& config = m_trainer.config();
    const int m = static_cast<int>(config.microbatches);
    auto owned = std::make_unique<StepState>();
    StepState& state = *owned;
    state.step = step;
    state.run = m_tracer != nullptr ? m_tracer->run() : 0;
    state.losses.assign(static_cast<std::size_t>(m), torch::Tensor());
    state.parameterGrads.assign(static_cast<std::size_t>(m),
                                std::vector<std::vector<torch::Tensor>>(m_paramIndex.size()));
    state.inputs.resize(m_streams.devices().size());
    for (int mb = 0; mb < m; ++mb) {
        ScopedRange range(m_tracer, names::kLoadBatch, Category::kData, Tags{kNoTag, kNoTag, mb});
        const PackedBatch host = m_trainer.data().batch(static_cast<std::int64_t>(step) * m + mb);
        for (std::size_t d = 0; d < state.inputs.size(); ++d)
            state.inputs[d].batches.push_back(host.toDevice(m_streams.devices()[d]));
    }
    for (StepState::DeviceInputs& on : state.inputs) {
        for (const PackedBatch& batch : on.batches) {
            on.contexts.push_back(m_trainer.makeContext(batch));
            torch::NoGradGuard noGrad;
            m_trainer.model()->fillRotary(batch.positions,
                                          on.contexts.back());  // every stage needs them
        }
    }
    m_streams.finishCurrent();  // the workers' streams read the batches and rotary tables made on
                                // this one
    if (m_tracer != nullptr && state.run != 0) {
        for (int w = 0; w < m_spec.workers; ++w) laneOf(state.run, w);
    }
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_state = &state;
        m_running = m_spec.workers;
        ++m_generation;
        m_wake.notify_all();
        m_done.wait(lock, [&] { return m_running == 0; });
        m_state = nullptr;
    }
    if (state.failure) std::rethrow_exception(state.failure);
    // The losses summed in float in micro-batch order, exactly as Trainer::step sums them.
    torch::Tensor lossSum = torch::zeros({}, torch::TensorOptions().device(m_trainer.device()));
    for (const torch::Tensor& l : state.losses) {
        if (l.defined()) lossSum += l.to(lossSum.device());
    }
    const double loss = lossSum.item<double>();
    // The optimizer on its own thread, after every job: waited for now (synchronous), or left
    // running under the next step (RoundPipe's asynchronous variant; one update at a time).
    joinOptimizer();
    m_optimizing = std::move(owned);
    m_optimizerThread = std::thread([this] {
        try {
            HostTracer::nameThisThread("optimizer");
            optimizerStep(*m_optimizing);
        } catch (...) {
            m_optimizerFailure = std::current_exception();
        }
    });
    if (m_snapshots.empty()) joinOptimizer();
    return loss;
}

void PipelineExecutor::joinOptimizer() {
    if (m_optimizerThread.joinable()) m_optimizerThread.join();
    m_optimizing.reset();
    if (m_optimizerFailure) std::rethrow_exception(std::exchange(m_optimizerFailure, nullptr));
}

void PipelineExecutor::workerLoop(int worker) {
    HostTracer::nameThisThread(fmt::format("pipeline worker {}", worker));
    at::set_num_threads(m_trainer.config().optimizations.pipeline.threadsPerWorker);
    std::optional<c10::StreamGuard>
        onOwnStream;  // CUDA: all this thread's device work goes to its stream
    if (m_streams.queued()) onOwnStream.emplace(m_streams.stream(worker));
    std::int64_t seen = 0;
    while (true) {
        StepState* state = nullptr;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
            state = m_state;
        }
        for (const Job& job : m_jobs[static_cast<std::size_t>(worker)]) {
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                if (state->failure) break;
            }
            try {
                runJob(worker, job, *state);
            } catch (...) {
                std::lock_guard<std::mutex> lock(m_mutex);
                if (!state->failure) state->failure = std::current_exception();
                m_wake.notify_all();  // wake workers waiting on this job's output
                break;
            }
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        if (--m_running == 0) m_done.notify_all();
    }
}

Decoder& PipelineExecutor::modelOf(int worker) {
    return m_replicas.empty() ? m_trainer.model() : m_replicas[static_cast<std::size_t>(worker)];
}

std::vector<torch::Tensor> PipelineExecutor::jobState(const Job& job, Decoder& model) {
    std::vector<torch::Tensor> state;
    auto add = [&](const std::vector<torch::Tensor>& more) {
        state.insert(state.end(), more.begin(), more.end());
    };
    if (job.firstLayer == 0 && job.layers > 0) add(model->embedState());
    for (std::int64_t l = job.firstLayer; l < job.firstLayer + job.layers; ++l)
        add(model->layerState(l));
    if (job.head) add(model->headState());
    return state;
}

void PipelineExecutor::upload(int worker, const Job& job, StepState& state) {
    auto& resident = m_resident[static_cast<std::size_t>(worker)];
    const auto wanted = std::make_tuple(job.firstLayer, job.layers, job.head,
                                        static_cast<std::int64_t>(state.step));
    if (resident == wanted) return;  // the worker holds this stage's weights of this step already
    const TimestampNs start = Clock::nowNs();
    const std::vector<torch::Tensor> master = jobState(job, m_trainer.model());
    const std::vector<torch::Tensor> replica = jobState(job, modelOf(worker));
    std::int64_t bytes = 0;
    {
        torch::NoGradGuard noGrad;
        const bool async =
            m_streams.queued();  // pinned host memory: copies queued on the worker's stream
        for (std::size_t k = 0; k < master.size(); ++k) {
            // Asynchronous optimizer: the snapshot of this step (the weights before the update
            // still running).
            const torch::Tensor& source =
                m_snapshots.empty()
                    ? master[k]
                    : m_snapshots[static_cast<std::size_t>(state.step % 2)]
                                 [m_snapshotPosition.at(master[k].unsafeGetTensorImpl())];
            replica[k].copy_(source, async);
            bytes += static_cast<std::int64_t>(replica[k].nbytes());
        }
    }
    m_streams.finish(worker);
    resident = wanted;
    if (state.run != 0) {
        recordRange(state.run, laneOf(state.run, worker), "upload", EventKind::kRange,
                    Category::kPipeline, start, Clock::nowNs(), state.step, job.stage,
                    job.microbatch, bytes);
    }
}

void PipelineExecutor::recordRange(RunId run, LaneId lane, const char* name, EventKind kind,
                                   Category category, TimestampNs start, TimestampNs end,
                                   std::int32_t step, std::int32_t stage, std::int32_t microbatch,
                                   std::int64_t bytes) {
    if (m_tracer == nullptr || run == 0 || lane == 0 || end <= start) return;
    Event e;
    e.run = run;
    e.lane = lane;
    e.kind = kind;
    e.category = category;
    e.name = m_tracer->intern(name);
    e.startNs = start;
    e.endNs = end;
    e.step = step;
    e.layer = stage;
    e.microbatch = microbatch;
    e.bytes = bytes;
    m_tracer->writer().record(e);
}

std::vector<torch::Tensor> PipelineExecutor::jobParameters(const Job& job, Decoder& model) const {
    std::vector<torch::Tensor> params;
    auto add = [&](const std::vector<torch::Tensor>& more) {
        for (const torch::Tensor& p : more) {
            if (!p.requires_grad()) continue;
            if (std::none_of(params.begin(), params.end(),
                             [&](const torch::Tensor& q) { return q.is_same(p); })) {
                params.push_back(p);
            }
        }
    };
    if (job.firstLayer == 0 && job.layers > 0) add(model->embedParameters());
    for (std::int64_t l = job.firstLayer; l < job.firstLayer + job.layers; ++l)
        add(model->layerParameters(l));
    if (job.head) add(model->headParameters());
    return params;
}

void PipelineExecutor::runJob(int worker, const Job& job, StepState& state) {
    Decoder& model = modelOf(worker);
    const int mb = job.microbatch;
    const std::int64_t last = job.firstLayer + job.layers;
    const bool fromTokens = job.firstLayer == 0 && job.layers > 0;
    const LaneId lane = state.run != 0 ? laneOf(state.run, worker) : 0;
    auto record = [&](const char* name, EventKind kind, Category category, TimestampNs start,
                      TimestampNs end, std::int64_t bytes = 0) {
        recordRange(state.run, lane, name, kind, category, start, end, state.step, job.stage, mb,
                    bytes);
    };
    // RoundPipe: the stage's weights first; they do not depend on the input, so the upload runs
    // while the input may still be on its way.
    if (!m_replicas.empty()) upload(worker, job, state);
    // The input activation, unless the job starts from the tokens. A backward job waits for the
    // gradient of its output only after its recompute, which needs the input alone (as the
    // simulator plans it).
    torch::Tensor input;
    if (!fromTokens) {
        input = awaitHandOff(worker, job, state, state.activations, {job.firstLayer, mb});
        if (!input.defined()) return;  // the step failed
    }
    const StepState::DeviceInputs& here = state.inputs[m_streams.slot(worker)];
    ForwardContext context = here.contexts[static_cast<std::size_t>(mb)];
    context.packedMetadata = m_packed[static_cast<std::size_t>(worker)].get();
    context.offloader = nullptr;
    const PackedBatch& batch = here.batches[static_cast<std::size_t>(mb)];
    const double scale = static_cast<double>(m_trainer.config().microbatches);
    const bool onCuda =
        m_trainer.device().is_cuda();  // bf16 autocast, as the single-worker trainer

    if (!job.backward) {
        const TimestampNs start = Clock::nowNs();
        torch::NoGradGuard noGrad;
        CudaAutocast autocast(onCuda);
        torch::Tensor h = fromTokens ? model->embedTokens(batch.tokens)
                                     : input;  // rotary tables: filled per step
        std::vector<std::pair<std::int64_t, torch::Tensor>> kept;
        for (std::int64_t l = job.firstLayer; l < last; ++l) {
            kept.emplace_back(l, h);
            h = model->runLayers(h, l, 1, context);
        }
        kept.emplace_back(last, h);
        torch::Tensor loss;
        if (job.head) loss = m_trainer.lossOf(model->head(h), batch).to(torch::kFloat) / scale;
        m_streams.finish(
            worker);  // the outputs are complete before another worker's stream reads them
        record(names::kForward, EventKind::kRange, Category::kMath, start, Clock::nowNs());
        std::lock_guard<std::mutex> lock(m_mutex);
        for (auto& [layer, tensor] : kept) {
            if (layer != job.firstLayer || fromTokens) state.activations[{layer, mb}] = tensor;
        }
        if (job.head) state.losses[static_cast<std::size_t>(mb)] = loss;
        m_wake.notify_all();
        return;
    }

    // Backward: recompute the stage with autograd, then the gradients of its input and parameters.
    context.recompute = true;
    const TimestampNs recomputeStart = Clock::nowNs();
    torch::AutoGradMode enableGrad(true);
    torch::Tensor stageInput;
    torch::Tensor root;
    {
        CudaAutocast autocast(onCuda);
        torch::Tensor h;
        if (fromTokens) {
            h = model->embedTokens(batch.tokens);
        } else {
            stageInput = input.detach().requires_grad_(true);
            h = stageInput;
        }
        h = model->runLayers(h, job.firstLayer, job.layers, context);
        root = job.head ? m_trainer.lossOf(model->head(h), batch).to(torch::kFloat) / scale : h;
    }
    m_streams.finish(worker);
    const TimestampNs recomputeEnd = Clock::nowNs();
    torch::Tensor outputGrad;
    TimestampNs backwardStart = recomputeEnd;  // a head's backward follows its forward directly
    if (!job.head) {
        outputGrad = awaitHandOff(worker, job, state, state.gradients, {last, mb});
        if (!outputGrad.defined()) return;
        backwardStart = Clock::nowNs();
    }
    // RoundPipe's head stage runs the head forward for the first time here: a forward, not a
    // recompute.
    record(job.head && job.layers == 0 && m_spec.schedule == pipeline::Schedule::kRoundPipe
               ? names::kForward
               : names::kRecompute,
           EventKind::kRange, Category::kMath, recomputeStart, recomputeEnd);
    std::vector<torch::Tensor> inputs;
    if (stageInput.defined()) inputs.push_back(stageInput);
    const std::vector<torch::Tensor> params = jobParameters(job, model);
    inputs.insert(inputs.end(), params.begin(), params.end());
    std::vector<torch::Tensor> grads;
    if (!inputs.empty() && root.requires_grad()) {
        grads = torch::autograd::grad({root}, inputs, {job.head ? torch::Tensor() : outputGrad},
                                      /*retain_graph=*/false, /*create_graph=*/false,
                                      /*allow_unused=*/true);
    }
    m_streams.finish(worker);
    record(names::kBackward, EventKind::kRange, Category::kMath, backwardStart, Clock::nowNs());
    if (!m_replicas.empty()) {
        // Download: the parameters' gradients leave the worker's replica for the optimizer's host
        // slots (on CUDA, copies into pinned buffers queued on the worker's stream).
        const TimestampNs downloadStart = Clock::nowNs();
        std::int64_t bytes = 0;
        for (std::size_t i = stageInput.defined() ? 1 : 0; i < grads.size(); ++i) {
            if (!grads[i].defined()) continue;
            grads[i] = m_streams.hostBuffer(grads[i]).copy_(grads[i], m_streams.queued());
            bytes += static_cast<std::int64_t>(grads[i].nbytes());
        }
        m_streams.finish(worker);
        record("download", EventKind::kRange, Category::kPipeline, downloadStart, Clock::nowNs(),
               bytes);
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    std::size_t next = 0;
    if (stageInput.defined()) {
        state.gradients[{job.firstLayer, mb}] =
            grads.empty() ? torch::zeros_like(stageInput) : grads[next];
        ++next;
    }
    for (const torch::Tensor& p : params) {
        const torch::Tensor g = grads.empty() ? torch::Tensor() : grads[next++];
        if (g.defined())
            state
                .parameterGrads[static_cast<std::size_t>(mb)]
                               [m_paramIndex.at(p.unsafeGetTensorImpl())]
                .push_back(g);
    }
    if (job.head && m_spec.schedule == pipeline::Schedule::kRoundPipe) {
        state.losses[static_cast<std::size_t>(mb)] =
            root.detach();  // RoundPipe's forward never reached the loss
    }
    m_wake.notify_all();
}

void PipelineExecutor::optimizerStep(StepState& state) {
    const TimestampNs start = Clock::nowNs();
    const std::vector<torch::Tensor> trainable = m_trainer.trainableParameters();
    for (int w = 0; w < m_spec.workers; ++w) m_streams.finish(w);  // every gradient is complete
    torch::NoGradGuard noGrad;
    for (const torch::Tensor& p : trainable) {
        const std::size_t index = m_paramIndex.at(p.unsafeGetTensorImpl());
        torch::Tensor sum;
        for (const auto& perMicrobatch :
             state.parameterGrads) {  // micro-batch order, as accumulation does
            const std::vector<torch::Tensor>& parts = perMicrobatch[index];
            if (parts.empty()) continue;
            // A micro-batch's parts summed first, as autograd sums a tied weight's two uses (at
            // most two parts, so their order does not change the bits).
            torch::Tensor g = parts.front();
            for (std::size_t k = 1; k < parts.size(); ++k) g = g + parts[k];
            if (!sum.defined()) {
                sum = g.clone();
            } else {
                sum.add_(g);
            }
        }
        p.mutable_grad() = sum;
    }
    m_trainer.optimizer().step();
    m_streams
        .finishCurrent();  // the next step's workers read the updated weights on their own streams
    if (!m_snapshots.empty()) {
        // Publish the updated weights for step + 2 (step + 1 reads the other snapshot meanwhile).
        std::vector<torch::Tensor>& snapshot =
            m_snapshots[static_cast<std::size_t>(state.step % 2)];
        torch::NoGradGuard noGrad;
        for (const torch::Tensor& t : m_trainer.model()->state())
            snapshot[m_snapshotPosition.at(t.unsafeGetTensorImpl())].copy_(t);
    }
    // Recorded into the step's own run on an "optimizer" lane of it: the tracer may already record
    // the other A/B arm while an asynchronous update finishes.
    if (m_tracer != nullptr && state.run != 0) {
        recordRange(state.run, laneOf(state.run, kOptimizerLane), names::kOptimizer,
                    EventKind::kRange, Category::kOptimizer, start, Clock::nowNs(), state.step,
                    kNoTag, kNoTag);
    }
}

}  // namespace glueprof

#include "reference_trainer/distributed/GradientSync.h"

#include <fmt/format.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <atomic>

#include "profiler/core/Clock.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

void recordCommRange(HostTracer* tracer, const char* name, TimestampNs startNs, TimestampNs endNs,
                     std::int64_t sequence, std::int64_t bytes, std::int32_t bucket) {
    if (tracer == nullptr) return;
    const Tags tags = HostTracer::currentTags();
    Event e = makeEvent(0, 0, EventKind::kRange, tracer->intern(name), startNs, endNs);
    e.category = Category::kComm;
    e.step = tags.step;
    e.microbatch = tags.microbatch;
    e.layer = bucket;
    e.correlation = sequence;
    e.bytes = bytes;
    tracer->record(e);
}

struct GradientSync::Bucket {
    std::vector<std::size_t> parameters;
    std::size_t pending = 0;  // parameters not ready yet in the armed backward
    torch::Tensor flat;
    c10::intrusive_ptr<c10d::Work> work;
    std::int64_t sequence = 0;
    std::int64_t bytes = 0;
    TimestampNs launchNs = 0;
    std::shared_ptr<std::atomic<TimestampNs>> doneNs =
        std::make_shared<std::atomic<TimestampNs>>(0);
};

// Runs after a parameter's gradient accumulator has added this backward's gradient to .grad.
class GradientSync::ReadyHook : public torch::autograd::FunctionPostHook {
  public:
    ReadyHook(GradientSync& sync, std::size_t parameter) : m_sync(sync), m_parameter(parameter) {}
    torch::autograd::variable_list operator()(
        const torch::autograd::variable_list& outputs,
        const torch::autograd::variable_list& /*inputs*/) override {
        m_sync.onGradientReady(m_parameter);
        return outputs;
    }

  private:
    GradientSync& m_sync;
    std::size_t m_parameter;
};

GradientSync::GradientSync(RankGroup& group, std::vector<torch::Tensor> parameters,
                           GradientSyncSettings settings, HostTracer* tracer)
    : m_group(group),
      m_parameters(std::move(parameters)),
      m_settings(settings),
      m_tracer(tracer),
      m_bucketOf(m_parameters.size(), 0),
      m_ready(m_parameters.size(), false) {
    if (m_settings.mode != GradientSyncMode::kBucketedOverlap) return;
    // Reverse parameter order: backward produces the last layers' gradients first.
    for (std::size_t k = m_parameters.size(); k-- > 0;) {
        const torch::Tensor& p = m_parameters[k];
        const std::int64_t bytes = p.numel() * static_cast<std::int64_t>(p.element_size());
        // A new bucket when this one is full, or holds another dtype (one flat buffer each). The
        // first is capped at 1 MiB, as DDP's: the last layers' gradients start moving early.
        constexpr std::int64_t kFirstBucketBytes = std::int64_t{1} << 20;
        const std::int64_t cap = m_buckets.size() == 1
                                     ? std::min(kFirstBucketBytes, m_settings.bucketBytes)
                                     : m_settings.bucketBytes;
        const bool full = !m_buckets.empty() && m_buckets.back()->bytes + bytes > cap;
        const bool otherType =
            !m_buckets.empty() &&
            p.scalar_type() != m_parameters[m_buckets.back()->parameters.front()].scalar_type();
        if (m_buckets.empty() || full || otherType) m_buckets.push_back(std::make_unique<Bucket>());
        m_buckets.back()->parameters.push_back(k);
        m_buckets.back()->bytes += bytes;
        m_bucketOf[k] = m_buckets.size() - 1;
    }
    for (std::size_t k = 0; k < m_parameters.size(); ++k) {
        std::shared_ptr<torch::autograd::Node> accumulator =
            torch::autograd::impl::grad_accumulator(m_parameters[k]);
        accumulator->add_post_hook(std::make_unique<ReadyHook>(*this, k));
        m_accumulators.push_back(std::move(accumulator));
    }
}

GradientSync::~GradientSync() = default;

void GradientSync::beforeLastBackward() {
    if (m_settings.mode != GradientSyncMode::kBucketedOverlap) return;
    std::fill(m_ready.begin(), m_ready.end(), false);
    for (auto& bucket : m_buckets) {
        bucket->pending = bucket->parameters.size();
        bucket->work.reset();
    }
    m_nextLaunch = 0;
    m_armed = true;
}

void GradientSync::onGradientReady(std::size_t parameter) {
    if (!m_armed) return;  // an earlier micro-batch's backward: its gradients are not final
    if (m_ready[parameter]) {
        throw inputError(fmt::format(
            "parameter {} got a second gradient in one backward after its bucket was counted "
            "ready; ddp_overlap needs each parameter's gradient accumulated once per backward",
            parameter));
    }
    m_ready[parameter] = true;
    --m_buckets[m_bucketOf[parameter]]->pending;
    launchReadyBuckets();
}

void GradientSync::launchReadyBuckets() {
    // In bucket order on every rank: the ranks' collectives must match one for one.
    while (m_nextLaunch < m_buckets.size() && m_buckets[m_nextLaunch]->pending == 0) {
        launch(*m_buckets[m_nextLaunch]);
        ++m_nextLaunch;
    }
}

void GradientSync::launch(Bucket& bucket) {
    std::vector<torch::Tensor> pieces;
    for (std::size_t k : bucket.parameters) {
        torch::Tensor& p = m_parameters[k];
        if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
        pieces.push_back(p.grad().reshape({-1}));
    }
    bucket.flat = torch::cat(pieces);
    std::vector<torch::Tensor> tensors{bucket.flat};
    bucket.launchNs = Clock::nowNs();
    bucket.doneNs->store(0);
    bucket.work = m_group.allReduceSum(tensors, bucket.sequence);
    try {
        // When the backend says it is done: on Gloo (its own thread) the all-reduce's end. NCCL
        // completes the future once the collective is enqueued on its stream, so there the range
        // spans the launch and the kernels CUPTI records are the communication.
        std::shared_ptr<std::atomic<TimestampNs>> done = bucket.doneNs;
        bucket.work->getFuture()->addCallback(
            [done](c10::ivalue::Future&) { done->store(Clock::nowNs()); });
    } catch (const std::exception&) {
        // No future from this backend: the end is when the trainer sees it done.
    }
}

void GradientSync::averageAfterBackward() {
    if (m_settings.mode != GradientSyncMode::kBucketedOverlap) {
        perParameter();
        return;
    }
    m_armed = false;
    // Buckets whose parameters got no gradient this backward (unused ones) go now, zeros.
    for (; m_nextLaunch < m_buckets.size(); ++m_nextLaunch) launch(*m_buckets[m_nextLaunch]);
    const double world = static_cast<double>(m_group.worldSize());
    for (std::size_t b = 0; b < m_buckets.size(); ++b) {
        Bucket& bucket = *m_buckets[b];
        const TimestampNs waitStart = Clock::nowNs();
        m_group.wait(bucket.work, "a gradient all-reduce");
        const TimestampNs waitEnd = Clock::nowNs();
        if (m_tracer != nullptr && waitEnd > waitStart) {
            Event e = makeEvent(0, 0, EventKind::kWait, m_tracer->intern(names::kWaitAllReduce),
                                waitStart, waitEnd);
            e.category = Category::kComm;  // exposed communication (docs/metrics.md)
            e.step = HostTracer::currentTags().step;
            e.correlation = bucket.sequence;
            m_tracer->record(e);
        }
        const TimestampNs done = bucket.doneNs->load();
        recordCommRange(m_tracer, names::kAllReduce, bucket.launchNs,
                        done > 0 ? std::min(done, waitEnd) : waitEnd, bucket.sequence, bucket.bytes,
                        static_cast<std::int32_t>(b));
        bucket.flat.div_(world);
        std::int64_t offset = 0;
        for (std::size_t k : bucket.parameters) {
            torch::Tensor grad = m_parameters[k].grad();
            grad.copy_(bucket.flat.narrow(0, offset, grad.numel()).view_as(grad));
            offset += grad.numel();
        }
        bucket.work.reset();
        bucket.flat = torch::Tensor();
    }
}

void GradientSync::perParameter() {
    const double world = static_cast<double>(m_group.worldSize());
    for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        torch::Tensor& parameter = m_parameters[i];
        if (!parameter.grad().defined()) parameter.mutable_grad() = torch::zeros_like(parameter);
        std::vector<torch::Tensor> tensors{parameter.grad()};
        const TimestampNs start = Clock::nowNs();
        std::int64_t sequence = 0;
        m_group.wait(m_group.allReduceSum(tensors, sequence), "a gradient all-reduce");
        const TimestampNs end = Clock::nowNs();
        recordCommRange(
            m_tracer, names::kAllReduce, start, end, sequence,
            parameter.grad().numel() * static_cast<std::int64_t>(parameter.grad().element_size()),
            static_cast<std::int32_t>(i));
        parameter.grad().div_(world);
    }
}

}  // namespace glueprof

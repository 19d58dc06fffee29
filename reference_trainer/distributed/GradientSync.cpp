#include "reference_trainer/distributed/GradientSync.h"

#include "profiler/core/Clock.h"
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

GradientSync::GradientSync(RankGroup& group, std::vector<torch::Tensor> parameters,
                           HostTracer* tracer)
    : m_group(group), m_parameters(std::move(parameters)), m_tracer(tracer) {}

void GradientSync::averageAfterBackward() {
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

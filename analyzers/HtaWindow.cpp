#include "analyzers/HtaWindow.h"

#include <algorithm>

namespace glueprof {

std::optional<TimestampNs> htaHostEventCutoff(const TraceModel& trace) {
    if (trace.steps().size() < 2) return std::nullopt;
    TimestampNs lastEnd = trace.steps().front().endNs;
    for (const StepInfo& step : trace.steps()) lastEnd = std::max(lastEnd, step.endNs);
    return lastEnd;
}

HtaDeviceWork::HtaDeviceWork(const TraceModel& trace) : m_cutoff(htaHostEventCutoff(trace)) {
    m_launchStart.reserve(trace.eventCount() / 4);
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kRuntime && e.correlation != 0)
                m_launchStart[e.correlation] = e.startNs;
        }
    }
}

bool HtaDeviceWork::keeps(const Event& work) const {
    if (!m_cutoff) return true;
    const std::optional<TimestampNs> launch = launchStart(work.correlation);
    return launch && *launch <= *m_cutoff;
}

std::optional<TimestampNs> HtaDeviceWork::launchStart(std::int64_t correlation) const {
    if (correlation == 0) return std::nullopt;
    const auto found = m_launchStart.find(correlation);
    if (found == m_launchStart.end()) return std::nullopt;
    return found->second;
}

namespace {
bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }
}  // namespace

HtaKernelType htaKernelType(const Event& e, const std::string& name) {
    const bool ncclKernel =
        startsWith(name, "nccl") && name.find("Kernel", 4) != std::string::npos;  // ^nccl.*Kernel
    if (ncclKernel) return HtaKernelType::kCommunication;
    if (e.kind != EventKind::kKernel || startsWith(name, "Memcpy") || startsWith(name, "Memset") ||
        startsWith(name, "dma"))
        return HtaKernelType::kMemory;
    if (name.find("Memcpy") != std::string::npos || name.find("Sync") != std::string::npos)
        return HtaKernelType::kOther;
    return HtaKernelType::kComputation;
}

const char* toString(HtaKernelType type) {
    switch (type) {
        case HtaKernelType::kCommunication:
            return "COMMUNICATION";
        case HtaKernelType::kMemory:
            return "MEMORY";
        case HtaKernelType::kComputation:
            return "COMPUTATION";
        case HtaKernelType::kOther:
            break;
    }
    return "OTHER";
}

bool isDeviceWork(const Event& e) {
    return e.kind == EventKind::kKernel || e.kind == EventKind::kMemcpy ||
           e.kind == EventKind::kMemset;
}

bool isDeviceWorkLane(const Lane& lane) {
    return (lane.kind == LaneKind::kCudaStream || lane.kind == LaneKind::kCopyStream) &&
           lane.device >= 0;
}

}  // namespace glueprof

#include "profiler/import/ChromeEventMapper.h"

#include <algorithm>

#include "profiler/core/ChromeExportFormat.h"
#include "profiler/core/TorchRangeNames.h"
#include "profiler/import/ChromeJsonNumbers.h"

namespace glueprof {

namespace {

MemoryKind memoryKindOf(std::string_view word) {
    const std::string w = lowerCase(word);
    if (w == "pageable") return MemoryKind::kPageable;
    if (w == "pinned") return MemoryKind::kPinned;
    if (w == "device" || w == "array" || w == "managed") return MemoryKind::kDevice;
    return MemoryKind::kUnknown;
}

// "Memcpy DtoH (Device -> Pageable)": the memory kinds in the parentheses.
std::pair<MemoryKind, MemoryKind> copyKinds(std::string_view name) {
    const auto open = name.find('(');
    const auto arrow = name.find("->", open == std::string_view::npos ? 0 : open);
    const auto close = name.find(')', arrow == std::string_view::npos ? 0 : arrow);
    if (open == std::string_view::npos || arrow == std::string_view::npos ||
        close == std::string_view::npos)
        return {MemoryKind::kUnknown, MemoryKind::kUnknown};
    auto trim = [](std::string_view s) {
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        return s;
    };
    return {memoryKindOf(trim(name.substr(open + 1, arrow - open - 1))),
            memoryKindOf(trim(name.substr(arrow + 2, close - arrow - 2)))};
}

// ASCII only, whatever the locale: categories and the words compared are ASCII (std::tolower
// was also a library call per byte of every event's category).
char asciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool hasUpper(std::string_view text) {
    return std::any_of(text.begin(), text.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

bool equalsIgnoringCase(std::string_view text, std::string_view lower) {
    if (text.size() != lower.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (asciiLower(text[i]) != lower[i]) return false;
    }
    return true;
}

// An event's phase as one character ('\0' for any other text): every phase of the format is one
// character, compared here without a string comparison per phase.
char phaseOf(const RawEvent& e) { return e.ph.size() == 1 ? e.ph[0] : '\0'; }
bool is(char ph, std::string_view phase) { return ph == phase[0]; }

bool isInstant(char ph) {
    return is(ph, chrome::kPhaseInstant) || is(ph, chrome::kPhaseInstantLegacy) ||
           is(ph, chrome::kPhaseMark);
}

bool isFlow(char ph) {
    return is(ph, chrome::kPhaseFlowStart) || is(ph, chrome::kPhaseFlowEnd) ||
           is(ph, chrome::kPhaseFlowStep);
}

}  // namespace

std::string lowerCase(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = asciiLower(c);
    return out;
}

void ChromeEventMapper::map(const RawEvent& e) {
    const char ph = phaseOf(e);
    const bool complete = is(ph, chrome::kPhaseComplete);
    if (complete) {
        assembly().countRead(e.cat.empty() ? std::string_view("X without cat") : e.cat);
    } else {
        m_readKey.assign("ph ").append(e.ph);  // reused: no allocation per event
        assembly().countRead(m_readKey);
    }
    if (complete) {
        span(e, *e.ts, *e.ts + e.dur.value_or(0));  // the tokenizer checked that it fits
    } else if (is(ph, chrome::kPhaseBegin)) {
        m_state.begin(e);
    } else if (is(ph, chrome::kPhaseEnd)) {
        auto begun = m_state.end(e);
        if (!begun) return assembly().count(DiagnosticId::kSkippedEndWithoutBegin);
        span(begun->first, begun->second, *e.ts);
    } else if (isInstant(ph)) {
        instant(e);
    } else if (isFlow(ph)) {
        flow(e);
    } else if (is(ph, chrome::kPhaseMetadata)) {
        metadata(e);
    } else {
        assembly().count(DiagnosticId::kSkippedUnknownPhase, e.ph);
    }
}

void ChromeEventMapper::span(const RawEvent& e, TimestampNs start, TimestampNs end) {
    if (end < start) return assembly().count(DiagnosticId::kSkippedNegativeDuration);
    std::string_view cat = e.cat;  // lower case already, in every trace seen
    if (hasUpper(cat)) {
        m_cat.assign(e.cat);
        for (char& c : m_cat) c = asciiLower(c);
        cat = m_cat;
    }
    const std::optional<SpanShape> shape = shapeOf(e, cat, start, end);
    if (!shape) return;
    const std::size_t lane = laneOf(e, *shape);
    const auto [src, dst] = memoryKindsOf(e, shape->kind);
    const EventKind kind = shape->kind;
    const bool needsLink = kind == EventKind::kRuntime || kind == EventKind::kKernel ||
                           kind == EventKind::kMemcpy || kind == EventKind::kMemset;
    if (needsLink && e.correlation == kAbsent) {
        m_state.addUnlinked(e, {lane, kind, shape->category, e.name, start, end,
                                e.bytes == kAbsent ? 0 : e.bytes, src, dst});
        return;
    }
    Event& added = assembly().add(lane, kind, shape->category, e.name, start, end);
    added.srcKind = src;
    added.dstKind = dst;
    added.flags |= shape->flags;
    if (e.bytes != kAbsent && e.bytes >= 0) added.bytes = e.bytes;
    if (e.bytes != kAbsent && e.bytes < 0) assembly().count(DiagnosticId::kSkippedNegativeBytes);
    if (kind == EventKind::kOp && e.externalId != kAbsent) added.correlation = e.externalId;
    if (e.correlation != kAbsent) added.correlation = e.correlation;
    decorate(added, e, *shape);
}

// Only launch-to-kernel flows (ac2g) link events; fwdbwd and others are not links of ours.
void ChromeEventMapper::flow(const RawEvent& e) {
    if (!e.ts || e.id.empty() || !equalsIgnoringCase(e.cat, chrome::kCatLaunchFlow) ||
        is(phaseOf(e), chrome::kPhaseFlowStep))
        return;
    if (auto id = parseInteger(e.id)) m_state.flow(e, e.ph == chrome::kPhaseFlowStart, *id);
}

void ChromeEventMapper::metadata(const RawEvent& e) {
    if (e.argName.empty()) return;
    if (e.name == chrome::kProcessName) assembly().nameProcess(e.pid, e.argName);
    if (e.name == chrome::kThreadName) m_state.nameThread(e);
}

std::optional<ChromeEventMapper::SpanShape> ChromeEventMapper::commonShape(const RawEvent& e,
                                                                           std::string_view cat) {
    using namespace chrome;
    if (cat == kCatOp || cat == "operator") {
        // c10d's ops (c10d::allreduce_, ...) around a collective are communication, not compute.
        return SpanShape{EventKind::kOp,
                         e.name.rfind("c10d::", 0) == 0 ? Category::kComm : Category::kMath};
    }
    if (cat == kCatUserAnnotation)
        return SpanShape{EventKind::kRange, categoryOfTorchRange(e.name).value_or(Category::kNone)};
    if (cat == "python_function") {
        if (assembly().options().keepPythonFunctions)
            return SpanShape{EventKind::kRange, Category::kNone, false, kFlagPythonFrame};
        assembly().count(DiagnosticId::kSkippedPythonFunctions);
        return std::nullopt;
    }
    // Every device runtime's calls (cuda_runtime, mtia_runtime, ...), as HTA's CPU events take
    // them (`^(.+)_runtime`).
    if (cat == kCatRuntime || cat == "cuda_driver" || cat == "runtime" ||
        (cat.size() > 8 && cat.substr(cat.size() - 8) == "_runtime"))
        return SpanShape{EventKind::kRuntime};
    if (cat == "mtia_ccp_events") {
        // An MTIA device's events: HTA counts them as both its kernels and its memory events; the
        // name tells a copy or a memset from a kernel.
        const std::string name = lowerCase(e.name);
        if (name.find("memcpy") != std::string::npos)
            return SpanShape{EventKind::kMemcpy, Category::kCopy, true};
        if (name.find("memset") != std::string::npos)
            return SpanShape{EventKind::kMemset, {}, true};
        return SpanShape{EventKind::kKernel, Category::kNone, true};
    }
    if (cat == kCatKernel) {  // with a collective's args: an NCCL kernel
        return SpanShape{EventKind::kKernel,
                         e.collective.empty() ? Category::kNone : Category::kComm, true};
    }
    if (cat == kCatMemcpy || cat == "memcpy")
        return SpanShape{EventKind::kMemcpy, Category::kCopy, true};
    if (cat == kCatMemset || cat == "memset") return SpanShape{EventKind::kMemset, {}, true};
    if (cat == "gpu_user_annotation") return SpanShape{EventKind::kRange, {}, true};
    if (cat == "trace") {
        assembly().count(DiagnosticId::kSkippedProfilerSpans);
    } else {
        assembly().count(DiagnosticId::kSkippedUnmappedCategory, e.cat);
    }
    return std::nullopt;
}

std::pair<MemoryKind, MemoryKind> ChromeEventMapper::memoryKindsOf(const RawEvent& e,
                                                                   EventKind kind) const {
    if (kind != EventKind::kMemcpy) return {MemoryKind::kUnknown, MemoryKind::kUnknown};
    return copyKinds(e.name);
}

void ChromeEventMapper::hostMarker(const RawEvent& e) {
    if (!e.pidNumeric || !e.ts)
        return assembly().count(DiagnosticId::kSkippedInstantOutsideProcess);
    assembly().add(m_state.hostLane(e), EventKind::kMarker, Category::kNone, e.name, *e.ts, *e.ts);
}

}  // namespace glueprof

#include "app/report/ChromeTrace.h"

#include "profiler/core/ChromeExportFormat.h"
#include "profiler/core/TextEncoding.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace glueprof {

namespace {

using namespace chrome;

std::string_view categoryOf(const Event& e) {
    switch (e.kind) {
        case EventKind::kRange:
            return kCatUserAnnotation;
        case EventKind::kOp:
            return kCatOp;
        case EventKind::kKernel:
            return kCatKernel;
        case EventKind::kMemcpy:
            return kCatMemcpy;
        case EventKind::kMemset:
            return kCatMemset;
        case EventKind::kSync:
            return kCatSync;
        case EventKind::kRuntime:
            return kCatRuntime;
        case EventKind::kMarker:
            return kCatMarker;
        case EventKind::kWait:
            return kCatWait;
    }
    return "other";
}

bool onDevice(const Lane& lane) {
    return (lane.kind == LaneKind::kCudaStream || lane.kind == LaneKind::kCopyStream) &&
           lane.device >= 0;
}

std::int64_t pidOf(const Lane& lane) {
    return onDevice(lane) ? kGpuPidBase + lane.device : kHostPid;
}

// µs with ns precision, exactly: integer microseconds and three decimals.
std::string micros(TimestampNs ns) {
    const char* sign = ns < 0 ? "-" : "";
    const std::int64_t magnitude = ns < 0 ? -ns : ns;
    return fmt::format("{}{}.{:03}", sign, magnitude / 1000, magnitude % 1000);
}

// One JSON object written field by field, its keys the format's names
// (ChromeExportFormat.h, which the reader reads by too).
class JsonObject {
  public:
    explicit JsonObject(fmt::memory_buffer& out) : m_out(out) { m_out.push_back('{'); }
    // A number or a boolean, or text already encoded as JSON (jsonStringLiteral).
    template <typename T>
    JsonObject& value(std::string_view key, const T& v) {
        field(key);
        fmt::format_to(std::back_inserter(m_out), "{}", v);
        return *this;
    }
    // Text that needs no escaping: a phase, a category, an enum's name.
    JsonObject& text(std::string_view key, std::string_view v) {
        field(key);
        m_out.push_back('"');
        m_out.append(v);
        m_out.push_back('"');
        return *this;
    }
    // An object inside this one, its fields next, closed by end().
    JsonObject& open(std::string_view key) {
        field(key);
        m_out.push_back('{');
        m_first = true;
        return *this;
    }
    JsonObject& end() {
        m_out.push_back('}');
        return *this;
    }

  private:
    void field(std::string_view key) {
        if (!m_first) m_out.append(std::string_view(", "));
        m_first = false;
        m_out.push_back('"');
        m_out.append(key);
        m_out.append(std::string_view("\": "));
    }
    fmt::memory_buffer& m_out;
    bool m_first = true;
};

// A metadata event: a process's or a thread's name, or a thread's place in the list.
void writeMetadata(fmt::memory_buffer& out, std::string_view name, std::int64_t pid,
                   std::int64_t tid, std::string_view argKey, const std::string& argJson) {
    JsonObject(out)
        .text(kPh, kPhaseMetadata)
        .text(kName, name)
        .value(kPid, pid)
        .value(kTid, tid)
        .open(kArgs)
        .value(argKey, argJson)
        .end()
        .end();
}

// The store's columns of an event, which the reader takes back from glueprof's own export.
void writeArgs(JsonObject& object, const Event& e) {
    object.open(kArgs)
        .text(kArgCategory, toString(e.category))
        .value(kArgStep, e.step)
        .value(kArgLayer, e.layer)
        .value(kArgMicrobatch, e.microbatch);
    if (e.correlation != 0) object.value(kArgCorrelation, e.correlation);
    if (e.bytes != 0) {
        object.value(kArgBytes, e.bytes)
            .text(kArgSrc, toString(e.srcKind))
            .text(kArgDst, toString(e.dstKind));
    }
    if ((e.flags & kFlagWouldSync) != 0) object.value(kArgSyncPoint, true);
    // All flag bits, so `glueprof import` of this file gets the same events back.
    if (e.flags != kFlagNone) object.value(kArgFlags, e.flags);
    object.end().end();
}

// Where a launch ran, for its ac2g flow.
struct Place {
    std::int64_t pid;
    std::int64_t tid;
    TimestampNs ts;
};

void writeFlow(fmt::memory_buffer& out, std::string_view ph, std::int64_t id, const Place& at) {
    JsonObject object(out);
    object.text(kPh, ph);
    if (ph == kPhaseFlowEnd) object.text(kFlowBinding, kBindEnclosing);
    object.value(kId, id)
        .text(kCat, kCatLaunchFlow)
        .text(kName, kCatLaunchFlow)
        .value(kPid, at.pid)
        .value(kTid, at.tid)
        .value(kTs, micros(at.ts))
        .end();
}

// The run's first event, where the file's time starts (baseTimeNanoseconds); 0 without events.
TimestampNs originOf(const TraceModel& trace) {
    TimestampNs origin = std::numeric_limits<TimestampNs>::max();
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!trace.eventsOnLane(i).empty())
            origin = std::min(origin, trace.eventsOnLane(i).front().startNs);
    }
    return origin == std::numeric_limits<TimestampNs>::max() ? 0 : origin;
}

// Launches by correlation id, for the ac2g flows.
std::unordered_map<std::int64_t, Place> launchesOf(const TraceModel& trace) {
    std::unordered_map<std::int64_t, Place> launches;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kRuntime && e.correlation != 0)
                launches[e.correlation] = Place{pidOf(lane), lane.threadOrStream, e.startNs};
        }
    }
    return launches;
}

// One trace file as it is written: a buffer flushed once past a MiB, the events' separators.
class ChromeWriter {
  public:
    ChromeWriter(const TraceModel& trace, std::ostream& out)
        : m_trace(trace), m_out(out), m_origin(originOf(trace)) {}

    void header() {
        fmt::format_to(
            std::back_inserter(m_buffer),
            "{{\"{}\": 1, \"{}\": \"{}\", \"{}\": {},\n \"{}\": {{\"{}\": \"{}\", \"{}\": "
            "{}, \"{}\": {}}},\n \"{}\": [\n",
            kSchemaVersion, kDisplayTimeUnit, kMilliseconds, kBaseTimeNanoseconds, m_origin,
            kOtherData, kProducer, kGlueprofProducer, kRun, m_trace.run().id, kLabel,
            jsonStringLiteral(m_trace.run().label), kTraceEvents);
    }
    // Process and thread names, sort order as the lanes are listed.
    void metadata() {
        writeMetadata(next(), kProcessName, kHostPid, 0, kArgName,
                      jsonStringLiteral(fmt::format("host (run {})", m_trace.run().id)));
        std::set<std::int64_t> gpus;
        for (std::size_t i = 0; i < m_trace.lanes().size(); ++i) {
            const Lane& lane = m_trace.lanes()[i];
            const std::int64_t pid = pidOf(lane);
            if (onDevice(lane) && gpus.insert(lane.device).second) {
                writeMetadata(next(), kProcessName, pid, 0, kArgName,
                              fmt::format("\"GPU {}\"", lane.device));
            }
            writeMetadata(next(), kThreadName, pid, lane.threadOrStream, kArgName,
                          jsonStringLiteral(lane.name));
            writeMetadata(next(), kThreadSortIndex, pid, lane.threadOrStream, kArgSortIndex,
                          std::to_string(i));
        }
    }
    void events() {
        const std::unordered_map<std::int64_t, Place> launches = launchesOf(m_trace);
        for (std::size_t i = 0; i < m_trace.lanes().size(); ++i) {
            const Lane& lane = m_trace.lanes()[i];
            for (const Event& e : m_trace.eventsOnLane(i)) {
                const Place at{pidOf(lane), lane.threadOrStream, e.startNs - m_origin};
                event(e, at);
                auto launch = e.kind == EventKind::kKernel && e.correlation != 0
                                  ? launches.find(e.correlation)
                                  : launches.end();
                if (launch != launches.end()) {
                    Place from = launch->second;
                    from.ts -= m_origin;
                    writeFlow(next(), kPhaseFlowStart, e.correlation, from);
                    writeFlow(next(), kPhaseFlowEnd, e.correlation, at);
                }
                if (m_buffer.size() > (1u << 20)) flush();
            }
        }
    }
    void finish() {
        m_buffer.append(std::string_view("\n]}\n"));
        flush();
    }

  private:
    // Markers are instants; everything else a complete event (a zero-length one too).
    void event(const Event& e, const Place& at) {
        JsonObject object(next());
        if (e.kind == EventKind::kMarker) {
            object.text(kPh, kPhaseInstant).text(kInstantScope, kScopeThread);
        } else {
            object.text(kPh, kPhaseComplete);
        }
        object.text(kCat, categoryOf(e))
            .value(kName, jsonStringLiteral(m_trace.name(e.name)))
            .value(kPid, at.pid)
            .value(kTid, at.tid)
            .value(kTs, micros(at.ts));
        if (e.kind != EventKind::kMarker)
            object.value(kDur, micros(std::max<TimestampNs>(0, e.durationNs())));
        writeArgs(object, e);
    }
    // The buffer, past the separator of the next element of traceEvents.
    fmt::memory_buffer& next() {
        if (!m_first) m_buffer.push_back(',');
        m_buffer.push_back('\n');
        m_first = false;
        return m_buffer;
    }
    void flush() {
        m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
        m_buffer.clear();
    }

    const TraceModel& m_trace;
    std::ostream& m_out;
    const TimestampNs m_origin;
    fmt::memory_buffer m_buffer;
    bool m_first = true;
};

}  // namespace

void writeChromeTrace(const TraceModel& trace, std::ostream& out) {
    ChromeWriter writer(trace, out);
    writer.header();
    writer.metadata();
    writer.events();
    writer.finish();
}

}  // namespace glueprof

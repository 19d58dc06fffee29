#include "app/report/ChromeTrace.h"

#include "profiler/core/TextEncoding.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace glueprof {

namespace {

constexpr std::int64_t kHostPid = 1;
constexpr std::int64_t kGpuPidBase = 100;

const char* categoryOf(const Event& e) {
    switch (e.kind) {
        case EventKind::kRange:
            return "user_annotation";
        case EventKind::kOp:
            return "cpu_op";
        case EventKind::kKernel:
            return "kernel";
        case EventKind::kMemcpy:
            return "gpu_memcpy";
        case EventKind::kMemset:
            return "gpu_memset";
        case EventKind::kSync:
            return "cuda_sync";
        case EventKind::kRuntime:
            return "cuda_runtime";
        case EventKind::kMarker:
            return "marker";
        case EventKind::kWait:
            return "wait";
    }
    return "other";
}

bool onDevice(const Lane& lane) {
    return (lane.kind == LaneKind::kCudaStream || lane.kind == LaneKind::kCopyStream) &&
           lane.device >= 0;
}

// µs with ns precision, exactly: integer microseconds and three decimals.
std::string micros(TimestampNs ns) {
    const char* sign = ns < 0 ? "-" : "";
    const std::int64_t magnitude = ns < 0 ? -ns : ns;
    return fmt::format("{}{}.{:03}", sign, magnitude / 1000, magnitude % 1000);
}

}  // namespace

void writeChromeTrace(const TraceModel& trace, std::ostream& out) {
    TimestampNs origin = std::numeric_limits<TimestampNs>::max();
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!trace.eventsOnLane(i).empty())
            origin = std::min(origin, trace.eventsOnLane(i).front().startNs);
    }
    if (origin == std::numeric_limits<TimestampNs>::max()) origin = 0;

    fmt::memory_buffer buffer;
    auto flush = [&] {
        out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        buffer.clear();
    };
    fmt::format_to(
        std::back_inserter(buffer),
        "{{\"schemaVersion\": 1, \"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": {},\n"
        " \"otherData\": {{\"producer\": \"glueprof\", \"run\": {}, \"label\": {}}},\n"
        " \"traceEvents\": [\n",
        origin, trace.run().id, jsonStringLiteral(trace.run().label));
    bool first = true;
    auto begin = [&] {
        if (!first) buffer.push_back(',');
        buffer.push_back('\n');
        first = false;
    };
    // Metadata: process and thread names, sort order as the lanes are listed.
    begin();
    fmt::format_to(std::back_inserter(buffer),
                   "{{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": {}, \"tid\": 0, "
                   "\"args\": {{\"name\": {}}}}}",
                   kHostPid, jsonStringLiteral(fmt::format("host (run {})", trace.run().id)));
    std::set<std::int64_t> gpus;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        const std::int64_t pid = onDevice(lane) ? kGpuPidBase + lane.device : kHostPid;
        if (onDevice(lane) && gpus.insert(lane.device).second) {
            begin();
            fmt::format_to(std::back_inserter(buffer),
                           "{{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": {}, \"tid\": 0, "
                           "\"args\": {{\"name\": \"GPU {}\"}}}}",
                           pid, lane.device);
        }
        begin();
        fmt::format_to(std::back_inserter(buffer),
                       "{{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": {}, \"tid\": {}, "
                       "\"args\": {{\"name\": {}}}}}",
                       pid, lane.threadOrStream, jsonStringLiteral(lane.name));
        begin();
        fmt::format_to(std::back_inserter(buffer),
                       "{{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": {}, \"tid\": "
                       "{}, \"args\": {{\"sort_index\": {}}}}}",
                       pid, lane.threadOrStream, i);
    }
    // Launches by correlation id, for the ac2g flows.
    struct Place {
        std::int64_t pid;
        std::int64_t tid;
        TimestampNs ts;
    };
    std::unordered_map<std::int64_t, Place> launches;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kRuntime && e.correlation != 0) {
                launches[e.correlation] =
                    Place{onDevice(lane) ? kGpuPidBase + lane.device : kHostPid,
                          lane.threadOrStream, e.startNs};
            }
        }
    }
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        const std::int64_t pid = onDevice(lane) ? kGpuPidBase + lane.device : kHostPid;
        const std::int64_t tid = lane.threadOrStream;
        for (const Event& e : trace.eventsOnLane(i)) {
            begin();
            const std::string& name = trace.name(e.name);
            // Markers are instants; everything else a complete event (a zero-length one too).
            if (e.kind == EventKind::kMarker) {
                fmt::format_to(std::back_inserter(buffer),
                               "{{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"{}\", \"name\": {}, "
                               "\"pid\": {}, \"tid\": {}, \"ts\": {}, ",
                               categoryOf(e), jsonStringLiteral(name), pid, tid,
                               micros(e.startNs - origin));
            } else {
                fmt::format_to(std::back_inserter(buffer),
                               "{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": {}, \"pid\": {}, "
                               "\"tid\": {}, \"ts\": {}, \"dur\": {}, ",
                               categoryOf(e), jsonStringLiteral(name), pid, tid,
                               micros(e.startNs - origin),
                               micros(std::max<TimestampNs>(0, e.durationNs())));
            }
            fmt::format_to(std::back_inserter(buffer),
                           "\"args\": {{\"category\": \"{}\", \"step\": {}, \"layer\": {}, "
                           "\"microbatch\": {}",
                           toString(e.category), e.step, e.layer, e.microbatch);
            if (e.correlation != 0)
                fmt::format_to(std::back_inserter(buffer), ", \"correlation\": {}", e.correlation);
            if (e.bytes != 0) {
                fmt::format_to(std::back_inserter(buffer),
                               ", \"bytes\": {}, \"src\": \"{}\", \"dst\": \"{}\"", e.bytes,
                               toString(e.srcKind), toString(e.dstKind));
            }
            if ((e.flags & kFlagWouldSync) != 0)
                fmt::format_to(std::back_inserter(buffer), ", \"sync_point\": true");
            // All flag bits, so `glueprof import` of this file gets the same events back.
            if (e.flags != kFlagNone)
                fmt::format_to(std::back_inserter(buffer), ", \"flags\": {}", e.flags);
            buffer.append(std::string_view("}}"));
            if (e.kind == EventKind::kKernel && e.correlation != 0) {
                auto launch = launches.find(e.correlation);
                if (launch != launches.end()) {
                    begin();
                    fmt::format_to(std::back_inserter(buffer),
                                   "{{\"ph\": \"s\", \"id\": {}, \"cat\": \"ac2g\", \"name\": "
                                   "\"ac2g\", \"pid\": {}, \"tid\": {}, \"ts\": {}}}",
                                   e.correlation, launch->second.pid, launch->second.tid,
                                   micros(launch->second.ts - origin));
                    begin();
                    fmt::format_to(std::back_inserter(buffer),
                                   "{{\"ph\": \"f\", \"bp\": \"e\", \"id\": {}, \"cat\": \"ac2g\", "
                                   "\"name\": \"ac2g\", \"pid\": {}, \"tid\": {}, \"ts\": {}}}",
                                   e.correlation, pid, tid, micros(e.startNs - origin));
                }
            }
            if (buffer.size() > (1u << 20)) flush();
        }
    }
    buffer.append(std::string_view("\n]}\n"));
    flush();
}

}  // namespace glueprof

#include "profiler/import/KinetoEventMapper.h"

#include "profiler/core/ChromeExportFormat.h"
#include "profiler/import/ChromeJsonNumbers.h"

namespace glueprof {

namespace {

constexpr std::int64_t kNoStream32 = 4294967295;  // "no stream" as some Kineto versions write it

SyncRecordKind syncKindOf(std::string_view text) {
    const std::string t = lowerCase(text);
    if (t == "stream sync") return SyncRecordKind::kStream;
    if (t == "event sync") return SyncRecordKind::kEvent;
    if (t == "context sync") return SyncRecordKind::kContext;
    if (t == "stream wait event") return SyncRecordKind::kStreamWaitEvent;
    return SyncRecordKind::kUnknown;
}

// Bytes per element of a torch dtype as record_param_comms names it ("Float", "BFloat16", ...); 1
// when unknown (the count of elements, then).
std::int64_t elementBytes(std::string_view dtype) {
    const std::string d = lowerCase(dtype);
    if (d == "double" || d == "long" || d == "complexfloat") return 8;
    if (d == "float" || d == "int") return 4;
    if (d == "half" || d == "bfloat16" || d == "short") return 2;
    return 1;
}

// What lines a collective up across ranks: its sequence number within its process group, with
// the group's name (FNV-1a, 22 bits) above the number's 40 bits, since each group counts from 1;
// 0 (not lined up) without a sequence number.
std::int64_t collectiveId(std::string_view processGroup, std::int64_t sequence) {
    if (sequence == kAbsent || sequence <= 0 || sequence >= (std::int64_t{1} << 40)) return 0;
    std::uint32_t hash = 2166136261u;
    for (char c : processGroup) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    const std::int64_t group =
        processGroup.empty() ? 0 : static_cast<std::int64_t>(hash & 0x3FFFFF);
    return (group << 40) | sequence;
}

// The device of a device event: args.device, else the pid when numeric, else 0.
std::int64_t deviceOf(const RawEvent& e) {
    if (e.device != kAbsent) return e.device;
    return e.pidNumeric ? parseInteger(e.pid).value_or(0) : 0;
}

// The stream of a device event without args.stream: its tid, a number or "stream 7" in some
// versions (its last number); -1 when it has none.
std::int64_t streamOfTid(std::string_view tid) {
    const std::size_t last = tid.find_last_of("0123456789");
    if (last == std::string_view::npos) return -1;
    std::size_t first = tid.find_last_not_of("0123456789", last);
    first = first == std::string_view::npos ? 0 : first + 1;
    if (first > 0 && tid[first - 1] == '-') --first;
    return parseInteger(tid.substr(first, last + 1 - first)).value_or(-1);
}

}  // namespace

std::optional<ChromeEventMapper::SpanShape> KinetoEventMapper::shapeOf(const RawEvent& e,
                                                                       std::string_view cat,
                                                                       TimestampNs start,
                                                                       TimestampNs end) {
    if ((cat == chrome::kCatOp || cat == "operator") && !e.collective.empty()) {
        // A collective as torch.distributed records it (record_param_comms): a comm range, its
        // sequence number the correlation that lines it up across ranks, as glueprof's own.
        return SpanShape{EventKind::kRange, Category::kComm};
    }
    if (cat == chrome::kCatSync) {
        addSync(e, start, end);
        return std::nullopt;
    }
    return commonShape(e, cat);
}

// A sync record, placed by the assembly on the thread of its API call (docs/import.md §5).
void KinetoEventMapper::addSync(const RawEvent& e, TimestampNs start, TimestampNs end) {
    SyncRecord s;
    s.kind = syncKindOf(e.syncKind.empty() ? e.name : e.syncKind);
    s.name = e.name;
    s.startNs = start;
    s.endNs = end;
    s.correlation = e.correlation == kAbsent ? 0 : e.correlation;
    s.device = deviceOf(e);
    s.stream = e.stream == kAbsent || e.stream == kNoStream32 ? -1 : e.stream;
    // A stream sync waits for its stream, an event sync for the stream the event was recorded on
    // (args.wait_on_stream), a context sync for all of them.
    if (s.kind == SyncRecordKind::kStream) s.waitedStream = s.stream;
    if (s.kind == SyncRecordKind::kEvent && e.waitOnStream != kAbsent &&
        e.waitOnStream != kNoStream32)
        s.waitedStream = e.waitOnStream;
    assembly().addSync(s);
}

std::size_t KinetoEventMapper::laneOf(const RawEvent& e, const SpanShape& shape) {
    return shape.onDevice ? streamLane(e) : m_state.hostLane(e);
}

// `GPU d stream s`: d = args.device, else the pid; s = args.stream, else the tid's number.
std::size_t KinetoEventMapper::streamLane(const RawEvent& e) {
    std::int64_t stream = e.stream == kAbsent ? streamOfTid(e.tid) : e.stream;
    if (stream == kNoStream32) stream = -1;
    return assembly().streamLane(deviceOf(e), stream);
}

void KinetoEventMapper::decorate(Event& added, const RawEvent& e, const SpanShape& shape) const {
    if (shape.kind != EventKind::kRange || shape.category != Category::kComm) return;
    added.correlation = collectiveId(e.processGroup, e.sequence);
    if (e.elements != kAbsent && e.elements > 0) added.bytes = e.elements * elementBytes(e.dtype);
}

}  // namespace glueprof

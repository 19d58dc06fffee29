#include "profiler/import/KinetoReader.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <unordered_map>

#include "profiler/core/Error.h"
#include "profiler/core/TextEncoding.h"
#include "profiler/core/TraceNames.h"
#include "profiler/import/CompressedInput.h"

namespace glueprof {

namespace {

constexpr std::int64_t kAbsent = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kNoStream32 = 4294967295;  // "no stream" as some Kineto versions write it

std::optional<std::int64_t> parseInteger(std::string_view text) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return value;
    // "7.0" or "1e3": an integral value written as a decimal; "1.0005" is not one.
    auto thousandths = microsToNanos(text);
    if (!thousandths || *thousandths % 1000 != 0) return std::nullopt;
    auto millionths = microsToNanos(std::string(text) + "e3");  // sub-nanosecond digits too
    if (!millionths || *millionths != *thousandths * 1000) return std::nullopt;
    return *thousandths / 1000;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

MemoryKind memoryKindOf(std::string_view word) {
    const std::string w = lower(word);
    if (w == "pageable") return MemoryKind::kPageable;
    if (w == "pinned") return MemoryKind::kPinned;
    if (w == "device" || w == "array" || w == "managed") return MemoryKind::kDevice;
    return MemoryKind::kUnknown;
}

std::optional<MemoryKind> parseMemoryKindName(std::string_view text) {
    for (MemoryKind kind :
         {MemoryKind::kUnknown, MemoryKind::kPageable, MemoryKind::kPinned, MemoryKind::kDevice}) {
        if (text == toString(kind)) return kind;
    }
    return std::nullopt;
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

SyncKind syncKindOf(std::string_view text) {
    const std::string t = lower(text);
    if (t == "stream sync") return SyncKind::kStream;
    if (t == "event sync") return SyncKind::kEvent;
    if (t == "context sync") return SyncKind::kContext;
    if (t == "stream wait event") return SyncKind::kStreamWaitEvent;
    return SyncKind::kUnknown;
}

std::optional<Category> parseCategoryName(std::string_view text) {
    for (int i = 0; i <= static_cast<int>(kLastCategory); ++i) {
        if (text == toString(static_cast<Category>(i))) return static_cast<Category>(i);
    }
    return std::nullopt;
}

// Bytes per element of a torch dtype as record_param_comms names it ("Float", "BFloat16", ...); 1
// when unknown (the count of elements, then).
std::int64_t elementBytes(std::string_view dtype) {
    const std::string d = lower(dtype);
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

// How long the JSON string, key or number being read may be, shared by the handler (which knows
// what the next value is) and the reader's stack (which holds it whole before the handler sees
// it): kMaxTraceNameBytes for the value of a field glueprof reads, kMaxJsonTokenBytes otherwise.
struct TokenBound {
    std::size_t bytes = kMaxJsonTokenBytes;
    std::string head;  // the first bytes of a token the stack refused, for the message
};
constexpr std::size_t kShownBytes = 32;  // of a refused token, quoted in the message

struct OverlongToken {};  // thrown by BoundedStackAllocator, caught around Reader::Parse

// RapidJSON's StackAllocator concept (CrtAllocator's, plus a bound). The reader's stack holds
// one token at a time and takes it a byte at a time, so it is full when it grows: a stack that
// already holds more than the bound is refused instead of grown by half again. The refusal
// unwinds through the reader, which holds nothing but that stack (freed by its destructor). The
// bound is only what keeps memory small: the handler checks each token's exact length.
class BoundedStackAllocator {
  public:
    static const bool kNeedFree = true;
    BoundedStackAllocator() = default;  // RapidJSON's fallback when none is given (unbounded)
    explicit BoundedStackAllocator(TokenBound* bound) : m_bound(bound) {}
    void* Malloc(std::size_t size) {
        if (size == 0) return nullptr;
        void* block = std::malloc(size);
        if (block == nullptr) throw std::bad_alloc();
        return block;
    }
    void* Realloc(void* original, std::size_t originalSize, std::size_t newSize) {
        if (newSize == 0) {
            std::free(original);
            return nullptr;
        }
        if (m_bound != nullptr && original != nullptr && newSize > originalSize &&
            originalSize > m_bound->bytes) {
            m_bound->head.assign(static_cast<const char*>(original),
                                 std::min(originalSize, kShownBytes));
            throw OverlongToken{};
        }
        void* block = std::realloc(original, newSize);
        if (block == nullptr) throw std::bad_alloc();
        return block;
    }
    static void Free(void* block) { std::free(block); }

  private:
    TokenBound* m_bound = nullptr;
};

// One traceEvents element's fields, reused from event to event (strings keep their capacity).
struct RawEvent {
    std::string ph, cat, name, pid, tid, id, syncKind, argName, category, src, dst;
    // torch.distributed's annotation of a collective (record_param_comms and its NCCL kernels):
    // args "Collective name", "Seq" (the process group's sequence number, equal on every rank),
    // "Process Group Name", "In msg nelems" and "dtype".
    std::string collective, dtype, processGroup;
    bool pidNumeric = false, tidNumeric = false;
    std::optional<TimestampNs> ts, dur;
    std::int64_t correlation = kAbsent, externalId = kAbsent, stream = kAbsent,
                 waitOnStream = kAbsent, device = kAbsent, bytes = kAbsent, step = kAbsent,
                 layer = kAbsent, microbatch = kAbsent, flags = kAbsent, sequence = kAbsent,
                 elements = kAbsent;
    bool syncPoint = false;

    void clear() {
        for (std::string* s : {&ph, &cat, &name, &pid, &tid, &id, &syncKind, &argName, &category,
                               &src, &dst, &collective, &dtype, &processGroup})
            s->clear();
        pidNumeric = tidNumeric = syncPoint = false;
        ts.reset();
        dur.reset();
        correlation = externalId = stream = waitOnStream = device = bytes = step = layer =
            microbatch = flags = sequence = elements = kAbsent;
    }
};

// A device/runtime event without args.correlation, kept until the ac2g flows are known.
struct PendingEvent {
    std::size_t lane;
    EventKind kind;
    Category category;
    std::string name;
    TimestampNs start, end;
    std::int64_t bytes;
    MemoryKind src, dst;
    std::size_t flowKey;  // where its flow ends or starts (KinetoHandler::flowKey)
    bool flowStart;       // a launch (flow start) rather than device work (flow end)
};

class KinetoHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, KinetoHandler> {
  public:
    KinetoHandler(const std::string& path, CompressedInput& input, TraceAssembly& assembly,
                  TokenBound& bound)
        : m_path(path), m_input(input), m_assembly(assembly), m_bound(bound) {}

    // Scalars. With kParseNumbersAsStringsFlag every number arrives as RawNumber.
    bool Null() { return scalar(Scalar::kNull, {}); }
    bool Bool(bool b) { return scalar(Scalar::kBool, b ? "true" : "false"); }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
        return scalar(Scalar::kNumber, {s, n});
    }
    bool String(const char* s, rapidjson::SizeType n, bool) {
        return scalar(Scalar::kString, {s, n});
    }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        if (n > m_bound.bytes) return overlong({s, n}, "key");
        m_key.assign(s, n);
        const Ctx where = m_stack.empty() ? Ctx::kIgnore : m_stack.back();
        m_field = where == Ctx::kEvent  ? eventFieldOf(m_key)
                  : where == Ctx::kArgs ? argFieldOf(m_key)
                                        : Field::kOther;
        // The value to come is a name or field glueprof keeps, or something it passes over.
        m_bound.bytes = m_field != Field::kOther || where == Ctx::kDevice ? kMaxTraceNameBytes
                                                                          : kMaxJsonTokenBytes;
        return true;
    }
    bool StartObject();
    bool EndObject(rapidjson::SizeType);
    bool StartArray();
    bool EndArray(rapidjson::SizeType) {
        m_stack.pop_back();
        return true;
    }

    // What the file says of itself, beside its events.
    struct FileFacts {
        std::optional<int> rank, worldSize;
        std::string devicesJson, format, formatDetail;
    };
    FileFacts finishFile();
    const std::string& error() const { return m_error; }
    // The message for the token the reader's stack refused (BoundedStackAllocator).
    const std::string& refusedToken() {
        overlong(m_bound.head, "string or number");
        return m_error;
    }
    bool sawEvents() const { return m_sawEvents; }
    std::optional<TimestampNs> baseTime() const { return m_baseTime; }
    bool glueprofExport() const { return m_glueprofExport; }

  private:
    enum class Ctx {
        kTop,
        kEvents,
        kEvent,
        kArgs,
        kDeviceList,
        kDevice,
        kDistributed,
        kOther,
        kIgnore
    };
    enum class Scalar { kNull, kBool, kNumber, kString };
    // The keys of an event and of its args that are read, decided once per key.
    enum class Field {
        kOther,
        kPh,
        kCat,
        kName,
        kPid,
        kTid,
        kTs,
        kDur,
        kId,
        kCorrelation,
        kExternalId,
        kStream,
        kDevice,
        kBytes,
        kSyncKind,
        kWaitOnStream,
        kArgName,
        kStep,
        kLayer,
        kMicrobatch,
        kFlags,
        kCategory,
        kSrc,
        kDst,
        kSyncPoint,
        kCollective,
        kSequence,
        kElements,
        kDtype,
        kProcessGroup
    };
    static Field lookUpField(std::string_view key,
                             std::initializer_list<std::pair<std::string_view, Field>> fields) {
        for (const auto& [name, field] : fields) {
            if (key == name) return field;
        }
        return Field::kOther;
    }
    static Field eventFieldOf(std::string_view key) {
        return lookUpField(key, {{"ph", Field::kPh},
                                 {"cat", Field::kCat},
                                 {"name", Field::kName},
                                 {"pid", Field::kPid},
                                 {"tid", Field::kTid},
                                 {"ts", Field::kTs},
                                 {"dur", Field::kDur},
                                 {"id", Field::kId}});
    }
    static Field argFieldOf(std::string_view key) {
        return lookUpField(key, {{"correlation", Field::kCorrelation},
                                 {"External id", Field::kExternalId},
                                 {"stream", Field::kStream},
                                 {"device", Field::kDevice},
                                 {"bytes", Field::kBytes},
                                 {"cuda_sync_kind", Field::kSyncKind},
                                 {"wait_on_stream", Field::kWaitOnStream},
                                 {"name", Field::kArgName},
                                 {"step", Field::kStep},
                                 {"layer", Field::kLayer},
                                 {"microbatch", Field::kMicrobatch},
                                 {"flags", Field::kFlags},
                                 {"category", Field::kCategory},
                                 {"src", Field::kSrc},
                                 {"dst", Field::kDst},
                                 {"sync_point", Field::kSyncPoint},
                                 {"Collective name", Field::kCollective},
                                 {"Seq", Field::kSequence},
                                 {"In msg nelems", Field::kElements},
                                 {"dtype", Field::kDtype},
                                 {"Process Group Name", Field::kProcessGroup}});
    }

    bool scalar(Scalar kind, std::string_view text);
    bool eventField(Scalar kind, std::string_view text);
    bool argField(Scalar kind, std::string_view text);
    // Nesting no trace needs; beyond it the recursive parser would exhaust the stack.
    static constexpr std::size_t kMaxDepth = 256;
    bool tooDeep() {
        return fail(fmt::format("JSON nested deeper than {} levels; not a trace", kMaxDepth));
    }
    bool fail(const std::string& what) {
        m_error =
            fmt::format("'{}': byte {}: {}; the trace is malformed", m_path, m_input.Tell(), what);
        return false;
    }
    // A token longer than the bound it was read under: a name or field glueprof reads, or any
    // other string, key or number (`what`). `text` may be only its first bytes.
    bool overlong(std::string_view text, const char* what) {
        const std::string shown = printableText(text.substr(0, kShownBytes));
        const std::string problem =
            m_bound.bytes == kMaxTraceNameBytes
                ? fmt::format(
                      "{} ('{}...') is longer than {} KiB, the most glueprof reads of a "
                      "name or other field; shorten or drop that event and import again",
                      keyPath(), shown, kMaxTraceNameBytes >> 10)
                : fmt::format(
                      "a JSON {} ('{}...'){} is longer than {} MiB, more than any trace "
                      "holds; the file is damaged or not a trace",
                      what, shown, inEvent() ? " in " + where() : std::string(),
                      kMaxJsonTokenBytes >> 20);
        m_error = fmt::format("'{}': byte {}: {}", m_path, m_input.Tell(), problem);
        return false;
    }
    bool number(Scalar kind, std::string_view text, std::int64_t& out);
    bool micros(Scalar kind, std::string_view text, std::optional<TimestampNs>& out);
    std::string where() const { return fmt::format("traceEvents[{}]", m_eventIndex); }
    bool inEvent() const {
        return std::find(m_stack.begin(), m_stack.end(), Ctx::kEvent) != m_stack.end();
    }
    // The JSON path of the current key, for messages: traceEvents[3].args.bytes,
    // distributedInfo.rank.
    std::string keyPath() const {
        switch (m_stack.empty() ? Ctx::kIgnore : m_stack.back()) {
            case Ctx::kEvent:
                return where() + "." + m_key;
            case Ctx::kArgs:
                return where() + ".args." + m_key;
            case Ctx::kDistributed:
                return "distributedInfo." + m_key;
            case Ctx::kDevice:
                return "deviceProperties[]." + m_key;
            default:
                return m_key;
        }
    }
    static const char* kindName(Scalar kind) {
        switch (kind) {
            case Scalar::kNull:
                return "null";
            case Scalar::kBool:
                return "a boolean";
            case Scalar::kString:
                return "a string";
            case Scalar::kNumber:
                return "a number";
        }
        return "a value";
    }

    void finishEvent();
    void complete(const RawEvent& e, TimestampNs start, TimestampNs end);
    std::size_t hostLaneOf(const RawEvent& e);
    std::size_t streamLaneOf(const RawEvent& e);
    std::string laneKey(const RawEvent& e) const { return e.pid + "/" + e.tid; }
    // Where a flow ends or starts: a hash of pid, tid and time, without building a string.
    static std::size_t flowKey(const RawEvent& e, TimestampNs ts) {
        auto mix = [](std::uint64_t h, std::uint64_t v) {  // boost's hash_combine, 64-bit
            return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 12) + (h >> 4));
        };
        std::uint64_t h = std::hash<std::string_view>()(e.pid);
        h = mix(h, std::hash<std::string_view>()(e.tid));
        h = mix(h, static_cast<std::uint64_t>(ts) * 0xff51afd7ed558ccdull);
        return static_cast<std::size_t>(h);
    }

    std::string m_path;
    CompressedInput& m_input;
    TraceAssembly& m_assembly;
    TokenBound& m_bound;
    std::vector<Ctx> m_stack;
    std::string m_key;
    Field m_field = Field::kOther;
    std::string m_cat;
    RawEvent m_event;
    // The lane of the previous host event: consecutive events nearly always share a thread.
    std::string m_lastPid, m_lastTid;
    std::size_t m_lastHostLane = 0;
    bool m_haveLastHost = false;
    bool m_lastTidNumeric = false;
    std::int64_t m_eventIndex = -1;
    bool m_sawEvents = false;
    bool m_glueprofExport = false;
    std::string m_error;
    std::optional<TimestampNs> m_baseTime;
    std::int64_t m_schemaVersion = kAbsent;
    std::optional<int> m_rank, m_worldSize;
    std::vector<std::pair<std::int64_t, std::string>> m_devices;
    std::pair<std::int64_t, std::string> m_device;
    std::unordered_map<std::string, std::int64_t> m_stringThreads;
    std::map<std::string, std::pair<std::string, std::int64_t>> m_hostThreads;  // key -> pid, tid
    std::map<std::string, std::string> m_threadNames;                           // key -> name
    // Begin/end pairs per thread; flows by their ends; events waiting for a flow.
    std::map<std::string, std::vector<std::pair<RawEvent, TimestampNs>>> m_open;
    // Flows as (hash of pid/tid/ts, id), sorted only when an event needs one: a trace whose events
    // all carry args.correlation pays 16 bytes per flow and no lookups.
    std::vector<std::pair<std::size_t, std::int64_t>> m_flowStarts, m_flowEnds;
    std::vector<PendingEvent> m_pending;
};

bool KinetoHandler::StartObject() {
    m_bound.bytes = kMaxJsonTokenBytes;  // a key comes next
    if (m_stack.size() >= kMaxDepth) return tooDeep();
    Ctx next = Ctx::kIgnore;
    if (m_stack.empty()) {
        next = Ctx::kTop;
    } else {
        switch (m_stack.back()) {
            case Ctx::kTop:
                if (m_key == "traceEvents")
                    return fail("traceEvents is an object; expected an array of events");
                next = m_key == "distributedInfo" ? Ctx::kDistributed
                       : m_key == "otherData"     ? Ctx::kOther
                                                  : Ctx::kIgnore;
                break;
            case Ctx::kEvents:
                ++m_eventIndex;
                m_event.clear();
                next = Ctx::kEvent;
                break;
            case Ctx::kEvent:
                if (m_field != Field::kOther)
                    return fail(fmt::format("{} is an object; expected a value", keyPath()));
                next = m_key == "args" ? Ctx::kArgs : Ctx::kIgnore;
                break;
            case Ctx::kDeviceList:
                m_device = {kAbsent, {}};
                next = Ctx::kDevice;
                break;
            default:
                break;
        }
    }
    m_stack.push_back(next);
    return true;
}

bool KinetoHandler::EndObject(rapidjson::SizeType) {
    const Ctx done = m_stack.back();
    m_stack.pop_back();
    if (done == Ctx::kEvent) finishEvent();
    if (done == Ctx::kDevice && m_device.first != kAbsent) m_devices.push_back(m_device);
    return m_error.empty();
}

bool KinetoHandler::StartArray() {
    m_bound.bytes = kMaxJsonTokenBytes;  // elements are read under the bound of no field
    if (m_stack.size() >= kMaxDepth) return tooDeep();
    Ctx next = Ctx::kIgnore;
    if (m_stack.empty()) {
        next = Ctx::kEvents;  // the JSON Array Format: the file is the events array
        m_sawEvents = true;
    } else if (m_stack.back() == Ctx::kTop) {
        if (m_key == "traceEvents") {
            next = Ctx::kEvents;
            m_sawEvents = true;
        } else if (m_key == "deviceProperties") {
            next = Ctx::kDeviceList;
        }
    } else if (m_stack.back() == Ctx::kEvents) {
        return fail(
            fmt::format("traceEvents[{}] is an array; expected an event object", m_eventIndex + 1));
    } else if (m_stack.back() == Ctx::kEvent && m_field != Field::kOther) {
        return fail(fmt::format("{} is an array; expected a value", keyPath()));
    }
    m_stack.push_back(next);
    return true;
}

bool KinetoHandler::number(Scalar kind, std::string_view text, std::int64_t& out) {
    if (kind == Scalar::kNull) return true;
    if (kind == Scalar::kString && m_stack.back() == Ctx::kArgs) return true;  // tolerated in args
    auto value = kind == Scalar::kNumber ? parseInteger(text) : std::nullopt;
    if (!value) {
        return fail(fmt::format("{} is {}; expected an integer", keyPath(),
                                kind == Scalar::kNumber ? "not an integer" : kindName(kind)));
    }
    out = *value;
    return true;
}

bool KinetoHandler::micros(Scalar kind, std::string_view text, std::optional<TimestampNs>& out) {
    auto value = kind == Scalar::kNumber ? microsToNanos(text) : std::nullopt;
    if (!value) {
        return fail(fmt::format("{} is {}; expected a number of microseconds", keyPath(),
                                kind == Scalar::kNumber ? "out of range" : kindName(kind)));
    }
    out = value;
    return true;
}

bool KinetoHandler::scalar(Scalar kind, std::string_view text) {
    if (text.size() > m_bound.bytes) return overlong(text, "string or number");
    m_bound.bytes = kMaxJsonTokenBytes;  // a key or an array element comes next
    switch (m_stack.empty() ? Ctx::kIgnore : m_stack.back()) {
        case Ctx::kTop:
            if (m_key == "traceEvents")
                return fail("traceEvents is not an array; expected an array of events");
            if (m_key == "baseTimeNanoseconds" && kind == Scalar::kNumber) {
                std::int64_t base = 0;
                if (!number(kind, text, base)) return false;
                m_baseTime = base;
            } else if (m_key == "schemaVersion" && kind == Scalar::kNumber) {
                return number(kind, text, m_schemaVersion);
            }
            return true;
        case Ctx::kEvents:
            return fail(
                fmt::format("traceEvents[{}] is not an object; expected an event", ++m_eventIndex));
        case Ctx::kEvent:
            return eventField(kind, text);
        case Ctx::kArgs:
            return argField(kind, text);
        case Ctx::kDevice:
            if (m_key == "id" && kind == Scalar::kNumber) return number(kind, text, m_device.first);
            if (m_key == "name" && kind == Scalar::kString) m_device.second = validUtf8(text);
            return true;
        case Ctx::kDistributed: {
            std::int64_t value = 0;
            if ((m_key == "rank" || m_key == "world_size") && kind == Scalar::kNumber) {
                if (!number(kind, text, value)) return false;
                if (value < 0 || value > std::numeric_limits<int>::max())
                    return fail(fmt::format("distributedInfo.{} is {}; expected a rank count",
                                            m_key, value));
                (m_key == "rank" ? m_rank : m_worldSize) = static_cast<int>(value);
            }
            return true;
        }
        case Ctx::kOther:
            if (m_key == "producer" && text == "glueprof") m_glueprofExport = true;
            return true;
        default:
            return true;
    }
}

bool KinetoHandler::eventField(Scalar kind, std::string_view text) {
    RawEvent& e = m_event;
    switch (m_field) {
        case Field::kPh:
        case Field::kCat:
        case Field::kName:
            if (kind != Scalar::kString && kind != Scalar::kNull)
                return fail(fmt::format("{}.{} is not a string", where(), m_key));
            (m_field == Field::kPh ? e.ph : m_field == Field::kCat ? e.cat : e.name).assign(text);
            return true;
        case Field::kPid:
        case Field::kTid:
            if (kind != Scalar::kNumber && kind != Scalar::kString)
                return fail(fmt::format("{}.{} is neither a number nor a string", where(), m_key));
            if (kind == Scalar::kNumber && !parseInteger(text))
                return fail(fmt::format("{} is not an integer", keyPath()));
            (m_field == Field::kPid ? e.pid : e.tid).assign(text);
            (m_field == Field::kPid ? e.pidNumeric : e.tidNumeric) = kind == Scalar::kNumber;
            return true;
        case Field::kTs:
            return micros(kind, text, e.ts);
        case Field::kDur:
            return kind == Scalar::kNull || micros(kind, text, e.dur);
        case Field::kId:
            e.id.assign(text);
            return true;
        default:
            return true;
    }
}

bool KinetoHandler::argField(Scalar kind, std::string_view text) {
    RawEvent& e = m_event;
    switch (m_field) {
        case Field::kCorrelation:
            return number(kind, text, e.correlation);
        case Field::kExternalId:
            return number(kind, text, e.externalId);
        case Field::kStream:
            return number(kind, text, e.stream);
        case Field::kDevice:
            return number(kind, text, e.device);
        case Field::kBytes:
            return number(kind, text, e.bytes);
        case Field::kSyncKind:
            if (kind == Scalar::kString) e.syncKind.assign(text);
            return true;
        case Field::kWaitOnStream:
            return number(kind, text, e.waitOnStream);
        case Field::kArgName:
            if (kind == Scalar::kString) e.argName.assign(text);
            return true;
        case Field::kCollective:
            if (kind == Scalar::kString) e.collective.assign(text);
            return true;
        case Field::kSequence:
            return number(kind, text, e.sequence);
        case Field::kElements:
            return number(kind, text, e.elements);
        case Field::kDtype:
            if (kind == Scalar::kString) e.dtype.assign(text);
            return true;
        case Field::kProcessGroup:
            if (kind == Scalar::kString) e.processGroup.assign(text);
            return true;
        default:
            break;
    }
    if (!m_glueprofExport) return true;
    switch (m_field) {
        case Field::kStep:
            return number(kind, text, e.step);
        case Field::kLayer:
            return number(kind, text, e.layer);
        case Field::kMicrobatch:
            return number(kind, text, e.microbatch);
        case Field::kFlags:
            return number(kind, text, e.flags);
        case Field::kCategory:
            if (kind == Scalar::kString) e.category.assign(text);
            return true;
        case Field::kSrc:
            if (kind == Scalar::kString) e.src.assign(text);
            return true;
        case Field::kDst:
            if (kind == Scalar::kString) e.dst.assign(text);
            return true;
        case Field::kSyncPoint:
            if (kind == Scalar::kBool) e.syncPoint = text == "true";
            return true;
        default:
            return true;
    }
}

std::size_t KinetoHandler::hostLaneOf(const RawEvent& e) {
    if (m_haveLastHost && e.pid == m_lastPid && e.tid == m_lastTid &&
        e.tidNumeric == m_lastTidNumeric)
        return m_lastHostLane;
    std::int64_t thread = 0;
    if (e.tidNumeric) {
        thread = parseInteger(e.tid).value_or(0);
    } else {
        auto [it, added] = m_stringThreads.try_emplace(
            e.pid + "/" + e.tid, 1000000000 + static_cast<std::int64_t>(m_stringThreads.size()));
        if (added) m_assembly.nameHostLane(e.pid, it->second, e.tid);
        thread = it->second;
    }
    m_hostThreads.try_emplace(laneKey(e), e.pid, thread);
    m_lastPid = e.pid;
    m_lastTid = e.tid;
    m_lastTidNumeric = e.tidNumeric;
    m_haveLastHost = true;
    m_lastHostLane = m_assembly.hostLane(e.pid, thread);
    return m_lastHostLane;
}

std::size_t KinetoHandler::streamLaneOf(const RawEvent& e) {
    std::int64_t device = e.device;
    if (device == kAbsent) device = e.pidNumeric ? parseInteger(e.pid).value_or(0) : 0;
    std::int64_t stream = e.stream;
    if (stream == kAbsent) {
        // tid is the stream: a number, or "stream 7" in some versions (its last number).
        std::string_view tid = e.tid;
        const std::size_t last = tid.find_last_of("0123456789");
        if (last == std::string_view::npos) {
            stream = -1;
        } else {
            std::size_t first = tid.find_last_not_of("0123456789", last);
            first = first == std::string_view::npos ? 0 : first + 1;
            if (first > 0 && tid[first - 1] == '-') --first;
            stream = parseInteger(tid.substr(first, last + 1 - first)).value_or(-1);
        }
    }
    if (stream == kNoStream32) stream = -1;
    if (m_glueprofExport) {
        device = e.pidNumeric ? parseInteger(e.pid).value_or(100) - 100 : 0;
        stream = parseInteger(e.tid).value_or(-1);
    }
    return m_assembly.streamLane(device, stream);
}

void KinetoHandler::complete(const RawEvent& e, TimestampNs start, TimestampNs end) {
    if (end < start) {
        m_assembly.skip("events with a negative duration");
        return;
    }
    m_cat.assign(e.cat);  // lower case, in a buffer kept from event to event
    for (char& c : m_cat) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string& cat = m_cat;
    EventKind kind;
    Category category = Category::kNone;
    bool onDevice = false;
    if ((cat == "cpu_op" || cat == "operator") && !e.collective.empty() && !m_glueprofExport) {
        // A collective as torch.distributed records it (record_param_comms): a comm range, its
        // sequence number the correlation that lines it up across ranks, as glueprof's own.
        kind = EventKind::kRange;
        category = Category::kComm;
    } else if (cat == "cpu_op" || cat == "operator") {
        kind = EventKind::kOp;
        // c10d's ops (c10d::allreduce_, ...) around a collective are communication, not compute.
        category = e.name.rfind("c10d::", 0) == 0 ? Category::kComm : Category::kMath;
    } else if (cat == "user_annotation") {
        kind = EventKind::kRange;
    } else if (cat == "python_function") {
        if (!m_assembly.options().keepPythonFunctions) {
            m_assembly.skip("python_function events (--no-python)");
            return;
        }
        kind = EventKind::kRange;
    } else if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime") {
        kind = EventKind::kRuntime;
    } else if (cat == "kernel") {
        kind = EventKind::kKernel;
        onDevice = true;
        if (!e.collective.empty()) category = Category::kComm;  // an NCCL kernel
    } else if (cat == "gpu_memcpy" || cat == "memcpy") {
        kind = EventKind::kMemcpy;
        category = Category::kCopy;
        onDevice = true;
    } else if (cat == "gpu_memset" || cat == "memset") {
        kind = EventKind::kMemset;
        onDevice = true;
    } else if (cat == "gpu_user_annotation") {
        kind = EventKind::kRange;
        onDevice = true;
    } else if (cat == "cuda_sync" && !m_glueprofExport) {
        SyncRecord s;
        s.kind = syncKindOf(e.syncKind.empty() ? e.name : e.syncKind);
        s.name = e.name;
        s.startNs = start;
        s.endNs = end;
        s.correlation = e.correlation == kAbsent ? 0 : e.correlation;
        s.device =
            e.device != kAbsent ? e.device : (e.pidNumeric ? parseInteger(e.pid).value_or(0) : 0);
        s.stream = e.stream == kAbsent || e.stream == kNoStream32 ? -1 : e.stream;
        // A stream sync waits for its stream, an event sync for the stream the event was
        // recorded on (args.wait_on_stream), a context sync for all of them.
        if (s.kind == SyncKind::kStream) s.waitedStream = s.stream;
        if (s.kind == SyncKind::kEvent && e.waitOnStream != kAbsent &&
            e.waitOnStream != kNoStream32)
            s.waitedStream = e.waitOnStream;
        m_assembly.addSync(s);
        return;
    } else if (m_glueprofExport && (cat == "cuda_sync" || cat == "wait")) {
        kind = cat == "wait" ? EventKind::kWait : EventKind::kSync;
    } else if (cat == "trace") {
        m_assembly.skip("profiler spans (cat Trace)");
        return;
    } else {
        m_assembly.skip(fmt::format("complete events of category '{}' (not mapped)", e.cat));
        return;
    }
    if (m_glueprofExport) onDevice = e.pidNumeric && parseInteger(e.pid).value_or(0) >= 100;
    const std::size_t lane = onDevice ? streamLaneOf(e) : hostLaneOf(e);

    MemoryKind src = MemoryKind::kUnknown, dst = MemoryKind::kUnknown;
    if (kind == EventKind::kMemcpy) std::tie(src, dst) = copyKinds(e.name);
    if (m_glueprofExport) {
        src = parseMemoryKindName(e.src).value_or(src);
        dst = parseMemoryKindName(e.dst).value_or(dst);
    }
    const bool needsCorrelation = kind == EventKind::kRuntime || kind == EventKind::kKernel ||
                                  kind == EventKind::kMemcpy || kind == EventKind::kMemset;
    if (needsCorrelation && e.correlation == kAbsent) {
        m_pending.push_back(PendingEvent{lane, kind, category, e.name, start, end,
                                         e.bytes == kAbsent ? 0 : e.bytes, src, dst,
                                         flowKey(e, start), kind == EventKind::kRuntime});
        return;
    }
    Event& added = m_assembly.add(lane, kind, category, e.name, start, end);
    added.srcKind = src;
    added.dstKind = dst;
    if (e.bytes != kAbsent && e.bytes >= 0) added.bytes = e.bytes;
    if (e.bytes != kAbsent && e.bytes < 0) m_assembly.skip("negative byte counts (stored as 0)");
    if (kind == EventKind::kOp && e.externalId != kAbsent) added.correlation = e.externalId;
    if (e.correlation != kAbsent) added.correlation = e.correlation;
    if (kind == EventKind::kRange && category == Category::kComm) {
        added.correlation = collectiveId(e.processGroup, e.sequence);
        if (e.elements != kAbsent && e.elements > 0)
            added.bytes = e.elements * elementBytes(e.dtype);
    }
    if (m_glueprofExport) {
        if (auto c = parseCategoryName(e.category)) added.category = *c;
        if (e.step != kAbsent) added.step = static_cast<std::int32_t>(e.step);
        if (e.layer != kAbsent) added.layer = static_cast<std::int32_t>(e.layer);
        if (e.microbatch != kAbsent) added.microbatch = static_cast<std::int32_t>(e.microbatch);
        if (e.flags != kAbsent) added.flags = static_cast<std::uint32_t>(e.flags);
        if (e.syncPoint) added.flags |= kFlagWouldSync;
    }
}

void KinetoHandler::finishEvent() {
    const RawEvent& e = m_event;
    m_assembly.countRead(e.ph == "X" ? (e.cat.empty() ? std::string("X without cat") : e.cat)
                                     : "ph " + e.ph);
    if (e.ph == "X") {
        if (!e.ts) {
            fail(fmt::format("{} ('{}') has no ts", where(), e.name));
            return;
        }
        TimestampNs end = 0;
        if (__builtin_add_overflow(*e.ts, e.dur.value_or(0), &end)) {
            fail(fmt::format("{} ('{}'): ts + dur overflows", where(), e.name));
            return;
        }
        complete(e, *e.ts, end);
    } else if (e.ph == "B") {
        if (!e.ts) return (void)fail(fmt::format("{} ('{}') has no ts", where(), e.name));
        m_open[laneKey(e)].emplace_back(e, *e.ts);
    } else if (e.ph == "E") {
        auto& stack = m_open[laneKey(e)];
        if (stack.empty() || !e.ts) {
            m_assembly.skip("end events (ph E) without a begin");
            return;
        }
        auto [begin, start] = std::move(stack.back());
        stack.pop_back();
        complete(begin, start, *e.ts);
    } else if ((e.ph == "i" || e.ph == "I") && m_glueprofExport && e.ts) {
        const bool onDevice = e.pidNumeric && parseInteger(e.pid).value_or(0) >= 100;
        Event& marker = m_assembly.add(onDevice ? streamLaneOf(e) : hostLaneOf(e),
                                       EventKind::kMarker, Category::kNone, e.name, *e.ts, *e.ts);
        if (auto c = parseCategoryName(e.category)) marker.category = *c;
        if (e.step != kAbsent) marker.step = static_cast<std::int32_t>(e.step);
        if (e.layer != kAbsent) marker.layer = static_cast<std::int32_t>(e.layer);
        if (e.microbatch != kAbsent) marker.microbatch = static_cast<std::int32_t>(e.microbatch);
        if (e.correlation != kAbsent) marker.correlation = e.correlation;
    } else if (e.ph == "i" || e.ph == "I" || e.ph == "R") {
        if (!e.pidNumeric || !e.ts) {
            m_assembly.skip("instant events outside a process (profiler marks)");
            return;
        }
        m_assembly.add(hostLaneOf(e), EventKind::kMarker, Category::kNone, e.name, *e.ts, *e.ts);
    } else if (e.ph == "s" || e.ph == "f" || e.ph == "t") {
        // Only launch-to-kernel flows (ac2g) link events; fwdbwd and others are not links of ours.
        if (!e.ts || e.id.empty() || lower(e.cat) != "ac2g" || e.ph == "t") return;
        auto id = parseInteger(e.id);
        if (!id) return;
        (e.ph == "s" ? m_flowStarts : m_flowEnds).emplace_back(flowKey(e, *e.ts), *id);
    } else if (e.ph == "M") {
        if (e.name == "process_name" && !e.argName.empty())
            m_assembly.nameProcess(e.pid, e.argName);
        // Applied at the end to the host lanes events made (GPU "processes" name streams).
        if (e.name == "thread_name" && !e.argName.empty()) m_threadNames[laneKey(e)] = e.argName;
    } else {
        m_assembly.skip(fmt::format("events of phase '{}' (not a span)", e.ph));
    }
}

KinetoHandler::FileFacts KinetoHandler::finishFile() {
    FileFacts run;
    std::int64_t unlinked = 0;
    if (!m_pending.empty()) {
        std::sort(m_flowStarts.begin(), m_flowStarts.end());
        std::sort(m_flowEnds.begin(), m_flowEnds.end());
    }
    for (const PendingEvent& p : m_pending) {
        const auto& flows = p.flowStart ? m_flowStarts : m_flowEnds;
        const std::size_t key = p.flowKey;
        auto flow = std::lower_bound(flows.begin(), flows.end(), std::make_pair(key, kAbsent));
        Event& added = m_assembly.add(p.lane, p.kind, p.category, p.name, p.start, p.end);
        added.bytes = p.bytes;
        added.srcKind = p.src;
        added.dstKind = p.dst;
        if (flow != flows.end() && flow->first == key) {
            added.correlation = flow->second;
        } else {
            ++unlinked;
        }
    }
    m_assembly.skip(
        "launch links: runtime calls and device work without a correlation id or an "
        "ac2g flow (kept, unlinked)",
        unlinked);
    for (auto& [lane, stack] : m_open)
        m_assembly.skip("begin events (ph B) without an end",
                        static_cast<std::int64_t>(stack.size()));
    for (const auto& [key, thread] : m_hostThreads) {
        auto name = m_threadNames.find(key);
        if (name != m_threadNames.end())
            m_assembly.nameHostLane(thread.first, thread.second, name->second);
    }
    run.rank = m_rank;
    run.worldSize = m_worldSize;
    std::string devices = "[";
    for (const auto& [id, name] : m_devices) {
        if (devices.size() > 1) devices += ", ";
        devices += fmt::format("{{\"id\": {}, \"name\": {}}}", id, jsonStringLiteral(name));
    }
    run.devicesJson = devices + "]";
    run.format = m_glueprofExport ? "glueprof Chrome export" : "Kineto JSON";
    run.formatDetail = m_schemaVersion == kAbsent
                           ? "no schemaVersion"
                           : fmt::format("schemaVersion {}", m_schemaVersion);
    return run;
}

}  // namespace

std::optional<TimestampNs> microsToNanos(std::string_view text) {
    // mantissa digits and a decimal exponent, all in integers: exact to the nanosecond.
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
    __int128 mantissa = 0;
    int exponent = 3;  // µs -> ns
    bool digits = false;
    bool point = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            digits = true;
            if (mantissa < (static_cast<__int128>(1) << 100)) {
                mantissa = mantissa * 10 + (c - '0');
                if (point) --exponent;
            } else if (!point) {
                ++exponent;  // beyond any range we keep: it will not fit
            }
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (!digits) return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        std::int64_t e = 0;
        const std::size_t digitsAt = i + 1 + (i + 1 < text.size() && text[i + 1] == '+');
        auto [end, error] = std::from_chars(text.data() + digitsAt, text.data() + text.size(), e);
        if (error != std::errc() || end != text.data() + text.size() || e > 40 || e < -40)
            return std::nullopt;
        exponent += static_cast<int>(e);
    } else if (i != text.size()) {
        return std::nullopt;
    }
    for (; exponent > 0; --exponent) {
        mantissa *= 10;
        if (mantissa > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    }
    for (; exponent < 0; ++exponent) mantissa /= 10;  // below a nanosecond: truncated
    if (mantissa > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    const auto value = static_cast<std::int64_t>(mantissa);
    return negative ? -value : value;
}

ImportedRun readKinetoTrace(const std::string& path, const ImportOptions& options) {
    CompressedInput input(path);
    TraceAssembly assembly(options);
    TokenBound bound;
    KinetoHandler handler(path, input, assembly, bound);
    // A UTF-8 byte order mark before the JSON (some editors write one) is no part of it.
    if (input.Peek() == '\xEF') {
        input.Take();
        if (input.Peek() == '\xBB') input.Take();
        if (input.Peek() == '\xBF') input.Take();
    }
    BoundedStackAllocator stackAllocator(&bound);
    rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, BoundedStackAllocator> reader(
        &stackAllocator);
    // The recursive parser (faster than the iterative one); the handler bounds its depth, and
    // the stack allocator the length of what the parser holds before the handler sees it.
    constexpr unsigned kFlags =
        rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag;
    rapidjson::ParseResult ok;
    try {
        ok = reader.Parse<kFlags>(input, handler);
    } catch (const OverlongToken&) {
        throw inputError(handler.refusedToken());
    }
    if (!input.failure().empty()) {
        throw inputError(
            fmt::format("'{}': {} after {} bytes of JSON; copy or export the trace "
                        "again",
                        path, input.failure(), input.Tell()));
    }
    if (!handler.error().empty()) throw inputError(handler.error());
    if (!ok) {
        // RapidJSON takes a NUL byte for the end of the input: one before the real end is binary
        // data (20 MiB of zeros in a gzip is not an empty trace).
        if (!input.atEnd() && input.Peek() == '\0') {
            throw inputError(fmt::format(
                "'{}': not JSON: byte {}{} is a NUL byte (binary data, not text); pass a "
                "Kineto/Chrome JSON trace",
                path, input.Tell(), input.gzipped() ? " of the decompressed data" : ""));
        }
        if (input.Tell() == 0 && ok.Code() == rapidjson::kParseErrorDocumentEmpty) {
            throw inputError(fmt::format("'{}' is empty; pass a trace file", path));
        }
        throw inputError(fmt::format("'{}': invalid JSON at byte {}: {}; is the file complete?",
                                     path, ok.Offset(), rapidjson::GetParseError_En(ok.Code())));
    }
    if (!handler.sawEvents()) {
        throw inputError(fmt::format(
            "'{}' has no traceEvents array: not a Chrome/Kineto trace (torch.profiler's "
            "export_chrome_trace writes one)",
            path));
    }
    const KinetoHandler::FileFacts meta = handler.finishFile();
    if (assembly.eventCount() == 0) {
        throw inputError(fmt::format(
            "'{}' holds no events glueprof imports (traceEvents is empty or only metadata); "
            "profile with activities=[CPU, CUDA] and export again",
            path));
    }
    if (handler.baseTime() && !assembly.offsetTimes(*handler.baseTime())) {
        throw inputError(fmt::format(
            "'{}': baseTimeNanoseconds {} plus the events' ts overflows 64-bit nanoseconds; the "
            "trace is malformed",
            path, *handler.baseTime()));
    }

    RunSummary run;
    run.identity.kind = RunKind::kImported;
    run.identity.rank = meta.rank;
    run.identity.worldSize = meta.worldSize;
    if (handler.glueprofExport()) assembly.takeEventsAsRecorded();
    ImportedRun out = std::move(assembly).finish(std::move(run));
    out.source = path;
    out.format = meta.format;
    out.formatDetail = meta.formatDetail + (input.gzipped() ? ", gzip" : "");
    out.rank = meta.rank;
    out.worldSize = meta.worldSize;
    out.devicesJson = meta.devicesJson;
    // Kineto's timestamps are Unix time (µs since the epoch, or relative to baseTimeNanoseconds).
    TimestampNs first = std::numeric_limits<TimestampNs>::max();
    for (std::size_t i = 0; i < out.model.lanes().size(); ++i) {
        if (!out.model.eventsOnLane(i).empty())
            first = std::min(first, out.model.eventsOnLane(i).front().startNs);
    }
    constexpr TimestampNs kYear2001Ns = 978307200LL * 1000000000LL;
    if (first != std::numeric_limits<TimestampNs>::max() && first > kYear2001Ns)
        out.startedUnixNs = first;
    return out;
}

}  // namespace glueprof

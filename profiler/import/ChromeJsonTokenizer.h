#pragma once
// The syntax of a Chrome trace JSON file (Kineto's, glueprof's own export, Chrome's trace event
// format in general; JSON object or array form), apart from its meaning, as Perfetto's
// json_trace_tokenizer is apart from its json_trace_parser: a SAX reader (JsonScanner) over a zlib
// stream turns bytes into RawEvents, one at a time, never holding the file whole; each is checked
// (types, lengths, times) and handed to a RawEventSink, a dialect's mapper (ChromeEventMapper).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/import/CompressedInput.h"
#include "profiler/import/JsonTokenBound.h"
#include "profiler/import/RawTraceEvent.h"

namespace glueprof {

// Where the tokenizer hands what it read.
class RawEventSink {
  public:
    virtual ~RawEventSink() = default;
    // otherData.producer: the program that wrote the file (before or after the events).
    virtual void producer(std::string_view name) = 0;
    // Whether glueprof's own args (step, layer, microbatch, flags, category, src, dst,
    // sync_point) are read, and so checked, rather than passed over.
    virtual bool readsRecordedArgs() const = 0;
    // One traceEvents element; an X or B has a ts, and an X's ts + dur fits in 64 bits.
    virtual void event(const RawEvent& e) = 0;
    // Where the handler reads the next event into, for a sink that keeps events (EventPrescan):
    // event() is then given that slot. nullptr: the handler's own.
    virtual RawEvent* eventSlot() { return nullptr; }
};

// How a second thread reads ahead of the parser (EventPrescan).
struct PrescanOptions {
    std::size_t spanBytes = 2u << 20;  // what the thread reads in one span (0: no thread)
    std::size_t gapBytes = 1u << 20;   // left to the parser before each span
    // For tests: the thread plans each span from the end of the one before (not from where the
    // parser is), and the parser waits at that place until the thread has a span there, so
    // which spans it takes depends on the file alone.
    bool lockstep = false;
};

struct PrescanCounts {
    std::int64_t spansTaken = 0;  // spans whose events the parser took
    std::int64_t spansDropped = 0;
    std::int64_t eventsTaken = 0;
};

// What the file says of itself, beside its events.
struct ChromeFileFacts {
    std::optional<TimestampNs> baseTime;                        // baseTimeNanoseconds
    std::int64_t schemaVersion = kAbsent;                       // schemaVersion
    std::optional<int> rank, worldSize;                         // distributedInfo.rank, .world_size
    std::vector<std::pair<std::int64_t, std::string>> devices;  // deviceProperties[]: id, name
    PrescanCounts prescan;  // how the read went, not what the file says
};

// Reads the whole of `input` (the file `path`) into `sink`. A file that is no JSON, holds no
// traceEvents array or is malformed is an input error naming the file, the byte and the problem.
ChromeFileFacts tokenizeChromeJson(const std::string& path, CompressedInput& input,
                                   RawEventSink& sink, const PrescanOptions& prescan = {});

}  // namespace glueprof

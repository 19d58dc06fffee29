#pragma once
// What the events of a Chrome trace mean (Perfetto's json_trace_parser): one mapper per dialect,
// Kineto's (KinetoEventMapper) and glueprof's own export (ChromeExportMapper), over the state
// they share (ChromeTraceState) and the assembly both formats feed (TraceAssembly). This base
// reads what the dialects agree on: phases (X, B/E, instants, ac2g flows, metadata) and Kineto's
// categories; a dialect says what its categories, lanes, memory kinds and args add.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "profiler/core/Diagnostics.h"
#include "profiler/import/ChromeTraceState.h"
#include "profiler/import/RawTraceEvent.h"

namespace glueprof {

class ChromeEventMapper {
  public:
    explicit ChromeEventMapper(ChromeTraceState& state) : m_state(state) {}
    virtual ~ChromeEventMapper() = default;

    // How the import line names the format ("Kineto JSON").
    virtual const char* formatName() const = 0;
    // Whether glueprof's own args are read (RawEventSink::readsRecordedArgs).
    virtual bool readsRecordedArgs() const = 0;
    // Whether the events are glueprof's own, read back as recorded (TraceAssembly).
    virtual bool keepsEventsAsRecorded() const = 0;

    // One traceEvents element, checked by the tokenizer.
    void map(const RawEvent& e);

  protected:
    // What a span (X, or a B/E pair) becomes.
    struct SpanShape {
        EventKind kind;
        Category category = Category::kNone;
        bool onDevice = false;    // Kineto's say: its category is device work
        std::uint32_t flags = 0;  // the Event flags it starts with (kFlagPythonFrame)
    };
    // The span's shape by its category (`cat`, lower case); nullopt when it was taken otherwise
    // (a sync record) or skipped (counted).
    virtual std::optional<SpanShape> shapeOf(const RawEvent& e, std::string_view cat,
                                             TimestampNs start, TimestampNs end) = 0;
    virtual std::size_t laneOf(const RawEvent& e, const SpanShape& shape) = 0;
    // A copy's source and destination memory: from Kineto's name, "Memcpy DtoH (Device ->
    // Pageable)".
    virtual std::pair<MemoryKind, MemoryKind> memoryKindsOf(const RawEvent& e,
                                                            EventKind kind) const;
    // What the dialect's args add to a linked event.
    virtual void decorate(Event& added, const RawEvent& e, const SpanShape& shape) const = 0;
    // An instant (ph i, I, R): a marker on its host thread.
    virtual void instant(const RawEvent& e) { hostMarker(e); }

    // The categories both dialects read as Kineto writes them.
    std::optional<SpanShape> commonShape(const RawEvent& e, std::string_view cat);
    void hostMarker(const RawEvent& e);
    TraceAssembly& assembly() { return m_state.assembly(); }

    ChromeTraceState& m_state;

  private:
    void span(const RawEvent& e, TimestampNs start, TimestampNs end);
    void flow(const RawEvent& e);
    void metadata(const RawEvent& e);

    std::string m_cat;      // the span's category in lower case, a buffer kept from event to event
    std::string m_readKey;  // "ph X": the key an event is counted under, a buffer likewise
};

// `text` in lower case (ASCII).
std::string lowerCase(std::string_view text);

}  // namespace glueprof

#pragma once
// EventPrescan: a second thread that reads spans of a Chrome trace's traceEvents ahead of the
// parser, so that reading a large trace uses two cores (docs/import.md §9).
//
// The thread picks a byte some way ahead of the parser, finds what looks like the first byte of
// an element there (a '{' that starts a line after a line ending in ','; a newline is never inside
// a JSON string), reads from there, with a handler of its own, up to the first element past its
// span, and keeps the events it read. The parser, at the first byte of each traceEvents element
// (the hook of JsonScanner), takes a span that starts at exactly that byte: it hands the span's
// events to its sink as if it had read them, and jumps to the span's end. A handler started at an
// element of traceEvents reads what one that read the file up to it reads, so the events are the
// same, in the same order, whichever of the two read them. A span is dropped, and the parser reads
// those bytes itself, when it did not start at an element (the parser never stands at its start),
// when it was not read whole to its end (malformed JSON, a bad event: the parser then reports it as
// ever, at its byte; or cut short by the ring of blocks), when the parser passed its start first,
// and while the file's dialect reads glueprof's own args (the span was read without them; no
// thread starts for a file that says so before traceEvents).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "profiler/import/ChromeJsonHandler.h"
#include "profiler/import/CompressedInput.h"
#include "profiler/import/JsonScanner.h"
#include "profiler/import/RawTraceEvent.h"

namespace glueprof {

class EventPrescan final : public ArrayElementHook {
  public:
    // `handler` reads `input` on the calling thread; the prescan starts at its first element of
    // traceEvents.
    EventPrescan(const std::string& path, CompressedInput& input, ChromeJsonHandler& handler,
                 PrescanOptions options);
    ~EventPrescan() override;  // stops and joins the thread
    EventPrescan(const EventPrescan&) = delete;
    EventPrescan& operator=(const EventPrescan&) = delete;

    // The parser's thread.
    std::size_t beforeElement(std::size_t offset) override;
    PrescanCounts counts() const { return m_counts; }

  private:
    struct Span {
        std::size_t start = 0;
        std::size_t end = 0;  // the first byte of the element after it, when read whole
        bool done = false;
        bool whole = false;
        std::vector<RawEvent> events;  // the first `count` are the span's (reused)
        std::size_t count = 0;
    };
    class Collector;
    class SpanEnd;
    static constexpr std::size_t kNoSpan = ~std::size_t{0};
    static constexpr std::size_t kMaxSpans = 3;  // read and not yet taken or dropped
    static constexpr int kMaxMisses = 3;  // places in a row without an element's start: give up
    static constexpr std::size_t kMaxSpanBytes = 4u << 20;

    void start();
    std::size_t take(std::size_t offset);
    std::size_t waitForPlannedSpan(std::size_t offset);
    void run();                                                      // the thread
    void readSpans();                                                // its loop
    void read(Span& span, CompressedInput::Lookahead& ahead) const;  // from span.start
    static bool seekElementStart(CompressedInput::Lookahead& ahead);
    void publishNextStart();  // under m_mutex

    std::string m_path;
    CompressedInput& m_input;
    ChromeJsonHandler& m_handler;
    PrescanOptions m_options;
    PrescanCounts m_counts;
    bool m_started = false;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::unique_ptr<Span>> m_spans;  // in file order; the last may be being read
    std::vector<std::unique_ptr<Span>> m_free;
    bool m_stop = false;
    bool m_threadDone = false;
    bool m_searching = false;  // lockstep: for a span from m_planned on
    std::size_t m_planned = 0;
    // The first span's start: the parser below it takes no lock.
    std::atomic<std::size_t> m_nextStart{kNoSpan};
    std::atomic<std::size_t> m_parserAt{0};  // the parser's last element
    std::atomic<bool> m_stopping{false};
    std::thread m_thread;
};

}  // namespace glueprof

#include "profiler/import/EventPrescan.h"

#include <algorithm>
#include <cstring>

#include "profiler/import/JsonTokenBound.h"

namespace glueprof {

// The prescan's sink: the events of a span, read in place (the span's strings keep their memory
// from one use of the span to the next).
class EventPrescan::Collector final : public RawEventSink {
  public:
    explicit Collector(Span& span) : m_span(span) {}
    void producer(std::string_view) override {}  // outside traceEvents: never in a span
    bool readsRecordedArgs() const override { return false; }
    // The handler reads each event into the span's next slot: nothing is copied.
    RawEvent* eventSlot() override {
        if (m_span.count == m_span.events.size()) m_span.events.emplace_back();
        return &m_span.events[m_span.count];
    }
    void event(const RawEvent& e) override {
        if (&e != &m_span.events[m_span.count]) m_span.events[m_span.count] = e;
        ++m_span.count;
    }

  private:
    Span& m_span;
};

// Where the prescan stops: at the first element at or past the span's length, or as soon as the
// parser is past the span's start (not in lockstep), or the prescan stops.
class EventPrescan::SpanEnd final : public ArrayElementHook {
  public:
    SpanEnd(const ChromeJsonHandler& handler, Span& span, std::size_t limit,
            const std::atomic<std::size_t>& parserAt, const std::atomic<bool>& stopping,
            bool readToEnd)
        : m_handler(handler),
          m_span(span),
          m_limit(limit),
          m_parserAt(parserAt),
          m_stopping(stopping),
          m_readToEnd(readToEnd) {}
    std::size_t beforeElement(std::size_t offset) override {
        if (!m_handler.atEventElement()) return kReadElement;
        if (m_stopping.load(std::memory_order_relaxed)) return kStopHere;
        if (!m_readToEnd && m_parserAt.load(std::memory_order_relaxed) > m_span.start)
            return kStopHere;
        if (offset < m_limit) return kReadElement;
        m_span.end = offset;
        m_reachedEnd = true;
        return kStopHere;
    }
    bool reachedEnd() const { return m_reachedEnd; }

  private:
    const ChromeJsonHandler& m_handler;
    Span& m_span;
    std::size_t m_limit;
    const std::atomic<std::size_t>& m_parserAt;
    const std::atomic<bool>& m_stopping;
    bool m_readToEnd;  // lockstep: not stopped when the parser passes the start
    bool m_reachedEnd = false;
};

EventPrescan::EventPrescan(const std::string& path, CompressedInput& input,
                           ChromeJsonHandler& handler, PrescanOptions options)
    : m_path(path), m_input(input), m_handler(handler), m_options(options) {
    // Spans and gaps that fit a few times in the ring of inflated blocks (16 MiB): a longer one
    // would reach blocks the ring cannot hold yet and be cut short (then dropped) every time.
    m_options.spanBytes = std::min(m_options.spanBytes, kMaxSpanBytes);
    m_options.gapBytes = std::min(m_options.gapBytes, m_options.spanBytes);
}

EventPrescan::~EventPrescan() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_stopping.store(true);
    m_changed.notify_all();
    m_input.cancelLookahead();
    if (m_thread.joinable()) m_thread.join();
}

std::size_t EventPrescan::beforeElement(std::size_t offset) {
    if (!m_handler.atEventElement()) return kReadElement;
    m_parserAt.store(offset, std::memory_order_relaxed);
    if (!m_started) start();
    if (offset >= m_nextStart.load(std::memory_order_acquire)) {
        const std::size_t next = take(offset);
        if (next != kReadElement || !m_options.lockstep) return next;
    } else if (!m_options.lockstep) {
        return kReadElement;
    }
    return waitForPlannedSpan(offset);
}

// Lockstep: not past the place the thread searches from until it has a span there (or ends).
// Spans at or before the parser are taken while it waits: the thread may wait for their room.
std::size_t EventPrescan::waitForPlannedSpan(std::size_t offset) {
    if (!m_thread.joinable()) return kReadElement;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            auto spanHere = [&] { return !m_spans.empty() && m_spans.front()->start <= offset; };
            m_changed.wait(lock, [&] {
                return m_threadDone || !m_searching || offset < m_planned || spanHere();
            });
            if (!spanHere()) return kReadElement;
        }
        const std::size_t next = take(offset);
        if (next != kReadElement) return next;
    }
}

// At the parser's first element of traceEvents: a thread only for a file of more than one block
// (the rest of a small one is in memory already).
void EventPrescan::start() {
    m_started = true;
    // glueprof's own exports name their producer before traceEvents; their events carry args that
    // a span's handler does not read.
    if (m_options.spanBytes == 0 || m_input.lastBlock() || m_handler.sink().readsRecordedArgs())
        return;
    if (m_options.lockstep) {
        m_planned = m_options.gapBytes;
        m_searching = true;
    }
    m_thread = std::thread([this] { run(); });
}

std::size_t EventPrescan::take(std::size_t offset) {
    std::unique_ptr<Span> taken;
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_spans.empty() && m_spans.front()->start <= offset) {
        Span& span = *m_spans.front();
        // A span the parser is past stops at its next element: the wait is short. A thread that
        // ended (it failed) leaves its span undone.
        m_changed.wait(lock, [&] { return span.done || m_threadDone; });
        const bool usable = span.done && span.start == offset && span.whole &&
                            !m_handler.sink().readsRecordedArgs();
        std::unique_ptr<Span> front = std::move(m_spans.front());
        m_spans.pop_front();
        if (usable) {
            taken = std::move(front);
            break;
        }
        ++m_counts.spansDropped;
        m_free.push_back(std::move(front));
    }
    publishNextStart();
    lock.unlock();
    m_changed.notify_all();  // room for another span
    if (!taken) return kReadElement;
    m_handler.deliver(taken->events, taken->count);
    ++m_counts.spansTaken;
    m_counts.eventsTaken += static_cast<std::int64_t>(taken->count);
    const std::size_t end = taken->end;
    lock.lock();
    m_free.push_back(std::move(taken));
    return end;
}

void EventPrescan::publishNextStart() {
    m_nextStart.store(m_spans.empty() ? kNoSpan : m_spans.front()->start,
                      std::memory_order_release);
}

void EventPrescan::run() {
    try {
        readSpans();
    } catch (...) {  // NOTE(prescan): no memory for a span: the parser reads the rest alone
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_threadDone = true;
    }
    m_changed.notify_all();
}

void EventPrescan::readSpans() {
    CompressedInput::Lookahead ahead(m_input);
    std::size_t from = 0;   // where the thread searches next for an element's start
    std::size_t after = 0;  // where the last span ended (or the last search began)
    int misses = 0;
    // Past the parser, and past what it read itself (lockstep: past what it read).
    auto nextPlace = [&] {
        const std::size_t parser =
            m_options.lockstep ? 0 : m_parserAt.load(std::memory_order_relaxed);
        from = std::max(after, parser) + m_options.gapBytes;
        after = from;
    };
    // Lockstep: the parser, waiting at or before the span just read, may go on to the next place
    // once its block is pinned, so the seek there succeeds or not by the file alone.
    bool pinned = false;
    auto letParserOn = [&](Span* read) {
        if (m_options.lockstep) pinned = ahead.pin(from);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (read != nullptr) read->done = true;
            if (m_options.lockstep) {
                m_planned = from;
                m_searching = true;
            }
        }
        m_changed.notify_all();
    };
    if (m_options.lockstep) {
        nextPlace();
        letParserOn(nullptr);
    }
    for (;;) {
        if (!pinned) ahead.release();  // waiting holds no block back from the reader
        pinned = false;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_changed.wait(lock, [&] { return m_stop || m_spans.size() < kMaxSpans; });
            if (m_stop) return;
        }
        if (!m_options.lockstep) nextPlace();
        // A seek that fails short of the data's end (the parser went past that block meanwhile)
        // is tried further on. A file without an element starting a line in the first blocks
        // after the gap, three times running, is written on few lines: the parser reads it alone.
        const bool found = ahead.seek(from);
        if (!found || !seekElementStart(ahead)) {
            if (ahead.finished() || (found && ++misses == kMaxMisses)) return;
            if (m_options.lockstep) {
                nextPlace();
                letParserOn(nullptr);
            }
            continue;
        }
        misses = 0;
        Span* reading = nullptr;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_stop) return;
            if (m_free.empty()) {
                m_spans.push_back(std::make_unique<Span>());
            } else {
                m_spans.push_back(std::move(m_free.back()));
                m_free.pop_back();
            }
            reading = m_spans.back().get();
            reading->start = ahead.Tell();
            reading->end = reading->start;
            reading->done = false;
            reading->whole = false;
            reading->count = 0;
            publishNextStart();
            m_searching = false;
        }
        m_changed.notify_all();
        read(*reading, ahead);
        // A span not read whole: the next one is planned from its start, whatever the parser did.
        after = reading->whole ? reading->end : reading->start;
        if (m_options.lockstep) nextPlace();
        letParserOn(reading);
    }
}

void EventPrescan::read(Span& span, CompressedInput::Lookahead& ahead) const {
    // NOTE(prescan): a span that fails (bad JSON or event, no memory) is dropped; the parser
    // reads it and says why.
    try {
        Collector collector(span);
        TokenBound bound;
        ChromeJsonHandler handler(
            m_path, [&ahead] { return ahead.Tell(); }, collector, bound);
        handler.resumeInEvents();
        SpanEnd end(handler, span, span.start + m_options.spanBytes, m_parserAt, m_stopping,
                    m_options.lockstep);
        JsonScanner<ChromeJsonHandler, CompressedInput::Lookahead> scanner(ahead, handler, bound);
        scanner.setHook(&end);
        scanner.elements();
        // Cut short, the data seemed to end where it did not: an end found there is no element's.
        span.whole = end.reachedEnd() && handler.error().empty() && !ahead.cutShort();
    } catch (...) {
        span.whole = false;
    }
}

// From the cursor to the first '{' that begins a line after a line that ends in ',' (blanks
// aside), within this block and the next; false when there is none (or the data ends).
bool EventPrescan::seekElementStart(CompressedInput::Lookahead& ahead) {
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    for (int blocks = 0; blocks < 2; ++blocks) {
        const char* first = ahead.cursor();
        const char* end = ahead.blockEnd();
        for (const char* p = first; p < end;) {
            const auto* newline =
                static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
            if (newline == nullptr) break;
            const char* q = newline + 1;
            while (q < end && blank(*q)) ++q;
            if (q < end && *q == '{') {
                const char* b = newline;
                while (b > first && blank(b[-1])) --b;
                if (b > first && b[-1] == ',') {
                    ahead.skipTo(q);
                    return true;
                }
            }
            p = newline + 1;
        }
        if (ahead.lastBlock()) return false;
        ahead.skipTo(end);  // the next block
    }
    return false;
}

}  // namespace glueprof

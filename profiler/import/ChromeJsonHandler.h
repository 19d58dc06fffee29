#pragma once
// The SAX handler (RapidJSON's handler concept, read by JsonScanner) for a Chrome trace JSON file
// (ChromeJsonTokenizer): the file's structure, each scalar checked (kind, length, range) and stored
// in the RawEvent or the file's facts it belongs to; each finished event goes to the
// RawEventSink. An error stops the reader with a message naming the file, the byte and the JSON
// path.
#include <rapidjson/reader.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/import/ChromeJsonFields.h"
#include "profiler/import/ChromeJsonTokenizer.h"

namespace glueprof {

class ChromeJsonHandler
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ChromeJsonHandler> {
    using Field = chrome_json::Field;
    using Scalar = chrome_json::Scalar;

  public:
    // `tell`: the reader's byte offset, for the messages.
    ChromeJsonHandler(const std::string& path, std::function<std::size_t()> tell,
                      RawEventSink& sink, TokenBound& bound)
        : m_path(path), m_tell(std::move(tell)), m_sink(sink), m_bound(bound) {}

    // Scalars. With kParseNumbersAsStringsFlag every number arrives as RawNumber.
    bool Null() { return scalar(Scalar::kNull, {}); }
    bool Bool(bool b) { return scalar(Scalar::kBool, b ? "true" : "false"); }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
        return scalar(Scalar::kNumber, {s, n});
    }
    bool String(const char* s, rapidjson::SizeType n, bool) {
        return scalar(Scalar::kString, {s, n});
    }
    bool Key(const char* s, rapidjson::SizeType n, bool);
    bool StartObject();
    bool EndObject(rapidjson::SizeType);
    bool StartArray();
    bool EndArray(rapidjson::SizeType) {
        m_stack.pop_back();
        return true;
    }

    // Between two elements of traceEvents, the file's object holding the array: where a reader
    // that starts inside the array (EventPrescan) can take over or hand over.
    bool atEventElement() const {
        return m_stack.size() == 2 && m_stack[0] == Ctx::kTop && m_stack[1] == Ctx::kEvents;
    }
    // Starts at an element of traceEvents, as a reader that read the file up to there would be.
    void resumeInEvents() {
        m_stack = {Ctx::kTop, Ctx::kEvents};
        m_sawEvents = true;
    }
    // Events that another handler, started by resumeInEvents() at this element, read: each goes
    // to the sink as if read here.
    void deliver(const std::vector<RawEvent>& events, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
            ++m_eventIndex;
            m_sink.event(events[i]);
        }
    }
    const RawEventSink& sink() const { return m_sink; }

    const std::string& error() const { return m_error; }
    // The message for the token the reader's stack refused (BoundedStackAllocator).
    const std::string& refusedToken();
    bool sawEvents() const { return m_sawEvents; }
    ChromeFileFacts& facts() { return m_facts; }

  private:
    // Where the reader is in the file.
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

    bool scalar(Scalar kind, std::string_view text);
    bool topField(Scalar kind, std::string_view text);
    bool eventField(Scalar kind, std::string_view text);
    bool argField(Scalar kind, std::string_view text);
    bool recordedArgField(Scalar kind, std::string_view text);
    bool distributedField(Scalar kind, std::string_view text);
    bool finishEvent();
    static bool keep(Scalar kind, std::string_view text, std::string& out);
    bool number(Scalar kind, std::string_view text, std::int64_t& out);
    bool micros(Scalar kind, std::string_view text, std::optional<TimestampNs>& out);
    // Nesting no trace needs; beyond it the recursive parser would exhaust the stack.
    static constexpr std::size_t kMaxDepth = 256;
    bool tooDeep();
    bool fail(const std::string& what);
    bool overlong(std::string_view text, const char* what);
    std::string where() const;  // traceEvents[N]
    bool inEvent() const;
    std::string keyPath() const;
    Ctx context() const { return m_stack.empty() ? Ctx::kIgnore : m_stack.back(); }

    std::string m_path;
    std::function<std::size_t()> m_tell;
    RawEventSink& m_sink;
    TokenBound& m_bound;
    std::vector<Ctx> m_stack;
    // The key just read, in place when short (every key of a real trace): Key() runs for each of
    // an event's fields, and std::string's assign was a tenth of the read.
    class KeyText {
      public:
        void assign(const char* s, std::size_t n) {
            if (n <= sizeof m_inline) {
                std::memcpy(m_inline, s, n);
                m_size = n;
                m_long = false;
            } else {
                m_longText.assign(s, n);
                m_long = true;
            }
        }
        std::string_view view() const {
            return m_long ? std::string_view(m_longText) : std::string_view(m_inline, m_size);
        }

      private:
        char m_inline[64];
        std::size_t m_size = 0;
        bool m_long = false;
        std::string m_longText;
    };
    std::string_view key() const { return m_key.view(); }
    KeyText m_key;
    Field m_field = Field::kOther;
    RawEvent m_ownEvent;
    RawEvent* m_event = &m_ownEvent;  // the event being read: the sink's slot, or m_ownEvent
    std::int64_t m_eventIndex = -1;
    bool m_sawEvents = false;
    std::string m_error;
    ChromeFileFacts m_facts;
    std::pair<std::int64_t, std::string> m_device;
};

}  // namespace glueprof

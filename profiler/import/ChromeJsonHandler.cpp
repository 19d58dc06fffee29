#include "profiler/import/ChromeJsonHandler.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "profiler/core/ChromeExportFormat.h"
#include "profiler/core/TextEncoding.h"
#include "profiler/import/ChromeJsonNumbers.h"

namespace glueprof {

using namespace chrome_json;

const std::string& ChromeJsonHandler::refusedToken() {
    overlong(m_bound.head, "string or number");
    return m_error;
}

bool ChromeJsonHandler::tooDeep() {
    return fail(fmt::format("JSON nested deeper than {} levels; not a trace", kMaxDepth));
}

bool ChromeJsonHandler::fail(const std::string& what) {
    m_error = fmt::format("'{}': byte {}: {}; the trace is malformed", m_path, m_tell(), what);
    return false;
}

std::string ChromeJsonHandler::where() const {
    return fmt::format("traceEvents[{}]", m_eventIndex);
}

bool ChromeJsonHandler::inEvent() const {
    return std::find(m_stack.begin(), m_stack.end(), Ctx::kEvent) != m_stack.end();
}

bool ChromeJsonHandler::Key(const char* s, rapidjson::SizeType n, bool) {
    if (n > m_bound.bytes) return overlong({s, n}, "key");
    m_key.assign(s, n);
    const Ctx where = context();
    m_field = where == Ctx::kEvent  ? eventFieldOf(key())
              : where == Ctx::kArgs ? argFieldOf(key())
                                    : Field::kOther;
    // The value to come is a name or field glueprof keeps, or something it passes over.
    m_bound.bytes =
        m_field != Field::kOther || where == Ctx::kDevice ? kMaxTraceNameBytes : kMaxJsonTokenBytes;
    return true;
}

// A token longer than the bound it was read under: a name or field glueprof reads, or any
// other string, key or number (`what`). `text` may be only its first bytes.
bool ChromeJsonHandler::overlong(std::string_view text, const char* what) {
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
    m_error = fmt::format("'{}': byte {}: {}", m_path, m_tell(), problem);
    return false;
}

// The JSON path of the current key, for messages: traceEvents[3].args.bytes,
// distributedInfo.rank.
std::string ChromeJsonHandler::keyPath() const {
    switch (context()) {
        case Ctx::kEvent:
            return where() + "." + std::string(key());
        case Ctx::kArgs:
            return where() + ".args." + std::string(key());
        case Ctx::kDistributed:
            return "distributedInfo." + std::string(key());
        case Ctx::kDevice:
            return "deviceProperties[]." + std::string(key());
        default:
            return std::string(key());
    }
}

bool ChromeJsonHandler::StartObject() {
    m_bound.bytes = kMaxJsonTokenBytes;  // a key comes next
    if (m_stack.size() >= kMaxDepth) return tooDeep();
    Ctx next = Ctx::kIgnore;
    if (m_stack.empty()) {
        next = Ctx::kTop;
    } else {
        switch (m_stack.back()) {
            case Ctx::kTop:
                if (key() == chrome::kTraceEvents)
                    return fail("traceEvents is an object; expected an array of events");
                next = key() == "distributedInfo"    ? Ctx::kDistributed
                       : key() == chrome::kOtherData ? Ctx::kOther
                                                     : Ctx::kIgnore;
                break;
            case Ctx::kEvents:
                ++m_eventIndex;
                m_event = m_sink.eventSlot();
                if (m_event == nullptr) m_event = &m_ownEvent;
                m_event->clear();
                next = Ctx::kEvent;
                break;
            case Ctx::kEvent:
                if (m_field != Field::kOther)
                    return fail(fmt::format("{} is an object; expected a value", keyPath()));
                next = key() == chrome::kArgs ? Ctx::kArgs : Ctx::kIgnore;
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

bool ChromeJsonHandler::EndObject(rapidjson::SizeType) {
    const Ctx done = m_stack.back();
    m_stack.pop_back();
    if (done == Ctx::kEvent) return finishEvent();
    if (done == Ctx::kDevice && m_device.first != kAbsent) m_facts.devices.push_back(m_device);
    return true;
}

bool ChromeJsonHandler::StartArray() {
    m_bound.bytes = kMaxJsonTokenBytes;  // elements are read under the bound of no field
    if (m_stack.size() >= kMaxDepth) return tooDeep();
    Ctx next = Ctx::kIgnore;
    if (m_stack.empty()) {
        next = Ctx::kEvents;  // the JSON Array Format: the file is the events array
        m_sawEvents = true;
    } else if (m_stack.back() == Ctx::kTop) {
        if (key() == chrome::kTraceEvents) {
            next = Ctx::kEvents;
            m_sawEvents = true;
        } else if (key() == "deviceProperties") {
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

// An event's times, checked before anyone reads them: a span (X) or a begin (B) has a ts, and a
// span's end fits in 64-bit nanoseconds.
bool ChromeJsonHandler::finishEvent() {
    const RawEvent& e = *m_event;
    // Phases are one character: compared as one (a string comparison was a library call).
    const char ph = e.ph.size() == 1 ? e.ph[0] : '\0';
    const bool span = ph == chrome::kPhaseComplete[0];
    if ((span || ph == chrome::kPhaseBegin[0]) && !e.ts) {
        return fail(fmt::format("{} ('{}') has no ts", where(), e.name));
    }
    TimestampNs end = 0;
    if (span && __builtin_add_overflow(*e.ts, e.dur.value_or(0), &end)) {
        return fail(fmt::format("{} ('{}'): ts + dur overflows", where(), e.name));
    }
    m_sink.event(e);
    return true;
}

// A string argument taken as it is; any other kind of value leaves it empty.
bool ChromeJsonHandler::keep(Scalar kind, std::string_view text, std::string& out) {
    if (kind == Scalar::kString) out.assign(text);
    return true;
}

bool ChromeJsonHandler::number(Scalar kind, std::string_view text, std::int64_t& out) {
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

bool ChromeJsonHandler::micros(Scalar kind, std::string_view text,
                               std::optional<TimestampNs>& out) {
    auto value = kind == Scalar::kNumber ? microsToNanos(text) : std::nullopt;
    if (!value) {
        return fail(fmt::format("{} is {}; expected a number of microseconds", keyPath(),
                                kind == Scalar::kNumber ? "out of range" : kindName(kind)));
    }
    out = value;
    return true;
}

bool ChromeJsonHandler::scalar(Scalar kind, std::string_view text) {
    if (text.size() > m_bound.bytes) return overlong(text, "string or number");
    m_bound.bytes = kMaxJsonTokenBytes;  // a key or an array element comes next
    switch (context()) {
        case Ctx::kTop:
            return topField(kind, text);
        case Ctx::kEvents:
            return fail(
                fmt::format("traceEvents[{}] is not an object; expected an event", ++m_eventIndex));
        case Ctx::kEvent:
            return eventField(kind, text);
        case Ctx::kArgs:
            return argField(kind, text);
        case Ctx::kDevice:
            if (key() == chrome::kId && kind == Scalar::kNumber)
                return number(kind, text, m_device.first);
            if (key() == chrome::kName && kind == Scalar::kString)
                m_device.second = validUtf8(text);
            return true;
        case Ctx::kDistributed:
            return distributedField(kind, text);
        case Ctx::kOther:
            if (key() == chrome::kProducer && kind == Scalar::kString) m_sink.producer(text);
            return true;
        default:
            return true;
    }
}

bool ChromeJsonHandler::topField(Scalar kind, std::string_view text) {
    if (key() == chrome::kTraceEvents)
        return fail("traceEvents is not an array; expected an array of events");
    if (key() == chrome::kBaseTimeNanoseconds && kind == Scalar::kNumber) {
        std::int64_t base = 0;
        if (!number(kind, text, base)) return false;
        m_facts.baseTime = base;
    } else if (key() == chrome::kSchemaVersion && kind == Scalar::kNumber) {
        return number(kind, text, m_facts.schemaVersion);
    }
    return true;
}

bool ChromeJsonHandler::distributedField(Scalar kind, std::string_view text) {
    if ((key() != "rank" && key() != "world_size") || kind != Scalar::kNumber) return true;
    std::int64_t value = 0;
    if (!number(kind, text, value)) return false;
    if (value < 0 || value > std::numeric_limits<int>::max())
        return fail(fmt::format("distributedInfo.{} is {}; expected a rank count", key(), value));
    (key() == "rank" ? m_facts.rank : m_facts.worldSize) = static_cast<int>(value);
    return true;
}

bool ChromeJsonHandler::eventField(Scalar kind, std::string_view text) {
    RawEvent& e = *m_event;
    switch (m_field) {
        case Field::kPh:
        case Field::kCat:
        case Field::kName:
            if (kind != Scalar::kString && kind != Scalar::kNull)
                return fail(fmt::format("{}.{} is not a string", where(), key()));
            (m_field == Field::kPh ? e.ph : m_field == Field::kCat ? e.cat : e.name).assign(text);
            return true;
        case Field::kPid:
        case Field::kTid:
            if (kind != Scalar::kNumber && kind != Scalar::kString)
                return fail(fmt::format("{}.{} is neither a number nor a string", where(), key()));
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

bool ChromeJsonHandler::argField(Scalar kind, std::string_view text) {
    RawEvent& e = *m_event;
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
            return keep(kind, text, e.syncKind);
        case Field::kWaitOnStream:
            return number(kind, text, e.waitOnStream);
        case Field::kArgName:
            return keep(kind, text, e.argName);
        case Field::kCollective:
            return keep(kind, text, e.collective);
        case Field::kSequence:
            return number(kind, text, e.sequence);
        case Field::kElements:
            return number(kind, text, e.elements);
        case Field::kDtype:
            return keep(kind, text, e.dtype);
        case Field::kProcessGroup:
            return keep(kind, text, e.processGroup);
        default:
            return !m_sink.readsRecordedArgs() || recordedArgField(kind, text);
    }
}

bool ChromeJsonHandler::recordedArgField(Scalar kind, std::string_view text) {
    RawEvent& e = *m_event;
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
            return keep(kind, text, e.category);
        case Field::kSrc:
            return keep(kind, text, e.src);
        case Field::kDst:
            return keep(kind, text, e.dst);
        case Field::kSyncPoint:
            if (kind == Scalar::kBool) e.syncPoint = text == "true";
            return true;
        default:
            return true;
    }
}

}  // namespace glueprof

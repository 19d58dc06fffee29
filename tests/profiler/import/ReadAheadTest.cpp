// A Kineto trace read with a second thread reading spans ahead of the parser (EventPrescan) gives
// the run the parser alone gives, field for field, on real traces tiled to several MiB in each
// layout a writer uses; a malformed event inside a span is reported as the parser alone reports it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "profiler/core/Error.h"
#include "profiler/import/ChromeJsonTokenizer.h"
#include "profiler/import/CompressedInput.h"
#include "profiler/import/TraceImporter.h"

#include "tests/profiler/import/ImportFixtures.h"
#include "tests/support/ScratchDirectoryTest.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kKinetoFixtures[] = {
    "kineto/hta-alexnet-trace.json.gz", "kineto/hta-event_sync_trace.json.gz",
    "kineto/hta-trace_compare-base.json.gz", "kineto/hta-trace_compare-test.json.gz"};

// How the tiled trace is written.
enum class Layout {
    kIndented,      // every object and array on lines of their own (json.dumps(indent=2))
    kEventPerLine,  // one event per line, as Kineto writes them
    kOneLine,       // no newline at all: nothing for the second thread to start at
};

// The fixture's events `copies` times over (each copy later by a second), some with an args
// list of objects on lines of their own (lines that look like an event's start and are not) and
// names with escapes, in `layout`.
std::string tiled(const std::string& fixture, int copies, Layout layout) {
    json trace = json::parse(testing::gunzip(testing::importFixture(fixture)));
    json events = json::array();
    for (int copy = 0; copy < copies; ++copy) {
        int index = 0;
        for (json e : trace["traceEvents"]) {
            if (e.contains("ts") && e["ts"].is_number_integer())
                e["ts"] = e["ts"].get<std::int64_t>() + copy * 1000000LL;
            if (++index % 7 == 0 && e.contains("args") && e["args"].is_object())
                e["args"]["shapes"] = json::array({json{{"dims", {1, 2}}}, json{{"dims", {3}}}});
            if (index % 11 == 0 && e.contains("name") && e["name"].is_string())
                e["name"] = e["name"].get<std::string>() + " \"q\" \u00e9\\";
            events.push_back(e);
        }
    }
    trace["traceEvents"] = events;
    if (layout == Layout::kIndented) return trace.dump(2);
    if (layout == Layout::kOneLine) return trace.dump();
    json rest = trace;
    rest.erase("traceEvents");
    std::string text = "{\n  \"traceEvents\": [\n";
    for (std::size_t i = 0; i < events.size(); ++i)
        text += "  " + events[i].dump() + (i + 1 < events.size() ? ",\n" : "\n");
    text += "  ]";
    for (auto it = rest.begin(); it != rest.end(); ++it)
        text += ",\n  " + json(it.key()).dump() + ": " + it.value().dump();
    return text + "\n}\n";
}

class ReadAhead : public glueprof::testing::ScratchDirectoryTest {
  protected:
    ReadAhead() : ScratchDirectoryTest("glueprof-readahead-") {}
    static ImportedRun read(const std::string& path, std::size_t spanBytes) {
        ImportOptions options;
        options.readAheadSpanBytes = spanBytes;
        return readTrace(path, options);
    }
};

// Every field of each event the tokenizer hands over, in order.
class EventLog final : public RawEventSink {
  public:
    void producer(std::string_view name) override {
        lines.push_back("producer " + std::string(name));
    }
    bool readsRecordedArgs() const override { return false; }
    void event(const RawEvent& e) override {
        auto n = [](const std::optional<TimestampNs>& v) { return v ? std::to_string(*v) : "-"; };
        lines.push_back(fmt::format(
            "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{} {} {} {} {} {} {} {} {} {} {} {} "
            "{}",
            e.ph, e.cat, e.name, e.pid, e.tid, e.id, e.syncKind, e.argName, e.collective, e.dtype,
            e.processGroup, e.category, e.src, e.dst, e.pidNumeric, e.tidNumeric, n(e.ts), n(e.dur),
            e.correlation, e.externalId, e.stream, e.waitOnStream, e.device, e.bytes, e.step,
            e.layer, e.microbatch, e.flags, e.sequence, e.elements));
    }
    std::vector<std::string> lines;
};

struct Tokenized {
    std::vector<std::string> events;
    PrescanCounts counts;
};

Tokenized tokenize(const std::string& path, const PrescanOptions& options) {
    CompressedInput input(path);
    EventLog log;
    const ChromeFileFacts facts = tokenizeChromeJson(path, input, log, options);
    return Tokenized{std::move(log.lines), facts.prescan};
}

std::string describe(const TraceModel& t, const Event& e) {
    return fmt::format("{} {} {} '{}' {}..{} step {} corr {} bytes {} {}->{} flags {}",
                       static_cast<int>(e.kind), static_cast<int>(e.category), e.lane,
                       t.name(e.name), e.startNs, e.endNs, e.step, e.correlation, e.bytes,
                       static_cast<int>(e.srcKind), static_cast<int>(e.dstKind), e.flags);
}

// Every lane, event, step and count of the two reads, equal.
void expectSameRun(const ImportedRun& alone, const ImportedRun& ahead) {
    const TraceModel& a = alone.model;
    const TraceModel& b = ahead.model;
    EXPECT_EQ(alone.read, ahead.read);
    EXPECT_EQ(alone.eventsByKind, ahead.eventsByKind);
    EXPECT_EQ(alone.skipped, ahead.skipped);
    EXPECT_EQ(alone.derived, ahead.derived);
    EXPECT_EQ(alone.devicesJson, ahead.devicesJson);
    EXPECT_EQ(alone.rank, ahead.rank);
    EXPECT_EQ(alone.stepsFound, ahead.stepsFound);
    ASSERT_EQ(a.lanes().size(), b.lanes().size());
    for (std::size_t i = 0; i < a.lanes().size(); ++i) {
        EXPECT_EQ(a.lanes()[i].name, b.lanes()[i].name);
        EXPECT_EQ(a.lanes()[i].threadOrStream, b.lanes()[i].threadOrStream);
        const auto& ea = a.eventsOnLane(i);
        const auto& eb = b.eventsOnLane(i);
        ASSERT_EQ(ea.size(), eb.size()) << a.lanes()[i].name;
        for (std::size_t k = 0; k < ea.size(); ++k)
            ASSERT_EQ(describe(a, ea[k]), describe(b, eb[k])) << a.lanes()[i].name << " #" << k;
    }
    ASSERT_EQ(a.steps().size(), b.steps().size());
    for (std::size_t i = 0; i < a.steps().size(); ++i) {
        EXPECT_EQ(a.steps()[i].step, b.steps()[i].step);
        EXPECT_EQ(a.steps()[i].startNs, b.steps()[i].startNs);
        EXPECT_EQ(a.steps()[i].endNs, b.steps()[i].endNs);
    }
    ASSERT_EQ(a.diagnostics().size(), b.diagnostics().size());
    for (std::size_t i = 0; i < a.diagnostics().size(); ++i) {
        EXPECT_EQ(a.diagnostics()[i].detail, b.diagnostics()[i].detail);
        EXPECT_EQ(a.diagnostics()[i].value, b.diagnostics()[i].value);
    }
}

TEST_F(ReadAhead, RealTracesTiledReadTheSameWithSpansOfAnySize) {
    for (const char* fixture : kKinetoFixtures) {
        // Enough copies for a few MiB: the second thread starts past the first 1 MiB block.
        const std::size_t once = testing::gunzip(testing::importFixture(fixture)).size();
        const int copies = static_cast<int>((3u << 20) / once) + 1;
        for (Layout layout : {Layout::kIndented, Layout::kEventPerLine}) {
            SCOPED_TRACE(std::string(fixture) + (layout == Layout::kIndented ? " indented" : ""));
            const std::string text = tiled(fixture, copies, layout);
            for (const std::string& path :
                 {write("t.json", text), write("t.json.gz", testing::gzipMember(text))}) {
                const ImportedRun alone = read(path, 0);
                EXPECT_EQ(alone.eventsReadAhead, 0);
                // Which spans the parser takes depends on the two threads' timing; the run never.
                for (std::size_t span :
                     {std::size_t{2} << 20, std::size_t{65536}, std::size_t{7001}})
                    expectSameRun(alone, read(path, span));
            }
        }
    }
}

// In lockstep (the parser waits where the thread plans its next span) the spans taken are a
// function of the file: most events come from the second thread, the same ones on every read, in
// both layouts with lines, with the default span (2 MiB) on a file of 10 MiB and shorter ones.
TEST_F(ReadAhead, InLockstepTheThreadReadsMostEventsTheSameOnesEachTime) {
    const char* const fixture = "kineto/hta-alexnet-trace.json.gz";
    const std::size_t once = testing::gunzip(testing::importFixture(fixture)).size();
    const int copies = static_cast<int>((10u << 20) / once) + 1;
    for (Layout layout : {Layout::kIndented, Layout::kEventPerLine}) {
        const std::string text = tiled(fixture, copies, layout);
        const std::string path = write("t.json.gz", testing::gzipMember(text));
        const Tokenized alone = tokenize(path, PrescanOptions{0, 0, false});
        for (std::size_t span :
             {PrescanOptions{}.spanBytes, std::size_t{65536}, std::size_t{7001}}) {
            SCOPED_TRACE(fmt::format("{} spans of {}",
                                     layout == Layout::kIndented ? "indented" : "per line", span));
            const PrescanOptions lockstep{span, span / 2, true};
            const Tokenized first = tokenize(path, lockstep);
            const Tokenized second = tokenize(path, lockstep);
            EXPECT_EQ(first.events, alone.events);
            EXPECT_EQ(first.counts.eventsTaken, second.counts.eventsTaken);
            EXPECT_EQ(first.counts.spansTaken, second.counts.spansTaken);
            EXPECT_EQ(first.counts.spansDropped, second.counts.spansDropped);
            // The gap is a third of each span and gap: about two thirds of the events (2 MiB spans:
            // less, the first 1 MiB and the last span's share of 10 MiB are the parser's).
            const std::size_t share = span == PrescanOptions{}.spanBytes ? 3 : 2;
            EXPECT_GT(first.counts.eventsTaken,
                      static_cast<std::int64_t>(alone.events.size() / share));
            // Indented, an args list's objects are lines that look like an event and are not.
            if (layout == Layout::kIndented) {
                EXPECT_GT(first.counts.spansDropped, 0);
            }
        }
    }
}

TEST_F(ReadAhead, ATraceOnOneLineIsReadByTheParserAlone) {
    const std::string path =
        write("t.json", tiled("kineto/hta-alexnet-trace.json.gz", 12, Layout::kOneLine));
    const ImportedRun ahead = read(path, 65536);
    EXPECT_EQ(ahead.eventsReadAhead, 0);
    expectSameRun(read(path, 0), ahead);
}

// The error of a bad event in the middle of a span is the parser's own: same byte, same event.
TEST_F(ReadAhead, ABadEventInsideASpanIsReportedAsTheParserAloneReportsIt) {
    std::string text = tiled("kineto/hta-alexnet-trace.json.gz", 12, Layout::kEventPerLine);
    {  // without the bad event, the thread reads more than half of the events in lockstep
        const std::string good = write("good.json", text);
        const Tokenized alone = tokenize(good, PrescanOptions{0, 0, false});
        for (std::size_t span : {std::size_t{65536}, std::size_t{7001}}) {
            EXPECT_GT(tokenize(good, PrescanOptions{span, span / 2, true}).counts.eventsTaken,
                      static_cast<std::int64_t>(alone.events.size() / 2));
        }
    }
    const std::size_t at = text.find("\"ts\":", text.size() * 3 / 4);
    ASSERT_NE(at, std::string::npos);
    text.insert(at + 5, "\"soon\",\"x\":");  // "ts":"soon","x":<the number>
    for (const std::string& path :
         {write("bad.json", text), write("bad.json.gz", testing::gzipMember(text))}) {
        std::vector<std::string> messages;
        auto expectFailure = [&](auto&& readIt, const std::string& how) {
            try {
                readIt();
                ADD_FAILURE() << "read " << path << " " << how;
            } catch (const GlueprofError& e) {
                EXPECT_EQ(e.code(), ExitCode::kInput);
                messages.push_back(e.what());
            }
        };
        for (std::size_t span : {std::size_t{0}, std::size_t{65536}, std::size_t{7001}}) {
            expectFailure([&] { read(path, span); }, fmt::format("with spans of {}", span));
            // In lockstep the spans before the bad event are taken on every read (more than half
            // of the events, as the good file shows), so its index after them is put to the test.
            if (span != 0) {
                expectFailure(
                    [&] {
                        tokenize(path, PrescanOptions{span, span / 2, true});
                    },
                    fmt::format("in lockstep with spans of {}", span));
            }
        }
        ASSERT_EQ(messages.size(), 5u);
        EXPECT_NE(messages[0].find("expected a number of microseconds"), std::string::npos)
            << messages[0];
        for (const std::string& message : messages) EXPECT_EQ(message, messages[0]);
    }
}

}  // namespace
}  // namespace glueprof

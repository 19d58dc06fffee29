#include "profiler/import/KinetoReader.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "profiler/core/ChromeExportFormat.h"
#include "profiler/core/Error.h"
#include "profiler/core/TextEncoding.h"
#include "profiler/import/ChromeExportMapper.h"
#include "profiler/import/ChromeJsonTokenizer.h"
#include "profiler/import/CompressedInput.h"
#include "profiler/import/KinetoEventMapper.h"

namespace glueprof {

namespace {

// The one place the dialect is decided: a file is Kineto's until otherData.producer says
// glueprof wrote it. Both mappers share the state, so events read before that keep their lanes,
// begins and flows.
// Also tells the read's progress (ImportOptions::readProgress, and the assembly's reserveAhead)
// every kProgressEvents events.
class DialectSwitch final : public RawEventSink {
  public:
    DialectSwitch(ChromeTraceState& state, TraceAssembly& assembly, const CompressedInput& input,
                  const ImportOptions& options)
        : m_kineto(state),
          m_export(state),
          m_assembly(assembly),
          m_input(input),
          m_options(options) {}

    void producer(std::string_view name) override {
        if (name == chrome::kGlueprofProducer) m_mapper = &m_export;
    }
    bool readsRecordedArgs() const override { return m_mapper->readsRecordedArgs(); }
    void event(const RawEvent& e) override {
        m_mapper->map(e);
        if (++m_events % kProgressEvents == 0) {
            const std::uint64_t done = m_input.fileBytesRead();
            m_assembly.readSoFar(done, m_input.fileBytes());
            if (m_options.readProgress) m_options.readProgress(done, m_input.fileBytes());
        }
    }
    const ChromeEventMapper& mapper() const { return *m_mapper; }

  private:
    static constexpr std::uint64_t kProgressEvents = 1u << 16;
    KinetoEventMapper m_kineto;
    ChromeExportMapper m_export;
    ChromeEventMapper* m_mapper = &m_kineto;
    TraceAssembly& m_assembly;
    const CompressedInput& m_input;
    const ImportOptions& m_options;
    std::uint64_t m_events = 0;
};

std::string devicesJson(const std::vector<std::pair<std::int64_t, std::string>>& devices) {
    std::string json = "[";
    for (const auto& [id, name] : devices) {
        if (json.size() > 1) json += ", ";
        json += fmt::format("{{\"id\": {}, \"name\": {}}}", id, jsonStringLiteral(name));
    }
    return json + "]";
}

// Kineto's timestamps are Unix time (µs since the epoch, or relative to baseTimeNanoseconds):
// the first event's, when it is after 2001-01-01; else 0.
std::int64_t startedUnixNs(const TraceModel& model) {
    TimestampNs first = std::numeric_limits<TimestampNs>::max();
    for (std::size_t i = 0; i < model.lanes().size(); ++i) {
        if (!model.eventsOnLane(i).empty())
            first = std::min(first, model.eventsOnLane(i).front().startNs);
    }
    constexpr TimestampNs kYear2001Ns = 978307200LL * 1000000000LL;
    return first != std::numeric_limits<TimestampNs>::max() && first > kYear2001Ns ? first : 0;
}

}  // namespace

ImportedRun readKinetoTrace(const std::string& path, const ImportOptions& options) {
    CompressedInput input(path);
    TraceAssembly assembly(options);
    ChromeTraceState state(assembly);
    DialectSwitch dialect(state, assembly, input, options);
    PrescanOptions prescan;
    prescan.spanBytes = options.readAheadSpanBytes;
    prescan.gapBytes = options.readAheadSpanBytes / 2;
    const ChromeFileFacts facts = tokenizeChromeJson(path, input, dialect, prescan);
    if (options.readProgress) options.readProgress(input.fileBytes(), input.fileBytes());
    state.finish();
    if (assembly.eventCount() == 0) {
        throw inputError(fmt::format(
            "'{}' holds no events glueprof imports (traceEvents is empty or only metadata); "
            "profile with activities=[CPU, CUDA] and export again",
            path));
    }
    if (facts.baseTime && !assembly.offsetTimes(*facts.baseTime)) {
        throw inputError(fmt::format(
            "'{}': baseTimeNanoseconds {} plus the events' ts overflows 64-bit nanoseconds; the "
            "trace is malformed",
            path, *facts.baseTime));
    }

    RunSummary run;
    run.identity.kind = RunKind::kImported;
    run.identity.rank = facts.rank;
    run.identity.worldSize = facts.worldSize;
    if (dialect.mapper().keepsEventsAsRecorded()) assembly.takeEventsAsRecorded();
    ImportedRun out = std::move(assembly).finish(std::move(run));
    out.source = path;
    out.format = dialect.mapper().formatName();
    out.formatDetail =
        (facts.schemaVersion == kAbsent ? std::string("no schemaVersion")
                                        : fmt::format("schemaVersion {}", facts.schemaVersion)) +
        (input.gzipped() ? ", gzip" : "");
    out.rank = facts.rank;
    out.worldSize = facts.worldSize;
    out.devicesJson = devicesJson(facts.devices);
    out.eventsReadAhead = facts.prescan.eventsTaken;
    out.startedUnixNs = startedUnixNs(out.model);
    return out;
}

}  // namespace glueprof

#include "app/usecases/ImportRequest.h"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <future>
#include <memory>

#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/TextEncoding.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceStore.h"
#include "profiler/import/RankGrouping.h"
#include "profiler/import/TraceImporter.h"

namespace glueprof {

namespace {

void checkRequest(const ImportRequest& r, std::size_t files) {
    if (r.name.empty() || r.stepPrefix.empty()) {
        throw usageError("--name and --steps need a value (see glueprof import --help)");
    }
    if (!r.ab && r.name != "imported") {
        throw usageError("--name names an A/B pair: use it with --ab BEFORE AFTER");
    }
    if (r.ab && findToggleInfo(r.name) != nullptr) {
        throw usageError(fmt::format(
            "--name '{}' is a toggle of glueprof's trainer, which judges its own metric; name the "
            "imported pair something else",
            r.name));
    }
    if (r.ab && files != 2) {
        throw usageError(fmt::format(
            "--ab compares two traces, BEFORE AFTER; {} trace file(s) were given", files));
    }
}

std::string labelOf(const ImportRequest& r, const ImportedRun& run, std::size_t files) {
    std::string label = printableText(
        r.label.empty() ? std::filesystem::path(run.source).filename().string() : r.label);
    if (!r.label.empty() && files > 1 && run.rank) label += fmt::format(" rank {}", *run.rank);
    return label;
}

// The run's label and identity: an arm of the pair, or a rank of a data-parallel group.
RunInfo runInfoOf(const ImportRequest& r, const ImportedRun& run, std::size_t index,
                  std::size_t files, const ImportOutcome& done, RankGrouping& ranks) {
    RunInfo info;
    info.label = labelOf(r, run, files);
    if (r.ab) {
        info.identity.arm = index == 0 ? Arm::kA : Arm::kB;
        info.identity.abGroup = index == 0 ? kStartsAbGroup : done.runs.front().run;
        info.identity.toggle = printableText(r.name);
        info.label += index == 0 ? " (A)" : " (B)";
    } else {
        info.identity.abGroup = ranks.groupOf(run);
    }
    return info;
}

void notify(const ImportProgress& progress, const std::string& line) {
    if (progress.notice) progress.notice(line);
}

// Writes `run`; a failure marks it failed and removes a database this import created for it
// (TraceStore::abandon). Its events are dropped once they are in the database.
StoredImport store(std::unique_ptr<TraceStore>& target, ImportedRun run, const RunInfo& info) {
    StoredImport stored;
    try {
        stored.run = storeImportedRun(*target, run, info);
    } catch (...) {
        target->abandon();
        target.reset();
        throw;
    }
    stored.steps = run.model.steps().size();
    run.model = TraceModelBuilder().build();
    stored.trace = std::move(run);
    return stored;
}

// What a read still in flight is stopped with when the import has ended early; nobody catches it
// but the read's own future, which is dropped.
struct ReadAbandoned {};

// Declared after the reads' futures, so that it runs before they wait: when the import ends by an
// exception, the reads still in flight stop at their next progress report.
class AbandonReadsOnError {
  public:
    explicit AbandonReadsOnError(std::atomic<bool>& abandoned) : m_abandoned(abandoned) {}
    ~AbandonReadsOnError() {
        if (std::uncaught_exceptions() > m_exceptions) m_abandoned.store(true);
    }
    AbandonReadsOnError(const AbandonReadsOnError&) = delete;
    AbandonReadsOnError& operator=(const AbandonReadsOnError&) = delete;

  private:
    std::atomic<bool>& m_abandoned;
    int m_exceptions = std::uncaught_exceptions();
};

}  // namespace

ImportOutcome runImport(const ImportRequest& request, const ImportProgress& progress) {
    requireTraceDatabaseTakesRuns(request.db);  // before the traces are read, not after
    // A directory's entries never include the database written here (a second `import DIR --db
    // DIR/out.sqlite` would read its own output as a trace).
    const TraceInputs inputs = expandTraceInputs(request.inputs, request.db);
    const std::vector<std::string>& files = inputs.files;
    if (files.empty())
        throw usageError("no trace to import; name a trace file or a directory of them");
    checkRequest(request, files.size());
    for (const std::string& skipped : inputs.skipped) notify(progress, printableText(skipped));
    ImportOptions options;
    options.stepPrefix = request.stepPrefix;
    options.keepPythonFunctions = request.keepPythonFunctions;
    if (!request.readAhead) options.readAheadSpanBytes = 0;
    // Each file is read on a thread of its own, one ahead of the one being stored: the next file
    // parses on one core while the writer stores the current one on the other. --ab reads both
    // (at once) before the database is touched: a bad AFTER leaves no lone BEFORE. When the import
    // ends early (a store failed, a bad BEFORE), a read still in flight stops at its next progress
    // report (every 65,536 events of a Kineto file) rather than hold the error back.
    std::atomic<bool> abandoned{false};
    const auto readInBackground = [&options, &progress, &abandoned](const std::string& file) {
        ImportOptions forFile = options;
        forFile.readProgress = [&progress, &abandoned, file](std::uint64_t done,
                                                             std::uint64_t total) {
            if (abandoned.load(std::memory_order_relaxed)) throw ReadAbandoned{};
            if (progress.reading) progress.reading(file, done, total);
        };
        return std::async(std::launch::async, [forFile, file] { return readTrace(file, forFile); });
    };
    std::vector<std::future<ImportedRun>> reads(files.size());
    const AbandonReadsOnError stopReads(abandoned);
    reads[0] = readInBackground(files[0]);
    std::vector<ImportedRun> pair;
    if (request.ab) {
        reads[1] = readInBackground(files[1]);
        for (std::future<ImportedRun>& read : reads) pair.push_back(read.get());
    }
    ImportOutcome outcome;
    outcome.db = request.db;
    if (request.ab) outcome.abName = request.name;
    std::unique_ptr<TraceStore> target;
    RankGrouping ranks;
    for (std::size_t i = 0; i < files.size(); ++i) {
        ImportedRun run = request.ab ? std::move(pair[i]) : reads[i].get();
        if (!request.ab && i + 1 < files.size()) reads[i + 1] = readInBackground(files[i + 1]);
        if (!target) {
            target = std::make_unique<TraceStore>(request.db);
            if (!target->upgradeNotice().empty()) notify(progress, target->upgradeNotice());
        }
        const RunInfo info = runInfoOf(request, run, i, files.size(), outcome, ranks);
        if (progress.storing) progress.storing(files[i], run.model.eventCount());
        outcome.runs.push_back(store(target, std::move(run), info));
        if (info.identity.abGroup != 0) ranks.started(outcome.runs.back().run);
        if (progress.stored) progress.stored(outcome.runs.back());
    }
    if (target) target->close();
    if (ranks.ranks() > 1) {
        outcome.rankGroup = ranks.group();
        outcome.groupedRanks = ranks.ranks();
    }
    return outcome;
}

}  // namespace glueprof

// glueprof import: traces recorded by other tools (torch.profiler / Kineto JSON, Nsight Systems
// SQLite exports) into a trace database, one run per file and rank, for every analyzer, the GUI,
// `compare` and `check` (docs/import.md).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "app/cli/Commands.h"
#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/import/TraceImporter.h"

namespace glueprof::cli {

namespace {

struct ImportCliOptions {
    std::vector<std::string> inputs;
    std::string db = "runs.sqlite";
    std::string label;
    std::string name = "imported";
    std::string stepPrefix = "ProfilerStep#";
    bool noPython = false;
    bool ab = false;
};

std::string joinCounts(const std::map<std::string, std::int64_t>& counts) {
    std::string out;
    for (const auto& [what, n] : counts)
        out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, what);
    return out.empty() ? "none" : out;
}

// One line per run: where it came from, events by kind, steps, what was skipped and why.
std::string importLine(RunId id, const ImportedRun& run, const std::string& stepPrefix) {
    std::int64_t events = 0;
    for (const auto& [kind, n] : run.eventsByKind) events += n;
    std::string rank;
    if (run.rank)
        rank = run.worldSize ? fmt::format(", rank {} of {}", *run.rank, *run.worldSize)
                             : fmt::format(", rank {}", *run.rank);
    const std::size_t steps = run.model.steps().size();
    return fmt::format(
        "imported run {} from '{}' ({}, {}{}): read {}; stored {} events ({}); {}; skipped: "
        "{}{}\n",
        id, run.source, run.format, run.formatDetail, rank, joinCounts(run.read), events,
        joinCounts(run.eventsByKind),
        run.stepsFound
            ? fmt::format("{} step{} ({}N ranges)", steps, steps == 1 ? "" : "s", stepPrefix)
            : fmt::format("no {}N ranges: the whole trace is one step", stepPrefix),
        joinCounts(run.skipped),
        run.derived.empty() ? "" : "; derived: " + joinCounts(run.derived));
}

std::string labelOf(const ImportCliOptions& o, const ImportedRun& run, std::size_t files) {
    std::string label = printableText(
        o.label.empty() ? std::filesystem::path(run.source).filename().string() : o.label);
    if (!o.label.empty() && files > 1 && run.rank) label += fmt::format(" rank {}", *run.rank);
    return label;
}

// The traces of one data-parallel job, one per rank (a directory of per-rank files), form one
// group as `run --nproc` stores its ranks, so every view analyzes them side by side (Results.h,
// RankSet). The first trace that names its rank of a world of several starts the group; each later
// one of another rank of that world joins it until every rank is there. A rank seen twice (traces
// of several steps per rank) ends the grouping: those runs stay apart.
class RankGrouping {
  public:
    // The group `run` joins (TraceWriter::kStartsAbGroup for the first), or 0 for none.
    RunId groupOf(const ImportedRun& run) {
        if (m_closed || !run.rank || run.worldSize.value_or(1) <= 1 || *run.rank < 0 ||
            *run.rank >= *run.worldSize)
            return 0;
        if (m_worldSize == 0) {
            m_worldSize = *run.worldSize;
            m_ranks.insert(*run.rank);
            return TraceWriter::kStartsAbGroup;
        }
        if (*run.worldSize != m_worldSize || m_ranks.count(*run.rank) != 0) {
            m_closed = true;
            return 0;
        }
        m_ranks.insert(*run.rank);
        return m_group;
    }
    // The id the first run got: the group the others join.
    void started(RunId id) {
        if (m_group == 0 && m_worldSize != 0) m_group = id;
    }
    int ranks() const { return static_cast<int>(m_ranks.size()); }
    RunId group() const { return m_group; }

  private:
    int m_worldSize = 0;
    RunId m_group = 0;
    std::set<int> m_ranks;
    bool m_closed = false;
};

int importTraces(const ImportCliOptions& o) {
    requireParentDirectory(o.db, "write the trace database", "--db");
    // A directory's entries never include the database written here (a second `import DIR --db
    // DIR/out.sqlite` would read its own output as a trace).
    const TraceInputs inputs = expandTraceInputs(o.inputs, o.db);
    const std::vector<std::string>& files = inputs.files;
    if (o.name.empty() || o.stepPrefix.empty()) {
        throw usageError("--name and --steps need a value (see glueprof import --help)");
    }
    if (!o.ab && o.name != "imported") {
        throw usageError("--name names an A/B pair: use it with --ab BEFORE AFTER");
    }
    if (o.ab && findToggleInfo(o.name) != nullptr) {
        throw usageError(fmt::format(
            "--name '{}' is a toggle of glueprof's trainer, which judges its own metric; name the "
            "imported pair something else",
            o.name));
    }
    if (o.ab && files.size() != 2) {
        throw usageError(fmt::format(
            "--ab compares two traces, BEFORE AFTER; {} trace file(s) were given", files.size()));
    }
    for (const std::string& skipped : inputs.skipped) std::cout << printableText(skipped) << "\n";
    ImportOptions options;
    options.stepPrefix = o.stepPrefix;
    options.keepPythonFunctions = !o.noPython;
    // An A/B is read whole before the database is touched, so a bad second trace leaves no lone
    // first arm; other imports write each run as soon as it is read.
    std::vector<ImportedRun> read;
    if (o.ab) {
        for (const std::string& file : files) read.push_back(readTrace(file, options));
    }
    std::unique_ptr<TraceWriter> writer;
    std::vector<RunId> ids;
    RankGrouping ranks;
    // The run being written when the import fails is marked failed; a database this import
    // created and could not write one whole run into is removed again, unless another writer may
    // have touched it (TraceWriter::abandon).
    auto abandonWriter = [&] {
        if (writer) writer->abandon();
        writer.reset();
    };
    for (std::size_t i = 0; i < files.size(); ++i) {
        ImportedRun run = o.ab ? std::move(read[i]) : readTrace(files[i], options);
        if (!writer) {
            writer = std::make_unique<TraceWriter>(o.db);
            if (!writer->upgradeNotice().empty()) std::cout << writer->upgradeNotice() << "\n";
        }
        RunInfo info;
        info.label = labelOf(o, run, files.size());
        if (o.ab) {
            info.identity.arm = i == 0 ? Arm::kA : Arm::kB;
            info.identity.abGroup = i == 0 ? TraceWriter::kStartsAbGroup : ids.front();
            info.identity.toggle = printableText(o.name);
            info.label += i == 0 ? " (A)" : " (B)";
        } else {
            info.identity.abGroup = ranks.groupOf(run);
        }
        RunId id = 0;
        try {
            id = storeImportedRun(*writer, run, info);
        } catch (...) {
            abandonWriter();
            throw;
        }
        ids.push_back(id);
        if (info.identity.abGroup != 0) ranks.started(id);
        std::cout << importLine(id, run, o.stepPrefix);
    }
    writer->close();
    if (ranks.ranks() > 1) {
        std::cout << fmt::format(
            "the {} ranks' runs form one data-parallel group (runs from {}): see them side by side "
            "with `glueprof report --db {} --runs {}` or the GUI's Ranks tab\n",
            ranks.ranks(), ranks.group(), o.db, ranks.group());
    }
    if (o.ab) {
        std::cout << fmt::format(
            "A/B '{}': run {} (A) vs run {} (B); see it with `glueprof compare --db {} --runs "
            "{},{}`, gate it with `glueprof check`\n",
            o.name, ids[0], ids[1], o.db, ids[0], ids[1]);
    }
    return 0;
}

}  // namespace

void registerImportCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<ImportCliOptions>();
    CLI::App* command = app.add_subcommand(
        "import",
        "import torch.profiler (Kineto JSON, .json.gz, a directory of per-rank files) or Nsight "
        "Systems SQLite traces: one run per file and rank");
    command->add_option("traces", options->inputs, "trace files or directories")->required();
    command->add_option("--db", options->db, "trace database to add the runs to")
        ->capture_default_str();
    command->add_option("--label", options->label, "run label (default: the file name)");
    command
        ->add_option("--steps", options->stepPrefix,
                     "ranges named PREFIX<N> are step N (torch.profiler: ProfilerStep#; an NVTX "
                     "range name for Nsight traces)")
        ->capture_default_str();
    command->add_flag("--no-python", options->noPython,
                      "skip python_function events (Kineto traces with with_stack=True)");
    command->add_flag("--ab", options->ab,
                      "the two traces are BEFORE and AFTER of one change: store them as an A/B "
                      "pair (arms A and B) for compare, report, the GUI and check");
    command
        ->add_option("--name", options->name,
                     "with --ab: the pair's name, which `check` baselines key on")
        ->capture_default_str();
    command->callback(
        [options, &action] { action = [options] { return importTraces(*options); }; });
}

}  // namespace glueprof::cli

#pragma once
// Writing a run that was read (a TraceModel, or a run of another database) into a store, through
// its bulk door (TraceStore's RunAppend): an imported trace, a rank's file merged into the run's
// database, ab --exec's blocks. Lanes get new ids, names are interned in the target, and every
// timestamp can be moved onto another clock. The caller begins the run and finishes the append.
#include "profiler/core/TraceModel.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceStore.h"

namespace glueprof {

// How a copy moves what it copies: timestamps by `ns`, step numbers (of events, steps and
// counters) by `steps`, correlation ids by `correlations` — so runs of several processes can be
// one run (`ab --exec`'s blocks) without their steps or correlations meeting.
struct RunCopyShift {
    TimestampNs ns = 0;
    std::int32_t steps = 0;
    std::int64_t correlations = 0;
};

// Everything `model` holds of its run — lanes, events, steps, counters, diagnostics — appended,
// moved by `shift`.
void copyRunContents(RunAppend& append, const TraceModel& model, const RunCopyShift& shift = {});

// The same for run `sourceRun` of `source`, read as it is copied: lanes, names, steps, counters and
// diagnostics first, then its events one at a time, so the copy's memory stays flat however many
// events the run holds (rank merges, ab --exec's blocks: a profiled run of 10M events): the append
// writes a batch whenever it is full.
void copyStoredRun(RunAppend& append, const TraceReader& source, RunId sourceRun,
                   const RunCopyShift& shift = {});

// The RunInfo a stored run was begun with (label, preset, device, JSON columns, host, identity).
RunInfo runInfoOf(const RunSummary& summary);

// A stored status; "running" (a writer that never ended the run) reads as aborted.
RunStatus finalStatusOf(const RunSummary& summary);

}  // namespace glueprof

#pragma once
// What `glueprof import` stored (app/usecases/ImportRequest.h runs it): each trace's run and what
// the import read, stored and skipped, for the faces that render it (app/report/ImportText.h).
#include <cstddef>
#include <string>
#include <vector>

#include "profiler/core/Event.h"
#include "profiler/import/TraceAssembly.h"

namespace glueprof {

// One trace stored: its run and what the import read, stored and skipped (`trace`, whose events
// are dropped once stored).
struct StoredImport {
    RunId run = 0;
    std::size_t steps = 0;  // of the stored run
    ImportedRun trace;
};

struct ImportOutcome {
    std::string db;
    std::vector<StoredImport> runs;  // in the order read
    RunId rankGroup = 0;             // the first run of the ranks' group, when they formed one
    int groupedRanks = 0;            // ranks in that group (a group has more than one)
    std::string abName;              // with `ab`: the pair's name; runs[0] is arm A, runs[1] B
};

}  // namespace glueprof

#pragma once
// The traces of one data-parallel job, one per rank (a directory of per-rank files), form one
// group as `run --nproc` stores its ranks, so every view analyzes them side by side (app/report
// Results.h, RankSet). The first trace that names its rank of a world of several starts the group;
// each later one of another rank of that world joins it until every rank is there. A rank seen
// twice (traces of several steps per rank) ends the grouping: those runs stay apart.
#include <set>

#include "profiler/core/Event.h"
#include "profiler/import/TraceAssembly.h"

namespace glueprof {

class RankGrouping {
  public:
    // The A/B group `run` joins (kStartsAbGroup for the first), or 0 for none.
    RunId groupOf(const ImportedRun& run);
    // Called with the id the run stored with a group got: the first's is the group the others join.
    void started(RunId id);
    int ranks() const { return static_cast<int>(m_ranks.size()); }
    RunId group() const { return m_group; }

  private:
    int m_worldSize = 0;
    RunId m_group = 0;
    std::set<int> m_ranks;
    bool m_closed = false;
};

}  // namespace glueprof

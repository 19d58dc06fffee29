#include "profiler/import/RankGrouping.h"

#include "profiler/core/RecordSink.h"

namespace glueprof {

RunId RankGrouping::groupOf(const ImportedRun& run) {
    if (m_closed || !run.rank || run.worldSize.value_or(1) <= 1 || *run.rank < 0 ||
        *run.rank >= *run.worldSize)
        return 0;
    if (m_worldSize == 0) {
        m_worldSize = *run.worldSize;
        m_ranks.insert(*run.rank);
        return kStartsAbGroup;
    }
    if (*run.worldSize != m_worldSize || m_ranks.count(*run.rank) != 0) {
        m_closed = true;
        return 0;
    }
    m_ranks.insert(*run.rank);
    return m_group;
}

void RankGrouping::started(RunId id) {
    if (m_group == 0 && m_worldSize != 0) m_group = id;
}

}  // namespace glueprof

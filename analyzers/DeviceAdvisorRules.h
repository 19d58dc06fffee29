#pragma once
// The advisor's rules over a GPU trace's device timeline (analyzers/Advisor.h lists them with the
// others). Each states its evidence, counted from the trace, and a saving per step no larger than
// the idle or blocked time the fix would remove; none fires on a trace without device work.
#include <vector>

#include "analyzers/Advisor.h"

namespace glueprof {

void adviseOnDeviceWork(const AdvisorInput& input, std::vector<Finding>& findings);

}  // namespace glueprof

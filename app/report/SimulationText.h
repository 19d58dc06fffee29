#pragma once
// `glueprof simulate` as console text: each simulated schedule (partition, makespan, bubble ratio
// and its breakdown, hops, each worker's busy and idle time), the executed run it replays, the
// predictions for other P, and the line that says what a preset measured.
#include <string>

#include "app/report/SimulationResults.h"

namespace glueprof {

std::string renderSimulationText(const SimulationResults& results);
// "measured N layers of PRESET on this machine (run R, M micro-batches): forward ...", one line.
std::string renderMeasuredCosts(const MeasuredCosts& measured);

}  // namespace glueprof

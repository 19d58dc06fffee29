#pragma once
// The regression gate's files and renderings: the baseline JSON (read and written), the console
// table and JUnit XML for CI systems.
#include <string>
#include <vector>

#include "analyzers/RegressionGate.h"

namespace glueprof {

// Throws an input error naming the file and the field when the baseline is malformed.
GateBaseline parseGateBaseline(const std::string& text, const std::string& path);
std::string renderGateBaseline(const GateBaseline& baseline);

std::string renderGateTable(const std::vector<GateCheck>& checks);
std::string renderGateJunit(const std::vector<GateCheck>& checks);

}  // namespace glueprof

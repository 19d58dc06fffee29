#pragma once
// A stage partition as the user writes it: layer counts separated by commas ("5,1,1,1"). `run`/`ab
// --partition` (Looped-BFS stages) and `simulate --partition`/`--backward-partition` read it here.
#include <string>
#include <vector>

namespace glueprof::pipeline {

// "5,1,1,1" -> {5, 1, 1, 1}; a usage error naming `option` otherwise. A text that is not empty
// gives at least one count.
std::vector<int> parseLayerCounts(const std::string& text, const char* option);

}  // namespace glueprof::pipeline

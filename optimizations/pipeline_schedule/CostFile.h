#pragma once
// Pipeline cost files (`glueprof simulate --costs FILE`), e.g. assets/pipeline/roundpipe-1.7b.json:
//   {"format": "glueprof-pipeline-costs-1", "source": "...", "layers": 28,
//    "forward_ms": 7.429 | [per layer], "backward_ms": 15.831 | [...], "recompute_ms": (optional),
//    "head_forward_ms": 22.0655, "head_backward_ms": 43.707, "hop_ms": 1.6, "optimizer_ms": 0,
//    "workers": 8, "microbatches": 16,                                        (optional defaults)
//    "partitions": {"looped-bfs": [...], "gpipe": [...], "1f1b": [...],
//                   "roundpipe": {"forward": [...], "backward": [...]}}}   (optional)
// Costs are per micro-batch; backward excludes the recompute.
#include <map>
#include <string>
#include <vector>

#include "optimizations/pipeline_schedule/PipelineSimulator.h"

namespace glueprof::pipeline {

struct CostFile {
    std::string source;
    PipelineCosts costs;
    int workers = 0;       // 0: not given
    int microbatches = 0;  // 0: not given
    std::map<std::string, std::vector<int>>
        partitions;  // "looped-bfs", "gpipe", "1f1b", "roundpipe-forward", "roundpipe-backward"
};

// Throws std::invalid_argument naming the file, the field and what to write instead.
CostFile parseCostFile(const std::string& text, const std::string& path);
CostFile loadCostFile(const std::string& path);

}  // namespace glueprof::pipeline

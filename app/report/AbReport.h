#pragma once
// The A/B report model shared by the CLI and (later) the GUI, and its three renderings:
// the console verdict table, JSON (`ab --json`) and a Markdown report file.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "analyzers/AbComparison.h"
#include "analyzers/Advisor.h"
#include "analyzers/CopyOverlap.h"
#include "analyzers/PipelineBubbles.h"
#include "analyzers/SyncPoints.h"

namespace glueprof {

struct AbReportEntry {
    AbComparison comparison;
    SyncPointsResult baselineSyncs;
    SyncPointsResult optimizedSyncs;
    CopyOverlapResult baselineOverlap;
    CopyOverlapResult optimizedOverlap;
    BubbleResult baselineBubbles;  // pipelined arms (the roundpipe toggle): their executed bubble
    BubbleResult optimizedBubbles;
    std::vector<Finding> baselineFindings;  // the advisor on the baseline run
    std::vector<Diagnostic> diagnostics;    // of both runs
};

struct AbReport {
    std::string preset;
    std::string device;
    std::string gpuCapture;  // CaptureStatus::summary(): capturing with ..., or off and why
    std::string db;
    std::string reportPath;  // "" when no report file was written
    int warmup = 0;
    int steps = 0;
    int repeats = 0;
    std::vector<AbReportEntry> entries;
    struct Skipped {
        std::string toggle;
        std::string reason;
    };
    std::vector<Skipped> skipped;  // toggles `ab --all` did not run on this preset, and why
};

std::string renderAbTable(const AbReport& report);
std::string renderAbJson(const AbReport& report);
std::string renderAbMarkdown(const AbReport& report);

// Writes `contents` to `path` through a temporary file renamed on success, so a failed write
// never leaves a file that looks complete. Throws an input error naming the path.
void writeFileAtomically(const std::string& path, const std::string& contents);
// The same for contents streamed by `write` (large exports).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace glueprof

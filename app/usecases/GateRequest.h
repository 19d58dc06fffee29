#pragma once
// The `glueprof check` use case: the CI regression gate over the latest A/B of each toggle in a
// database, against a baseline file — or the baseline written from them (--update-baseline).
// Torch-free. The CLI renders the outcome (GateReport.h: the table, JUnit) and maps it to the
// exit code; any face may.
#include <map>
#include <string>
#include <vector>

#include "analyzers/RegressionGate.h"
#include "app/report/AbPairs.h"

namespace glueprof {

struct GateRequest {
    std::string db = "runs.sqlite";
    std::string baseline;  // the file read, or written with `update`
    std::string junit;     // "" or where the checks go as JUnit (checked beside the database)
    bool update = false;
    bool allowLoss = false;     // capture losses in the compared runs do not fail the gate
    bool allowMissing = false;  // an A/B the baseline has no entry for does not fail it
};

struct GateOutcome {
    std::string preset;  // the baseline's (or, updating, the latest A/B's)
    // --update-baseline: what was written to the baseline file.
    bool updated = false;
    GateBaseline written;
    // Checking: each check, and the capture losses of the compared runs ("run N (label): name =
    // value"; a diagnostic of severity kDataLoss, Diagnostics.h).
    std::vector<GateCheck> checks;
    std::vector<std::string> losses;
    // The A/Bs of another preset than the baseline's: another baseline's to gate, named so that
    // none passes unseen.
    std::map<std::string, AbPair> notChecked;

    // Losses fail the gate unless allowed.
    bool lossesFail = false;
    bool passed() const { return !lossesFail && allPassed(checks); }
};

// Input errors (exit 2) for a database without complete A/Bs, an unreadable or malformed
// baseline, an A/B of the baseline's toggles that ran another preset, an output that would land
// on the database.
GateOutcome runGate(const GateRequest& request);

}  // namespace glueprof

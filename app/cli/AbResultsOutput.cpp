#include "app/cli/AbResultsOutput.h"

#include <iostream>

#include "app/report/AtomicFile.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsMarkdown.h"
#include "app/report/ResultsText.h"
#include "profiler/core/Error.h"

namespace glueprof::cli {

void writeReportAndShowVerdicts(Results& results, const std::string& reportPath, bool json) {
    results.reportPath = reportPath;
    auto print = [&] {
        std::cout << (json ? renderResultsJson(results) : renderComparisonTable(results));
    };
    try {
        writeFileAtomically(reportPath, renderResultsMarkdown(results));
    } catch (const GlueprofError&) {
        results.reportPath.clear();  // no report to point at
        print();
        throw;
    }
    print();
}

}  // namespace glueprof::cli

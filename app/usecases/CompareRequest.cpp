#include "app/usecases/CompareRequest.h"

#include <fmt/format.h>

#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"

namespace glueprof {

CompareResults runCompare(const CompareRequest& request) {
    TraceReader reader(request.db);
    const TraceModel reference = reader.loadRun(request.reference);
    const TraceModel compared = reader.loadRun(request.compared);
    for (const TraceModel* run : {&reference, &compared}) {
        if (run->measuredSteps().empty()) {
            throw inputError(fmt::format(
                "run {} ({}) has no measured steps: nothing to compare; pick runs with steps "
                "(glueprof list)",
                run->run().id, run->run().displayStatus()));
        }
    }
    CompareResults out;
    out.diff = diffTraces(reference, compared, request.step);
    out.results = buildResults({&reference, &compared}, request.db);
    return out;
}

}  // namespace glueprof

#pragma once
// Durations grouped by name, folded as Holistic Trace Analysis folds its breakdowns
// (hta/analyzers/breakdown_analysis.py, _aggr_gpu_kernel_time): the names by summed duration,
// largest first; with more than `shown` names, every name past the shown-th and every name whose
// running sum exceeds the `ratio` quantile (linear) of the running sums fold into one "others"
// entry. The kernel breakdown and the user-annotation breakdown both fold this way.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profiler/core/Event.h"

namespace glueprof {

inline constexpr const char* kOthersName = "others";

struct NamedDurations {
    std::string name;  // or "others"
    std::int64_t count = 0;
    TimestampNs ns = 0;  // summed
    TimestampNs minNs = 0;
    TimestampNs maxNs = 0;
    double meanNs = 0.0;
    double stddevNs = 0.0;  // sample standard deviation (pandas' std); 0 with one duration
};

class DurationsByName {
  public:
    void add(const std::string& name, TimestampNs duration);
    bool empty() const { return m_byName.empty(); }
    // Largest first; "others" (the folded names' durations together) where names fold.
    std::vector<NamedDurations> folded(std::size_t shown, double ratio) const;

  private:
    struct Sums {
        std::int64_t count = 0;
        TimestampNs ns = 0;
        TimestampNs minNs = 0;
        TimestampNs maxNs = 0;
        double squares = 0.0;                     // of the durations, for the standard deviation
        static Sums of(const NamedDurations& d);  // the sums behind a name's figures
        void add(const Sums& other);
        NamedDurations named(const std::string& name) const;
    };
    std::map<std::string, Sums> m_byName;

    friend std::vector<NamedDurations> topWithOthers(const std::vector<NamedDurations>&,
                                                     std::size_t);
};

// The first `shown` entries of `names` and one "others" entry for the rest, with any "others"
// folded already (none when nothing is left; a single leftover name stays itself): what a report
// has room for.
std::vector<NamedDurations> topWithOthers(const std::vector<NamedDurations>& names,
                                          std::size_t shown);

}  // namespace glueprof

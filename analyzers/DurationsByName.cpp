#include "analyzers/DurationsByName.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "analyzers/Statistics.h"

namespace glueprof {

void DurationsByName::add(const std::string& name, TimestampNs duration) {
    Sums one;
    one.count = 1;
    one.ns = one.minNs = one.maxNs = duration;
    one.squares = static_cast<double>(duration) * static_cast<double>(duration);
    m_byName[name].add(one);
}

void DurationsByName::Sums::add(const Sums& other) {
    minNs = count == 0 ? other.minNs : std::min(minNs, other.minNs);
    maxNs = count == 0 ? other.maxNs : std::max(maxNs, other.maxNs);
    count += other.count;
    ns += other.ns;
    squares += other.squares;
}

NamedDurations DurationsByName::Sums::named(const std::string& name) const {
    NamedDurations d{name, count, ns, minNs, maxNs};
    const double n = static_cast<double>(count);
    d.meanNs = static_cast<double>(ns) / n;
    if (count > 1) {
        const double variance = (squares - n * d.meanNs * d.meanNs) / (n - 1.0);
        d.stddevNs = std::sqrt(std::max(variance, 0.0));
    }
    return d;
}

std::vector<NamedDurations> DurationsByName::folded(std::size_t shown, double ratio) const {
    std::vector<std::pair<const std::string*, const Sums*>> order;
    for (const auto& [name, sums] : m_byName) order.push_back({&name, &sums});
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.second->ns != b.second->ns ? a.second->ns > b.second->ns : *a.first < *b.first;
    });
    std::vector<NamedDurations> kept;
    if (order.size() <= shown) {
        for (const auto& [name, sums] : order) kept.push_back(sums->named(*name));
        return kept;
    }
    std::vector<double> running;
    double sum = 0.0;
    for (const auto& entry : order) running.push_back(sum += static_cast<double>(entry.second->ns));
    const double cut = linearQuantile(running, ratio);
    Sums others;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (i < shown && running[i] <= cut) {
            kept.push_back(order[i].second->named(*order[i].first));
        } else {
            others.add(*order[i].second);
        }
    }
    kept.push_back(others.named(kOthersName));
    std::stable_sort(kept.begin(), kept.end(),
                     [](const NamedDurations& a, const NamedDurations& b) { return a.ns > b.ns; });
    return kept;
}

}  // namespace glueprof

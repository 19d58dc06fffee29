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

DurationsByName::Sums DurationsByName::Sums::of(const NamedDurations& d) {
    const double n = static_cast<double>(d.count);
    return Sums{d.count, d.ns, d.minNs, d.maxNs,
                d.stddevNs * d.stddevNs * (n - 1.0) + n * d.meanNs * d.meanNs};
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

std::vector<NamedDurations> topWithOthers(const std::vector<NamedDurations>& names,
                                          std::size_t shown) {
    // An "others" entry the breakdown folded already joins the rest, so there is one at most.
    std::vector<NamedDurations> top;
    std::vector<const NamedDurations*> rest;
    for (const NamedDurations& d : names) {
        if (d.name == kOthersName || top.size() == shown) {
            rest.push_back(&d);
        } else {
            top.push_back(d);
        }
    }
    if (rest.size() == 1 && rest.front()->name != kOthersName) {  // one left over: itself
        top.push_back(*rest.front());
    } else if (!rest.empty()) {
        DurationsByName::Sums others;
        for (const NamedDurations* d : rest) others.add(DurationsByName::Sums::of(*d));
        top.push_back(others.named(kOthersName));
    }
    return top;
}

}  // namespace glueprof

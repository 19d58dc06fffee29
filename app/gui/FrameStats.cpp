#include "app/gui/FrameStats.h"

#include <algorithm>

namespace glueprof::gui {

void FrameStats::record(double milliseconds) {
    if (m_samples.size() == kWindow) m_samples.erase(m_samples.begin());
    m_samples.push_back(milliseconds);
}

FrameSummary FrameStats::summary() const {
    FrameSummary s;
    s.frames = m_samples.size();
    if (m_samples.empty()) return s;
    std::vector<double> sorted = m_samples;
    std::sort(sorted.begin(), sorted.end());
    auto at = [&](double q) {
        return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
    };
    s.medianMs = at(0.5);
    s.p95Ms = at(0.95);
    s.maxMs = sorted.back();
    return s;
}

}  // namespace glueprof::gui

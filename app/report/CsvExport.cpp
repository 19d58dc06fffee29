#include "app/report/CsvExport.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace glueprof {

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

void writeEventsCsv(const TraceModel& trace, std::ostream& out) {
    fmt::memory_buffer buffer;
    fmt::format_to(
        std::back_inserter(buffer),
        "lane,lane_kind,lane_name,kind,category,name,start_ns,end_ns,duration_ns,step,layer,"
        "microbatch,correlation,bytes,src_kind,dst_kind,flags\n");
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        const std::string laneName = csvField(lane.name);
        for (const Event& e : trace.eventsOnLane(i)) {
            fmt::format_to(std::back_inserter(buffer),
                           "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", lane.id,
                           toString(lane.kind), laneName, toString(e.kind), toString(e.category),
                           csvField(trace.name(e.name)), e.startNs, e.endNs, e.durationNs(), e.step,
                           e.layer, e.microbatch, e.correlation, e.bytes, toString(e.srcKind),
                           toString(e.dstKind), e.flags);
            if (buffer.size() > (1u << 20)) {
                out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
                buffer.clear();
            }
        }
    }
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

void writeStepsCsv(const TraceModel& trace, const AnalysisResult& analysis, std::ostream& out) {
    std::set<std::string> counterNames;
    for (const CounterValue& c : trace.counters()) counterNames.insert(c.name);
    std::map<std::int32_t, const GlueStep*> glue;
    for (const GlueStep& g : analysis.glue.steps) glue[g.step] = &g;
    std::string header = "step,block";
    for (TimingMetric m : kTimingMetrics) header += std::string(",") + toString(m);
    header += ",loss";
    for (std::size_t p = 0; p < kGluePartCount; ++p)
        header += fmt::format(",glue_{}_ms", toString(static_cast<GluePart>(p)));
    for (const std::string& name : counterNames) header += "," + csvField(name);
    out << header << "\n";
    for (const StepTimes& t : analysis.steps.measured) {
        std::string row = fmt::format("{},{}", t.step, t.block);
        for (TimingMetric m : kTimingMetrics) {
            row += fmt::format(",{:.6f}", t.value(m, analysis.steps.deviceTimed(m)));
        }
        row += fmt::format(",{:.9g}", t.loss);
        auto g = glue.find(t.step);
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            row += g != glue.end()
                       ? fmt::format(",{:.6f}", static_cast<double>(g->second->partNs[p]) / 1e6)
                       : ",";
        }
        for (const std::string& name : counterNames) {
            auto value = trace.counter(t.step, name);
            row += value ? fmt::format(",{}", *value) : ",";
        }
        out << row << "\n";
    }
}

}  // namespace glueprof

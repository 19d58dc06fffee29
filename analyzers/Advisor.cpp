#include "analyzers/Advisor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "analyzers/AdvisorRuleFunctions.h"
#include "analyzers/AdvisorRules.h"
#include "analyzers/Intervals.h"
#include "analyzers/NameMatch.h"
#include "analyzers/Statistics.h"
#include "profiler/core/CountText.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

Finding& Finding::measured(std::string name, double value, std::string unit) {
    metrics.push_back(FindingMetric{std::move(name), value, std::move(unit)});
    return *this;
}

Finding& Finding::pointsAt(std::string role, std::string name, std::string detail) {
    refs.push_back(FindingRef{std::move(role), std::move(name), std::move(detail)});
    return *this;
}

const FindingMetric* Finding::metric(const std::string& name) const {
    for (const FindingMetric& m : metrics) {
        if (m.name == name) return &m;
    }
    return nullptr;
}

namespace {

// The repeated ranges of RepeatedWork named `mask` (true: the packed mask build) or any other glue
// range (false; the routing's reads are the routing rules').
void repeatedRanges(const AdvisorInput& in, const AdvisorRule& rule, bool mask,
                    std::vector<Finding>& findings) {
    for (const RepeatedRange& r : in.repeated->repeated) {
        if (r.name == names::kMoeRouting || (r.name == names::kMaskBuild) != mask) continue;
        Finding f;
        f.rule = rule.id;
        f.toggle = rule.toggle;
        f.savingMsPerStep = r.avoidableMsPerStep;
        f.pointsAt("range", r.name)
            .measured("runs_per_step", r.runsPerStep, "count/step")
            .measured("layers_per_step", r.layersPerStep, "count/step")
            .measured("microbatches_per_step", r.microbatchesPerStep, "count/step")
            .measured("ms_per_step", r.msPerStep, "ms/step")
            .measured("avoidable_ms_per_step", r.avoidableMsPerStep, "ms/step")
            .measured("sync_ops_per_run", r.syncOpsPerRun, "count/run");
        if (mask && r.syncOpsPerRun > 0)
            f.fix = std::string(rule.fix) + "; packed_vectorized also removes the host reads";
        findings.push_back(f);
    }
}

// What MoE routing ranges of the measured steps read on the host.
struct RoutingReads {
    std::int64_t runs = 0;
    std::int64_t syncOps = 0;
    TimestampNs avoidableNs = 0;  // all but the longest sync of each routing pass
    TimestampNs bincountNs = 0;   // syncs hidden in bincount
    double steps = 0.0;
    double perPass() const {
        return runs == 0 ? 0.0 : static_cast<double>(syncOps) / static_cast<double>(runs);
    }
};

RoutingReads routingReadsOf(const AdvisorInput& in) {
    RoutingReads out;
    const TraceModel& trace = *in.trace;
    auto routing = trace.findName(names::kMoeRouting);
    if (!routing) return out;
    auto bincount = trace.findName("aten::bincount");
    const std::set<std::int32_t> measured = trace.measuredSteps();
    out.steps = static_cast<double>(measured.size());
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        const std::vector<Event>& events = trace.eventsOnLane(lane);
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event& r = events[i];
            if (r.kind != EventKind::kRange || r.name != *routing || measured.count(r.step) == 0)
                continue;
            ++out.runs;
            std::vector<TimestampNs> syncs;
            for (std::size_t j = i + 1; j < events.size() && events[j].startNs < r.endNs; ++j) {
                const Event& e = events[j];
                // The op observer flags one op per sync, whatever its nesting.
                if (e.kind == EventKind::kOp && (e.flags & kFlagWouldSync) != 0 &&
                    e.endNs <= r.endNs) {
                    syncs.push_back(e.durationNs());
                    if (bincount && e.name == *bincount) out.bincountNs += e.durationNs();
                }
                if (e.kind == EventKind::kSync || e.kind == EventKind::kWait)
                    syncs.push_back(e.durationNs());
            }
            out.syncOps += static_cast<std::int64_t>(syncs.size());
            if (syncs.size() > 1) {
                std::sort(syncs.begin(), syncs.end());
                for (std::size_t k = 0; k + 1 < syncs.size(); ++k) out.avoidableNs += syncs[k];
            }
        }
    }
    return out;
}

// The fix of a per-expert loop's host reads, in the trainer and in Hugging Face.
void namePerExpertFix(Finding& f) {
    f.toggle = "moe_group_once";
    f.fix =
        "group the tokens by expert once per pass (one stable argsort and one bincount, read "
        "once) instead of a nonzero / where / bool read per expert; in Hugging Face, build the "
        "model with experts_implementation=\"grouped_mm\"";
}

// Groups a step's reads by (op, range), except inside a MoE range (SyncPoint's moeRange), where
// one group holds all its ops (counted by op): the per-expert loop's nonzero, where and bool reads
// are one pattern.
struct ReadGroup {
    std::int64_t count = 0;
    TimestampNs ns = 0;
    std::map<std::string, std::int64_t> byOp;
    std::map<std::string, std::int64_t> awaited;
};
using ReadGroups = std::map<std::pair<std::string, std::string>, ReadGroup>;  // (op or "", range)

ReadGroup& groupOf(ReadGroups& groups, const SyncPoint& p) {
    ReadGroup& g = groups[p.moeRange.empty() ? std::make_pair(p.op, p.range)
                                             : std::make_pair(std::string(), p.moeRange)];
    ++g.count;
    g.ns += p.durationNs;
    ++g.byOp[p.op];
    return g;
}

// The ops of a group, each with its count per step when the group holds several.
void pointAtOps(Finding& f, const ReadGroup& g, double steps) {
    for (const auto& [op, count] : g.byOp)
        f.pointsAt("op", op,
                   g.byOp.size() > 1 ? "x" + countText(static_cast<double>(count) / steps) : "");
}

}  // namespace

namespace rule_functions {

void repeatedPackedMetadata(const AdvisorContext& c, const AdvisorRule& rule,
                            std::vector<Finding>& findings) {
    repeatedRanges(c.input, rule, true, findings);
}

void repeatedGlue(const AdvisorContext& c, const AdvisorRule& rule,
                  std::vector<Finding>& findings) {
    repeatedRanges(c.input, rule, false, findings);
}

void perExpertRoutingReads(const AdvisorContext& c, const AdvisorRule& rule,
                           std::vector<Finding>& findings) {
    const RoutingReads reads = routingReadsOf(c.input);
    // More than grouping once costs (a bincount and its copy).
    if (reads.runs == 0 || reads.steps == 0.0 ||
        reads.perPass() <= rule.threshold("max_reads_per_pass"))
        return;
    Finding f;
    f.rule = rule.id;
    f.toggle = rule.toggle;
    f.savingMsPerStep = static_cast<double>(reads.avoidableNs) / kNsPerMs / reads.steps;
    f.pointsAt("range", names::kMoeRouting)
        .measured("reads_per_pass", reads.perPass(), "count/pass")
        .measured("reads_per_step", static_cast<double>(reads.syncOps) / reads.steps, "count/step")
        .measured("passes_per_step", static_cast<double>(reads.runs) / reads.steps, "count/step")
        .measured("avoidable_ms_per_step", f.savingMsPerStep, "ms/step");
    findings.push_back(f);
}

void bincountHiddenRead(const AdvisorContext& c, const AdvisorRule& rule,
                        std::vector<Finding>& findings) {
    const RoutingReads reads = routingReadsOf(c.input);
    const AdvisorRule* perExpert = findAdvisorRule(advisor_rules::kPerExpertRoutingReads);
    // Per-expert reads are the first rule's finding; this one is for routing that groups once.
    if (reads.runs == 0 || reads.steps == 0.0 || reads.bincountNs <= 0 ||
        (perExpert != nullptr && reads.perPass() > perExpert->threshold("max_reads_per_pass")))
        return;
    Finding f;
    f.rule = rule.id;
    f.toggle = rule.toggle;
    f.savingMsPerStep = static_cast<double>(reads.bincountNs) / kNsPerMs / reads.steps;
    f.pointsAt("range", names::kMoeRouting)
        .pointsAt("op", "aten::bincount")
        .measured("bincount_ms_per_step", f.savingMsPerStep, "ms/step");
    findings.push_back(f);
}

void exposedReloads(const AdvisorContext& c, const AdvisorRule& rule,
                    std::vector<Finding>& findings) {
    const AdvisorInput& in = c.input;
    auto it = in.copies->byName.find(names::kReload);
    if (it == in.copies->byName.end() || it->second.copies == 0 || in.copies->measuredSteps == 0)
        return;
    const CopyTotals& reloads = it->second;
    if (reloads.overlapRatio() >= rule.threshold("max_overlap")) return;
    Finding f;
    f.rule = rule.id;
    f.toggle = rule.toggle;
    f.savingMsPerStep = static_cast<double>(reloads.exposedNs()) / kNsPerMs /
                        static_cast<double>(in.copies->measuredSteps);
    f.pointsAt("copy", names::kReload)
        .measured("overlap_pct", 100.0 * reloads.overlapRatio(), "%")
        .measured("exposed_ms_per_step", f.savingMsPerStep, "ms/step");
    findings.push_back(f);
}

void stageImbalance(const AdvisorContext& c, const AdvisorRule& rule,
                    std::vector<Finding>& findings) {
    const AdvisorInput& in = c.input;
    const TraceModel& trace = *in.trace;
    std::vector<TimestampNs> busy;
    TimestampNs first = 0;
    TimestampNs last = 0;
    bool any = false;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        const Lane& l = trace.lanes()[lane];
        if (l.kind != LaneKind::kPipelineWorker && l.kind != LaneKind::kSimulatedWorker) continue;
        std::vector<Interval> work;
        for (const Event& e : trace.eventsOnLane(lane)) {
            const std::string& name = trace.name(e.name);
            if (name == names::kForward || name == names::kBackward || name == names::kRecompute) {
                work.push_back({e.startNs, e.endNs});
                first = any ? std::min(first, e.startNs) : e.startNs;
                last = any ? std::max(last, e.endNs) : e.endNs;
                any = true;
            }
        }
        busy.push_back(totalLength(unionOf(std::move(work))));
    }
    if (busy.size() < 2 || !any) return;
    const double maxBusy = static_cast<double>(*std::max_element(busy.begin(), busy.end()));
    double mean = 0.0;
    for (TimestampNs b : busy) mean += static_cast<double>(b);
    mean /= static_cast<double>(busy.size());
    if (maxBusy <= 0 || mean / maxBusy > 1.0 / rule.threshold("min_busiest_over_mean")) return;
    const double steps = std::max<double>(1.0, static_cast<double>(trace.measuredSteps().size()));
    Finding f;
    f.rule = rule.id;
    f.toggle = rule.toggle;
    f.savingMsPerStep =
        static_cast<double>(last - first) * (1.0 - mean / maxBusy) / kNsPerMs / steps;
    f.measured("workers", static_cast<double>(busy.size()), "count")
        .measured("mean_busy_pct", 100.0 * mean / maxBusy, "%")
        .measured("recoverable_ms_per_step", f.savingMsPerStep, "ms/step");
    findings.push_back(f);
}

void repeatedHostSyncs(const AdvisorContext& c, const AdvisorRule& rule,
                       std::vector<Finding>& findings) {
    const AdvisorInput& in = c.input;
    if (in.syncs == nullptr || !in.syncs->hostSyncsCaptured) return;
    const double steps =
        static_cast<double>(std::max<std::size_t>(1, in.syncs->hostSyncsPerStep.size()));
    ReadGroups groups;
    for (const SyncPoint& p : in.syncs->hostSyncs) {
        if (p.range == names::kMoeRouting || p.moeRange == names::kMoeRouting ||
            p.range == names::kMaskBuild)
            continue;
        ++groupOf(groups, p).awaited[p.awaited];  // "": no device work launched before the sync
    }
    const double kMinPerStep = rule.threshold("min_per_step");
    for (const auto& [key, g] : groups) {
        const double perStep = static_cast<double>(g.count) / steps;
        if (perStep < kMinPerStep) continue;
        const std::string& range = key.second;
        const std::string awaited =
            std::max_element(g.awaited.begin(), g.awaited.end(), [](const auto& a, const auto& b) {
                return a.second < b.second;
            })->first;
        // Blocking copies from pageable memory are pageable_copies' (pin them), not reads to
        // group: one finding for them.
        if (containsAny(awaited, {"pageable"})) continue;
        Finding f;
        f.rule = rule.id;
        if (isMoeRangeName(range)) {
            namePerExpertFix(f);
        } else if (containsAny(range, {"mask", "packed", "cu_seqlens"})) {
            f.toggle = "packed_cache";
        }
        const double msPerStep = static_cast<double>(g.ns) / kNsPerMs / steps;
        f.savingMsPerStep = msPerStep * (1.0 - 1.0 / perStep);
        pointAtOps(f, g, steps);
        if (!awaited.empty()) f.pointsAt("awaited", awaited);
        if (!range.empty()) f.pointsAt("range", range);
        f.measured("per_step", perStep, "count/step").measured("ms_per_step", msPerStep, "ms/step");
        findings.push_back(f);
    }
}

// CPU traces: the would-sync ops the op observer flagged, grouped by op and issuing range.
void repeatedWouldSyncs(const AdvisorContext& c, const AdvisorRule& rule,
                        std::vector<Finding>& findings) {
    const AdvisorInput& in = c.input;
    if (in.syncs == nullptr || in.syncs->hostSyncsCaptured || in.syncs->perStep.empty()) return;
    const double steps = static_cast<double>(in.syncs->perStep.size());
    ReadGroups groups;
    for (const SyncPoint& p : in.syncs->points) {
        if (p.range == names::kMoeRouting || p.moeRange == names::kMoeRouting ||
            p.range == names::kMaskBuild)
            continue;
        groupOf(groups, p);
    }
    const double kMinPerStep = rule.threshold("min_per_step");
    for (const auto& [key, g] : groups) {
        const double perStep = static_cast<double>(g.count) / steps;
        if (perStep < kMinPerStep) continue;
        const std::string& range = key.second;
        Finding f;
        f.rule = rule.id;
        const double msPerStep = static_cast<double>(g.ns) / kNsPerMs / steps;
        f.savingMsPerStep = msPerStep * (1.0 - 1.0 / perStep);
        pointAtOps(f, g, steps);
        if (!range.empty()) f.pointsAt("range", range);
        f.measured("per_step", perStep, "count/step").measured("ms_per_step", msPerStep, "ms/step");
        if (isMoeRangeName(range)) namePerExpertFix(f);
        if (range.rfind("Optimizer.step#", 0) == 0) {
            // torch's optimizers keep each parameter's step count in a CPU tensor unless they are
            // fused or capturable, and the for-loop and foreach implementations both read it with
            // .item() (_get_value) per parameter: host time, but no wait for a GPU.
            f.pointsAt("optimizer", range.substr(range.find('#') + 1));
            f.fix =
                "construct the optimizer with fused=True to step every parameter in one kernel "
                "without those reads";
        }
        findings.push_back(f);
    }
}

// A profiled program's layers: the ops each issues besides its math, when they are a tenth of the
// layers' host time.
void perLayerGlue(const AdvisorContext& c, const AdvisorRule& rule,
                  std::vector<Finding>& findings) {
    const AdvisorInput& in = c.input;
    if (in.perLayer == nullptr || in.perLayer->layerRanges.empty()) return;
    const PerLayerWorkResult& work = *in.perLayer;
    const double kMinShare = rule.threshold("min_share");
    if (work.layersMsPerStep <= 0 || work.layersPerStep < 2 ||
        work.glueMsPerStep < kMinShare * work.layersMsPerStep)
        return;
    Finding f;
    f.rule = rule.id;
    // The ops of each kind that take longest, with their count per layer, and how many more.
    const auto listOps = [&work, &f](const std::string& kind, const std::string& role,
                                     const std::string& more) {
        int listed = 0;
        int others = 0;
        constexpr int kShown = 6;
        for (const PerLayerOp& op : work.ops) {
            if (op.kind != kind) continue;
            if (listed == kShown) {
                ++others;
                continue;
            }
            ++listed;
            f.pointsAt(role, op.op, "x" + countText(op.perLayer));
        }
        if (others > 0) f.measured(more, others, "count");
    };
    listOps("shape/copy", "shape_copy_op", "shape_copy_ops_more");
    listOps("elementwise", "elementwise_op", "elementwise_ops_more");
    for (const std::string& r : work.layerRanges) f.pointsAt("layer", r);
    // What hoisting can save: the shape/copy ops (positions, masks, casts), once per step instead
    // of once per layer. The elementwise ops (norms, activations, residual adds, rotary) are the
    // layers' own arithmetic: fusing them saves launches and passes over memory, which the host
    // times here do not tell, so they add nothing to the saving.
    double shapeCopyMs = 0.0;
    for (const PerLayerOp& op : work.ops) {
        if (op.kind == "shape/copy") shapeCopyMs += op.msPerStep;
    }
    shapeCopyMs = std::min(shapeCopyMs, work.glueMsPerStep);
    f.savingMsPerStep = shapeCopyMs * (1.0 - 1.0 / work.layersPerStep);
    f.measured("layers_per_step", work.layersPerStep, "count/step")
        .measured("glue_ms_per_step", work.glueMsPerStep, "ms/step")
        .measured("layers_ms_per_step", work.layersMsPerStep, "ms/step")
        .measured("shape_copy_ms_per_step", shapeCopyMs, "ms/step");
    findings.push_back(f);
}

// A data-parallel run whose gradient all-reduces each block the trainer (no waits for
// asynchronous ones: the per-parameter way) and expose at least 5% of the step.
void blockingAllReduces(const AdvisorContext& c, const AdvisorRule& rule,
                        std::vector<Finding>& findings) {
    const AdvisorInput& in = c.input;
    if (in.glue == nullptr) return;
    const TraceModel& trace = *in.trace;
    const std::size_t comm = static_cast<std::size_t>(GluePart::kComm);
    if (comm >= in.glue->medianMsPerPart.size()) return;
    const double exposedMs = in.glue->medianMsPerPart[comm];
    const std::optional<StringId> allReduce = trace.findName(names::kAllReduce);
    if (!allReduce || exposedMs <= 0.0) return;
    // The name alone says nothing: a database's runs share one string table, so a baseline's
    // model knows the optimized arm's names too. Its events decide.
    const std::optional<StringId> wait = trace.findName(names::kWaitAllReduce);
    const std::set<std::int32_t> measuredSteps = trace.measuredSteps();
    std::int64_t measured = 0;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (wait && e.name == *wait) return;  // asynchronous all-reduces: ddp_overlap is on
            if (e.name == *allReduce && measuredSteps.count(e.step) > 0) ++measured;
        }
    }
    const double steps = static_cast<double>(measuredSteps.size());
    std::vector<double> walls;
    for (const GlueStep& s : in.glue->steps)
        walls.push_back(static_cast<double>(s.wallNs) / kNsPerMs);
    const double wallMs = median(walls);
    if (steps <= 0.0 || static_cast<double>(measured) < rule.threshold("min_per_step") * steps ||
        wallMs <= 0.0 || exposedMs < rule.threshold("min_exposed_share") * wallMs)
        return;
    Finding f;
    f.rule = rule.id;
    f.toggle = rule.toggle;
    f.savingMsPerStep = exposedMs;
    f.pointsAt("op", names::kAllReduce)
        .measured("all_reduces_per_step", static_cast<double>(measured) / steps, "count/step")
        .measured("exposed_ms_per_step", exposedMs, "ms/step")
        .measured("exposed_pct", 100.0 * exposedMs / wallMs, "%");
    findings.push_back(f);
}

// CPU runs: the step's own thread fetching its batches (the DataLoader's __next__ with no
// workers, or data preparation in a data range) for a share of each step: the model waits for
// its input on the thread that would run it.
void dataOnStepThread(const AdvisorContext& c, const AdvisorRule& rule,
                      std::vector<Finding>& findings) {
    const HostStepAttributionResult* h = c.input.hostAttribution;
    if (h == nullptr || h->steps.empty()) return;
    double wallMs = 0.0;
    for (const HostStepAttribution& a : h->steps)
        wallMs += static_cast<double>(a.wallNs) / kNsPerMs;
    wallMs /= static_cast<double>(h->steps.size());
    const double dataMs = h->meanMs[static_cast<std::size_t>(HostCause::kData)];
    if (wallMs <= 0.0 || dataMs < rule.threshold("min_share") * wallMs) return;
    Finding f;
    f.rule = rule.id;
    f.savingMsPerStep = dataMs;
    f.pointsAt("thread", h->thread)
        .measured("data_ms_per_step", dataMs, "ms/step")
        .measured("data_pct", 100.0 * dataMs / wallMs, "%");
    findings.push_back(f);
}

}  // namespace rule_functions

std::vector<Finding> advise(const AdvisorInput& in) {
    std::vector<Finding> findings;
    const std::shared_ptr<const DeviceView> device = deviceViewOf(in);
    const AdvisorContext context{in, device.get()};
    // No device fix saves more than a step takes: each saving is at most the mean measured step.
    const double capMs = device != nullptr ? meanMeasuredStepMs(*device) : -1.0;
    for (const AdvisorRule& rule : advisorRules()) {
        // A device rule reads the device view; a trace without device work has none to read.
        if (rule.scope == RuleScope::kDevice && device == nullptr) continue;
        // What the host did while the GPU idled is not told where the host is recorded in part.
        if (rule.readsHost && device != nullptr && !hostSideRecorded(*device)) continue;
        const std::size_t first = findings.size();
        rule.find(context, rule, findings);
        for (std::size_t i = first; i < findings.size(); ++i) {
            Finding& f = findings[i];
            if (f.fix.empty()) f.fix = rule.fix;
            f.claims = rule.claims;
            f.evidence = sayFinding(rule, f);
            if (rule.scope == RuleScope::kDevice && capMs >= 0.0)
                f.savingMsPerStep = std::min(f.savingMsPerStep, capMs);
        }
    }
    // A profiled program or an imported trace has no toggles: its fix is a change to the program,
    // and the trainer's toggle is only the example of it.
    const RunSummary& run = in.trace->run();
    if (run.identity.kind == RunKind::kImported || run.preset == "profile") {
        for (Finding& f : findings) {
            f.inUserProgram = true;
            const ToggleInfo* toggle = f.toggle.empty() ? nullptr : findToggleInfo(f.toggle);
            if (toggle != nullptr) {
                f.fix += fmt::format(
                    " (the change glueprof's reference trainer makes as its `{}` toggle: {})",
                    toggle->name, toggle->description);
            }
        }
    }
    // Each nanosecond of a step saved once: the largest finding first takes what the attribution
    // gave its causes.
    std::array<double, kStepCauseCount> unbounded;
    unbounded.fill(std::numeric_limits<double>::infinity());
    claimAttributedTime(findings, in.attribution != nullptr && !in.attribution->steps.empty()
                                      ? in.attribution->meanMs
                                      : unbounded);
    return findings;
}

void claimAttributedTime(std::vector<Finding>& findings,
                         std::array<double, kStepCauseCount> budgetMs) {
    const auto largestFirst = [](const Finding& a, const Finding& b) {
        return a.savingMsPerStep > b.savingMsPerStep;
    };
    std::stable_sort(findings.begin(), findings.end(), largestFirst);
    for (Finding& f : findings) {
        if (f.claims.empty()) continue;
        double took = 0.0;
        for (StepCause cause : f.claims) {
            double& left = budgetMs[static_cast<std::size_t>(cause)];
            const double part = std::max(0.0, std::min(f.savingMsPerStep - took, left));
            left -= part;
            took += part;
        }
        f.savingMsPerStep = took;
    }
    std::stable_sort(findings.begin(), findings.end(), largestFirst);
}

}  // namespace glueprof

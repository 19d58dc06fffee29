#include "app/report/ResultsJson.h"

#include "app/report/VerdictText.h"

#include "app/report/Findings.h"

namespace glueprof {

nlohmann::json toJson(const Diagnostic& d) {
    return {{"name", d.name}, {"value", d.value}, {"detail", d.detail}};
}

nlohmann::json toJson(const std::vector<Diagnostic>& diagnostics) {
    nlohmann::json list = nlohmann::json::array();
    for (const Diagnostic& d : diagnostics) list.push_back(toJson(d));
    return list;
}

nlohmann::json toJson(const CopyOverlapResult& r) {
    nlohmann::json byName = nlohmann::json::object();
    for (const auto& [name, t] : r.byName) {
        byName[name] = {{"copies", t.copies},
                        {"copy_ms", static_cast<double>(t.copyNs) / 1e6},
                        {"overlap_ratio", t.overlapRatio()}};
    }
    nlohmann::json byDirection = nlohmann::json::object();
    for (const auto& [direction, t] : r.byDirection) {
        byDirection[direction] = {{"copies", t.copies},
                                  {"bytes", t.bytes},
                                  {"copy_ms", static_cast<double>(t.copyNs) / 1e6},
                                  {"bandwidth_gb_per_s", t.bandwidthGBps()}};
    }
    return {{"copies", r.total.copies},
            {"bytes", r.total.bytes},
            {"copy_ms_per_step", r.copyMsPerStep()},
            {"exposed_copy_ms_per_step", r.exposedMsPerStep()},
            {"overlap_ratio", r.total.overlapRatio()},
            {"compute", r.computeFromKernels ? "kernels" : "host ops"},
            {"by_name", byName},
            {"by_direction", byDirection}};
}

nlohmann::json toJson(const PerLayerWorkResult& work) {
    nlohmann::json ops = nlohmann::json::array();
    for (const PerLayerOp& op : work.ops) {
        ops.push_back({{"op", op.op},
                       {"per_layer", op.perLayer},
                       {"layers", op.layers},
                       {"per_step", op.perStep},
                       {"ms_per_step", op.msPerStep},
                       {"kind", op.kind}});
    }
    return {{"layer_ranges", work.layerRanges},
            {"layers_per_step", work.layersPerStep},
            {"layers_ms_per_step", work.layersMsPerStep},
            {"glue_ms_per_step", work.glueMsPerStep},
            {"ops", ops}};
}

nlohmann::json toJson(const std::vector<StreamIdle>& streams) {
    nlohmann::json j = nlohmann::json::array();
    for (const StreamIdle& s : streams) {
        j.push_back({{"lane", s.lane},
                     {"stream", s.stream},
                     {"busy_ms", static_cast<double>(s.busyNs) / 1e6},
                     {"host_wait_ms", static_cast<double>(s.hostWaitNs) / 1e6},
                     {"kernel_wait_ms", static_cast<double>(s.kernelWaitNs) / 1e6},
                     {"other_ms", static_cast<double>(s.otherNs) / 1e6},
                     {"gaps", s.gaps}});
    }
    return j;
}

nlohmann::json kernelCategoriesJson(const KernelMix& mix) {
    nlohmann::json j = nlohmann::json::array();
    for (std::size_t c = 0; c < mix.byCategory.size(); ++c) {
        const KernelCategoryTime& t = mix.byCategory[c];
        if (t.count == 0) continue;
        j.push_back({{"category", toString(static_cast<KernelCategory>(c))},
                     {"count", t.count},
                     {"ms", static_cast<double>(t.ns) / 1e6},
                     {"share",
                      mix.ns > 0 ? static_cast<double>(t.ns) / static_cast<double>(mix.ns) : 0.0}});
    }
    return j;
}

namespace {

// Each measured step's time by cause on each GPU (analyzers/StepAttribution.h), and the median of
// each cause over the first GPU's steps; causes by name, ms.
nlohmann::json stepAttributionJson(const StepAttributionResult& r) {
    nlohmann::json medians = nlohmann::json::object();
    for (std::size_t c = 0; c < kStepCauseCount; ++c)
        medians[stepCauseKey(static_cast<StepCause>(c))] = r.medianMs[c];
    nlohmann::json steps = nlohmann::json::array();
    for (const StepAttribution& a : r.steps) {
        nlohmann::json parts = nlohmann::json::object();
        for (std::size_t c = 0; c < kStepCauseCount; ++c)
            parts[stepCauseKey(static_cast<StepCause>(c))] = static_cast<double>(a.ns[c]) / 1e6;
        steps.push_back({{"step", a.step},
                         {"device", a.device},
                         {"wall_ms", static_cast<double>(a.wallNs) / 1e6},
                         {"parts_ms", parts}});
    }
    nlohmann::json sites = nlohmann::json::object();
    for (std::size_t c = 0; c < kStepCauseCount; ++c) {
        if (r.sites[c].empty()) continue;
        nlohmann::json list = nlohmann::json::array();
        for (const CauseSite& site : r.sites[c])
            list.push_back({{"name", site.name}, {"ms_per_step", site.msPerStep}});
        sites[stepCauseKey(static_cast<StepCause>(c))] = list;
    }
    const HostCoverage& h = r.coverage;
    return {{"median_ms", medians},
            {"steps", steps},
            {"sites", sites},
            {"host_coverage",
             {{"device_work", h.deviceWork},
              {"launched_in_trace", h.launchedInTrace},
              {"before_window", h.beforeWindow},
              {"launch_share", h.launchShare()},
              {"recorded", h.complete()}}}};
}

nlohmann::json hostStepAttributionJson(const HostStepAttributionResult& r) {
    nlohmann::json medians = nlohmann::json::object();
    for (std::size_t c = 0; c < kHostCauseCount; ++c)
        medians[hostCauseKey(static_cast<HostCause>(c))] = r.medianMs[c];
    nlohmann::json steps = nlohmann::json::array();
    for (const HostStepAttribution& a : r.steps) {
        nlohmann::json parts = nlohmann::json::object();
        for (std::size_t c = 0; c < kHostCauseCount; ++c)
            parts[hostCauseKey(static_cast<HostCause>(c))] = static_cast<double>(a.ns[c]) / 1e6;
        steps.push_back({{"step", a.step},
                         {"wall_ms", static_cast<double>(a.wallNs) / 1e6},
                         {"parts_ms", parts}});
    }
    return {{"thread", r.thread},
            {"capture_estimated", r.captureEstimated},
            {"median_ms", medians},
            {"steps", steps}};
}

}  // namespace

nlohmann::json toJson(const DeviceTimelineResult& d) {
    const auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
    const HtaTemporalBreakdown& t = d.temporal;
    const GpuTimeline& g = d.timeline;
    return {{"hta_temporal",
             {{"kernel_ms", ms(t.kernelNs)},
              {"idle_ms", ms(t.idleNs)},
              {"compute_ms", ms(t.computeNs)},
              {"non_compute_ms", ms(t.nonComputeNs)}}},
            {"comm_compute_overlap_pct",
             d.commComputeOverlapPct ? nlohmann::json(*d.commComputeOverlapPct) : nlohmann::json()},
            {"tracelens_gpu_timeline",
             {{"computation_ms", ms(g.computationNs)},
              {"exposed_comm_ms", ms(g.exposedCommNs)},
              {"exposed_memcpy_ms", ms(g.exposedMemcpyNs)},
              {"busy_ms", ms(g.busyNs)},
              {"idle_ms", ms(g.idleNs)},
              {"total_ms", ms(g.totalNs)},
              {"total_comm_ms", ms(g.totalCommNs)},
              {"total_memcpy_ms", ms(g.totalMemcpyNs)}}},
            {"kernel_categories", kernelCategoriesJson(d.kernels)},
            {"short_kernels",
             {{"under_us", kShortKernelNs / 1000},
              {"count", d.kernels.shortKernels},
              {"of_kernels", d.kernels.kernels},
              {"ms", ms(d.kernels.shortKernelNs)}}}};
}

nlohmann::json toJson(const KernelBreakdownResult& k) {
    nlohmann::json byType = nlohmann::json::array();
    for (const KernelTypeTime& t : k.byType)
        byType.push_back(
            {{"type", t.type}, {"ms", static_cast<double>(t.ns) / 1e6}, {"percent", t.percent}});
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelTime& t : k.kernels) {
        kernels.push_back({{"type", t.type},
                           {"name", t.name},
                           {"count", t.count},
                           {"ms", static_cast<double>(t.ns) / 1e6},
                           {"mean_us", t.meanNs / 1e3},
                           {"min_us", static_cast<double>(t.minNs) / 1e3},
                           {"max_us", static_cast<double>(t.maxNs) / 1e3}});
    }
    return {{"by_type", byType}, {"kernels", kernels}};
}

nlohmann::json toJson(const Percentiles& p) {
    return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
}

nlohmann::json toJson(const std::vector<LaunchPair>& pairs) {
    nlohmann::json j = nlohmann::json::array();
    for (const LaunchPair& p : pairs) {
        j.push_back({{"call", p.call},
                     {"work", p.work},
                     {"correlation", p.correlation},
                     {"step", p.step},
                     {"cpu_duration_us", static_cast<double>(p.cpuDurationNs) / 1e3},
                     {"gpu_duration_us", static_cast<double>(p.gpuDurationNs) / 1e3},
                     {"launch_delay_us", static_cast<double>(p.launchDelayNs) / 1e3}});
    }
    return j;
}

nlohmann::json toJson(const LaunchStatsResult& l) {
    const PerLaunchStats& p = l.perLaunch;
    return {{"kernels_in_measured_steps", l.kernels},
            {"paired_with_launch", l.pairedWithLaunch},
            {"launches_per_step", l.launchesPerStep},
            {"median_launch_delay_us", l.medianLaunchDelayUs},
            {"max_launch_delay_us", l.maxLaunchDelayUs},
            {"shorter_than_launch", l.shorterThanLaunch},
            {"per_launch",
             {{"paired", p.paired},
              {"cpu_duration_ms", static_cast<double>(p.cpuDurationNs) / 1e6},
              {"gpu_duration_ms", static_cast<double>(p.gpuDurationNs) / 1e6},
              {"launch_delay_median_us", p.launchDelay.p50},
              {"launch_delay_max_us", p.launchDelay.max},
              {"gpu_shorter_than_cpu", p.gpuShorterThanCpu},
              {"cpu_duration_us", toJson(p.cpuDuration)},
              {"gpu_duration_us", toJson(p.gpuDuration)},
              {"launch_delay_us", toJson(p.launchDelay)},
              {"calls_over_us", kLaunchCallOutlierNs / 1000},
              {"calls_over", p.longCalls},
              {"delays_over_us", kLaunchDelayOutlierNs / 1000},
              {"delays_over", p.longDelays},
              {"longest_calls", toJson(p.longestCalls)},
              {"longest_delays", toJson(p.longestDelays)}}}};
}

nlohmann::json toJson(const QueueLengthResult& q) {
    nlohmann::json streams = nlohmann::json::array();
    for (const StreamQueueLength& s : q.streams) {
        streams.push_back({{"lane", s.lane},
                           {"stream", s.stream},
                           {"samples", s.samples},
                           {"mean", s.mean},
                           {"std", s.stddev},
                           {"min", s.min},
                           {"p25", s.p25},
                           {"p50", s.p50},
                           {"p75", s.p75},
                           {"max", s.max},
                           {"time_weighted_mean", s.timeWeightedMean},
                           {"at_full_queue_ms", static_cast<double>(s.atFullQueueNs) / 1e6},
                           {"at_full_queue_share", s.atFullQueueShare}});
    }
    return {{"capacity", q.capacity},
            {"trace_duration_ms", static_cast<double>(q.traceDurationNs) / 1e6},
            {"streams", streams}};
}

nlohmann::json toJson(const std::vector<NamedDurations>& names) {
    nlohmann::json j = nlohmann::json::array();
    for (const NamedDurations& d : names) {
        j.push_back({{"name", d.name},
                     {"count", d.count},
                     {"ms", static_cast<double>(d.ns) / 1e6},
                     {"mean_us", d.meanNs / 1e3},
                     {"min_us", static_cast<double>(d.minNs) / 1e3},
                     {"max_us", static_cast<double>(d.maxNs) / 1e3},
                     {"std_us", d.stddevNs / 1e3}});
    }
    return j;
}

nlohmann::json toJson(const BubbleResult& b) {
    nlohmann::json breakdown = nlohmann::json::object();
    for (const auto& [name, part] : b.breakdown()) breakdown[name] = part;
    return {{"workers", b.workers},
            {"ratio", b.ratio},
            {"makespan_ms", b.medianStepMakespanMs()},  // the median measured step's
            {"steps", b.stepMakespansNs.size()},
            {"breakdown", breakdown}};
}

nlohmann::json toJson(const RankAnalysisResult& ranks) {
    nlohmann::json j = {{"median_spread_ms", ranks.medianSpreadMs},
                        {"median_straggler_ms", ranks.medianStragglerMs},
                        {"slowest_count", ranks.slowestCount},
                        {"steps", nlohmann::json::array()}};
    nlohmann::json overlap = nlohmann::json::array();
    for (double ratio : ranks.overlapRatio)
        overlap.push_back(ratio < 0.0 ? nlohmann::json() : nlohmann::json(ratio));
    j["comm_compute_overlap"] = overlap;
    for (const RankStep& s : ranks.steps) {
        j["steps"].push_back({{"step", s.step},
                              {"slowest_rank", s.slowestRank},
                              {"slowest_ms", s.slowestMs},
                              {"median_ms", s.medianMs},
                              {"spread_ms", s.spreadMs},
                              {"straggler_ms", s.stragglerMs},
                              {"straggler_total_ms", s.stragglerTotalMs},
                              {"collectives", s.collectives}});
    }
    return j;
}

nlohmann::json toJson(const GlueOverheadResult& glue) {
    nlohmann::json parts = nlohmann::json::object();
    for (std::size_t p = 0; p < kGluePartCount && p < glue.medianMsPerPart.size(); ++p) {
        parts[toString(static_cast<GluePart>(p))] = glue.medianMsPerPart[p];
    }
    return parts;
}

nlohmann::json toJson(const RunIdentity& id) {
    nlohmann::json j = {{"kind", toString(id.kind)}};
    if (id.abGroup != 0) j["ab_group"] = id.abGroup;
    if (id.arm != Arm::kNone) j["arm"] = toString(id.arm);
    if (!id.toggle.empty()) j["toggle"] = id.toggle;
    if (!id.schedule.empty()) j["schedule"] = id.schedule;
    if (id.rank) j["rank"] = *id.rank;
    if (id.worldSize) j["world_size"] = *id.worldSize;
    return j;
}

namespace {

nlohmann::json stepsJson(const StepBreakdownResult& steps) {
    nlohmann::json list = nlohmann::json::array();
    for (const StepTimes& t : steps.measured) {
        nlohmann::json step = {{"step", t.step}, {"block", t.block}, {"loss", t.loss}};
        for (TimingMetric m : kTimingMetrics) {
            const bool device = steps.deviceTimed(m);
            step[toString(m)] = t.value(m, device);
            if (device) step[hostFigureName(m)] = t.hostValue(m);
        }
        list.push_back(step);
    }
    return list;
}

nlohmann::json gluePerStepJson(const GlueOverheadResult& glue) {
    nlohmann::json list = nlohmann::json::array();
    for (const GlueStep& s : glue.steps) {
        nlohmann::json parts = nlohmann::json::object();
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            parts[toString(static_cast<GluePart>(p))] = static_cast<double>(s.partNs[p]) / 1e6;
        }
        list.push_back({{"step", s.step},
                        {"wall_ms", static_cast<double>(s.wallNs) / 1e6},
                        {"parts_ms", parts}});
    }
    return list;
}

nlohmann::json syncGroupsJson(const std::vector<SyncGroup>& groups, const char* key) {
    nlohmann::json list = nlohmann::json::array();
    for (const SyncGroup& g : groups) list.push_back({{key, g.key}, {"count", g.count}});
    return list;
}

// Sync points as flat keys of the run (sync_points_per_step, _by_op, _by_layer, _by_range, and the
// GPU's captured host syncs when there are any).
void addSyncPoints(const SyncPointsResult& s, nlohmann::json& j) {
    j["sync_points_per_step"] = s.medianPerStep;
    j["sync_points_by_op"] = syncGroupsJson(s.byOp, "op");
    j["sync_points_by_layer"] = syncGroupsJson(s.byLayer, "layer");
    j["sync_points_by_range"] = syncGroupsJson(s.byRange, "range");
    if (s.hostSyncsCaptured) {  // the GPU's real syncs (CUPTI)
        j["host_syncs_per_step"] = s.medianHostSyncsPerStep;
        j["sync_blocked_ms"] = s.medianSyncBlockedMs;
        j["host_syncs_by_op"] = syncGroupsJson(s.hostSyncsByOp, "op");
        j["host_syncs_by_awaited"] = syncGroupsJson(s.hostSyncsByAwaited, "awaited");
    }
}

nlohmann::json metricJson(const MetricComparison& m) {
    return {{"name", m.name()},
            {"timed_on", m.deviceTimed ? "device" : "host"},
            {"baseline", m.baseline},
            {"optimized", m.optimized},
            {"speedup", m.speedup},
            {"speedup_ci",
             m.hasInterval() ? nlohmann::json{m.speedupLow, m.speedupHigh} : nlohmann::json()},
            {"minimum_detectable_speedup",
             m.minimumDetectable > 0.0 ? nlohmann::json(m.minimumDetectable) : nlohmann::json()},
            {"blocks", m.blocks},
            {"blocks_are", m.pairedBlocks ? "paired A/B blocks" : "steps"},
            {"load_allowed_for", m.loadAdjusted},
            {"load_withheld", m.loadWithheld},
            {"speedup_ci_without_load", m.loadAdjusted || m.loadWithheld
                                            ? nlohmann::json{m.unadjustedLow, m.unadjustedHigh}
                                            : nlohmann::json()},
            {"samples", {m.baselineSamples, m.optimizedSamples}}};
}

nlohmann::json counterJson(const CounterComparison& k) {
    return {{"name", k.name},
            {"baseline", k.baseline},
            {"optimized", k.optimized},
            {"constant", k.baselineConstant && k.optimizedConstant}};
}

template <typename Pick>
nlohmann::json beforeAfter(const RunAnalysis& b, const RunAnalysis& o, Pick pick) {
    return {{"baseline", pick(b.analysis)}, {"optimized", pick(o.analysis)}};
}

}  // namespace

nlohmann::json toJson(const RunAnalysis& r) {
    const AnalysisResult& a = r.analysis;
    nlohmann::json j = {{"run", r.run.id},
                        {"label", r.run.label},
                        {"preset", r.run.preset},
                        {"device", r.run.device},
                        {"status", r.run.displayStatus()},
                        {"identity", toJson(r.run.identity)},
                        {"gpu_capture", r.gpuCapture}};
    // On a device-timed run (CUDA) the metrics are device times; the host ones stand beside them.
    j["timed_on"] = a.steps.hasDeviceTimes ? "device" : "host";
    for (TimingMetric m : kTimingMetrics) {
        j[toString(m)] = a.steps.median(m);
        if (a.steps.deviceTimed(m)) j[hostFigureName(m)] = a.steps.medianHost(m);
    }
    if (r.clockAlignment) {
        j["clock_alignment"] = {{"offset_ns", r.clockAlignment->offsetNs},
                                {"estimate_ns", r.clockAlignment->estimateNs},
                                {"residual_ns", r.clockAlignment->residualNs},
                                {"same_machine_as_rank_0", r.clockAlignment->sameMachine}};
    }
    if (const std::optional<double> share = r.tracing.fraction()) {
        // What the run's own tracing cost it (ResultsText: "tracing overhead ≈ ...").
        j["tracing_overhead"] = {{"ns_per_event", *r.tracing.nsPerEvent},
                                 {"events_per_step", r.tracing.eventsPerStep},
                                 {"share_of_step", *share}};
    }
    j["steps"] = stepsJson(a.steps);
    j["glue_breakdown_ms"] = toJson(a.glue);
    j["glue_per_step"] = gluePerStepJson(a.glue);
    j["non_math_share"] = a.glue.medianNonMathShare;
    if (a.glue.fromKernels) {
        nlohmann::json gaps = nlohmann::json::array();
        for (const GapWork& w : a.glue.gapWork)
            gaps.push_back({{"name", w.name},
                            {"ms_per_step", w.msPerStep},
                            {"count_per_step", w.countPerStep}});
        j["host_work_in_device_gaps"] = gaps;
    }
    addSyncPoints(a.syncPoints, j);
    if (!a.perLayer.ops.empty()) j["per_layer_work"] = toJson(a.perLayer);
    if (!a.idle.empty()) j["idle_breakdown"] = toJson(a.idle);
    if (a.timeline.hasDeviceWork) j["device_timeline"] = toJson(a.timeline);
    if (!a.attribution.steps.empty()) j["step_attribution"] = stepAttributionJson(a.attribution);
    if (!a.hostAttribution.steps.empty())
        j["host_step_attribution"] = hostStepAttributionJson(a.hostAttribution);
    if (!a.kernels.byType.empty()) j["kernel_breakdown"] = toJson(a.kernels);
    if (a.launches.kernels > 0 || a.launches.perLaunch.paired > 0)
        j["launch_stats"] = toJson(a.launches);
    if (!a.queues.streams.empty()) j["queue_length"] = toJson(a.queues);
    if (!a.annotations.gpu.empty() || !a.annotations.cpu.empty())
        j["annotation_breakdown"] = {{"gpu", toJson(a.annotations.gpu)},
                                     {"cpu", toJson(a.annotations.cpu)}};
    j["copy_overlap"] = toJson(a.copyOverlap);
    j["copy_overlap_ratio"] = a.copyOverlap.total.overlapRatio();
    j["exposed_copy_ms_per_step"] = a.copyOverlap.exposedMsPerStep();
    if (a.bubbles.workers > 0) j["bubbles"] = toJson(a.bubbles);
    j["findings"] = findingsJson(a.findings);
    j["diagnostics"] = toJson(r.diagnostics);
    return j;
}

nlohmann::json toJson(const Comparison& comparison, const Results& results) {
    const AbComparison& c = comparison.ab;
    const RunAnalysis& b = results.baselineOf(comparison);
    const RunAnalysis& o = results.optimizedOf(comparison);
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricComparison& m : c.metrics) metrics.push_back(metricJson(m));
    nlohmann::json counters = nlohmann::json::array();
    for (const CounterComparison& k : c.counters) counters.push_back(counterJson(k));
    std::vector<Diagnostic> diagnostics = b.diagnostics;
    diagnostics.insert(diagnostics.end(), o.diagnostics.begin(), o.diagnostics.end());
    nlohmann::json j = {{"toggle", c.toggle},
                        {"runs", {{"baseline", c.baselineRun}, {"optimized", c.optimizedRun}}},
                        {"primary_metric", toString(c.primaryMetric)},
                        {"verdict", toString(c.verdict())},
                        {"metrics", metrics},
                        {"counters", counters},
                        {"loss_equal", c.lossEqual},
                        {"loss_recorded", c.lossRecorded},
                        {"loss_steps_compared", c.lossStepsCompared},
                        {"steps", {c.baselineSteps, c.optimizedSteps}},
                        {"final_loss", {c.baselineFinalLoss, c.optimizedFinalLoss}},
                        {"diagnostics", toJson(diagnostics)}};
    j["end_to_end"] = {{"metric", toString(TimingMetric::kStep)},
                       {"verdict", toString(c.endToEndVerdict())},
                       {"text", endToEndVerdictText(c)}};
    if (const auto explained = c.targetExplains())
        j["end_to_end"]["target_explains"] = {explained->first, explained->second};
    if (c.load.blocks > 0) {
        j["machine_load"] = {{"blocks", c.load.blocks},
                             {"changed", c.load.changed()},
                             {"blocks_differing", c.load.blocksDiffering},
                             {"max_load_cores", c.load.maxLoadCores},
                             {"max_difference_cores", c.load.maxDifference},
                             {"text", loadDriftText(c)}};
    }
    if (c.target) {
        nlohmann::json target = metricJson(c.target->stats);
        target["description"] = c.target->description();
        if (!c.target->range.empty()) target["range"] = c.target->range;
        target["verdict"] = toString(c.target->verdict());
        target["baseline_share_of_step"] = c.target->baselineShare();
        target["text"] = targetVerdictText(*c.target);
        j["target"] = target;
    }
    if (b.analysis.syncPoints.hostSyncsCaptured || o.analysis.syncPoints.hostSyncsCaptured) {
        j["host_syncs_per_step"] =
            beforeAfter(b, o, [](const auto& a) { return a.syncPoints.medianHostSyncsPerStep; });
        j["sync_blocked_ms"] =
            beforeAfter(b, o, [](const auto& a) { return a.syncPoints.medianSyncBlockedMs; });
    }
    if (b.analysis.bubbles.workers > 0 || o.analysis.bubbles.workers > 0) {
        j["pipeline_bubbles"] = beforeAfter(b, o, [](const auto& a) { return toJson(a.bubbles); });
    }
    if (b.analysis.copyOverlap.total.copies > 0 || o.analysis.copyOverlap.total.copies > 0) {
        j["copy_overlap"] = beforeAfter(b, o, [](const auto& a) { return toJson(a.copyOverlap); });
    }
    const RankPairsView view = rankPairsOf(comparison, results);
    if (!view.ranks.empty()) {
        // A data-parallel A/B: the fields above are rank 0's; here every rank's arms compared,
        // and the ranks side by side per arm.
        nlohmann::json perRank = nlohmann::json::array();
        const auto overlap = [](double ratio) {
            return ratio < 0.0 ? nlohmann::json() : nlohmann::json(ratio);
        };
        for (const RankPairView& rank : view.ranks) {
            nlohmann::json rankMetrics = nlohmann::json::array();
            for (const MetricComparison& m : rank.ab->metrics) rankMetrics.push_back(metricJson(m));
            perRank.push_back(
                {{"rank", rank.rank},
                 {"runs",
                  {{"baseline", rank.ab->baselineRun}, {"optimized", rank.ab->optimizedRun}}},
                 {"verdict", toString(rank.ab->verdict())},
                 {"metrics", rankMetrics},
                 {"loss_equal", rank.ab->lossEqual},
                 {"exposed_comm_ms",
                  {rank.baseline->medianPartMs(GluePart::kComm),
                   rank.optimized->medianPartMs(GluePart::kComm)}},
                 {"comm_compute_overlap",
                  {overlap(rank.baselineOverlap), overlap(rank.optimizedOverlap)}}});
        }
        j["ranks"] = {{"world_size", view.baseline->worldSize},
                      {"per_rank", perRank},
                      {"baseline", toJson(view.baseline->analysis)},
                      {"optimized", toJson(view.optimized->analysis)}};
    }
    return j;
}

nlohmann::json toJson(const Results& results) {
    nlohmann::json runs = nlohmann::json::array();
    for (const RunAnalysis& r : results.runs) runs.push_back(toJson(r));
    nlohmann::json comparisons = nlohmann::json::array();
    for (const Comparison& c : results.comparisons) comparisons.push_back(toJson(c, results));
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedComparison& s : results.skipped) {
        skipped.push_back({{"toggle", s.toggle}, {"reason", s.reason}});
    }
    nlohmann::json j = {{"db", results.db},
                        {"preset", results.preset()},
                        {"device", results.device()},
                        {"gpu_capture", results.gpuCapture()},
                        {"report", results.reportPath},
                        {"runs", runs},
                        {"comparisons", comparisons},
                        {"skipped", skipped}};
    nlohmann::json rankSets = nlohmann::json::array();
    for (const RankSet& set : results.rankSets) {
        nlohmann::json ids = nlohmann::json::array();
        for (std::size_t index : set.runs) ids.push_back(results.runs[index].run.id);
        rankSets.push_back(
            {{"runs", ids}, {"world_size", set.worldSize}, {"analysis", toJson(set.analysis)}});
    }
    j["rank_sets"] = rankSets;
    if (results.setup) {
        j["schedule"] = {{"warmup", results.setup->warmup},
                         {"steps", results.setup->steps},
                         {"repeats", results.setup->repeats}};
    }
    return j;
}

namespace {

nlohmann::json perWorkerJson(const SimulatedSchedule& s) {
    nlohmann::json perWorker = nlohmann::json::array();
    for (std::size_t w = 0; w < s.bubbles.perWorker.size(); ++w) {
        const double busy = static_cast<double>(s.bubbles.perWorker[w].busyNs) / 1e6;
        perWorker.push_back({{"worker", w},
                             {"busy_ms", busy},
                             {"idle_ms", s.makespanMs - busy},
                             {"utilization", s.makespanMs > 0 ? busy / s.makespanMs : 0.0}});
    }
    return perWorker;
}

nlohmann::json predictionsJson(const std::vector<PredictionRow>& rows) {
    nlohmann::json list = nlohmann::json::array();
    for (const PredictionRow& row : rows) {
        nlohmann::json j = {{"workers", row.workers}};
        for (const PredictedSchedule& s : row.schedules) {
            j[s.schedule] = {{"makespan_ms", s.makespanMs}, {"bubble_ratio", s.bubbleRatio}};
        }
        list.push_back(j);
    }
    return list;
}

}  // namespace

nlohmann::json toJson(const SimulatedSchedule& s) {
    nlohmann::json breakdown = nlohmann::json::object();
    for (const auto& [name, part] : s.bubbles.breakdown()) breakdown[name] = part;
    nlohmann::json j = {{"schedule", s.schedule},
                        {"workers", s.workers},
                        {"microbatches", s.microbatches},
                        {"iterations", s.iterations},
                        {"optimizer", s.asynchronousOptimizer ? "asynchronous" : "synchronous"},
                        {"makespan_ms", s.makespanMs},
                        {"bubble_ratio", s.bubbles.ratio},
                        {"breakdown", breakdown},
                        {"hop_total_ms", s.hopTotalMs},
                        {"hop_exposed_ms", s.hopExposedMs},
                        {"forward_partition", s.forwardPartition},
                        {"per_worker", perWorkerJson(s)},
                        {"run", s.run}};
    if (s.backwardPartition) j["backward_partition"] = *s.backwardPartition;
    if (s.executed) {
        j["executed"] = {{"run", s.executed->run},
                         {"makespan_ms", s.executed->makespanMs},
                         {"bubble_ratio", s.executed->bubbleRatio},
                         {"steps", s.executed->steps}};
    }
    return j;
}

nlohmann::json toJson(const SimulationResults& results) {
    nlohmann::json simulations = nlohmann::json::array();
    for (const SimulatedSchedule& s : results.simulations) {
        nlohmann::json j = toJson(s);
        j["db"] = results.db;
        simulations.push_back(j);
    }
    // One simulation is the object itself; several are listed.
    nlohmann::json out =
        simulations.size() == 1 ? simulations[0] : nlohmann::json{{"simulations", simulations}};
    if (results.predicted) out["predictions"] = predictionsJson(results.predictions);
    return out;
}

nlohmann::json toJson(const TraceDiffResult& diff) {
    nlohmann::json names = nlohmann::json::array();
    for (const NameDiff& d : diff.names) {
        names.push_back({{"name", d.name},
                         {"side", toString(d.side)},
                         {"change", toString(d.change)},
                         {"reference_count", d.referenceCount},
                         {"compared_count", d.comparedCount},
                         {"reference_ms", d.referenceMs},
                         {"compared_ms", d.comparedMs}});
    }
    nlohmann::json j = {{"reference_steps", diff.referenceSteps},
                        {"compared_steps", diff.comparedSteps},
                        {"names", names}};
    j["step"] = diff.step ? nlohmann::json(*diff.step) : nlohmann::json();
    return j;
}

nlohmann::json toJson(const CompareResults& compared) {
    nlohmann::json j = toJson(compared.results);
    j["diff"] = toJson(compared.diff);
    return j;
}

std::string jsonText(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string renderResultsJson(const Results& results) { return jsonText(toJson(results)) + "\n"; }

}  // namespace glueprof

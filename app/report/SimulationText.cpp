#include "app/report/SimulationText.h"

#include <fmt/format.h>

namespace glueprof {

namespace {

std::string partitionText(const std::vector<int>& p) {
    std::string text;
    for (int n : p) text += (text.empty() ? "" : ",") + std::to_string(n);
    return text;
}

std::string workerLines(const SimulatedSchedule& s) {
    std::string out;
    for (std::size_t w = 0; w < s.bubbles.perWorker.size(); ++w) {
        const double busy = static_cast<double>(s.bubbles.perWorker[w].busyNs) / 1e6;
        const double utilization = s.makespanMs > 0 ? busy / s.makespanMs : 0.0;
        out +=
            fmt::format("  worker {:<3}     busy {:>10.2f} ms  idle {:>10.2f} ms  ({:.1f}% busy)\n",
                        w, busy, s.makespanMs - busy, 100 * utilization);
    }
    return out;
}

std::string executedLine(const ExecutedPipeline& e) {
    return fmt::format(
        "  executed       run {} ({}): makespan {:.2f} ms per step (median of {}), bubble "
        "{:.2f}%  <- measured; the lines above replay its costs\n",
        e.run, e.label, e.makespanMs, e.steps, 100 * e.bubbleRatio);
}

std::string simulationText(const SimulatedSchedule& s) {
    std::string out = fmt::format(
        "{}: {} workers, {} micro-batches, {} iteration(s), {} optimizer\n", s.schedule, s.workers,
        s.microbatches, s.iterations, s.asynchronousOptimizer ? "asynchronous" : "synchronous");
    out += fmt::format("  partition      {}", partitionText(s.forwardPartition));
    if (s.backwardPartition) {
        out += fmt::format("  |  backward {}", partitionText(*s.backwardPartition));
    }
    const BubbleResult& b = s.bubbles;
    out += fmt::format(
        "\n  makespan       {:.2f} ms\n  bubble ratio   {:.2f}%  (fill {:.2f}%, switch {:.2f}%, "
        "drain {:.2f}%, intra {:.2f}%)\n  hops           {:.2f} ms issued, {:.2f} ms exposed\n",
        s.makespanMs, 100 * b.ratio, 100 * b.share(b.fillNs), 100 * b.share(b.switchNs),
        100 * b.share(b.drainNs), 100 * b.share(b.intraNs), s.hopTotalMs, s.hopExposedMs);
    out += workerLines(s);
    if (s.executed) out += executedLine(*s.executed);
    return out;
}

std::string predictionText(const std::vector<PredictionRow>& rows) {
    std::string out =
        "\npredicted (same costs, M = 2P):\n  P   looped-bfs makespan  bubble   roundpipe "
        "makespan  bubble\n";
    for (const PredictionRow& row : rows) {
        out += fmt::format("  {:<3}", row.workers);
        for (const PredictedSchedule& s : row.schedules) {
            out += fmt::format(" {:>16.2f} ms  {:>5.1f}%", s.makespanMs, 100 * s.bubbleRatio);
        }
        out += "\n";
    }
    return out;
}

}  // namespace

std::string renderSimulationText(const SimulationResults& results) {
    std::string out;
    for (const SimulatedSchedule& s : results.simulations) out += simulationText(s);
    if (results.predicted) out += predictionText(results.predictions);
    return out + fmt::format("database: {}\n", results.db);
}

std::string renderMeasuredCosts(const MeasuredCosts& m) {
    return fmt::format(
        "measured {} layers of {} on this machine (run {}, {} micro-batches): forward {:.3f} ms, "
        "backward {:.3f} ms per layer (median of layer 0), head {:.3f} + {:.3f} ms\n",
        m.layers, m.preset, m.run, m.microbatches, m.forwardMs, m.backwardMs, m.headForwardMs,
        m.headBackwardMs);
}

}  // namespace glueprof

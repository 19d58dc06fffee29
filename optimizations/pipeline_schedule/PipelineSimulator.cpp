#include "optimizations/pipeline_schedule/PipelineSimulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace glueprof::pipeline {

const char* toString(Schedule schedule) {
    switch (schedule) {
        case Schedule::kGPipe:
            return "gpipe";
        case Schedule::kOneFOneB:
            return "1f1b";
        case Schedule::kLoopedBfs:
            return "looped-bfs";
        case Schedule::kRoundPipe:
            return "roundpipe";
    }
    return "?";
}

Schedule parseSchedule(const std::string& name) {
    for (Schedule s :
         {Schedule::kGPipe, Schedule::kOneFOneB, Schedule::kLoopedBfs, Schedule::kRoundPipe}) {
        if (name == toString(s)) return s;
    }
    throw std::invalid_argument(
        fmt::format("unknown schedule '{}': choose gpipe, 1f1b, looped-bfs or roundpipe", name));
}

PipelineCosts PipelineCosts::uniform(int layers, double forwardMs, double backwardMs,
                                     double headForwardMs, double headBackwardMs, double hopMs) {
    PipelineCosts c;
    c.forwardMs.assign(static_cast<std::size_t>(layers), forwardMs);
    c.backwardMs.assign(static_cast<std::size_t>(layers), backwardMs);
    c.headForwardMs = headForwardMs;
    c.headBackwardMs = headBackwardMs;
    c.hopMs = hopMs;
    return c;
}

std::vector<int> balancedPartition(int layers, int stages) {
    std::vector<int> partition(static_cast<std::size_t>(std::max(stages, 0)),
                               stages > 0 ? layers / stages : 0);
    for (int i = 0; i < (stages > 0 ? layers % stages : 0); ++i)
        ++partition[static_cast<std::size_t>(i)];
    return partition;
}

namespace {

// Sums of per-layer costs over each stage's layers. `fromTop`: the partition lists stages from the
// last layer down (RoundPipe's backward partition after its head stage).
struct StageCosts {
    std::vector<double> forward, recompute, backward;
};

StageCosts stageCosts(const PipelineCosts& c, const std::vector<int>& partition, bool fromTop) {
    StageCosts s;
    const int layers = static_cast<int>(c.layers());
    int cursor = fromTop ? layers : 0;
    for (int count : partition) {
        const int first = fromTop ? cursor - count : cursor;
        double f = 0.0, r = 0.0, b = 0.0;
        for (int l = first; l < first + count; ++l) {
            f += c.forwardMs[static_cast<std::size_t>(l)];
            r += c.recompute(static_cast<std::size_t>(l));
            b += c.backwardMs[static_cast<std::size_t>(l)];
        }
        s.forward.push_back(f);
        s.recompute.push_back(r);
        s.backward.push_back(b);
        cursor = fromTop ? first : first + count;
    }
    return s;
}

struct Done {
    double end = 0.0;
    int worker = -1;  // -1: a local hand-off (no hop)
};

struct Start {
    double start = 0.0;
    double stall = 0.0;   // delay caused by hops
    double issued = 0.0;  // hop time issued
};

// The artifact's _resolve_start: an op starts when its worker is free and every dependency has
// arrived.
Start resolve(double hop, int worker, double workerReady, const std::vector<Done>& deps) {
    double ready = workerReady;
    double readyWithoutHops = workerReady;
    Start s;
    for (const Done& d : deps) {
        const double h = d.worker >= 0 && d.worker != worker ? hop : 0.0;
        s.issued += h;
        ready = std::max(ready, d.end + h);
        readyWithoutHops = std::max(readyWithoutHops, d.end);
    }
    s.start = ready;
    s.stall = std::max(ready - readyWithoutHops, 0.0);
    return s;
}

std::string costRangeProblem() {
    return fmt::format(
        "costs must be from 0 to {:.0f} ms each (the cost file's, --hop-ms, --optimizer-ms)",
        kMaxCostMs);
}

}  // namespace

void validateSimulation(const SimulationSpec& spec) {
    const PipelineCosts& c = spec.costs;
    if (spec.workers <= 0 || spec.workers > kMaxWorkers) {
        throw std::invalid_argument(fmt::format("--workers must be from 1 to {}", kMaxWorkers));
    }
    if (spec.microbatches <= 0 || spec.microbatches > kMaxMicrobatches) {
        throw std::invalid_argument(
            fmt::format("--microbatches must be from 1 to {}", kMaxMicrobatches));
    }
    if (spec.iterations <= 0 || spec.iterations > kMaxIterations) {
        throw std::invalid_argument(
            fmt::format("--iterations must be from 1 to {}", kMaxIterations));
    }
    if (c.layers() > static_cast<std::size_t>(kMaxLayers)) {
        throw std::invalid_argument(fmt::format("at most {} layers", kMaxLayers));
    }
    const std::string tooLarge = simulationSizeProblem(spec);
    if (!tooLarge.empty()) throw std::invalid_argument(tooLarge);
    if (c.backwardMs.size() != c.layers() ||
        (!c.recomputeMs.empty() && c.recomputeMs.size() != c.layers())) {
        throw std::invalid_argument(
            "the per-layer forward, recompute and backward costs must have one entry per layer");
    }
    for (const std::vector<double>* v : {&c.forwardMs, &c.recomputeMs, &c.backwardMs}) {
        if (!std::all_of(v->begin(), v->end(), isValidCostMs)) {
            throw std::invalid_argument(costRangeProblem());
        }
    }
    for (const double ms : {c.headForwardMs, c.headBackwardMs, c.hopMs, c.optimizerMs}) {
        if (!isValidCostMs(ms)) throw std::invalid_argument(costRangeProblem());
    }
    auto checkPartition = [&](const std::vector<int>& partition, const char* what) {
        if (partition.empty())
            throw std::invalid_argument(fmt::format("the {} partition is empty", what));
        if (std::any_of(partition.begin(), partition.end(), [](int n) { return n < 0; })) {
            throw std::invalid_argument(
                fmt::format("the {} partition has a negative layer count", what));
        }
        const std::int64_t sum =
            std::accumulate(partition.begin(), partition.end(), std::int64_t{0});
        if (sum != static_cast<std::int64_t>(c.layers())) {
            throw std::invalid_argument(fmt::format(
                "the {} partition holds {} layers but the costs have {}: make them agree", what,
                sum, c.layers()));
        }
    };
    checkPartition(spec.forwardPartition, "forward");
    const int stages = static_cast<int>(spec.forwardPartition.size());
    switch (spec.schedule) {
        case Schedule::kGPipe:
        case Schedule::kOneFOneB:
            if (stages != spec.workers) {
                throw std::invalid_argument(
                    fmt::format("{} runs one stage per worker: the partition has {} stages for {} "
                                "workers (use looped-bfs for "
                                "several stages per worker)",
                                toString(spec.schedule), stages, spec.workers));
            }
            if (spec.microbatches < stages) {
                throw std::invalid_argument(
                    fmt::format("{} needs at least as many micro-batches as stages ({} < {})",
                                toString(spec.schedule), spec.microbatches, stages));
            }
            break;
        case Schedule::kLoopedBfs:
            if (stages % spec.workers != 0) {
                throw std::invalid_argument(
                    fmt::format("looped-bfs binds stage s to worker s mod P: the partition's {} "
                                "stages must be a multiple of {} workers",
                                stages, spec.workers));
            }
            break;
        case Schedule::kRoundPipe:
            checkPartition(spec.backwardPartition, "backward");
            if (spec.backwardPartition.front() != 0) {
                throw std::invalid_argument(
                    "roundpipe's backward partition starts with the LM head stage, which holds "
                    "no layers: make its first entry 0");
            }
            if (spec.microbatches < spec.workers) {
                throw std::invalid_argument(
                    fmt::format("roundpipe needs at least as many micro-batches as workers ({} < "
                                "{}): use --microbatches {}",
                                spec.microbatches, spec.workers, spec.workers + 1));
            }
            break;
    }
    if (spec.optimizer == OptimizerMode::kAsynchronous && spec.schedule != Schedule::kRoundPipe) {
        throw std::invalid_argument(
            "the asynchronous optimizer is a RoundPipe variant: use --schedule roundpipe");
    }
}

namespace {

struct Action {
    int stage;
    bool backward;
    int microbatch;
};

std::vector<std::vector<Action>> plans(const SimulationSpec& spec) {
    const int p = spec.workers;
    const int m = spec.microbatches;
    const int stages = static_cast<int>(spec.forwardPartition.size());
    std::vector<std::vector<Action>> plan(static_cast<std::size_t>(p));
    for (int rank = 0; rank < p; ++rank) {
        std::vector<Action>& ops = plan[static_cast<std::size_t>(rank)];
        switch (spec.schedule) {
            case Schedule::kGPipe:
                for (int mb = 0; mb < m; ++mb) ops.push_back({rank, false, mb});
                for (int mb = 0; mb < m; ++mb) ops.push_back({rank, true, mb});
                break;
            case Schedule::kOneFOneB: {  // PyTorch's Schedule1F1B
                const int warmup = std::min(m, p - rank);
                int f = 0;
                int b = 0;
                for (; f < warmup; ++f) ops.push_back({rank, false, f});
                while (true) {
                    ops.push_back({rank, true, b++});
                    if (f == m) break;
                    ops.push_back({rank, false, f++});
                }
                while (b < m) ops.push_back({rank, true, b++});
                break;
            }
            case Schedule::kLoopedBfs: {
                std::vector<int> local;
                for (int s = rank; s < stages; s += p) local.push_back(s);
                for (int s : local) {
                    for (int mb = 0; mb < m; ++mb) ops.push_back({s, false, mb});
                }
                for (auto s = local.rbegin(); s != local.rend(); ++s) {
                    for (int mb = m - 1; mb >= 0; --mb) ops.push_back({*s, true, mb});
                }
                break;
            }
            case Schedule::kRoundPipe:
                break;
        }
    }
    return plan;
}

void addOp(SimulationResult& r, SimOp::Kind kind, bool backwardPass, int worker, int stage, int mb,
           int iteration, double start, double end, bool hasWork = true) {
    // Kept when empty (a stage of 0 layers): the executor runs every job of the plan.
    r.ops.push_back(SimOp{kind, backwardPass, worker, stage, mb, iteration, start, end, hasWork});
}

// GPipe, 1F1B and Looped-BFS: per-worker plans, the ready action with the earliest start first.
double simulatePlanned(const SimulationSpec& spec, int iteration, std::vector<double>& workerFree,
                       SimulationResult& r) {
    const StageCosts cost = stageCosts(spec.costs, spec.forwardPartition, false);
    const int stages = static_cast<int>(cost.forward.size());
    auto forwardMs = [&](int s) {
        return cost.forward[static_cast<std::size_t>(s)] +
               (s == stages - 1 ? spec.costs.headForwardMs : 0.0);
    };
    auto backwardMs = [&](int s) {
        return cost.backward[static_cast<std::size_t>(s)] +
               (s == stages - 1 ? spec.costs.headBackwardMs : 0.0);
    };
    // Whether a stage's forward / backward has work: layers, or the head on the last stage.
    auto hasWork = [&](int s, bool backward) {
        const double head = backward ? spec.costs.headBackwardMs : spec.costs.headForwardMs;
        return spec.forwardPartition[static_cast<std::size_t>(s)] > 0 ||
               (s == stages - 1 && head > 0.0);
    };
    const std::vector<std::vector<Action>> plan = plans(spec);
    std::vector<std::size_t> cursor(plan.size(), 0);
    std::map<std::pair<int, int>, Done> forwardDone;
    std::map<std::pair<int, int>, Done> backwardDone;
    std::size_t total = 0;
    for (const auto& ops : plan) total += ops.size();
    double end = 0.0;
    for (std::size_t executed = 0; executed < total; ++executed) {
        struct Candidate {
            Start when;
            int worker;
            Action action;
        };
        std::optional<Candidate> best;
        for (int w = 0; w < spec.workers; ++w) {
            const auto& ops = plan[static_cast<std::size_t>(w)];
            if (cursor[static_cast<std::size_t>(w)] >= ops.size()) continue;
            const Action a = ops[cursor[static_cast<std::size_t>(w)]];
            std::vector<Done> deps;
            if (!a.backward) {
                if (a.stage > 0) {
                    auto it = forwardDone.find({a.stage - 1, a.microbatch});
                    if (it == forwardDone.end()) continue;
                    deps.push_back(it->second);
                }
            } else {
                auto own = forwardDone.find({a.stage, a.microbatch});
                if (own == forwardDone.end()) continue;
                deps.push_back(
                    Done{own->second.end, -1});  // saved activations stay on their worker
                if (a.stage < stages - 1) {
                    auto next = backwardDone.find({a.stage + 1, a.microbatch});
                    if (next == backwardDone.end()) continue;
                    deps.push_back(next->second);
                }
            }
            const Start when =
                resolve(spec.costs.hopMs, w, workerFree[static_cast<std::size_t>(w)], deps);
            if (!best || when.start < best->when.start)
                best = Candidate{when, w, a};  // ties: the lower worker
        }
        if (!best)
            throw std::logic_error(
                fmt::format("{} schedule deadlocked: no action is ready", toString(spec.schedule)));
        const Action a = best->action;
        const int w = best->worker;
        r.hopTotalMs += best->when.issued;
        r.hopExposedMs += best->when.stall;
        double finish = 0.0;
        if (!a.backward) {
            finish = best->when.start + forwardMs(a.stage);
            addOp(r, SimOp::Kind::kForward, false, w, a.stage, a.microbatch, iteration,
                  best->when.start, finish, hasWork(a.stage, false));
            forwardDone[{a.stage, a.microbatch}] = Done{finish, w};
        } else {
            const double recomputeEnd =
                best->when.start + cost.recompute[static_cast<std::size_t>(a.stage)];
            finish = recomputeEnd + backwardMs(a.stage);
            addOp(r, SimOp::Kind::kRecompute, true, w, a.stage, a.microbatch, iteration,
                  best->when.start, recomputeEnd, hasWork(a.stage, true));
            addOp(r, SimOp::Kind::kBackward, true, w, a.stage, a.microbatch, iteration,
                  recomputeEnd, finish, hasWork(a.stage, true));
            backwardDone[{a.stage, a.microbatch}] = Done{finish, w};
        }
        workerFree[static_cast<std::size_t>(w)] = finish;
        ++cursor[static_cast<std::size_t>(w)];
        if (hasWork(a.stage, a.backward)) end = std::max(end, finish);
    }
    return end;
}

// RoundPipe: stages dealt round-robin to the worker pool, one round of up to P micro-batches at a
// time.
double simulateRoundPipe(const SimulationSpec& spec, int iteration, int& roundStartWorker,
                         std::vector<double>& workerFree, SimulationResult& r) {
    const StageCosts fwd = stageCosts(spec.costs, spec.forwardPartition, false);
    // Backward stage 0 is the head (0 layers); the others cover the layers from the top down.
    std::vector<int> layerStages(spec.backwardPartition.begin() + 1, spec.backwardPartition.end());
    const StageCosts bwdLayers = stageCosts(spec.costs, layerStages, true);
    const int p = spec.workers;
    const int forwardStages = static_cast<int>(spec.forwardPartition.size());
    const int backwardStages = static_cast<int>(spec.backwardPartition.size());
    std::map<std::pair<int, int>, Done> forwardDone;
    std::map<std::pair<int, int>, Done> backwardDone;
    double end = 0.0;
    for (int roundStart = 0; roundStart < spec.microbatches; roundStart += p) {
        const int roundEnd = std::min(roundStart + p, spec.microbatches);
        for (int s = 0; s < forwardStages; ++s) {
            const int w = (roundStartWorker + s) % p;
            for (int mb = roundStart; mb < roundEnd; ++mb) {
                std::vector<Done> deps;
                if (s > 0) deps.push_back(forwardDone.at({s - 1, mb}));
                const Start when =
                    resolve(spec.costs.hopMs, w, workerFree[static_cast<std::size_t>(w)], deps);
                r.hopTotalMs += when.issued;
                r.hopExposedMs += when.stall;
                const double finish = when.start + fwd.forward[static_cast<std::size_t>(s)];
                addOp(r, SimOp::Kind::kForward, false, w, s, mb, iteration, when.start, finish);
                forwardDone[{s, mb}] = Done{finish, w};
                workerFree[static_cast<std::size_t>(w)] = finish;
            }
        }
        for (int s = 0; s < backwardStages; ++s) {
            const int w = (roundStartWorker + forwardStages + s) % p;
            const bool head = s == 0;
            // The head stage runs the LM head forward (not a recompute: it was never run) then its
            // backward; the other stages recompute their layers, then run their backward.
            const double before = head ? spec.costs.headForwardMs
                                       : bwdLayers.recompute[static_cast<std::size_t>(s - 1)];
            const double backward = head ? spec.costs.headBackwardMs
                                         : bwdLayers.backward[static_cast<std::size_t>(s - 1)];
            for (int mb = roundStart; mb < roundEnd; ++mb) {
                std::vector<Done> deps{forwardDone.at({forwardStages - 1, mb})};
                if (s > 0) deps.push_back(backwardDone.at({s - 1, mb}));
                // The dependencies gate the backward itself; what comes before it runs just ahead
                // of it.
                const Start when = resolve(spec.costs.hopMs, w,
                                           workerFree[static_cast<std::size_t>(w)] + before, deps);
                r.hopTotalMs += when.issued;
                r.hopExposedMs += when.stall;
                const double preStart = when.start - before;
                addOp(r, head ? SimOp::Kind::kForward : SimOp::Kind::kRecompute, true, w, s, mb,
                      iteration, preStart, when.start);
                const double finish = when.start + backward;
                addOp(r, SimOp::Kind::kBackward, true, w, s, mb, iteration, when.start, finish);
                backwardDone[{s, mb}] = Done{finish, w};
                workerFree[static_cast<std::size_t>(w)] = finish;
                end = std::max(end, finish);
            }
        }
        // The next round starts on the worker that is free first (ties: the lower one).
        roundStartWorker = static_cast<int>(std::min_element(workerFree.begin(), workerFree.end()) -
                                            workerFree.begin());
    }
    return end;
}

}  // namespace

bool isValidCostMs(double ms) { return ms >= 0.0 && ms <= kMaxCostMs; }

std::int64_t simulatedOpBound(const SimulationSpec& spec) {
    const auto stages = static_cast<std::int64_t>(
        std::max<std::size_t>({spec.forwardPartition.size(), spec.backwardPartition.size(), 1}));
    // Bounded factors: stages by the partition's length, the others by kMax*, so no overflow.
    return 3 * stages * std::clamp<std::int64_t>(spec.microbatches, 0, kMaxMicrobatches) *
           std::clamp<std::int64_t>(spec.iterations, 0, kMaxIterations);
}

std::string simulationSizeProblem(const SimulationSpec& spec) {
    const std::int64_t ops = simulatedOpBound(spec);
    if (ops <= kMaxSimulatedOps) return "";
    return fmt::format(
        "the {} simulation would hold up to {} ops (3 x {} stages x {} micro-batches x {} "
        "iterations, about {:.1f} GB), more than the {} glueprof simulates at once: use fewer "
        "micro-batches (--microbatches) or iterations (--iterations), or fewer stages",
        toString(spec.schedule), ops,
        std::max(spec.forwardPartition.size(), spec.backwardPartition.size()), spec.microbatches,
        spec.iterations, static_cast<double>(ops * kBytesPerSimulatedOp) / 1e9, kMaxSimulatedOps);
}

SimulationResult simulate(const SimulationSpec& spec) {
    validateSimulation(spec);
    SimulationResult r;
    std::vector<double> workerFree(static_cast<std::size_t>(spec.workers), 0.0);
    int roundStartWorker = 0;
    double previousEnd = 0.0;
    for (int iteration = 0; iteration < spec.iterations; ++iteration) {
        if (iteration > 0 && spec.optimizer == OptimizerMode::kSynchronous) {
            // The optimizer step needs every gradient; the next iteration waits for it.
            for (double& free : workerFree)
                free = std::max(free, previousEnd + spec.costs.optimizerMs);
        }
        const double end = spec.schedule == Schedule::kRoundPipe
                               ? simulateRoundPipe(spec, iteration, roundStartWorker, workerFree, r)
                               : simulatePlanned(spec, iteration, workerFree, r);
        previousEnd = std::max(previousEnd, end);
        r.iterationEndMs.push_back(end);
    }
    for (const SimOp& op : r.ops) {
        if (op.hasWork) r.makespanMs = std::max(r.makespanMs, op.endMs);
    }
    std::stable_sort(r.ops.begin(), r.ops.end(), [](const SimOp& a, const SimOp& b) {
        return std::tie(a.startMs, a.worker) < std::tie(b.startMs, b.worker);
    });
    return r;
}

}  // namespace glueprof::pipeline

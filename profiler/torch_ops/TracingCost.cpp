#include "profiler/torch_ops/TracingCost.h"

#include <stdlib.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "profiler/torch_ops/OpObserver.h"

namespace glueprof {

namespace {

constexpr int kIterationsPerRound = 12;
constexpr int kRounds = 5;

// The calibration's workload: a tiny block forward and backward (matmuls, an RMS norm, an
// activation, attention-like softmax, views, autograd backward nodes), so the cost per event is
// that of a training step's mix of ops, nested calls and backward nodes; at::add alone measured
// half of what a tiny step's ops cost (bench/TracerOverheadBench).
struct Workload {
    at::Tensor x = at::randn({8, 32});
    at::Tensor w1 = at::randn({32, 32}).requires_grad_(true);
    at::Tensor w2 = at::randn({32, 16}).requires_grad_(true);

    void iteration() const {
        at::Tensor h = at::matmul(x, w1);
        h = h * at::rsqrt(h.pow(2).mean(-1, true) + 1e-6);
        h = at::silu(h);
        const at::Tensor scores = at::softmax(at::matmul(h, h.transpose(0, 1)), -1);
        at::matmul(scores, h).matmul(w2).view({-1}).sum().backward();
    }
    double roundNs() const {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < kIterationsPerRound; ++i) iteration();
        return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
            .count();
    }
};

constexpr const char* kScratchName = "scratch.sqlite";

// A directory of this process's own for the scratch database (nothing another user planted).
std::filesystem::path privateDirectory() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "glueprof-cost-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    return pattern;
}

}  // namespace

std::optional<double> measureTracingCostNsPerOp() {
    std::filesystem::path directory;
    std::vector<double> differences;  // ns per recorded event, one per round
    try {
        directory = privateDirectory();
        TraceWriter writer((directory / kScratchName).string());
        HostTracer tracer(writer);
        tracer.setRun(writer.beginRun(RunInfo{}));
        const c10::AutoGradMode gradients(true);
        const Workload workload;
        workload.roundNs();  // warm: the allocator and the autograd engine
        for (int round = 0; round < kRounds; ++round) {
            const double plain = workload.roundNs();
            OpObserver observer(tracer);
            workload.roundNs();  // warm: the new observer's name caches
            writer.flush();
            const std::int64_t before = writer.stats().eventsWritten;
            const double observed = workload.roundNs();
            writer.flush();
            const std::int64_t events = writer.stats().eventsWritten - before;
            if (events <= 0) throw std::runtime_error("nothing recorded");
            differences.push_back((observed - plain) / static_cast<double>(events));
        }
        writer.close();
    } catch (...) {
        differences.clear();  // no private scratch database here: not measured
    }
    if (!directory.empty()) {
        removeTraceDatabase((directory / kScratchName).string());
        std::error_code ec;
        std::filesystem::remove_all(directory, ec);
    }
    if (differences.size() != static_cast<std::size_t>(kRounds)) return std::nullopt;
    std::sort(differences.begin(), differences.end());
    const double median = differences[kRounds / 2];
    // Rounds that disagree more than the cost itself (a machine too busy to tell): not measured,
    // rather than a number that is noise.
    if (median <= 0.0 || differences[kRounds - 2] - differences[1] > median) return std::nullopt;
    return median;
}

}  // namespace glueprof

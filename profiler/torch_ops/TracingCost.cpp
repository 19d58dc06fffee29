#include "profiler/torch_ops/TracingCost.h"

#include <unistd.h>

#include <ATen/ATen.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "profiler/torch_ops/OpObserver.h"

namespace glueprof {

namespace {

constexpr int kOpsPerRound = 2000;
constexpr int kRounds = 5;

double roundNs(const at::Tensor& a, const at::Tensor& b) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kOpsPerRound; ++i) (void)at::add(a, b);
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
        .count();
}

std::atomic<int> g_scratchCount{0};

}  // namespace

std::optional<double> measureTracingCostNsPerOp() {
    const std::string scratch = (std::filesystem::temp_directory_path() /
                                 ("glueprof-tracing-cost-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(g_scratchCount.fetch_add(1)) + ".sqlite"))
                                    .string();
    std::vector<double> differences;
    try {
        TraceWriter writer(scratch);
        HostTracer tracer(writer);
        tracer.setRun(writer.beginRun(RunInfo{}));
        const at::Tensor a = at::ones({1});
        const at::Tensor b = at::ones({1});
        roundNs(a, b);  // warm: the allocator, the name caches
        for (int round = 0; round < kRounds; ++round) {
            const double plain = roundNs(a, b);
            double observed = 0.0;
            {
                OpObserver observer(tracer);
                observed = roundNs(a, b);
            }
            differences.push_back((observed - plain) / kOpsPerRound);
        }
        writer.close();
    } catch (const std::exception&) {
        differences.clear();  // no scratch database: not measured
    }
    for (const char* suffix : {"", "-wal", "-shm"}) {
        std::error_code ec;
        std::filesystem::remove(scratch + suffix, ec);
    }
    if (differences.size() != static_cast<std::size_t>(kRounds)) return std::nullopt;
    std::nth_element(differences.begin(), differences.begin() + kRounds / 2, differences.end());
    return std::max(0.0, differences[kRounds / 2]);
}

}  // namespace glueprof

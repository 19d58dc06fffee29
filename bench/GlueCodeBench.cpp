// The glue code the toggles change, timed alone on this machine: MoE routing per layer pass in its
// three modes, at gpt-oss-20b's expert count and top-k, and the copy engine's offload + reload of
// one layer input.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "optimizations/activation_offload/ActivationOffload.h"
#include "optimizations/moe_routing/MoeRouting.h"

namespace glueprof {
namespace {

// tokens x top-4 of 32 experts, as gpt-oss-20b routes them.
void moeRouting(benchmark::State& state, MoeRoutingMode mode) {
    const std::int64_t tokens = state.range(0);
    torch::manual_seed(7);
    torch::Tensor topExperts = std::get<1>(torch::randn({tokens, 32}).topk(4, -1));
    for (auto _ : state) {
        auto routes = routeTokens(mode, topExperts, 32, nullptr);
        benchmark::DoNotOptimize(routes.data());
    }
    state.SetItemsProcessed(state.iterations() * tokens);
}

void BM_MoeRoutingPerExpert(benchmark::State& s) { moeRouting(s, MoeRoutingMode::kPerExpert); }
void BM_MoeRoutingGroupOnce(benchmark::State& s) { moeRouting(s, MoeRoutingMode::kGroupOnce); }
void BM_MoeRoutingSyncFree(benchmark::State& s) { moeRouting(s, MoeRoutingMode::kSyncFree); }
BENCHMARK(BM_MoeRoutingPerExpert)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MoeRoutingGroupOnce)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MoeRoutingSyncFree)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);

// Offload of one [1, T, H] fp32 layer input and its reload, through the CPU copy worker.
void BM_OffloadReloadOneLayer(benchmark::State& state) {
    const std::int64_t tokens = state.range(0);
    const std::int64_t hidden = state.range(1);
    ActivationOffloader offloader({OffloadMode::kSingleBuffer, false}, torch::kCPU, 2, 0, nullptr);
    torch::Tensor x = torch::randn({1, tokens, hidden});
    for (auto _ : state) {
        offloader.beginStep();
        offloader.offload(0, x);
        torch::Tensor back = offloader.reloaded(0);
        benchmark::DoNotOptimize(back.data_ptr());
        offloader.afterBackward(0);
    }
    state.SetBytesProcessed(state.iterations() * 2 * static_cast<std::int64_t>(x.nbytes()));
}
// Real time: the copies run on the worker thread while this thread waits.
BENCHMARK(BM_OffloadReloadOneLayer)
    ->Args({512, 256})
    ->Args({2048, 2048})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace glueprof

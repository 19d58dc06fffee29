#pragma once
// Data parallelism's glue: averaging every gradient across ranks before the optimizer, so every
// rank's weights stay identical. Two ways (the ddp_overlap toggle, GradientSyncSettings):
// - per parameter (the baseline, what a hand-written loop does): after backward, one blocking
//   all-reduce per parameter, in parameter order;
// - bucketed overlap (DDP's Reducer): parameters in reverse order (the order backward produces
//   their gradients) packed into buckets of up to bucketBytes (the first up to 1 MiB, as DDP's); a
//   post hook on each parameter's gradient accumulator counts it ready in the step's last backward,
//   and a bucket whose gradients are all ready is flattened and its all-reduce started at once, in
//   bucket order on every rank, while backward goes on; the trainer waits for them only before the
//   optimizer.
// Each all-reduce is a `comm` range (names::kAllReduce: bytes, its sequence number in the group,
// the bucket or parameter index) from its start to its completion as the host sees it (Gloo: the
// transfer; NCCL: its launch, the transfer being the NCCL kernels), on the calling thread's lane;
// the time the trainer blocks waiting for an asynchronous one is a wait of category `comm`
// (names::kWaitAllReduce): exposed communication.
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "optimizations/gradient_sync/GradientSyncSettings.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

class GradientSync {
  public:
    // tracer may be null (tracing off).
    GradientSync(RankGroup& group, std::vector<torch::Tensor> parameters,
                 GradientSyncSettings settings, HostTracer* tracer);
    ~GradientSync();
    GradientSync(const GradientSync&) = delete;
    GradientSync& operator=(const GradientSync&) = delete;

    // Before the step's last backward (gradient accumulation: only the last one's gradients are
    // final): bucketed overlap starts watching for ready gradients.
    void beforeLastBackward();
    // After backward: every gradient summed across ranks and divided by the world size. A
    // parameter without a gradient contributes zeros (every rank issues the same collectives).
    void averageAfterBackward();

  private:
    struct Bucket;
    class ReadyHook;
    void perParameter();
    void onGradientReady(std::size_t parameter);
    void launchReadyBuckets();
    void launch(Bucket& bucket);

    RankGroup& m_group;
    std::vector<torch::Tensor> m_parameters;
    GradientSyncSettings m_settings;
    HostTracer* m_tracer;
    std::vector<std::unique_ptr<Bucket>> m_buckets;
    std::vector<std::size_t> m_bucketOf;  // per parameter
    std::vector<bool> m_ready;            // per parameter, in the armed backward
    std::vector<std::shared_ptr<torch::autograd::Node>> m_accumulators;  // kept alive
    std::size_t m_nextLaunch = 0;
    bool m_armed = false;
};

// Records one communication range [startNs, endNs) of `name` on the calling thread's lane.
void recordCommRange(HostTracer* tracer, const char* name, TimestampNs startNs, TimestampNs endNs,
                     std::int64_t sequence, std::int64_t bytes, std::int32_t bucket);

}  // namespace glueprof

#include "reference_trainer/pipeline/PipelineJob.h"

#include <algorithm>

namespace glueprof {
namespace {

// The first layer of `stage` in a partition counted from the bottom (or, fromTop, from the top of
// the model's `total` layers: RoundPipe's backward stages).
std::int64_t firstLayerOf(const std::vector<int>& partition, int stage, bool fromTop,
                          std::int64_t total) {
    std::int64_t before = 0;
    for (int s = 0; s < stage; ++s) before += partition[static_cast<std::size_t>(s)];
    return fromTop ? total - before - partition[static_cast<std::size_t>(stage)] : before;
}

// The layers of the job of `op`: RoundPipe's forward partition counts from the embedding, its
// backward partition (the head stage first) from the head; Looped-BFS's stages run both passes.
void placeLayers(const pipeline::SimulationSpec& spec, const pipeline::SimOp& op,
                 PipelineJob& job) {
    const auto layers = static_cast<std::int64_t>(spec.costs.layers());
    if (spec.schedule == pipeline::Schedule::kRoundPipe) {
        if (!job.backward) {
            job.firstLayer = firstLayerOf(spec.forwardPartition, op.stage, false, layers);
            job.layers = spec.forwardPartition[static_cast<std::size_t>(op.stage)];
        } else if (op.stage == 0) {
            job.firstLayer = layers;  // the head stage
            job.head = true;
        } else {
            std::vector<int> fromTop(spec.backwardPartition.begin() + 1,
                                     spec.backwardPartition.end());
            job.firstLayer = firstLayerOf(fromTop, op.stage - 1, true, layers);
            job.layers = fromTop[static_cast<std::size_t>(op.stage - 1)];
        }
    } else {
        job.firstLayer = firstLayerOf(spec.forwardPartition, op.stage, false, layers);
        job.layers = spec.forwardPartition[static_cast<std::size_t>(op.stage)];
        job.head = op.stage == static_cast<int>(spec.forwardPartition.size()) - 1;
    }
}

}  // namespace

std::vector<std::vector<PipelineJob>> jobsOfPlan(const pipeline::SimulationSpec& spec,
                                                 const pipeline::SimulationResult& plan) {
    std::vector<std::vector<PipelineJob>> perWorker(static_cast<std::size_t>(spec.workers));
    for (const pipeline::SimOp& op : plan.ops) {
        std::vector<PipelineJob>& jobs = perWorker[static_cast<std::size_t>(op.worker)];
        if (!jobs.empty() && jobs.back().backward == op.backwardPass &&
            jobs.back().stage == op.stage && jobs.back().microbatch == op.microbatch) {
            continue;  // the backward op after its recompute (or head forward): the same job
        }
        PipelineJob job;
        job.backward = op.backwardPass;
        job.stage = op.stage;
        job.microbatch = op.microbatch;
        placeLayers(spec, op, job);
        jobs.push_back(job);
    }
    return perWorker;
}

std::vector<torch::Tensor> jobState(const PipelineJob& job, Decoder& model) {
    std::vector<torch::Tensor> state;
    auto add = [&](const std::vector<torch::Tensor>& more) {
        state.insert(state.end(), more.begin(), more.end());
    };
    if (job.startsFromTokens()) add(model->embedState());
    for (std::int64_t l = job.firstLayer; l < job.endLayer(); ++l) add(model->layerState(l));
    if (job.head) add(model->headState());
    return state;
}

std::vector<torch::Tensor> jobParameters(const PipelineJob& job, Decoder& model) {
    std::vector<torch::Tensor> params;
    auto add = [&](const std::vector<torch::Tensor>& more) {
        for (const torch::Tensor& p : more) {
            if (!p.requires_grad()) continue;
            if (std::none_of(params.begin(), params.end(),
                             [&](const torch::Tensor& q) { return q.is_same(p); })) {
                params.push_back(p);
            }
        }
    };
    if (job.startsFromTokens()) add(model->embedParameters());
    for (std::int64_t l = job.firstLayer; l < job.endLayer(); ++l) add(model->layerParameters(l));
    if (job.head) add(model->headParameters());
    return params;
}

}  // namespace glueprof

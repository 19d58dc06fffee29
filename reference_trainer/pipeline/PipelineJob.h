#pragma once
// A job of the pipeline plan: one pass (forward or backward) of one stage for one micro-batch, run
// by one worker; and the pieces of the model it computes with.
//
// Each step, the pipeline simulator (optimizations/pipeline_schedule) plans the jobs: which worker
// runs which stage of which micro-batch, in which order (Looped-BFS: stage s bound to worker s mod
// P; RoundPipe: stages dealt round-robin to the pool, its LM head a fused forward + backward
// stage). The plan comes from estimated costs (parameters per layer; the executor does not time
// itself to plan); the workers then run it for real (JobRunner), each waiting for the activations
// and gradients it needs (HandOffs).
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "reference_trainer/model/Decoder.h"

namespace glueprof {

struct PipelineJob {
    bool backward = false;
    int stage = 0;
    int microbatch = 0;
    std::int64_t firstLayer = 0;
    std::int64_t layers = 0;
    bool head = false;  // ends with the final norm, LM head and loss

    std::int64_t endLayer() const { return firstLayer + layers; }
    // Stage 0 embeds the tokens instead of waiting for an input activation.
    bool startsFromTokens() const { return firstLayer == 0 && layers > 0; }
};

// The jobs of each worker, in plan order, from the simulated plan of `spec`: consecutive ops of one
// (pass, stage, micro-batch) form a job.
std::vector<std::vector<PipelineJob>> jobsOfPlan(const pipeline::SimulationSpec& spec,
                                                 const pipeline::SimulationResult& plan);

// Everything the job's compute reads (parameters and buffers, Decoder's fixed order): what a
// RoundPipe worker uploads into its replica, what Looped-BFS places on its worker's GPU.
std::vector<torch::Tensor> jobState(const PipelineJob& job, Decoder& model);
// The trainable parameters the job computes gradients for, each once (a tied embedding meets the
// embedding and the head).
std::vector<torch::Tensor> jobParameters(const PipelineJob& job, Decoder& model);

}  // namespace glueprof

#pragma once
// A simulated pipeline as a run in the trace store: one simulated-worker lane per worker,
// `forward`, `recompute` and `backward` ranges (layer tag = the stage, micro-batch and step =
// iteration tags), one step per iteration, the spec in the run's config JSON, kind `simulated` and
// its schedule in the run's identity (roundpipe tells the bubble analyzer there is no warm-up
// phase). The same analyzer that reads executed pipelines reads it.
#include <string>

#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "profiler/core/TraceModel.h"
#include "profiler/core/TraceWriter.h"

namespace glueprof::pipeline {

std::string specJson(const SimulationSpec& spec);
// The inverse of specJson; throws std::invalid_argument when a field is missing or malformed.
SimulationSpec specFromJson(const std::string& text);

// The same run in memory, without a store (what `simulate --predict` analyzes for each P).
TraceModel simulationModel(const SimulationSpec& spec, const SimulationResult& result);

// Records the simulation as a complete run labelled `label` (e.g. "simulate:roundpipe").
RunId recordSimulation(TraceWriter& writer, const SimulationSpec& spec,
                       const SimulationResult& result, const std::string& label,
                       const std::string& preset);

}  // namespace glueprof::pipeline

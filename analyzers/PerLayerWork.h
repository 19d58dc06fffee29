#pragma once
// Per-layer work: the ops every layer of a model issues in each step, by name and count. A layer
// is what its events are tagged with: the reference trainer's decoder layers, or in a program
// `glueprof profile` ran, each element of a model's layer list (an nn.ModuleList's children: HF's
// `model.layers.N`), recorded as a range "nn.Module: CLASS" around that layer's forward. The ops a
// layer issues besides its math (shape and dtype glue, rotary and mask arithmetic, host reads) are
// the work a per-layer loop repeats: the advisor's per_layer_glue rule reads them from here.
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct PerLayerOp {
    std::string op;          // aten::cat
    double perLayer = 0.0;   // issued by one layer in one step (median over layers and steps)
    double layers = 0.0;     // layers issuing it per step (median)
    double perStep = 0.0;    // issued per step by all layers (median)
    double msPerStep = 0.0;  // its own host time per step (median; nested ops counted apart)
    bool math = false;       // a GEMM, attention, convolution or embedding: the layer's work
    bool wouldSync = false;  // reads a value back to the host (.item(), nonzero)
    // "matrix" (math), "host read" (wouldSync), "shape/copy" (views, casts, concatenation,
    // allocation: no arithmetic), else "elementwise" (norms, activations, residual adds, rotary).
    std::string kind;
};

struct PerLayerWorkResult {
    std::vector<std::string>
        layerRanges;              // the layer ranges' names, e.g. nn.Module: LlamaDecoderLayer
    double layersPerStep = 0.0;   // distinct layers tagged per step (median)
    std::vector<PerLayerOp> ops;  // ops issued in 2+ layers per step; by time per step
    // The host time per step of the layers' outermost ops that are not math (median over steps):
    // the glue's own time, each op counted once with what it calls.
    double glueMsPerStep = 0.0;
    double layersMsPerStep = 0.0;  // the layer ranges' time per step (median; 0 without ranges)
};

PerLayerWorkResult analyzePerLayerWork(const TraceModel& trace);

// The ops a listing shows, at most `limit`: those that are not math first (each group by time, as
// `ops` holds them), then the math. Reports and the GUI list these.
std::vector<const PerLayerOp*> opsGlueFirst(const PerLayerWorkResult& work, std::size_t limit);

// Whether an aten op is a layer's math (a GEMM, attention, convolution, embedding) rather than the
// glue around it.
bool isLayerMath(const std::string& op);
// Whether an aten op only moves, views, casts, concatenates or allocates data.
bool isShapeOrCopy(const std::string& op);

}  // namespace glueprof

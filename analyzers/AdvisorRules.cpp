#include "analyzers/AdvisorRules.h"

#include <fmt/args.h>
#include <fmt/format.h>

#include <deque>
#include <map>
#include <set>
#include <stdexcept>

#include "analyzers/AdvisorRuleFunctions.h"
#include "profiler/core/CountText.h"
#include "profiler/core/TextEncoding.h"

namespace glueprof {

double AdvisorRule::threshold(std::string_view name) const {
    for (const RuleThreshold& t : thresholds) {
        if (name == t.name) return t.value;
    }
    throw std::logic_error("advisor rule " + std::string(id) + " has no threshold " +
                           std::string(name));
}

namespace {

// The names a clause's format uses: "{op}", "{per_step}" ("{{" is a brace, not a name).
std::set<std::string> namesIn(const char* text) {
    std::set<std::string> names;
    for (const char* c = text; *c != '\0'; ++c) {
        if (*c != '{') continue;
        if (c[1] == '{') {
            ++c;
            continue;
        }
        const char* end = c + 1;
        while (*end != '\0' && *end != '}' && *end != ':') ++end;
        if (*end == '\0') break;  // an unclosed brace: fmt names the error
        names.emplace(c + 1, end);
        c = end;
    }
    return names;
}

// A role's references as one list: "a, b", "a x2, b x1", or "a (x, y); b (z)" when a detail holds
// a comma. A long name (a templated kernel's) is shortened in the sentence; the reference keeps it
// whole.
std::string listOf(const std::vector<const FindingRef*>& refs) {
    constexpr std::size_t kLongestName = 100;
    bool commas = false;
    for (const FindingRef* r : refs) commas = commas || r->detail.find(',') != std::string::npos;
    std::string out;
    for (const FindingRef* r : refs) {
        if (!out.empty()) out += commas ? "; " : ", ";
        const std::string name = shortenedText(r->name, kLongestName);
        out += r->detail.empty() ? name : name + " " + r->detail;
    }
    return out;
}

}  // namespace

bool isCountUnit(const std::string& unit) { return unit == "count" || unit == "count/step"; }

std::string sayFinding(const AdvisorRule& rule, const Finding& finding) {
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    std::set<std::string> present;
    // The metrics' names, alive while the clauses format (fmt 12 copies them; older fmt kept the
    // pointer).
    std::deque<std::string> keep;
    // The rule's thresholds first: a clause may cite the line it drew ("1 ms or more").
    for (const RuleThreshold& t : rule.thresholds) {
        args.push_back(fmt::arg(t.name, t.value));
        present.insert(t.name);
    }
    for (const FindingMetric& m : finding.metrics) {
        const char* name = keep.emplace_back(m.name).c_str();
        // Counts in full (7340032, never 7.34003e+06), as every face prints them (CountText.h).
        if (isCountUnit(m.unit))
            args.push_back(fmt::arg(name, countText(m.value)));
        else
            args.push_back(fmt::arg(name, m.value));
        present.insert(m.name);
    }
    std::map<std::string, std::vector<const FindingRef*>> byRole;
    for (const FindingRef& r : finding.refs) byRole[r.role].push_back(&r);
    for (const auto& [role, refs] : byRole) {
        args.push_back(fmt::arg(keep.emplace_back(role).c_str(), listOf(refs)));
        present.insert(role);
    }
    std::string sentence;
    for (const RuleClause& clause : rule.says) {
        if (clause.unless != nullptr && present.count(clause.unless) > 0) continue;
        bool complete = true;
        for (const std::string& name : namesIn(clause.text))
            complete = complete && present.count(name) > 0;
        if (!complete) continue;
        try {
            sentence += fmt::vformat(clause.text, args);
        } catch (const fmt::format_error& e) {
            throw std::logic_error(
                fmt::format("advisor rule {}: clause \"{}\" does not fit its "
                            "finding: {}",
                            rule.id, clause.text, e.what()));
        }
    }
    return sentence;
}

const std::vector<AdvisorRule>& advisorRules() {
    namespace r = advisor_rules;
    namespace f = rule_functions;
    using S = RuleScope;
    static const std::vector<AdvisorRule> rules = {
        {r::kRepeatedPackedMetadata,
         "packed_cache",
         S::kTrace,
         "build_packed_mask repeated per layer (and recompute) beyond once per micro-batch; "
         "saving: the repeated runs' time",
         {},
         f::repeatedPackedMetadata,
         {{"{range} runs {runs_per_step} times per step in {layers_per_step} layers for "
           "{microbatches_per_step} micro-batch(es), {ms_per_step:.3f} ms per step, "
           "{avoidable_ms_per_step:.3f} ms of it beyond once per micro-batch ({sync_ops_per_run:g} "
           "sync op(s) in each {range})"}},
         "build the packed-sequence metadata (cu_seqlens, masks) once per micro-batch and reuse it "
         "in every layer"},
        {r::kRepeatedGlue,
         "",
         S::kTrace,
         "any other glue range repeated per layer: no toggle yet; saving: its avoidable time",
         {},
         f::repeatedGlue,
         {{"{range} runs {runs_per_step} times per step in {layers_per_step} layers for "
           "{microbatches_per_step} micro-batch(es), {ms_per_step:.3f} ms per step, "
           "{avoidable_ms_per_step:.3f} ms of it beyond once per micro-batch ({sync_ops_per_run:g} "
           "sync op(s) in each {range})"}},
         "compute it once per micro-batch and reuse it in every layer"},
        {r::kPerExpertRoutingReads,
         "moe_group_once",
         S::kTrace,
         "moe_routing ranges with more host-synchronizing reads per pass than grouping once "
         "needs; saving: all but the longest read per pass",
         {{"max_reads_per_pass", 2.0, "reads per routing pass grouping once costs"}},
         f::perExpertRoutingReads,
         {{"MoE routing makes {reads_per_pass:.1f} host-synchronizing reads per layer pass "
           "({reads_per_step} per step over {passes_per_step} routing passes); the reads "
           "beyond "
           "one take {avoidable_ms_per_step:.3f} ms per step here, the most grouping could save on "
           "this device: on a CPU they compute rather than wait, and the grouping's own sort costs "
           "too (measure it with an A/B); on a GPU each read also waits for the queue"}},
         "group the tokens once per pass (one stable argsort and one bincount), which needs one "
         "host read per pass"},
        {r::kBincountHiddenRead,
         "moe_sync_free",
         S::kTrace,
         "routing that counts with bincount (a host read hidden in the op); saving: the "
         "bincounts' time",
         {},
         f::bincountHiddenRead,
         {{"MoE routing counts tokens per expert with bincount, whose output size is read on "
           "the host ({bincount_ms_per_step:.3f} ms per step here)"}},
         "count with scatter_add_ on the device, which leaves one explicit read"},
        {r::kExposedReloads,
         "double_buffer",
         S::kTrace,
         "checkpoint reload copies mostly not overlapped by compute; saving: their exposed time",
         {{"max_overlap", 0.5, "share of the reloads' time compute covers, at most"}},
         f::exposedReloads,
         {{"checkpoint reloads overlap compute only {overlap_pct:.0f}% of their time; "
           "{exposed_ms_per_step:.3f} ms per step of reload copy is exposed (the copy-overlap "
           "figures count the offloads too)"}},
         "double-buffer the reloads (or prefetch them) so that they run under the previous layer's "
         "backward"},
        {r::kStageImbalance,
         "roundpipe",
         S::kTrace,
         "pipeline workers whose busy times differ; saving: makespan x (1 - mean busy / max "
         "busy)",
         {{"min_busiest_over_mean", 1.1, "the busiest worker's time over the mean, at least"}},
         f::stageImbalance,
         {{"pipeline workers are busy {mean_busy_pct:.0f}% of the busiest one on average: "
           "stages bound to workers are uneven, about {recoverable_ms_per_step:.3f} ms per step of "
           "the makespan"}},
         "deal the stages to the workers round-robin (RoundPipe)"},
        {r::kRepeatedHostSyncs,
         "",
         S::kTrace,
         "(GPU traces) one op blocking the host many times per step; moe_group_once inside a "
         "routing range, packed_cache inside a mask range; saving: its blocked time beyond one "
         "per step",
         {{"min_per_step", 4.0, "syncs of one op and range per step"}},
         f::repeatedHostSyncs,
         {{"{op} blocks the host {per_step} times per step"},
          {" inside {range}"},
          {", {ms_per_step:.3f} ms per step"},
          {", most often waiting for {awaited}"},
          {", most often waiting for no launched device work", "awaited"}},
         "read the values once per step (one grouped read of a stacked tensor, one .tolist())"},
        {r::kRepeatedWouldSyncs,
         "",
         S::kTrace,
         "(traces without host syncs) one op that blocks on a GPU issued many times per step "
         "from one range; saving: those ops' time beyond one per step",
         {{"min_per_step", 4.0, "ops of one name and range per step"}},
         f::repeatedWouldSyncs,
         {{"{op} is issued {per_step} times per step inside {range}"},
          {"{op} is issued {per_step} times per step outside any range", "range"},
          {", {ms_per_step:.3f} ms per step"},
          {": {optimizer} reads each parameter's step count (a CPU tensor: no wait for the device, "
           "but host time each)"},
          {": each reads a value back to the host, which on a GPU waits for the device",
           "optimizer"}},
         "read the values once per step (one .tolist() or one copy of a stacked tensor), or keep "
         "them on the device"},
        {r::kPerLayerGlue,
         "",
         S::kTrace,
         "the ops every layer of a profiled model issues besides its math; saving: their "
         "shape/copy time beyond one layer's",
         {{"min_share", 0.10, "of the layers' host time"}},
         f::perLayerGlue,
         {{"each of {layers_per_step} layers ({layer}) issues per step, besides its math: "
           "shape/copy ops "},
          {"{shape_copy_op}"},
          {"none", "shape_copy_op"},
          {", ... ({shape_copy_ops_more} more)"},
          {"; elementwise ops "},
          {"{elementwise_op}"},
          {"none", "elementwise_op"},
          {", ... ({elementwise_ops_more} more)"},
          {"; {glue_ms_per_step:.3f} of the layers' {layers_ms_per_step:.3f} ms per step of host "
           "time, {shape_copy_ms_per_step:.3f} ms of it shape/copy"}},
         "compute what does not depend on the layer's input (position ids, masks, rotary tables, "
         "casts) once per step before the layers (the saving counts only the shape/copy ops, as if "
         "all of them were), and fuse the elementwise rest (torch.compile on the layer, fused "
         "rotary / norm kernels)"},
        {r::kBlockingAllReduces,
         "ddp_overlap",
         S::kTrace,
         "gradient all-reduces each blocking the trainer; saving: the exposed communication",
         {{"min_per_step", 2.0, "all-reduces per step"},
          {"min_exposed_share", 0.05, "of the step, exposed communication"}},
         f::blockingAllReduces,
         {{"{all_reduces_per_step} blocking gradient all-reduces per step expose "
           "{exposed_ms_per_step:.3f} ms of communication ({exposed_pct:.0f}% of the step)"}},
         "bucket the gradients and start each bucket's all-reduce during backward (ddp_overlap), "
         "which can hide up to all of it"},
        {r::kLaunchBound,
         "",
         S::kDevice,
         "the whole GPU idle, mostly waiting for the host's launches while the host is in torch "
         "ops or runtime calls, short kernels; saving: the host-wait idle",
         {{"min_idle_share", 0.3, "of the GPU's span, whole-GPU idle"},
          {"min_host_wait_share", 0.5, "of that idle, HTA's host wait"},
          {"min_short_kernel_share", 0.5, "of the kernels, under 10 us"},
          {"min_host_busy_share", 0.5, "of the idle, the host in torch ops or runtime calls"}},
         f::launchBound,
         {{"the GPU is idle {idle_pct:.0f}% of its {span_ms:.3f} ms span, {host_wait_ms:.3f} ms "
           "of it ({host_wait_pct:.0f}% of the idle) waiting for the host to launch the next "
           "kernel "
           "(HTA's host wait) while the host is in torch ops or runtime calls {host_busy_pct:.0f}% "
           "of that idle time; {short_kernels} of {kernels} kernels run under 10 us"},
          {"; {launch_calls} launch calls take {launch_call_ms:.3f} ms of host time"},
          {": the step is launch-bound"},
          {"; over the measured steps, the GPU's idle while the host launched was spent in "
           "{host_site}"}},
         "capture the step in a CUDA graph (torch.compile with mode=\"reduce-overhead\", or "
         "torch.cuda.graphs), fuse small ops (torch.compile), or give each launch more work "
         "(larger batches); at most the host-wait idle is saved",
         {StepCause::kQueued, StepCause::kLaunch, StepCause::kHostOutsideTorch},
         true},
        {r::kHostBoundOps,
         "",
         S::kDevice,
         "the GPU idle while the host is inside torch ops, with kernels that are not short; "
         "saving: that idle",
         {{"min_share", 0.3, "of the mean measured step, that idle"},
          {"max_short_kernel_share", 0.5, "of the kernels, under 10 us (else launch_bound)"}},
         f::hostBoundOps,
         {{"the GPU idles {idle_ms_per_step:.3f} ms per step ({idle_pct:.0f}% of the step) while "
           "the host is inside torch ops or runtime calls, and the kernels are not short "
           "({short_pct:.0f}% under 10 us): the step waits on the host's own work in its ops"},
          {"; the host was in {host_site}"}},
         "make the host's work in those ops cheaper or take it off the step: CPU-side tensor work "
         "and Python loops onto the GPU or out of the loop (precompute, cache), per-step setup "
         "(broadcasts, tokenization, .cpu() conversions) out of the step, fewer and larger ops",
         {StepCause::kLaunch},
         true},
        {r::kExposedCommunication,
         "",
         S::kDevice,
         "communication kernels with no computation beside them; saving: the exposed time",
         {{"min_exposed_share", 0.05, "of the GPU timeline"}},
         f::exposedCommunication,
         {{"communication kernels run {comm_ms:.3f} ms, {exposed_ms:.3f} ms of it "
           "({exposed_of_comm_pct:.0f}%) with no computation beside it: "
           "{exposed_of_timeline_pct:.0f}% of the GPU timeline"},
          {" (HTA's comm/compute overlap {hta_overlap_pct:.1f}%)"}},
         "overlap it with the backward pass: DDP's bucket_cap_mb (smaller buckets start sooner), "
         "gradient_as_bucket_view=True, static_graph=True; with gradient accumulation, "
         "model.no_sync() on all but the last micro-step; FSDP's backward_prefetch",
         {StepCause::kCommunication, StepCause::kCommWait}},
        {r::kPageableCopies,
         "",
         S::kDevice,
         "copies to or from pageable host memory in measured steps, by the op that issues them; "
         "saving: the host time in those calls from each copy's start",
         {},
         f::pageableCopies,
         {{"copies to or from pageable host memory, {copies_per_step} per step, hold the host "
           "{call_ms_per_step:.3f} ms per step in their calls while they copy (a pageable copy "
           "holds the host until it is done), issued by {issuer}"}},
         "pin the host side (DataLoader(pin_memory=True), tensor.pin_memory()) and copy with "
         "non_blocking=True; a read back (.item(), .cpu(), .tolist(), boolean-mask indexing, "
         "nonzero) can move out of the step or be batched into one",
         {}},
        {r::kSyncStalls,
         "",
         S::kDevice,
         "host syncs in measured steps after which the whole GPU is idle until the next launch; "
         "saving: that idle",
         {{"min_idle_share", 0.05, "of the measured steps' time"}},
         f::syncStalls,
         {{"host syncs, {syncs_per_step} per step ({sync_op}), block the host "
           "{blocked_ms_per_step:.3f} ms per step, and after them the whole GPU sits idle "
           "{idle_ms_per_step:.3f} ms per step ({idle_pct:.0f}% of step time) until the host "
           "launches again: a read of a device value (.item(), an if or bool() on a tensor, "
           ".cpu(), "
           ".tolist(), nonzero, boolean-mask indexing) or a synchronize empties the GPU's queue"}},
         "keep the value on the GPU (torch.where instead of a Python if), read it once the step's "
         "work is queued or every N steps (log the loss every N steps), or copy it with "
         "non_blocking=True into pinned memory and read it later; at most the idle after the syncs "
         "is saved",
         {StepCause::kSyncWait, StepCause::kLaunch, StepCause::kHostOutsideTorch},
         true},
        {r::kElementwiseFusion,
         "",
         S::kDevice,
         "many short elementwise kernels; saving: the short gaps before them, GPU idle",
         {{"min_kernel_share", 0.2, "of kernel time, elementwise"},
          {"min_per_step", 10.0, "elementwise kernels per step"}},
         f::elementwiseFusion,
         {{"{kernels_per_step} elementwise kernels per step take {kernel_share_pct:.0f}% of "
           "kernel time ({ms_per_step:.3f} ms per step), with {gap_ms_per_step:.3f} ms per step of "
           "short launch gaps before them (the GPU idle)"}},
         "fuse them (torch.compile fuses chains of pointwise ops into one kernel; fused "
         "optimizers: "
         "fused=True); at most the gaps are saved",
         {StepCause::kQueued, StepCause::kLaunch, StepCause::kHostOutsideTorch}},
        {r::kAllocatorChurn,
         "",
         S::kDevice,
         "cudaMalloc/cudaFree calls in the measured steps after the first; saving: their host "
         "time",
         {},
         f::allocatorChurn,
         {{"the CUDA caching allocator calls the driver in steady-state steps ({call} per step, "
           "the first measured step left out), {ms_per_step:.3f} ms per step of host time "
           "(cudaFree also waits for the device)"}},
         "keep tensor shapes steady (pad variable lengths to a few buckets), drop "
         "torch.cuda.empty_cache() from the loop, try "
         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
         {}},
        {r::kDataLoaderStall,
         "",
         S::kDevice,
         "the GPU idle at each step's start while the host runs no torch op; saving: that idle",
         {{"min_stalled_share", 0.1, "of the measured steps' time"}},
         f::dataLoaderStall,
         {{"each step begins with the GPU idle while the host runs no torch op (median "
           "{median_stall_ms:.3f} ms, {stalled_pct:.0f}% of step time): the step waits for its "
           "input"}},
         "load ahead of the step: DataLoader(num_workers=N, pin_memory=True, prefetch_factor=2, "
         "persistent_workers=True), and keep tokenization or collation out of the loop",
         {StepCause::kData},
         true},
        {r::kHostOutsideTorch,
         "",
         S::kDevice,
         "the GPU idle inside steps after their first device work while no host thread runs a "
         "torch op; saving: that idle",
         {{"min_share", 0.3, "of a measured step (median), that idle"}},
         f::hostOutsideTorch,
         {{"after each step's first device work the GPU is idle {idle_ms_per_step:.3f} ms per "
           "step ({idle_pct:.0f}% of step time; {median_step_pct:.0f}% in the median step of "
           "{steps}) while no host thread runs a torch op or runtime call: the step's time "
           "goes to host code"},
          {" the trace does not show (Python between ops, data preparation on the main thread, "
           "logging, checkpointing, waits on I/O or other processes)",
           "frame"},
          {", most of it in {frame}"}},
         "find it with torch.profiler(with_stack=True) or py-spy, then take it off the step "
         "(DataLoader workers, asynchronous logging, fewer checkpoints) or overlap it with the "
         "device's work",
         {StepCause::kHostOutsideTorch},
         true},
        {r::kCrossStreamWaits,
         "",
         S::kDevice,
         "the whole GPU's idle mostly HTA's other idle (waits on other streams, events); saving: "
         "that idle",
         {{"min_other_share", 0.5, "of the whole-GPU idle, HTA's other idle"},
          {"min_span_share", 0.1, "of the GPU's span, that idle"}},
         f::crossStreamWaits,
         {{"{other_pct:.0f}% of the time the whole GPU is idle ({other_ms:.3f} ms) is neither "
           "launch latency nor host wait but waits on other streams or events ({stream_waits} "
           "stream waits in the trace; streams mostly waiting so: "},
          {"{stream}"},
          {"none", "stream"},
          {"): the streams serialize"}},
         "check what each side stream waits for (a copy or NCCL stream gated on the compute "
         "stream), record events only where the data is needed, and overlap independent work",
         {StepCause::kQueued, StepCause::kSyncWait, StepCause::kHostOutsideTorch,
          StepCause::kUnattributed}},
        {r::kWarmupInProfile,
         "",
         S::kDevice,
         "long runtime calls that are no wait (first-call costs) in the measured steps; saving: "
         "those calls' time",
         {{"min_call_ms", 1.0, "a call's duration"},
          {"min_share", 0.1, "of the measured steps' time"}},
         f::warmupInProfile,
         {{"runtime calls that take {min_call_ms:g} ms or more without waiting for the device "
           "({slow_calls} of them: {call}) take {slow_ms:.3f} ms, {slow_pct:.0f}% of the "
           "measured steps' time"},
          {"; the longest launch ({longest_launch_ms:.3f} ms) launched {launched}"},
          {": first-call costs (CUDA context creation, lazy module loading, cuBLAS/cuDNN setup, "
           "autotuning). The profile holds warm-up, and the other figures describe warm-up, not "
           "training"}},
         "profile steady-state steps (torch.profiler.schedule(wait=1, warmup=2, active=3); with "
         "Nsight Systems, --capture-range=cudaProfilerApi around later iterations; or skip the "
         "first iterations)",
         {StepCause::kSetupCall, StepCause::kLaunch}},
        {r::kJitCompile,
         "",
         S::kTrace,
         "JIT compilation (NVRTC, nvFuser, TorchDynamo/Inductor, Triton's compiler and autotuner) "
         "inside the measured steps; saving: the compile time",
         {{"min_share", 0.05, "of the measured steps' time"}},
         f::jitCompile,
         {{"the host compiles code {compile_ms_per_step:.3f} ms per step ({compile_pct:.0f}% of "
           "the measured steps' time)"},
          {" in {compile}"},
          {": JIT compilation inside the profiled steps, which are not steady state while it "
           "runs"}},
         "profile after compilation (run the compiled step before the profiler's active steps: "
         "torch.profiler.schedule(warmup=...)), and cache it across runs "
         "(TORCHINDUCTOR_FX_GRAPH_CACHE=1, Triton's and nvFuser's kernel caches); where it "
         "recompiles every few steps, mark the changing sizes dynamic "
         "(torch._dynamo.mark_dynamic) or pad them to a few buckets",
         {StepCause::kCompile}},
        {r::kFp32Gemms,
         "",
         S::kDevice,
         "FP32 GEMMs on the FP32 units of a GPU with tensor cores; saving: their time x (1 - FP32 "
         "peak / tensor-core peak)",
         {{"min_kernel_share", 0.1, "of kernel time, FP32 GEMMs"}},
         f::fp32Gemms,
         {{"{gemms_per_step} FP32 GEMM kernels per step ({kernel}) run {gemm_ms_per_step:.3f} ms "
           "per step, {gemm_share_pct:.0f}% of kernel time, on the FP32 units of {gpu}, whose "
           "tensor cores' peak in {mode} is {speedup:.1f}x its FP32 peak: at most that share of "
           "their time is saved (less where a GEMM is too small to be bound by its math)"}},
         "let matmuls use the tensor cores: torch.backends.cuda.matmul.allow_tf32 = True "
         "(torch.set_float32_matmul_precision(\"high\")) and torch.backends.cudnn.allow_tf32 = "
         "True, or train under torch.autocast(\"cuda\", dtype=torch.bfloat16)",
         {StepCause::kCompute}},
        {r::kSerializedStreams,
         "",
         S::kDevice,
         "streams of one GPU, each busy a share of the steps, that run one after another; "
         "saving: all but the busiest stream's time",
         {{"min_stream_share", 0.05, "of the measured steps' time, each stream busy"},
          {"max_overlap_share", 0.05, "of the other streams' busy time, overlapped"}},
         f::serializedStreams,
         {{"{streams} streams ({stream}) are busy {busy_ms_per_step:.3f} ms per step together "
           "and overlap {overlap_pct:.0f}% of the time they could: they run one after another"}},
         "find what orders them (a cudaStreamWaitEvent / stream.wait_stream, a synchronize, or "
         "a copy from pageable memory between them): issue independent work without a wait, "
         "and copies with non_blocking=True from pinned memory",
         {StepCause::kCompute, StepCause::kCommunication, StepCause::kCopy, StepCause::kMemset}},
        {r::kDataOnStepThread,
         "",
         S::kTrace,
         "(CPU runs) the step's thread loading its data (the DataLoader's fetch, a data range); "
         "saving: that time",
         {{"min_share", 0.1, "of the mean measured step"}},
         f::dataOnStepThread,
         {{"the step's thread ({thread}) loads its data {data_ms_per_step:.3f} ms per step "
           "({data_pct:.0f}% of the step): the model waits for its input on the thread that "
           "runs it"}},
         "load in worker processes ahead of the step: DataLoader(num_workers=N, "
         "persistent_workers=True, prefetch_factor=2), and move tokenization or collation into "
         "the dataset (its workers run it) or precompute it"},
    };
    return rules;
}

const AdvisorRule* findAdvisorRule(std::string_view id) {
    for (const AdvisorRule& rule : advisorRules()) {
        if (id == rule.id) return &rule;
    }
    return nullptr;
}

std::string toggleForAdvisorRule(std::string_view rule) {
    const AdvisorRule* found = findAdvisorRule(rule);
    return found != nullptr ? found->toggle : "";
}

}  // namespace glueprof

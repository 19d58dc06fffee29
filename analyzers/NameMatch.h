#pragma once
// Matching the names in a trace (kernels, ranges, calls) by parts, case-insensitively: what the
// kernel classes, the kernel categories and the advisor's rules all look for.
#include <initializer_list>
#include <string>

namespace glueprof {

std::string lowerCased(const std::string& text);  // ASCII letters only
// TEXT holds any of PARTS, case-insensitively (the parts are lower-case).
bool containsAny(const std::string& text, std::initializer_list<const char*> parts);
// A runtime or driver call that launches a kernel (cudaLaunchKernel, cuLaunchKernelEx, ...).
bool isKernelLaunchCall(const std::string& name);
// A call that waits for the device by design (a sync, a blocking copy or memset, a query, a wait).
bool isWaitingCall(const std::string& name);
// A range, Python frame or call that compiles code at run time: NVRTC, nvFuser's compileFusion,
// TorchDynamo's frame conversion, TorchInductor's code generation, Triton's compiler and
// autotuner.
bool isJitCompileName(const std::string& name);
// A range of a Mixture-of-Experts layer's routing: one naming a router, experts or MoE (the
// trainer's `moe_routing`, a profiled model's `MoE block: CLASS`, Kineto's `nn.Module:
// SwitchMoE_1`).
bool isMoeRangeName(const std::string& name);
// A Kineto module frame without its instance number ("nn.Module: SwitchMoE_1" -> "nn.Module:
// SwitchMoE"): the same module of every layer is one name.
std::string withoutModuleInstance(const std::string& name);

}  // namespace glueprof

#pragma once
// How a CUDA/HIP runtime or driver call is named in a trace: CUPTI and Nsight may add the
// per-thread default-stream suffix (_ptsz, _ptds) and a version suffix (_v7000):
// `cudaStreamSynchronize_ptsz_v7000` is a `cudaStreamSynchronize`. The one place that says so,
// for the importer and the analyzers alike.
#include <initializer_list>
#include <string_view>

namespace glueprof {

// NAME is CALL, optionally followed by _ptsz or _ptds and then by _v<version>.
bool isRuntimeCallNamed(std::string_view name, std::string_view call);
// NAME without its version suffix, the API version CUPTI traced: `cudaLaunchKernel_v7000` ->
// `cudaLaunchKernel` (Nsight's names, stored as Kineto writes them).
std::string_view withoutApiVersion(std::string_view name);
// NAME without its version suffix (_v7000) and then its per-thread suffix (_ptsz, _ptds):
// `cudaStreamSynchronize_ptsz_v7000` -> `cudaStreamSynchronize`.
std::string_view runtimeCallBaseName(std::string_view name);
// NAME is any of CALLS, as isRuntimeCallNamed reads them.
bool isAnyRuntimeCall(std::string_view name, std::initializer_list<const char*> calls);

}  // namespace glueprof

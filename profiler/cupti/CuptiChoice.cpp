#include "profiler/cupti/CuptiChoice.h"

#include <fmt/format.h>

#include <algorithm>

namespace glueprof::cupti {

const char* toString(CandidateOrigin origin) {
    switch (origin) {
        case CandidateOrigin::kExplicit:
            return "GLUEPROF_CUPTI_PATH";
        case CandidateOrigin::kAlreadyLoaded:
            return "already loaded";
        case CandidateOrigin::kTorchWheel:
            return "torch's wheel";
        case CandidateOrigin::kToolkit:
            return "CUDA toolkit";
        case CandidateOrigin::kLoaderPath:
            return "loader path";
    }
    return "unknown";
}

namespace {

class CandidateList {
  public:
    void add(const std::string& path, CandidateOrigin origin) {
        const bool seen = std::any_of(m_list.begin(), m_list.end(),
                                      [&](const CuptiCandidate& c) { return c.path == path; });
        if (!path.empty() && !seen) m_list.push_back(CuptiCandidate{path, origin});
    }
    std::vector<CuptiCandidate> take() { return std::move(m_list); }

  private:
    std::vector<CuptiCandidate> m_list;
};

constexpr const char* kVersionedNames[] = {"libcupti.so.13", "libcupti.so.12"};

void addToolkit(CandidateList& list, const std::string& root) {
    if (root.empty()) return;
    const char* dirs[] = {"/lib64", "/extras/CUPTI/lib64", "/targets/x86_64-linux/lib",
                          "/targets/sbsa-linux/lib", "/lib"};
    for (const char* dir : dirs) {
        for (const char* name : kVersionedNames) {
            list.add(fmt::format("{}{}/{}", root, dir, name), CandidateOrigin::kToolkit);
        }
    }
    for (const char* dir : dirs) {
        list.add(fmt::format("{}{}/libcupti.so", root, dir), CandidateOrigin::kToolkit);
    }
}

}  // namespace

std::vector<CuptiCandidate> cuptiCandidates(const CuptiSources& sources) {
    CandidateList list;
    if (!sources.explicitPath.empty()) {
        list.add(sources.explicitPath, CandidateOrigin::kExplicit);
        return list.take();
    }
    for (const std::string& path : sources.alreadyLoaded) {
        list.add(path, CandidateOrigin::kAlreadyLoaded);
    }
    if (!sources.torchDir.empty()) {
        // torch/lib sits in site-packages; NVIDIA's wheels are site-packages/nvidia/...: CUDA 13's
        // in one nvidia/cu13/lib, CUDA 12's per component (nvidia/cuda_cupti/lib).
        const std::string nvidia = sources.torchDir + "/../../nvidia";
        for (const char* name : kVersionedNames) {
            list.add(nvidia + "/cu13/lib/" + name, CandidateOrigin::kTorchWheel);
            list.add(nvidia + "/cuda_cupti/lib/" + name, CandidateOrigin::kTorchWheel);
        }
        list.add(sources.torchDir + "/libcupti.so", CandidateOrigin::kTorchWheel);
    }
    addToolkit(list, sources.cudaHome);
    addToolkit(list, "/usr/local/cuda");
    for (const char* name : kVersionedNames) list.add(name, CandidateOrigin::kLoaderPath);
    list.add("libcupti.so", CandidateOrigin::kLoaderPath);
    return list.take();
}

std::string cuptiVersionRefusal(std::uint32_t apiVersion, const std::string& path) {
    if (apiVersion >= kOldestCuptiApiVersion) return "";
    return fmt::format(
        "{} is CUPTI API {}, older than CUDA 12.0's (API {}), the oldest glueprof reads: use the "
        "CUPTI of a CUDA 12 or 13 toolkit or torch wheel (GLUEPROF_CUPTI_PATH names one)",
        path, apiVersion, kOldestCuptiApiVersion);
}

std::string otherCuptiClient(const std::function<std::string(const char* name)>& getenv) {
    if (const std::string injected = getenv("CUDA_INJECTION64_PATH"); !injected.empty()) {
        return fmt::format(
            "another profiler owns CUPTI in this process (CUDA_INJECTION64_PATH={}, e.g. Nsight "
            "Systems): GPU capture stays off; profile with one tool at a time",
            injected);
    }
    if (const std::string daemon = getenv("KINETO_USE_DAEMON"); !daemon.empty() && daemon != "0") {
        return "Kineto's daemon mode (KINETO_USE_DAEMON) may take CUPTI at any time: GPU capture "
               "stays off; unset KINETO_USE_DAEMON to capture with glueprof";
    }
    return "";
}

std::string nvtxInjectionNote(const std::string& current, const std::string& cuptiPath) {
    // Not set by default: the trainer has no other NVTX producer, and injecting CUPTI would route
    // glueprof's own ranges through it at a cost for nothing.
    if (current.empty()) {
        return fmt::format(
            "NVTX of other code is not captured (glueprof's own ranges are host ranges); "
            "NVTX_INJECTION64_PATH={} captures it",
            cuptiPath);
    }
    if (current == cuptiPath) return "";
    return fmt::format(
        "NVTX of other code goes to NVTX_INJECTION64_PATH={}, not to CUPTI: only glueprof's own "
        "ranges are recorded",
        current);
}

}  // namespace glueprof::cupti

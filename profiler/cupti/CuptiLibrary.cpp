#include "profiler/cupti/CuptiLibrary.h"

#include <dlfcn.h>
#include <link.h>

#include <fmt/format.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "profiler/cupti/LoadedLibrary.h"

namespace glueprof::cupti {

namespace {

// The directory of a CUDA libtorch already loaded in this process (libc10_cuda.so), or "".
std::string cudaTorchDir() {
    void* handle = dlopen("libc10_cuda.so", RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) return "";
    char origin[PATH_MAX] = {};
    const bool found = dlinfo(handle, RTLD_DI_ORIGIN, origin) == 0;
    dlclose(handle);
    return found ? std::string(origin) : std::string();
}

template <typename F>
bool resolve(void* handle, const char* name, F& slot, std::string& missing) {
    slot = reinterpret_cast<F>(dlsym(handle, name));
    if (slot == nullptr && missing.empty()) missing = name;
    return slot != nullptr;
}

std::string environmentValue(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

}  // namespace

CuptiSources CuptiLibrary::sources() {
    CuptiSources s;
    s.explicitPath = environmentValue("GLUEPROF_CUPTI_PATH");
    for (const char* name : {"libcupti.so.13", "libcupti.so.12"}) {
        if (std::string path = loadedLibraryPath(name); !path.empty()) {
            s.alreadyLoaded.push_back(path);
        }
    }
    s.torchDir = cudaTorchDir();
    s.cudaHome = environmentValue("CUDA_HOME");
    return s;
}

std::vector<CuptiCandidate> CuptiLibrary::candidates() { return cuptiCandidates(sources()); }

CuptiLibrary CuptiLibrary::load() {
    CuptiLibrary lib;
    const char* explicitPath = std::getenv("GLUEPROF_CUPTI_PATH");
    if (explicitPath != nullptr && *explicitPath == '\0') explicitPath = nullptr;
    std::string lastError;
    for (const CuptiCandidate& candidate : candidates()) {
        const std::string& path = candidate.path;
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* error = dlerror();
            lastError = error != nullptr ? error : "unknown error";
            continue;
        }
        std::string missing;
        CuptiFunctions& f = lib.m_fn;
        resolve(handle, "cuptiGetVersion", f.getVersion, missing);
        resolve(handle, "cuptiGetResultString", f.getResultString, missing);
        resolve(handle, "cuptiActivityEnable", f.activityEnable, missing);
        resolve(handle, "cuptiActivityDisable", f.activityDisable, missing);
        resolve(handle, "cuptiActivityRegisterCallbacks", f.activityRegisterCallbacks, missing);
        resolve(handle, "cuptiActivityFlushAll", f.activityFlushAll, missing);
        resolve(handle, "cuptiActivityGetNextRecord", f.activityGetNextRecord, missing);
        resolve(handle, "cuptiActivityGetNumDroppedRecords", f.activityGetNumDroppedRecords,
                missing);
        resolve(handle, "cuptiGetTimestamp", f.getTimestamp, missing);
        resolve(handle, "cuptiActivityPushExternalCorrelationId", f.pushExternalCorrelationId,
                missing);
        resolve(handle, "cuptiActivityPopExternalCorrelationId", f.popExternalCorrelationId,
                missing);
        resolve(handle, "cuptiGetCallbackName", f.getCallbackName, missing);
        resolve(handle, "cuptiSetThreadIdType", f.setThreadIdType, missing);
        resolve(handle, "cuptiFinalize", f.finalize, missing);
        if (!missing.empty()) {
            lastError = fmt::format("{} lacks {} (too old a CUPTI)", path, missing);
            dlclose(handle);
            lib.m_fn = {};
            continue;
        }
        std::uint32_t version = 0;
        if (const CUptiResult result = f.getVersion(&version); result != CUPTI_SUCCESS) {
            lastError =
                fmt::format("{}: cuptiGetVersion failed ({})", path, static_cast<int>(result));
            dlclose(handle);
            lib.m_fn = {};
            continue;
        }
        if (std::string refusal = cuptiVersionRefusal(version, path); !refusal.empty()) {
            // Too old to read: try the next candidate; the same gate serves `doctor` and the run.
            lastError = std::move(refusal);
            lib.m_tooOld = true;
            dlclose(handle);
            lib.m_fn = {};
            continue;
        }
        lib.m_handle = handle;
        lib.m_path = std::filesystem::path(path).lexically_normal().string();
        lib.m_origin = candidate.origin;
        lib.m_version = version;
        lib.m_tooOld = false;
        return lib;
    }
    lib.m_error =
        lib.m_tooOld ? lastError
        : explicitPath != nullptr
            ? fmt::format(
                  "GLUEPROF_CUPTI_PATH={} cannot be loaded ({}): point it at libcupti.so of the "
                  "CUDA toolkit (e.g. /usr/local/cuda/lib64/libcupti.so) or unset it",
                  explicitPath, lastError)
            : fmt::format(
                  "libcupti not found ({}): install the CUDA toolkit's CUPTI, or set "
                  "GLUEPROF_CUPTI_PATH or CUDA_HOME",
                  lastError);
    return lib;
}

CuptiLibrary::CuptiLibrary(CuptiLibrary&& other) noexcept { *this = std::move(other); }

CuptiLibrary& CuptiLibrary::operator=(CuptiLibrary&& other) noexcept {
    if (this != &other) {
        if (m_handle != nullptr) dlclose(m_handle);
        m_handle = std::exchange(other.m_handle, nullptr);
        m_path = std::move(other.m_path);
        m_error = std::move(other.m_error);
        m_origin = other.m_origin;
        m_version = other.m_version;
        m_tooOld = other.m_tooOld;
        m_fn = std::exchange(other.m_fn, {});
    }
    return *this;
}

// CUPTI cannot be unloaded safely once it has attached to a CUDA context; only a library that never
// got that far (here: the handle is kept for the process's lifetime after a session started) is
// closed.
CuptiLibrary::~CuptiLibrary() = default;

std::string CuptiLibrary::describe(CUptiResult result) const {
    const char* text = nullptr;
    if (m_fn.getResultString != nullptr && m_fn.getResultString(result, &text) == CUPTI_SUCCESS &&
        text != nullptr) {
        return text;
    }
    return fmt::format("CUPTI result {}", static_cast<int>(result));
}

}  // namespace glueprof::cupti

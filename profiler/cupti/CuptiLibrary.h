#pragma once
// libcupti, loaded at run time (dlopen), so glueprof's binaries run where it is absent. Search
// order: $GLUEPROF_CUPTI_PATH (used alone when set: a bad path is an error, not a fallback),
// $CUDA_HOME's lib64 / extras/CUPTI/lib64 / lib, /usr/local/cuda's, the directory of a loaded CUDA
// libtorch (and the pip wheel's nvidia/cuda_cupti/lib beside it), then the loader path. Only
// profiler/cupti includes cupti.h.
#include <cupti.h>

#include <string>
#include <vector>

namespace glueprof::cupti {

struct CuptiFunctions {
    decltype(&cuptiGetVersion) getVersion = nullptr;
    decltype(&cuptiGetResultString) getResultString = nullptr;
    decltype(&cuptiActivityEnable) activityEnable = nullptr;
    decltype(&cuptiActivityDisable) activityDisable = nullptr;
    decltype(&cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
    decltype(&cuptiActivityFlushAll) activityFlushAll = nullptr;
    decltype(&cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
    decltype(&cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
    decltype(&cuptiGetTimestamp) getTimestamp = nullptr;
    decltype(&cuptiActivityPushExternalCorrelationId) pushExternalCorrelationId = nullptr;
    decltype(&cuptiActivityPopExternalCorrelationId) popExternalCorrelationId = nullptr;
    decltype(&cuptiGetCallbackName) getCallbackName = nullptr;
    decltype(&cuptiSetThreadIdType) setThreadIdType = nullptr;
    decltype(&cuptiFinalize) finalize = nullptr;
};

class CuptiLibrary {
  public:
    // Loads libcupti and resolves every function; on failure ok() is false and error() says why and
    // what to do (one line).
    static CuptiLibrary load();
    // The paths load() tries, in order (GLUEPROF_CUPTI_PATH alone when it is set).
    static std::vector<std::string> candidates();

    CuptiLibrary(CuptiLibrary&& other) noexcept;
    CuptiLibrary& operator=(CuptiLibrary&& other) noexcept;
    CuptiLibrary(const CuptiLibrary&) = delete;
    CuptiLibrary& operator=(const CuptiLibrary&) = delete;
    ~CuptiLibrary();

    bool ok() const { return m_handle != nullptr; }
    const std::string& error() const { return m_error; }
    const std::string& path() const { return m_path; }
    const CuptiFunctions& fn() const { return m_fn; }
    // Why the NVIDIA driver (libcuda.so.1) cannot be loaded, with what to do; "" when it can.
    static std::string missingDriverReason();
    // CUPTI's text for a result code ("CUPTI_ERROR_..."), or the number when the library is absent.
    std::string describe(CUptiResult result) const;

  private:
    CuptiLibrary() = default;
    void* m_handle = nullptr;
    std::string m_path;
    std::string m_error;
    CuptiFunctions m_fn;
};

}  // namespace glueprof::cupti

#pragma once
// libcupti, loaded at run time (dlopen), so glueprof's binaries run where it is absent. The search
// order and the version gate are CuptiChoice's (pure, tested): $GLUEPROF_CUPTI_PATH alone when set;
// else a libcupti the process already loaded, the wheels beside a loaded CUDA libtorch, the
// toolkits' versioned libraries, the loader path. A candidate older than CUDA 12.0's CUPTI is
// skipped with the reason. Only profiler/cupti includes cupti.h.
#include <cupti.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/cupti/CuptiChoice.h"

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
    // Loads the first candidate that resolves every function and passes the version gate; on
    // failure ok() is false and error() says why and what to do (one line).
    static CuptiLibrary load();
    // What this process can see (environment, libraries already loaded, a CUDA libtorch).
    static CuptiSources sources();
    // The candidates load() tries, in order (cuptiCandidates of sources()).
    static std::vector<CuptiCandidate> candidates();

    CuptiLibrary(CuptiLibrary&& other) noexcept;
    CuptiLibrary& operator=(CuptiLibrary&& other) noexcept;
    CuptiLibrary(const CuptiLibrary&) = delete;
    CuptiLibrary& operator=(const CuptiLibrary&) = delete;
    ~CuptiLibrary();

    bool ok() const { return m_handle != nullptr; }
    const std::string& error() const { return m_error; }
    const std::string& path() const { return m_path; }
    CandidateOrigin origin() const { return m_origin; }
    std::uint32_t version() const { return m_version; }  // cuptiGetVersion
    bool tooOld() const { return m_tooOld; }  // not ok(): every CUPTI found predates CUDA 12.0
    const CuptiFunctions& fn() const { return m_fn; }
    // CUPTI's text for a result code ("CUPTI_ERROR_..."), or the number when the library is absent.
    std::string describe(CUptiResult result) const;

  private:
    CuptiLibrary() = default;
    void* m_handle = nullptr;
    std::string m_path;
    std::string m_error;
    CandidateOrigin m_origin = CandidateOrigin::kLoaderPath;
    std::uint32_t m_version = 0;
    bool m_tooOld = false;
    CuptiFunctions m_fn;
};

}  // namespace glueprof::cupti

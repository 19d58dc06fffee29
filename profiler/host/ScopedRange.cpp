#include "profiler/host/ScopedRange.h"

#include <string>

#if GLUEPROF_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace glueprof {

namespace {
std::int32_t inherit(std::int32_t own, std::int32_t outer) { return own != kNoTag ? own : outer; }

#if GLUEPROF_HAVE_NVTX
// glueprof's ranges go to their own NVTX domain: Nsight groups them, and glueprof's CUPTI capture
// skips them (they are already host ranges) while keeping other code's NVTX ranges.
nvtxDomainHandle_t glueprofDomain() {
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA("glueprof");
    return domain;
}
#endif
}  // namespace

ScopedRange::ScopedRange(HostTracer* tracer, std::string_view name, Category category, Tags tags)
    : m_tracer(tracer), m_category(category) {
    if (m_tracer == nullptr) return;
    m_outerTags = HostTracer::currentTags();
    m_name = m_tracer->intern(name);
    const bool phase = category == Category::kPhase;
    m_tags = Tags{inherit(tags.step, m_outerTags.step), inherit(tags.layer, m_outerTags.layer),
                  inherit(tags.microbatch, m_outerTags.microbatch),
                  phase ? m_outerTags.category : category,
                  phase ? m_outerTags.glueRange : (category == Category::kGlue ? m_name : 0)};
    HostTracer::setCurrentTags(m_tags);
#if GLUEPROF_HAVE_NVTX
    const std::string text(name);
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = text.c_str();
    nvtxDomainRangePushEx(glueprofDomain(), &attributes);
#endif
    m_startNs = Clock::nowNs();
}

ScopedRange::~ScopedRange() {
    if (m_tracer == nullptr) return;
    Event event;
    event.kind = EventKind::kRange;
    event.category = m_category;
    event.name = m_name;
    event.startNs = m_startNs;
    event.endNs = Clock::nowNs();
#if GLUEPROF_HAVE_NVTX
    nvtxDomainRangePop(glueprofDomain());
#endif
    event.step = m_tags.step;
    event.layer = m_tags.layer;
    event.microbatch = m_tags.microbatch;
    m_tracer->record(event);
    HostTracer::setCurrentTags(m_outerTags);
}

}  // namespace glueprof

namespace glueprof {
bool nvtxEnabled() {
#if GLUEPROF_HAVE_NVTX
    return true;
#else
    return false;
#endif
}
}  // namespace glueprof

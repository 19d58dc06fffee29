#pragma once
// The record layouts glueprof reads. CUPTI hands out records in the newest layout of the library it
// is; every newer layout extends the older one (fields are only appended), so reading through the
// oldest layout that has the fields we use works with every CUPTI from CUDA 11 to 13. This is what
// Kineto does. FakeCuptiRecords writes the newest layouts of the headers at hand, and the
// static_asserts below check that the fields we read sit at the same offsets in both.
#include <cupti.h>

#include <cstddef>

namespace glueprof::cupti {

using KernelRecord = CUpti_ActivityKernel4;
using MemcpyRecord = CUpti_ActivityMemcpy;
using MemsetRecord = CUpti_ActivityMemset;
using SyncRecordLayout = CUpti_ActivitySynchronization;
using CudaEventRecord = CUpti_ActivityCudaEvent;
using ApiRecord = CUpti_ActivityAPI;
using MarkerRecord = CUpti_ActivityMarker2;
using ExternalCorrelationRecord = CUpti_ActivityExternalCorrelation;
using OverheadRecord = CUpti_ActivityOverhead;

#if CUPTI_API_VERSION >= 130000
#define GLUEPROF_CUPTI_NEWEST_LAYOUTS 1
using NewestKernel = CUpti_ActivityKernel10;
using NewestMemcpy = CUpti_ActivityMemcpy6;
using NewestMemset = CUpti_ActivityMemset4;
using NewestSync = CUpti_ActivitySynchronization2;
using NewestCudaEvent = CUpti_ActivityCudaEvent2;
using NewestOverhead = CUpti_ActivityOverhead3;

#define GLUEPROF_SAME_FIELD(OLD, NEW, FIELD)                    \
    static_assert(offsetof(OLD, FIELD) == offsetof(NEW, FIELD), \
                  #FIELD " moved between " #OLD " and " #NEW)
GLUEPROF_SAME_FIELD(KernelRecord, NewestKernel, start);
GLUEPROF_SAME_FIELD(KernelRecord, NewestKernel, end);
GLUEPROF_SAME_FIELD(KernelRecord, NewestKernel, deviceId);
GLUEPROF_SAME_FIELD(KernelRecord, NewestKernel, streamId);
GLUEPROF_SAME_FIELD(KernelRecord, NewestKernel, correlationId);
GLUEPROF_SAME_FIELD(KernelRecord, NewestKernel, name);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, copyKind);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, srcKind);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, dstKind);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, flags);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, bytes);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, start);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, end);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, deviceId);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, streamId);
GLUEPROF_SAME_FIELD(MemcpyRecord, NewestMemcpy, correlationId);
GLUEPROF_SAME_FIELD(MemsetRecord, NewestMemset, bytes);
GLUEPROF_SAME_FIELD(MemsetRecord, NewestMemset, start);
GLUEPROF_SAME_FIELD(MemsetRecord, NewestMemset, end);
GLUEPROF_SAME_FIELD(MemsetRecord, NewestMemset, deviceId);
GLUEPROF_SAME_FIELD(MemsetRecord, NewestMemset, streamId);
GLUEPROF_SAME_FIELD(MemsetRecord, NewestMemset, correlationId);
GLUEPROF_SAME_FIELD(SyncRecordLayout, NewestSync, type);
GLUEPROF_SAME_FIELD(SyncRecordLayout, NewestSync, start);
GLUEPROF_SAME_FIELD(SyncRecordLayout, NewestSync, end);
GLUEPROF_SAME_FIELD(SyncRecordLayout, NewestSync, correlationId);
GLUEPROF_SAME_FIELD(SyncRecordLayout, NewestSync, streamId);
GLUEPROF_SAME_FIELD(CudaEventRecord, NewestCudaEvent, correlationId);
GLUEPROF_SAME_FIELD(CudaEventRecord, NewestCudaEvent, streamId);
GLUEPROF_SAME_FIELD(OverheadRecord, NewestOverhead, overheadKind);
GLUEPROF_SAME_FIELD(OverheadRecord, NewestOverhead, start);
GLUEPROF_SAME_FIELD(OverheadRecord, NewestOverhead, end);
#undef GLUEPROF_SAME_FIELD
#endif

}  // namespace glueprof::cupti

#include "profiler/core/RunIdentity.h"

namespace glueprof {

const char* toString(RunKind kind) {
    switch (kind) {
        case RunKind::kTrained:
            return "trained";
        case RunKind::kSimulated:
            return "simulated";
        case RunKind::kImported:
            return "imported";
    }
    return "trained";
}

std::optional<RunKind> parseRunKind(std::string_view text) {
    for (RunKind kind : {RunKind::kTrained, RunKind::kSimulated, RunKind::kImported}) {
        if (text == toString(kind)) return kind;
    }
    return std::nullopt;
}

const char* toString(Arm arm) {
    switch (arm) {
        case Arm::kNone:
            return "";
        case Arm::kBaseline:
            return "baseline";
        case Arm::kOptimized:
            return "optimized";
        case Arm::kA:
            return "A";
        case Arm::kB:
            return "B";
    }
    return "";
}

Arm parseArm(std::string_view text) {
    for (Arm arm : {Arm::kBaseline, Arm::kOptimized, Arm::kA, Arm::kB}) {
        if (text == toString(arm)) return arm;
    }
    return Arm::kNone;
}

}  // namespace glueprof

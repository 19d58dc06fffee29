// The one table of diagnostics (profiler/core/Diagnostics.h): well formed, what `check` calls a
// loss, and listed in full by the docs, so neither can drift from the other.
#include "profiler/core/Diagnostics.h"
#include "profiler/core/RunMetadata.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "profiler/core/LossDiagnostics.h"

namespace glueprof {
namespace {

std::string doc(const std::string& name) {
    std::ifstream in(std::string(GLUEPROF_SOURCE_DIR) + "/docs/" + name);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool isImportRow(const DiagnosticInfo& d) {
    return std::string(d.name) == kImportSkipped || std::string(d.name) == kImportDerived;
}

TEST(DiagnosticsTest, EveryEntryIsUniqueAndHasANameASeverityAndADescription) {
    std::set<std::pair<std::string, std::string>> entries;
    std::map<std::string, Severity> severityOfName;
    for (std::size_t i = 0; i < std::size(kDiagnostics); ++i) {
        const DiagnosticInfo& d = kDiagnostics[i];
        EXPECT_EQ(static_cast<std::size_t>(d.id), i) << d.name;  // ids index the table
        EXPECT_FALSE(std::string(d.name).empty()) << i;
        EXPECT_FALSE(std::string(d.description).empty()) << d.name << " " << d.detail;
        EXPECT_TRUE(d.severity == Severity::kDataLoss || d.severity == Severity::kSkipped ||
                    d.severity == Severity::kInfo)
            << d.name;
        EXPECT_TRUE(entries.emplace(d.name, d.detail).second)
            << "twice: " << d.name << " " << d.detail;
        // One name, one severity: what `check` reads from a stored name is never ambiguous.
        EXPECT_EQ(severityOfName.emplace(d.name, d.severity).first->second, d.severity) << d.name;
        // An import's rows are one per reason, the reason their detail; the others have none.
        EXPECT_EQ(isImportRow(d), !std::string(d.detail).empty()) << d.name << " " << d.detail;
    }
    EXPECT_EQ(severityOfName.at(kImportSkipped), Severity::kSkipped);
    EXPECT_EQ(severityOfName.at(kImportDerived), Severity::kInfo);
}

TEST(DiagnosticsTest, OnlyDataLossEntriesAreLosses) {
    for (const char* lost :
         {loss::kWriterDroppedEvents, loss::kCuptiDroppedRecords, loss::kCuptiBufferLimit,
          loss::kCuptiUnknownKinds, loss::kCuptiZeroTimestamps, loss::kCuptiUnmatched,
          loss::kCuptiUnpairedMarkers, loss::kCuptiUnreadableRecords, loss::kCuptiCallFailures,
          loss::kInvalidEvents, loss::kCuptiClockFallbacks}) {
        EXPECT_TRUE(isLoss(lost)) << lost;
        EXPECT_TRUE(isLoss(lost)) << lost;
    }
    EXPECT_FALSE(isLoss("import_skipped"));
    EXPECT_FALSE(isLoss("import_derived"));
    EXPECT_FALSE(isLoss("double_buffer_fallback"));
    EXPECT_FALSE(isLoss("a_name_of_a_newer_glueprof"));
    std::size_t losses = 0;
    for (const DiagnosticInfo& d : kDiagnostics) losses += d.severity == Severity::kDataLoss;
    EXPECT_EQ(losses, 11u);
}

TEST(DiagnosticsTest, AnImportReasonQuotesTheSourceWhereItsDetailSays) {
    EXPECT_EQ(diagnosticDetail(DiagnosticId::kSkippedUnmappedCategory, "mystery"),
              "complete events of category 'mystery' (not mapped)");
    EXPECT_EQ(diagnosticDetail(DiagnosticId::kSkippedUnreadTable, "SCHED_EVENTS"),
              "SCHED_EVENTS rows (not imported)");
    EXPECT_EQ(diagnosticDetail(DiagnosticId::kSkippedNegativeDuration),
              "events with a negative duration");
    // The source's text is inserted once, never read as a pattern itself.
    EXPECT_EQ(diagnosticDetail(DiagnosticId::kSkippedUnknownPhase, "{}"),
              "events of phase '{}' (not a span)");
}

// docs/schema.md names every diagnostic; docs/import.md lists every import reason verbatim.
TEST(DiagnosticsTest, TheDocsListEveryEntry) {
    const std::string schema = doc("schema.md");
    const std::string import = doc("import.md");
    ASSERT_FALSE(schema.empty());
    ASSERT_FALSE(import.empty());
    for (const DiagnosticInfo& d : kDiagnostics) {
        EXPECT_NE(schema.find("`" + std::string(d.name) + "`"), std::string::npos)
            << d.name << " is not in docs/schema.md";
        if (isImportRow(d)) {
            EXPECT_NE(import.find("`" + std::string(d.detail) + "`"), std::string::npos)
                << "'" << d.detail << "' is not in docs/import.md";
        }
    }
}

// docs/schema.md names every key of environment_json that glueprof writes.
TEST(DiagnosticsTest, TheSchemaDocNamesEveryEnvironmentKey) {
    const std::string schema = doc("schema.md");
    ASSERT_FALSE(schema.empty());
    const EnvironmentKey keys[] = {
#define GLUEPROF_ENVIRONMENT_KEY_ID(id, name, meaning) EnvironmentKey::id,
        GLUEPROF_ENVIRONMENT_KEYS(GLUEPROF_ENVIRONMENT_KEY_ID)
#undef GLUEPROF_ENVIRONMENT_KEY_ID
    };
    for (EnvironmentKey key : keys) {
        const std::string name = environmentKeyName(key);
        EXPECT_FALSE(name.empty());
        EXPECT_NE(schema.find("`" + name + "`"), std::string::npos)
            << name << " is not in docs/schema.md";
    }
}

}  // namespace
}  // namespace glueprof

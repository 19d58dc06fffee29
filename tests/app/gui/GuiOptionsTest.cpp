// glueprof-gui's command line without a display: `--size WIDTHxHEIGHT` sets both sides (WIDTH alone
// only the width), and a bad option or value is refused as `glueprof` refuses one: exit 1 and one
// line on stderr naming the option and where the fix is.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "app/gui/GuiOptions.h"

namespace glueprof::gui {
namespace {

struct Parsed {
    GuiCommandLine commandLine;
    std::string out;
    std::string err;
};

Parsed parse(const std::vector<std::string>& args) {
    std::vector<const char*> argv = {"glueprof-gui"};
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    std::ostringstream out;
    std::ostringstream err;
    Parsed parsed;
    parsed.commandLine = parseGuiOptions(static_cast<int>(argv.size()), argv.data(), out, err);
    parsed.out = out.str();
    parsed.err = err.str();
    return parsed;
}

TEST(GuiOptionsTest, NoOptionsOpenA1600By1000WindowThatRunsUntilClosed) {
    const Parsed p = parse({});
    ASSERT_FALSE(p.commandLine.exitNow.has_value()) << p.err;
    const GuiOptions& o = p.commandLine.options;
    EXPECT_EQ(o.width, 1600);
    EXPECT_EQ(o.height, 1000);
    EXPECT_EQ(o.frames, 0);
    EXPECT_FALSE(o.headless());
    EXPECT_TRUE(o.db.empty() && o.screenshot.empty() && o.dumpState.empty() &&
                o.scriptPath.empty());
}

// Issue 29, item 5: `--size` set only the width (`--size 1600x1000` was refused).
TEST(GuiOptionsTest, SizeWidthByHeightSetsBothSides) {
    const Parsed p = parse({"--size", "800x600"});
    ASSERT_FALSE(p.commandLine.exitNow.has_value()) << p.err;
    EXPECT_EQ(p.commandLine.options.width, 800);
    EXPECT_EQ(p.commandLine.options.height, 600);
}

TEST(GuiOptionsTest, SizeWidthAloneKeepsTheDefaultHeight) {
    const Parsed p = parse({"--size", "800"});
    ASSERT_FALSE(p.commandLine.exitNow.has_value()) << p.err;
    EXPECT_EQ(p.commandLine.options.width, 800);
    EXPECT_EQ(p.commandLine.options.height, 1000);
}

TEST(GuiOptionsTest, EveryOptionIsTakenIn) {
    const Parsed p =
        parse({"--db", "a.sqlite", "--frames", "6", "--screenshot", "s.png", "--dump-state",
               "s.json", "--script", "ab.script", "--size", "64x16384"});
    ASSERT_FALSE(p.commandLine.exitNow.has_value()) << p.err;
    const GuiOptions& o = p.commandLine.options;
    EXPECT_EQ(o.db, "a.sqlite");
    EXPECT_EQ(o.frames, 6);
    EXPECT_TRUE(o.headless());
    EXPECT_EQ(o.screenshot, "s.png");
    EXPECT_EQ(o.dumpState, "s.json");
    EXPECT_EQ(o.scriptPath, "ab.script");
    EXPECT_EQ(o.width, 64);  // the bounds themselves are taken
    EXPECT_EQ(o.height, 16384);
}

TEST(GuiOptionsTest, ABadOptionOrValueExitsOneWithOneLineNamingTheOptionAndTheHelp) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
        {{"--size", "1600by1000"}, "--size"},
        {{"--size", "1600x"}, "--size"},
        {{"--size", "x1000"}, "--size"},
        {{"--size", "63x600"}, "--size"},
        {{"--size", "800x16385"}, "--size"},
        {{"--size", "-800x600"}, "--size"},
        {{"--size", "800x600x2"}, "--size"},
        {{"--size", "800 x600"}, "--size"},
        {{"--size", "0"}, "--size"},
        {{"--size", "99999999999x600"}, "--size"},
        {{"--frames", "-1"}, "--frames"},
        {{"--frames", "three"}, "--frames"},
        {{"--no-such-flag"}, "--no-such-flag"},
        {{"--db"}, "--db"}};
    for (const auto& [args, option] : refused) {
        const Parsed p = parse(args);
        const std::string what = args.back() + ": " + p.err;
        ASSERT_TRUE(p.commandLine.exitNow.has_value()) << what;
        EXPECT_EQ(*p.commandLine.exitNow, 1) << what;  // glueprof's usage code (docs/cli.md)
        EXPECT_EQ(p.err.rfind("glueprof-gui: ", 0), 0u) << what;
        EXPECT_NE(p.err.find(option), std::string::npos) << what;
        EXPECT_NE(p.err.find("(see glueprof-gui --help)\n"), std::string::npos) << what;
        EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << what;
        EXPECT_TRUE(p.out.empty()) << what;
    }
    // The value refused says what --size takes.
    EXPECT_NE(parse({"--size", "1600by1000"}).err.find("is not WIDTHxHEIGHT (or WIDTH)"),
              std::string::npos);
}

TEST(GuiOptionsTest, HelpExitsZeroAndShowsTheSizeWithItsDefault) {
    const Parsed p = parse({"--help"});
    ASSERT_TRUE(p.commandLine.exitNow.has_value());
    EXPECT_EQ(*p.commandLine.exitNow, 0);
    EXPECT_NE(p.out.find("--size"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("1600x1000"), std::string::npos) << p.out;
    EXPECT_TRUE(p.err.empty()) << p.err;
}

// parseWindowSize leaves both sides as they were when it refuses a value.
TEST(GuiOptionsTest, WindowSizeThatIsRefusedChangesNothing) {
    int width = 1;
    int height = 2;
    for (const char* text :
         {"", "x", "12x34", "640x", "640X480", "+640x480", "640x480 ", "6.4e2"}) {
        EXPECT_FALSE(parseWindowSize(text, width, height)) << text;
        EXPECT_EQ(width, 1) << text;
        EXPECT_EQ(height, 2) << text;
    }
    EXPECT_TRUE(parseWindowSize("640x480", width, height));
    EXPECT_EQ(width, 640);
    EXPECT_EQ(height, 480);
    EXPECT_TRUE(parseWindowSize("1024", width, height));
    EXPECT_EQ(width, 1024);
    EXPECT_EQ(height, 480);
}

}  // namespace
}  // namespace glueprof::gui

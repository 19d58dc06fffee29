#pragma once
// The test script of `glueprof-gui --script FILE`: one action per line, run between frames.
//   open PATH                 open a database
//   select BASELINE [OPTIMIZED]  select runs by id
//   show PANEL NAME           open a panel (its window title)
//   align STEP                align the timeline at a step
//   highlight NAME            outline NAME's events in the timeline (as a click in the step diff)
//   run PRESET TOGGLE[,TOGGLE...] [STEPS WARMUP REPEATS]   start an A/B into the open database
//                             (default 2 1 2; each within `glueprof ab`'s bounds of --steps,
//                             --warmup and --repeats: reference_trainer/ScheduleBounds.h)
//   wait                      wait until the run and the analysis are done
// '#' starts a comment. A bad line (unknown action, a run id or step that is no number, a panel
// that does not exist, a run number that is no whole number or out of its bounds, a run that
// could not start, an `open` that failed) is an error in the log, and the script goes on; a
// headless run (--frames) stops at its first bad line, and with a bad line, a missing script or a
// database that did not open exits 2.
#include <string>
#include <vector>

namespace glueprof::gui {

class App;

class Script {
  public:
    static Script load(const std::string& path);  // throws std::runtime_error naming the file
    explicit Script(std::vector<std::string> lines) : m_lines(std::move(lines)) {}

    // Runs lines until one says to wait or the script ends; true while lines remain.
    bool step(App& app);
    bool waiting(App& app) const;
    std::size_t errors() const { return m_errors; }  // bad lines so far
    // After a bad line (or an `open` that failed) run no further line.
    void stopAtFirstError() { m_stopAtFirstError = true; }

  private:
    std::vector<std::string> m_lines;
    std::size_t m_next = 0;
    bool m_waiting = false;
    std::size_t m_errors = 0;
    bool m_stopAtFirstError = false;
};

}  // namespace glueprof::gui

#!/usr/bin/env python3
"""Live parity test: glueprof's figures against Holistic Trace Analysis (HTA 0.5.0) on the vendored
Kineto fixtures of HTA's own suite (tests/fixtures/import/kineto/hta-*.json.gz).

For each fixture, HTA runs live on it (TraceAnalysis over a directory that holds only that file)
and glueprof imports it (`glueprof import`, then `glueprof report --format json`, the documented
results model). Each HTA figure is set beside glueprof's counterpart, one table row each:
  equal      the two agree within the figure's tolerance;
  known      they differ, for the reason KNOWN_DIFFERENCES gives (a definition glueprof does not
             share yet, or HTA's own reading): listed with the reason, not a failure;
  DIFFERENT  they differ and no known reason says why: the test fails (exit 1); so does a known
             difference that has become equal (take it out of KNOWN_DIFFERENCES), and, in the
             per-stream queue and per-name annotation groups, a stream or name only glueprof has;
  MISSING    glueprof shows no counterpart in any output yet: listed, not a failure for the groups
             NOT_YET_SHOWN names (issue 32 puts them in the report); a figure of any other group
             that goes missing (an output glueprof had dropped) fails the test.

Figures (HTA's functions with HTA's defaults, except the step window below):
  temporal  get_temporal_breakdown: kernel_time (first to last device event), idle, compute and
            non_compute time of the rank. glueprof: `device_timeline.hta_temporal` of the run in
            the report (analyzers/DeviceTimeline, HTA's selection and kernel types).
  idle      get_idle_time_breakdown: host_wait, kernel_wait and other per stream (kernel_wait: gaps
            under consecutive_kernel_delay = 30 in HTA's time unit, microseconds, though its
            docstring says nanoseconds). glueprof: `idle_breakdown` of each run in the report
            (analyzers/IdleBreakdown, the same threshold), per stream over the whole run.
  launch    get_cuda_kernel_launch_stats, per launch reduced to: launches paired with their device
            work, summed cpu and gpu durations, median, p90, p99 (linear) and max launch delay,
            device work shorter than its launch, and HTA's outliers: calls over its runtime_cutoff
            (50 us) and delays over its launch_delay_cutoff (100 us). glueprof:
            `launch_stats.per_launch` of each run in the report (analyzers/LaunchStats, HTA's
            pairing and window).
  queue     get_queue_length_summary: per stream the count, mean, std (2+ samples), min,
            quartiles and max of the queue length series. glueprof: `queue_length.streams` (analyzers/QueueLength).
  blocked   get_time_spent_blocked_on_full_queue(queue length series, max_queue_length=1024):
            the stream's time at a full launch queue and its share of the trace's duration. The
            vendored fixtures never fill a queue (their longest is 9), so the test also writes one
            trace that does (write_full_queue_trace: 3,000 launches on one stream, the host
            blocked at 1,024 queued, as CUDA's launch queue blocks it) and compares every group on
            it too. glueprof: `queue_length.streams[].at_full_queue_ms` / `at_full_queue_share`.
  annotations  get_gpu_user_annotation_breakdown(use_gpu_annotation=False) (CPU annotations; the
            fixtures have no GPU annotations): per name the summed, max and min duration. glueprof:
            `annotation_breakdown.cpu` (analyzers/AnnotationBreakdown).
  kernels   get_gpu_kernel_breakdown (its defaults: duration_ratio 0.8, num_kernels 10, no memory
            kernels): each kernel type's time, and each kernel name's summed duration per type
            ("others" for the names HTA folds). glueprof: `kernel_breakdown` of the run in the
            report (analyzers/KernelBreakdown).
  overlap   get_comm_comp_overlap: the rank's comm/compute overlap in percent (n/a: no
            communication kernels). glueprof: `device_timeline.comm_compute_overlap_pct`.

Units and tolerances: times in microseconds, HTA's unit. The fixtures' timestamps are whole
microseconds, which HTA keeps as integers and glueprof stores as exact nanoseconds, so times (read
back from glueprof's JSON milliseconds to the nanosecond) and counts are compared exactly. HTA
rounds the overlap percentage to 2 decimals: glueprof's is compared unrounded, within 0.005.

Step window. HTA filters the input of every analysis when it loads a trace (hta/common/trace.py,
_filter_irrelevant_gpu_kernels): with two or more ProfilerStep#N names it keeps the host events that
start before the last step starts (include_last_profiler_step=False, its default) and the device
work whose correlation id one of them carries; with one step or none it keeps everything. glueprof
keeps the last step (docs/import.md, "Steps"), so the test loads HTA with
include_last_profiler_step=True (host events starting at or before the last step's end): both sides
count every step.

Usage: hta_parity.py --glueprof PATH_TO_CLI --work DIR
Exit: 0 every figure glueprof has is equal or a known difference; 1 a figure differs for no known
reason, a known difference is now equal, a shown group's figure is missing, or glueprof failed on a
fixture;
2 setup error (HTA not importable, the CLI missing or not starting), one line on stderr.
"""
import argparse
import glob
import gzip
import json
import logging
import math
import os
import re
import shutil
import subprocess
import sys
import warnings

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                         "fixtures", "import", "kineto"))
EXACT = 0.0
OVERLAP_TOLERANCE = 0.005 + 1e-9  # HTA's rounding to 2 decimals, and a double's last bits
QUEUE_TOLERANCE = 1e-9  # relative: means, deviations and quartiles of whole numbers, summed in
                        # another order
# pandas' describe() of the queue length series, as HTA's get_queue_length_summary gives it (std
# with one degree of freedom; quartiles interpolated linearly).
QUEUE_STATS = ("count", "mean", "std", "min", "25%", "50%", "75%", "max")
QUANTILE_TOLERANCE = 1e-6  # an interpolated quantile, from µs (HTA) or ns / 1e3 (glueprof)
FULL_QUEUE = 1024  # CUDA's launch queue; HTA's max_queue_length in the blocked-time figure

CONVENTIONS = """\
step convention
  HTA 0.5.0  TraceAnalysis(include_last_profiler_step=True): with 2+ ProfilerStep#N, the host events
             starting at or before the last step's end (those before the first step too) and the
             device work they launched; with 0 or 1 step, every event. Temporal breakdown: from the
             first to the last kept device event. Idle breakdown, launch stats, overlap: every kept
             event.
  glueprof   the same selection for the temporal breakdown, idle breakdown, launch stats and
             overlap (analyzers/HtaWindow).
units: us (times, exact; interpolated launch-delay quantiles within 1e-6), count (exact), queue
length (its statistics within 1e-9, relative), % (overlap, within HTA's rounding: 0.005)"""

MISSING = "MISSING in glueprof"
LOST = "MISSING in glueprof, though its group is shown"
NOT_YET_SHOWN = ()
KNOWN = "known"
EXTRA = "DIFFERENT: only glueprof has it"
# (Not "blocked": HTA keeps one stream per rank there, glueprof every stream, docs/metrics.md.)
EXTRA_CHECKED = ("queue", "annotations")
NOW_EQUAL = "equal, but listed as known: remove it"

# Differences understood figure by figure (each reproduced from the events of the fixture): HTA's
# reading of Kineto's sync records, which glueprof does not share.
SYNC_RECORDS = ("HTA counts Kineto's cuda_sync records on a stream (Stream Sync, Stream Wait Event) "
                "as device work, in the span and as kernels (a Stream Wait Event as computation); "
                "glueprof keeps them as host waits and stream markers, not device busy time")
KNOWN_DIFFERENCES = {
    ("hta-alexnet-trace", "temporal: kernel_time (us)"): SYNC_RECORDS,
    ("hta-alexnet-trace", "temporal: idle_time (us)"): SYNC_RECORDS,
    ("hta-alexnet-trace", "temporal: compute_time (us)"): SYNC_RECORDS,
    ("hta-alexnet-trace", "temporal: non_compute_time (us)"): SYNC_RECORDS,
    ("hta-alexnet-trace", "kernels: COMPUTATION (us)"): SYNC_RECORDS,
    ("hta-alexnet-trace", "kernels: COMPUTATION others (us)"): SYNC_RECORDS,
    ("hta-event_sync_trace", "temporal: idle_time (us)"): SYNC_RECORDS,
    ("hta-event_sync_trace", "temporal: non_compute_time (us)"): SYNC_RECORDS,
}


class SetupError(Exception):
    """The test cannot run here (HTA not importable, the CLI missing or not starting): exit 2."""


class GlueprofFailure(Exception):
    """glueprof failed on a fixture: the test fails (exit 1)."""


def write_full_queue_trace(path, launches=3000):
    """A Kineto trace whose launch queue fills: one host thread launches a kernel every 2 us on
    stream 7; each kernel runs 8 us, from 5 us after its launch or when the one before it ends.
    The host blocks as CUDA's launch queue makes it: launch N (from the 1,025th on) cannot start
    before 1 us after kernel N - 1024 started (a slot freed), which holds it back from launch
    1,366 on, when the queue has filled. Host times are even and kernel starts odd microseconds,
    so no enqueue shares an instant with a start (whose order the two tools might break
    differently). Returns the path."""
    events = []
    kernel_starts = []
    host = 0  # when the host can issue the next launch
    previous_end = 0
    for i in range(launches):
        start = host if i < FULL_QUEUE else max(host, kernel_starts[i - FULL_QUEUE] + 1)
        duration = 1 if i < FULL_QUEUE else 2
        correlation = 1000 + i
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
                       "tid": 100, "ts": 1000 + start, "dur": duration,
                       "args": {"correlation": correlation, "External id": correlation}})
        kernel_start = max(start + 5, previous_end)
        kernel_starts.append(kernel_start)
        previous_end = kernel_start + 8
        events.append({"ph": "X", "cat": "kernel", "name": "full_queue_kernel", "pid": 0,
                       "tid": 7, "ts": 1000 + kernel_start, "dur": 8,
                       "args": {"device": 0, "stream": 7, "correlation": correlation,
                                "External id": correlation}})
        host = start + 2
    with gzip.open(path, "wt") as f:
        json.dump({"schemaVersion": 1, "distributedInfo": {"rank": 0},
                   "traceEvents": events}, f)
    return path


def fixture_name(trace):
    return os.path.basename(trace)[: -len(".json.gz")]


def load_hta():
    """HTA's TraceAnalysis, with its log and pandas' warnings silenced."""
    try:
        from hta.configs.config import logger
        from hta.trace_analysis import TraceAnalysis
    except Exception as error:  # noqa: BLE001 - any import failure is a setup error
        raise SetupError("HolisticTraceAnalysis is not importable by %s: %s"
                         % (sys.executable, error))
    logger.setLevel(logging.ERROR)
    # pandas' FutureWarnings from HTA's code, and HTA's 0 / 0 overlap without comm kernels (n/a).
    warnings.filterwarnings("ignore")
    return TraceAnalysis


def hta_figures(trace_analysis, trace, work):
    """HTA's figures of one trace: {(group, figure): value}, times in us, None for n/a."""
    trace_dir = os.path.join(work, "hta", fixture_name(trace))
    os.makedirs(trace_dir)
    shutil.copy(trace, trace_dir)  # TraceAnalysis reads every trace file of its directory
    analysis = trace_analysis(trace_dir=trace_dir, include_last_profiler_step=True)
    rank = analysis.t.get_ranks()[0]
    figures = {}

    temporal = analysis.get_temporal_breakdown(visualize=False).set_index("rank").loc[rank]
    for name in ("kernel_time", "idle_time", "compute_time", "non_compute_time"):
        figures[("temporal", name + " (us)")] = int(temporal[name + "(us)"])

    idle, _ = analysis.get_idle_time_breakdown(ranks=[rank], visualize=False)
    for stream in sorted(idle["stream"].unique()):
        of_stream = idle[idle["stream"] == stream].set_index("idle_category")["idle_time"]
        for category in ("host_wait", "kernel_wait", "other"):  # a category absent is 0
            figures[("idle", "stream %d %s (us)" % (stream, category))] = int(
                of_stream.get(category, 0))

    launches = analysis.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)[rank]
    delays = launches["launch_delay"]
    figures[("launch", "launches paired (count)")] = len(launches)
    figures[("launch", "cpu_duration sum (us)")] = int(launches["cpu_duration"].sum())
    figures[("launch", "gpu_duration sum (us)")] = int(launches["gpu_duration"].sum())
    none = len(delays) == 0
    figures[("launch", "launch_delay median (us)")] = None if none else float(delays.median())
    figures[("launch", "launch_delay max (us)")] = None if none else float(delays.max())
    figures[("launch", "gpu shorter than cpu (count)")] = int(
        (launches["gpu_duration"] < launches["cpu_duration"]).sum())

    for name, q in (("p90", 0.9), ("p99", 0.99)):
        figures[("launch", "launch_delay %s (us)" % name)] = (
            None if none else float(delays.quantile(q)))
    figures[("launch", "cpu_duration over 50 us (count)")] = int(
        (launches["cpu_duration"] > 50).sum())
    figures[("launch", "launch_delay over 100 us (count)")] = int((delays > 100).sum())

    queues = analysis.get_queue_length_summary(ranks=[rank])
    if queues is not None:
        for (_, stream), row in queues.iterrows():
            for stat in QUEUE_STATS:
                if stat == "std" and row[("queue_length", "count")] < 2:
                    continue  # pandas: NaN for one sample
                figures[("queue", "stream %d %s" % (stream, stat))] = float(
                    row[("queue_length", stat)])

    from hta.analyzers.trace_counters import TraceCounters  # importable: load_hta succeeded
    series = analysis.get_queue_length_time_series(ranks=[rank])
    blocked = TraceCounters.get_time_spent_blocked_on_full_queue(analysis.t, series,
                                                                 max_queue_length=FULL_QUEUE)
    if blocked is not None:
        for _, row in blocked.iterrows():
            figures[("blocked", "stream %d at full queue (us)" % row["stream"])] = int(
                row["duration_at_max_queue_length"])
            figures[("blocked", "stream %d at full queue (share)" % row["stream"])] = float(
                row["relative_duration_at_max_queue_length"])

    annotations = analysis.get_gpu_user_annotation_breakdown(use_gpu_annotation=False,
                                                             visualize=False)
    if annotations is not None:
        for _, row in annotations[annotations["rank"] == rank].iterrows():
            for stat in ("sum", "max", "min"):
                figures[("annotations", "cpu %s %s (us)" % (short(row["name"]), stat))] = int(
                    row[stat + " (us)"])

    kernel_types, kernels = analysis.get_gpu_kernel_breakdown(visualize=False)
    for _, row in kernel_types.iterrows():
        figures[("kernels", "%s (us)" % row["kernel_type"])] = int(row["sum"])
    for _, row in kernels[kernels["rank"] == rank].iterrows():
        figures[("kernels", "%s %s (us)" % (row["kernel_type"], short(row["name"])))] = int(
            row["sum (us)"])

    overlap = analysis.get_comm_comp_overlap(visualize=False).set_index("rank").loc[rank]
    percent = float(overlap["comp_comm_overlap_pctg"])
    figures[("overlap", "comm/compute overlap (%)")] = None if math.isnan(percent) else percent
    return figures


def short(name):
    """A kernel's name as the table shows it (the fixtures' names are unique in 60 characters)."""
    return name if len(name) <= 60 else name[:57] + "..."


def run_cli(cli, *args):
    """glueprof's stdout; a failure names the command and glueprof's message."""
    done = subprocess.run([cli] + list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise GlueprofFailure("'glueprof %s' exited %d: %s" % (" ".join(args), done.returncode,
                                                              done.stderr.strip()))
    return done.stdout


def ns_of(ms):
    """glueprof's JSON milliseconds (nanoseconds / 1e6) as whole nanoseconds again."""
    return round(ms * 1e6)


def glueprof_figures(cli, trace, work):
    """glueprof's counterparts of one trace's figures, from `report --format json`; a figure no
    output shows is absent."""
    stem = os.path.join(work, "glueprof", fixture_name(trace))
    imported = run_cli(cli, "import", trace, "--db", stem + ".sqlite")
    run = int(re.search(r"imported run (\d+)", imported).group(1))
    run_cli(cli, "report", "--db", stem + ".sqlite", "--runs", str(run), "--format", "json",
            "--out", stem + ".json")
    with open(stem + ".json") as f:
        results = json.load(f)
    [analyzed] = [r for r in results["runs"] if r["run"] == run]
    figures = {}

    timeline = analyzed.get("device_timeline")
    if timeline is not None:
        temporal = timeline["hta_temporal"]
        for name, key in (("kernel_time", "kernel_ms"), ("idle_time", "idle_ms"),
                          ("compute_time", "compute_ms"), ("non_compute_time", "non_compute_ms")):
            figures[("temporal", name + " (us)")] = ns_of(temporal[key]) / 1e3
        figures[("overlap", "comm/compute overlap (%)")] = timeline["comm_compute_overlap_pct"]

    breakdown = analyzed.get("kernel_breakdown", {"by_type": [], "kernels": []})
    for row in breakdown["by_type"]:
        figures[("kernels", "%s (us)" % row["type"])] = ns_of(row["ms"]) / 1e3
    for row in breakdown["kernels"]:
        figures[("kernels", "%s %s (us)" % (row["type"], short(row["name"])))] = (
            ns_of(row["ms"]) / 1e3)

    for stream in analyzed.get("idle_breakdown", []):
        for category in ("host_wait", "kernel_wait", "other"):
            figures[("idle", "stream %d %s (us)" % (stream["stream"], category))] = (
                ns_of(stream[category + "_ms"]) / 1e3)

    launches = analyzed.get("launch_stats")
    if launches is not None:
        per = launches["per_launch"]
        paired = per["paired"]
        figures[("launch", "launches paired (count)")] = paired
        figures[("launch", "cpu_duration sum (us)")] = ns_of(per["cpu_duration_ms"]) / 1e3
        figures[("launch", "gpu_duration sum (us)")] = ns_of(per["gpu_duration_ms"]) / 1e3
        figures[("launch", "launch_delay median (us)")] = (
            per["launch_delay_median_us"] if paired else None)
        figures[("launch", "launch_delay max (us)")] = per["launch_delay_max_us"] if paired else None
        figures[("launch", "gpu shorter than cpu (count)")] = per["gpu_shorter_than_cpu"]
        for name in ("p90", "p99"):
            figures[("launch", "launch_delay %s (us)" % name)] = (
                per["launch_delay_us"][name] if paired else None)
        figures[("launch", "cpu_duration over 50 us (count)")] = per["calls_over"]
        figures[("launch", "launch_delay over 100 us (count)")] = per["delays_over"]

    for stream in analyzed.get("queue_length", {"streams": []})["streams"]:
        for stat, key in zip(QUEUE_STATS, ("samples", "mean", "std", "min", "p25", "p50", "p75",
                                           "max")):
            if stat == "std" and stream["samples"] < 2:
                continue
            figures[("queue", "stream %d %s" % (stream["stream"], stat))] = float(stream[key])

    for stream in analyzed.get("queue_length", {"streams": []})["streams"]:
        if stream["at_full_queue_ms"] > 0:  # HTA lists only the streams that reach it
            figures[("blocked", "stream %d at full queue (us)" % stream["stream"])] = (
                ns_of(stream["at_full_queue_ms"]) / 1e3)
            figures[("blocked", "stream %d at full queue (share)" % stream["stream"])] = (
                stream["at_full_queue_share"])

    for row in analyzed.get("annotation_breakdown", {"cpu": []})["cpu"]:
        for stat, key in (("sum", "ms"), ("max", "max_us"), ("min", "min_us")):
            value = ns_of(row[key]) / 1e3 if key == "ms" else round(row[key] * 1e3) / 1e3
            figures[("annotations", "cpu %s %s (us)" % (short(row["name"]), stat))] = value

    return figures


def verdict(group, hta, glueprof):
    """equal or DIFFERENT; None (n/a) equals only None."""
    if hta is None or glueprof is None:
        return "equal" if hta is None and glueprof is None else "DIFFERENT"
    tolerance = {"overlap": OVERLAP_TOLERANCE, "queue": QUEUE_TOLERANCE}.get(group, EXACT)
    if group == "blocked" and not float(hta).is_integer():  # a share: a ratio of two doubles
        tolerance = QUEUE_TOLERANCE
    if group == "launch" and not float(hta).is_integer():  # a quantile between two delays
        tolerance = QUANTILE_TOLERANCE
    if group == "queue":
        tolerance *= max(1.0, abs(hta))
    return "equal" if abs(hta - glueprof) <= tolerance else "DIFFERENT"


def shown(value):
    if value is None:
        return "n/a"
    return ("%d" % value) if float(value).is_integer() else ("%.3f" % value)


def compare(cli, trace_analysis, traces, work):
    """One row per HTA figure: (trace, figure, HTA, glueprof, verdict), as text."""
    rows = []
    for trace in traces:
        hta = hta_figures(trace_analysis, trace, work)
        ours = glueprof_figures(cli, trace, work)
        for (group, figure), value in hta.items():
            label = "%s: %s" % (group, figure)
            if (group, figure) in ours:
                mine = ours[(group, figure)]
                result = verdict(group, value, mine)
                known = KNOWN_DIFFERENCES.get((fixture_name(trace), label))
                if known is not None:
                    result = NOW_EQUAL if result == "equal" else "%s (%s)" % (KNOWN, known)
                rows.append((fixture_name(trace), label, shown(value), shown(mine), result))
            else:
                rows.append((fixture_name(trace), label, shown(value), "-",
                             MISSING if group in NOT_YET_SHOWN else LOST))
        # Per-name and per-stream groups: a name or stream only glueprof has is a difference too.
        for (group, figure), mine in sorted(ours.items()):
            if group in EXTRA_CHECKED and (group, figure) not in hta:
                rows.append((fixture_name(trace), "%s: %s" % (group, figure), "-", shown(mine),
                             EXTRA))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glueprof", required=True, help="the glueprof CLI")
    parser.add_argument("--work", required=True, help="a folder for HTA's copies and databases")
    args = parser.parse_args()
    try:
        cli = os.path.abspath(args.glueprof)
        if not (os.path.isfile(cli) and os.access(cli, os.X_OK)):
            raise SetupError("no glueprof CLI at '%s'; build it or pass --glueprof" % args.glueprof)
        if subprocess.run([cli, "--help"], capture_output=True).returncode != 0:
            raise SetupError("'%s --help' fails: the CLI does not start here" % args.glueprof)
        trace_analysis = load_hta()
        traces = sorted(glob.glob(os.path.join(FIXTURES, "*.json.gz")))
        if not traces:
            raise SetupError("no Kineto fixtures in %s" % FIXTURES)
        # The figure-by-figure comparison is of the traces of HTA's own suite (hta-*). The
        # advisor's corpus traces are not compared: their timestamps have fractions of a
        # microsecond, which HTA truncates, or their kernel names are not unique in the 60
        # characters the per-name rows key on, or they hold no GPU kernel for HTA to break down.
        for trace in traces:
            if not os.path.basename(trace).startswith("hta-"):
                print("hta_parity: %s is the advisor's corpus, not compared" %
                      os.path.basename(trace))
        traces = [t for t in traces if os.path.basename(t).startswith("hta-")]
        # Fresh each time: `import` appends to a database, HTA reads every file of its folder.
        for sub in ("hta", "glueprof", "generated"):
            shutil.rmtree(os.path.join(args.work, sub), ignore_errors=True)
        os.makedirs(os.path.join(args.work, "glueprof"))
        os.makedirs(os.path.join(args.work, "generated"))
        traces.append(write_full_queue_trace(os.path.join(args.work, "generated",
                                                          "full-launch-queue.json.gz")))
        rows = compare(cli, trace_analysis, traces, args.work)
        # The generated trace is there to fill a queue: without HTA's blocked time on it, the
        # comparison above would pass having compared nothing.
        if not any(row[0] == "full-launch-queue" and row[1].startswith("blocked:") and
                   row[2] not in ("0", "n/a") for row in rows):
            raise GlueprofFailure("HTA finds no time blocked on a full queue in the generated "
                                  "trace (write_full_queue_trace): the trace no longer fills one")
    except SetupError as error:
        print("hta_parity: %s" % error, file=sys.stderr)
        return 2
    except GlueprofFailure as error:
        print("hta_parity: %s" % error, file=sys.stderr)
        return 1

    print(CONVENTIONS + "\n")
    header = ("trace", "figure", "HTA", "glueprof", "verdict")
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    count = {v: sum(1 for row in rows if row[4].startswith(v))
             for v in ("equal", KNOWN, "DIFFERENT", MISSING, NOW_EQUAL, LOST)}
    count[MISSING] -= count[LOST]  # LOST starts with MISSING's text
    print("\n%d equal, %d known differences, %d DIFFERENT, %d %s, %d known but now equal" % (
        count["equal"] - count[NOW_EQUAL], count[KNOWN], count["DIFFERENT"], count[MISSING], MISSING,
        count[NOW_EQUAL]))
    if count[LOST]:
        print("%d figure(s) %s" % (count[LOST], LOST))
    return 1 if count["DIFFERENT"] or count[NOW_EQUAL] or count[LOST] else 0


if __name__ == "__main__":
    sys.exit(main())

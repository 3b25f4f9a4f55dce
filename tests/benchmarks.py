"""The benchmark suite: ``python3 build.py bench [--quick] [--only PART] [--out FILE]``.

Prints a table per part and writes everything, with the machine and the commit, as JSON (default
``test-output/bench.json``). The parts:

- core: every algorithm of both modes at n = 10^3, 10^4, 10^5 (``bench_core.py`` says how the workloads and
  the time are made), the trace off (``trace=False``) and on (``trace=True``: the full trace within the
  budget, else the compact one; the ``level`` column says which); growth 10^4 -> 10^5 as a ratio and as the
  exponent k of n^k (1.0 is linear, 2.0 quadratic); the issues' targets checked.
- cli: ``python -m schedulers cpu`` against the textbook's simulator, OSTEP's ``cpu-sched/scheduler.py``, on the
  same 10,000 jobs (read from the path in LAB_OSTEP_SCHEDULER, never stored here; without it, not measured).
- ostep, vtc, simso: agreement with the public references on seeded random cases, OSTEP's
  ``scheduler.py``/``mlfq.py`` (``reference_ostep.py``) and ``multi.py`` (``reference_multi.py``), from a checkout in
  LAB_OSTEP_HOMEWORK, the VTC artifact's ``VTCReqQueue`` (``reference_vtc.py``, a checkout in LAB_VTC_ARTIFACT) and
  SimSo's RM, FP and EDF on periodic task sets (``reference_simso.py``, a python that can import simso in LAB_SIMSO);
  without the variable, not measured.
- pyodide: the same code (``bench_core.py``) inside Pyodide under Node (npm's pyodide, offline) on a subset,
  with the ratio to CPython.
- app, site: the served app in Chromium and the static site (see their functions).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import bench_core as core  # noqa: E402  (after the path is set: it imports the core)
import reference_multi  # noqa: E402
import reference_ostep  # noqa: E402
import reference_simso  # noqa: E402
import reference_vtc  # noqa: E402
from schedulers import algorithms  # noqa: E402

PARTS = ("core", "cli", "ostep", "vtc", "simso", "pyodide", "app", "site")
SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
LLM_TENANTS = (10, 1_000)
# The targets, at 10^5 tasks or requests with the trace off: issue 7's (SRTF, RR, SFQ over 1,000 tenants under
# 1 s) and issue 13's (every CPU rule under 2 s, but HRRN, whose order changes with time).
TARGETS = {("cpu", "srtf", None): 1.0, ("cpu", "rr", None): 1.0, ("llm", "sfq", 1_000): 1.0}
EVERY_CPU_RULE_SECONDS, NOT_TARGETED = 2.0, {"hrrn"}
PYODIDE_TARGET_RATIO = 3.0


def target_seconds(case: dict[str, Any]) -> float | None:
    if (case["mode"], case["algorithm"], case.get("tenants")) in TARGETS:
        return TARGETS[case["mode"], case["algorithm"], case.get("tenants")]
    return EVERY_CPU_RULE_SECONDS if case["mode"] == "cpu" and case["algorithm"] not in NOT_TARGETED else None


def is_target(case: dict[str, Any]) -> bool:
    """Issue 7's targets: measured in Pyodide too, and for memory at 10^5."""
    return (case["mode"], case["algorithm"], case.get("tenants")) in TARGETS


def core_cases(sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """Grouped by workload (bench_core builds each one once). tracemalloc makes a run several times slower,
    so at the largest size peak memory is measured for the target runs only."""
    cases = []
    for n in sizes:
        workloads = [("cpu", None)] + [("llm", tenants) for tenants in LLM_TENANTS]
        for mode, tenants in workloads:
            for algorithm in algorithms(mode):
                for trace in (False, True):
                    case = {"mode": mode, "algorithm": algorithm, "n": n, "tenants": tenants, "trace": trace,
                            "repeats": 1 if trace and n == 100_000 else 3}
                    case["memory"] = n < 100_000 or is_target(case)
                    cases.append(case)
    return cases


def pyodide_cases(sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """Every algorithm at 10^4 without the trace, and the target runs at the largest size, trace off and on."""
    cases = [{**case, "repeats": 2, "memory": False} for case in core_cases((10_000,)) if not case["trace"]]
    largest = max(sizes)
    cases += [{**case, "repeats": 1, "memory": False} for case in core_cases((largest,)) if is_target(case)]
    return cases


def same_run(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in ("mode", "algorithm", "n", "tenants", "trace"))


# --- the table ---------------------------------------------------------------------------------------------

def growth(row: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """From the same run at n/10: the time ratio and the exponent k of n^k."""
    if row["n"] != 100_000 or "seconds" not in row:
        return ""
    smaller = next((r for r in rows if same_run(r, {**row, "n": 10_000}) and "seconds" in r), None)
    if not smaller or not smaller["seconds"]:
        return ""
    ratio = row["seconds"] / smaller["seconds"]
    row["growth"] = {"ratio": round(ratio, 2), "exponent": round(math.log10(ratio), 2)}
    return f"x{ratio:.1f} (n^{math.log10(ratio):.2f})"


def core_line(row: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    head = (f"{row['mode']:<4} {row['algorithm']:<20} {row['n']:>7} {row.get('tenants') or '':>7} "
            f"{'on' if row['trace'] else 'off':<4}")
    if "limit" in row:
        line = f"{head} over the documented limit: {row['limit'].split(': ', 1)[1]}"
    else:
        memory = f"{row['peak_bytes'] / 1e6:8.1f}" if "peak_bytes" in row else f"{'-':>8}"
        line = f"{head} {row['level']:<8} {row['seconds']:8.3f} {memory}  {growth(row, rows):<16}"
    target = target_seconds(row)
    if target and row["n"] == 100_000 and not row["trace"]:
        row["target"] = {"seconds": target, "met": row.get("seconds", math.inf) < target}
        line += f" target < {target:g} s: {'met' if row['target']['met'] else 'MISSED'}"
    return line


CORE_HEADER = (f"{'mode':<4} {'algorithm':<20} {'n':>7} {'tenants':>7} {'trace':<4} {'level':<8} {'CPU s':>8} "
               f"{'peak MB':>8}  growth 10^4->10^5")


# --- the parts ----------------------------------------------------------------------------------------------

def part_core(sizes: tuple[int, ...]) -> dict[str, Any]:
    print(f"\ncore in CPython {platform.python_version()}: process CPU seconds, best of 3 (at 10^5 with the trace "
          "on: 1); "
          "peak MB by tracemalloc", flush=True)
    print(CORE_HEADER, flush=True)
    rows: list[dict[str, Any]] = []
    for case in core_cases(sizes):
        rows.append(core.measure(case))
        print(core_line(rows[-1], rows), flush=True)
    return {"clock": "time.process_time", "rows": rows}


# The textbook's simulator, OSTEP's cpu-sched/scheduler.py, with its own random jobs: -s 818 draws 10,000 jobs of
# 1-20 units that make the 103,503 one-unit slices of issue 13's comparison. Its code is never stored here.
OSTEP_ENV = "LAB_OSTEP_SCHEDULER"
OSTEP_JOBS = {"seed": 818, "jobs": 10_000, "maxlen": 20}
CLI_RUNS = 5
CLI_TARGET_CPU_RATIO, CLI_TARGET_MEMORY_RATIO = 0.5, 2.0


def ostep_bursts(seed: int, jobs: int, maxlen: int) -> list[int]:
    """The job lengths scheduler.py draws for ``-s seed -j jobs -m maxlen`` (its formula, Python's random)."""
    draw = random.Random()
    draw.seed(seed, version=1)
    return [int(maxlen * draw.random()) + 1 for _ in range(jobs)]


# Spawns argv[2:] with its output in argv[1] and prints its rusage. A small process of its own: a child spawned
# straight from this one would count this process's memory in its peak (Linux's maxrss survives the exec).
SPAWN_AND_MEASURE = """import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1)])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)
"""


def child_usage(argv: list[str], out: Path) -> tuple[float, int]:
    """Run ``argv`` with its output in ``out``; the whole process's CPU seconds (user + system: interpreter start,
    imports and exit included) and its peak resident memory in bytes, as the kernel counts them (wait4)."""
    done = subprocess.run([sys.executable, "-S", "-c", SPAWN_AND_MEASURE, str(out), *argv], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    status, seconds, peak = done.stdout.split()
    if int(status):
        raise RuntimeError(f"{argv[:4]} failed: {out.read_text(errors='replace')[-500:]}")
    return float(seconds), int(peak)


def same_results(ostep: str, ours: str, bursts: list[int]) -> bool:
    """The same jobs (OSTEP's "Job N ( length = L )" lines) and every job's response, turnaround and wait (its
    "Job N -- Response: ..." lines) as in our table (name, arrival 0, burst, completion, turnaround, waiting,
    response)."""
    lengths = [int(length) for length in re.findall(r"Job +\d+ \( length = (\d+) \)", ostep)]
    theirs = {int(job): tuple(round(float(value)) for value in values) for job, *values in re.findall(
        r"Job +(\d+) -- Response: ([\d.]+) +Turnaround ([\d.]+) +Wait ([\d.]+)", ostep)}
    mine = {int(job): (int(response), int(turnaround), int(waiting)) for job, turnaround, waiting, response in
            re.findall(r"^(\d+) +0 +\d+ +\d+ +(\d+) +(\d+) +(\d+)$", ours, re.MULTILINE)}
    return lengths == bursts and len(theirs) == len(bursts) and theirs == mine


def part_cli() -> dict[str, Any]:
    """The command line against the textbook's simulator on the same jobs, all at t = 0, Round Robin with q = 1:
    `python -m schedulers cpu --algorithm rr --quantum 1` (the text summary) and `scheduler.py -p RR -q 1 -c`,
    alternately, CLI_RUNS times each; medians of whole-process CPU time and peak memory."""
    print(f"\ncli: python -m schedulers against OSTEP's cpu-sched/scheduler.py, {OSTEP_JOBS['jobs']} jobs at t = 0, "
          f"RR q = 1; whole-process CPU seconds and peak RSS, median of {CLI_RUNS}", flush=True)
    script = os.environ.get(OSTEP_ENV)
    if not script or not Path(script).is_file():
        reason = (f"the ratio to the textbook's simulator was NOT measured: {OSTEP_ENV} is "
                  + (f"{script!r}, not a file" if script else "not set")
                  + " (point it to cpu-sched/scheduler.py of github.com/remzi-arpacidusseau/ostep-homework)")
        print(reason, flush=True)
        return {"skipped": reason}
    bursts = ostep_bursts(**OSTEP_JOBS)
    out = ROOT / "test-output"
    out.mkdir(exist_ok=True)
    jobs = out / "bench-ostep-jobs.json"
    jobs.write_text(json.dumps({"tasks": [{"name": str(job), "arrival": 0, "burst": burst}
                                          for job, burst in enumerate(bursts)]}))
    commands = {"ours": [sys.executable, "-m", "schedulers", "cpu", "--scenario", str(jobs), "--algorithm", "rr",
                         "--quantum", "1"],
                "ostep": [sys.executable, script, "-p", "RR", "-q", "1", "-c", "-s", str(OSTEP_JOBS["seed"]),
                          "-j", str(OSTEP_JOBS["jobs"]), "-m", str(OSTEP_JOBS["maxlen"])]}
    runs: dict[str, list[tuple[float, int]]] = {name: [] for name in commands}
    for _ in range(CLI_RUNS):
        for name, argv in commands.items():
            runs[name].append(child_usage(argv, out / f"bench-cli-{name}.txt"))
    median = {name: (statistics.median(s for s, _ in usage), statistics.median(m for _, m in usage))
              for name, usage in runs.items()}
    figures = {name: {"cpu_seconds": round(seconds, 3), "peak_mb": round(memory / 1e6, 1),
                      "runs": [round(s, 3) for s, _ in runs[name]]} for name, (seconds, memory) in median.items()}
    figures["slices"] = sum(bursts)
    figures["same_results"] = same_results((out / "bench-cli-ostep.txt").read_text(),
                                           (out / "bench-cli-ours.txt").read_text(), bursts)
    figures["cpu_ratio"] = round(median["ours"][0] / median["ostep"][0], 2)
    figures["memory_ratio"] = round(median["ours"][1] / median["ostep"][1], 2)
    figures["met"] = figures["cpu_ratio"] <= CLI_TARGET_CPU_RATIO and figures["memory_ratio"] <= CLI_TARGET_MEMORY_RATIO
    for name, label in (("ours", "python -m schedulers"), ("ostep", "OSTEP scheduler.py")):
        print(f"{label:<21} {figures[name]['cpu_seconds']:6.3f} s CPU  {figures[name]['peak_mb']:6.1f} MB  "
              f"(runs: {', '.join(map(str, figures[name]['runs']))})", flush=True)
    print(f"{figures['slices']} slices; same results for every job: {figures['same_results']}; CPU ratio "
          f"{figures['cpu_ratio']} (target <= {CLI_TARGET_CPU_RATIO}), memory ratio {figures['memory_ratio']} "
          f"(target <= {CLI_TARGET_MEMORY_RATIO:g}): {'met' if figures['met'] else 'MISSED'}", flush=True)
    return figures


def part_pyodide(sizes: tuple[int, ...], cpython: list[dict[str, Any]]) -> dict[str, Any]:
    """bench_core.py as a script in Pyodide, through the same Node harness as the Pyodide tests."""
    from pyodide_support import PyodideUnavailable, run_jobs
    cases = pyodide_cases(sizes)
    source = (ROOT / "tests" / "bench_core.py").read_text(encoding="utf-8")
    job = {"script": "bench_core.py", "argv": ["cases.json"],
           "files": {"bench_core.py": source, "cases.json": json.dumps(cases)}}
    print(f"\ncore in Pyodide (Node, npm pyodide): {len(cases)} runs, CPU seconds as in CPython", flush=True)
    try:
        [done] = run_jobs([job], timeout=1800)
    except PyodideUnavailable as reason:
        print(f"skipped: {reason}", flush=True)
        return {"skipped": str(reason)}
    if done["status"] != 0:
        raise RuntimeError(f"bench_core.py failed in Pyodide: {done['stderr'][-2000:]}")
    rows = [json.loads(line) for line in done["stdout"].splitlines()]
    print(f"{'mode':<4} {'algorithm':<20} {'n':>7} {'tenants':>7} {'trace':<4} {'Pyodide s':>9} {'CPython s':>9} "
          "ratio", flush=True)
    for row in rows:
        if "seconds" not in row:
            print(f"{row['mode']:<4} {row['algorithm']:<20} {row['n']:>7} over the documented limit", flush=True)
            continue
        base = next((r for r in cpython if same_run(r, row) and "seconds" in r), None)
        if base is None:  # --only pyodide: time the same case here too
            base = core.measure({k: row[k] for k in ("mode", "algorithm", "n", "tenants", "trace", "repeats")})
        row["cpython_seconds"] = base["seconds"]
        row["ratio"] = round(row["seconds"] / base["seconds"], 2) if base["seconds"] else None
        row["same_digest"] = row["digest"] == base["digest"]
        print(f"{row['mode']:<4} {row['algorithm']:<20} {row['n']:>7} {row.get('tenants') or '':>7} "
              f"{'on' if row['trace'] else 'off':<4} {row['seconds']:9.3f} {base['seconds']:9.3f} "
              f"{row['ratio']:5.2f}{'' if row['same_digest'] else '  RESULT DIFFERS'}", flush=True)
    ratios = sorted(r["ratio"] for r in rows if r.get("ratio"))
    summary = {"median_ratio": ratios[len(ratios) // 2], "max_ratio": ratios[-1], "target_ratio": PYODIDE_TARGET_RATIO,
               "all_identical": all(r.get("same_digest", True) for r in rows)} if ratios else {}
    if summary:
        print(f"Pyodide / CPython: median x{summary['median_ratio']}, max x{summary['max_ratio']} "
              f"(target <= {PYODIDE_TARGET_RATIO:g}); identical results: {summary['all_identical']}", flush=True)
    return {"clock": "time.process_time", "rows": rows, "summary": summary}


# The served app: long enough runs for 50 steps forward, in both modes.
APP_RUNS = {"cpu": "mode=cpu&algorithm=srtf&tasks=A:0:30,B:2:25,C:4:20,D:6:30",
            "llm": "mode=llm&algorithm=sfq&tenants=A:8x30,B:2x30,C:2x20:join=6"}
APP_STEPS = 50
APP_TARGET_P95_MS = 34   # two frames at 60 Hz
PLAYBACK_SPEED = 16      # the fastest setting
LINK_TASKS = 1500   # past the editor's limit (app.model.MAX_ROWS)
LINK_QUERY = "mode=cpu&algorithm=rr&tasks=" + ",".join(f"T{i}:{i % 50}:{1 + i % 3}" for i in range(LINK_TASKS))
LINK_TARGET_S = 3
# Long runs for the pager's windows (app/frames.py): a window's steps, its bytes and Python's time to render it.
WINDOW_RUNS = {**APP_RUNS, "cpu 20,001 steps": "mode=cpu&algorithm=rr&quantum=1&tasks=A:0:10000,B:0:10000",
               "cpu 100,001 steps": "mode=cpu&algorithm=fcfs&tasks=A:0:100000",
               "llm 5,000 requests": "mode=llm&algorithm=sfq&tenants="
                                     + ",".join(f"T{i}:{1 + i % 5}x50" for i in range(100))}

# In the page: the step counter's slot (the pager fills it; Panel draws it inside shadow roots).
COUNTER_JS = """(() => { const walk = (root, out) => { for (const e of root.querySelectorAll('*')) {
  if (e.dataset && e.dataset.slot === 'counter') out.push(e); if (e.shadowRoot) walk(e.shadowRoot, out) } return out }
  return walk(document, [])[0] })()"""
# In the page: from each real input event (a key press or a click, its timeStamp) to the mutation that changes the
# step counter, in ms; installed once, ``window.__latency`` is emptied at each call.
INPUT_LATENCY_JS = """(counter) => {
  window.__latency = []
  if (window.__timing) return
  window.__timing = true
  let started = null
  for (const type of ['keydown', 'click']) addEventListener(type, (e) => { started = e.timeStamp }, true)
  new MutationObserver(() => {
    if (started !== null) { window.__latency.push(performance.now() - started); started = null }
  }).observe(counter, {childList: true, subtree: true, characterData: true})
}"""
# An init script: as soon as the page's pager can step (a prerender's pager marks <html> with lab-stepping and the
# counter shows its step), press → (a keydown on the document, as the pager hears a key) and note when the counter
# changed, in ms since navigation: `window.labFirstStep`, the time to the first answered step.
FIRST_STEP_JS = """
window.labFirstStep = null
addEventListener('DOMContentLoaded', () => {
  const counter = () => { const walk = (root) => { for (const e of root.querySelectorAll('*')) {
    if (e.dataset && e.dataset.slot === 'counter') return e; const found = e.shadowRoot && walk(e.shadowRoot)
    if (found) return found } return null }; return walk(document) }
  const until = performance.now() + 60000
  const attempt = () => {
    const shown = counter()
    if (!document.documentElement.classList.contains('lab-stepping') || !shown || !/\\/\\d/.test(shown.textContent)) {
      if (performance.now() < until) requestAnimationFrame(attempt)
      return
    }
    const before = shown.textContent
    new MutationObserver((_, observer) => {
      if (shown.textContent !== before) { observer.disconnect(); window.labFirstStep = performance.now() }
    }).observe(shown, {childList: true, subtree: true, characterData: true})
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true, composed: true}))
  }
  requestAnimationFrame(attempt)
})
"""
SITE_FIRST_STEP_TARGET_MS = 2000   # navigation to the first answered step, cold, local
SITE_STEPS = 15   # steps timed (keys, then clicks) on the default run (16 steps), with and without Python

# In the page: each change of the counter as [time, text], while Play runs.
PLAYBACK_JS = """(counter) => {
  window.__changes = []
  new MutationObserver(() => window.__changes.push([performance.now(), counter.textContent]))
    .observe(counter, {childList: true, subtree: true, characterData: true})
}"""


def server_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc), to see how much of a step is the server's work."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def step_latencies(page, action, steps: int) -> list[float]:
    """Step ``steps`` times by ``action`` (a real key press or click through Playwright), each after the last
    was shown; the in-page times from the input event to the counter's change."""
    counter = page.evaluate_handle(COUNTER_JS)
    page.evaluate(INPUT_LATENCY_JS, counter)
    for _ in range(steps):
        before = counter.evaluate("c => c.textContent")
        action()
        page.wait_for_function("([c, before]) => c.textContent !== before", arg=[counter, before], timeout=30_000)
    return page.evaluate("window.__latency")


def playback(page) -> dict[str, Any]:
    """Play from the first step at the fastest speed until the run ends: steps a second on the clock, and how
    evenly (the longest gap between two shown steps)."""
    import re
    from playwright.sync_api import expect
    page.keyboard.press("Home")
    page.locator(".pager-speed select").select_option(label=f"{PLAYBACK_SPEED}×")
    page.evaluate(PLAYBACK_JS, page.evaluate_handle(COUNTER_JS))
    play = page.locator(".step-play button")
    play.click()
    expect(play).to_contain_text("Pause", timeout=30_000)
    expect(play).to_contain_text("Play", timeout=120_000)   # it stops by itself at the last step
    changes = [(at, int(re.match(r"\D*(\d+)/", text)[1])) for at, text in page.evaluate("window.__changes")]
    (start, first), (end, last) = changes[0], changes[-1]
    gaps = [b[0] - a[0] for a, b in zip(changes, changes[1:])]
    return {"speed_setting": PLAYBACK_SPEED, "steps": last - first,
            "steps_per_second": round((last - first) / ((end - start) / 1000), 2),
            "longest_gap_ms": round(max(gaps), 1), "steps_shown": len(changes)}


def link_build_seconds(repeats: int = 3) -> dict[str, float]:
    """The server's part of the large link, in this process: each stage of building its page (the best of
    ``repeats``, warm), as a served session builds it."""
    import panel as pn
    from bokeh.document import Document
    from app.model import Lab
    from app.ui import LabUI
    pn.extension(design="bootstrap")   # as app/lab.py
    stages = ("restore the link", "the views (with the pager's first window)", "lay the page out",
              "Panel's and Bokeh's models", "the document's JSON")
    best: dict[str, float] = {}
    for _ in range(repeats):
        marks = [time.perf_counter()]
        lab = Lab()
        lab.restore(LINK_QUERY)
        marks.append(time.perf_counter())
        ui = LabUI(lab)
        marks.append(time.perf_counter())
        page = ui.page()
        marks.append(time.perf_counter())
        document = Document()
        root = page.get_root(document)
        marks.append(time.perf_counter())
        document.add_root(root)
        document.to_json()
        marks.append(time.perf_counter())
        for stage, begun, ended in zip(stages, marks, marks[1:]):
            best[stage] = min(ended - begun, best.get(stage, ended - begun))
    return {k: round(v, 3) for k, v in best.items()}


def window_figures() -> list[dict[str, Any]]:
    """The pager's first window for each run: steps held, JSON bytes, and Python's time to render it."""
    from app import frames
    from app.model import Lab
    from app.source import SourceView
    rows = []
    for name, query in WINDOW_RUNS.items():
        lab = Lab()
        lab.restore(query)
        started = time.perf_counter()
        built = frames.lab_frames(lab.result, "en", SourceView(lab).card)
        window = built.window(0)
        seconds = time.perf_counter() - started
        held = window["end"] - window["start"]
        size = frames.window_bytes(window)
        rows.append({"run": name, "steps": built.total, "window_steps": held, "bytes": size,
                     "bytes_per_step": round(size / held), "render_ms": round(seconds * 1000, 1)})
    return rows


def part_app() -> dict[str, Any]:
    """`panel serve app/lab.py` (the tests' server helper) in headless Chromium: real key presses and clicks on Next,
    p50/p95 over 50 steps per mode, from the event to the counter's change; Play at the fastest speed; the pager's
    windows (bytes, steps, Python's time)."""
    print(f"\napp (panel serve, headless Chromium): ms from a real key press or click to the changed step counter, "
          f"{APP_STEPS} steps", flush=True)
    from conftest import CHROMIUM_ARGS, chromium_executable, panel_server
    reason = None if chromium_executable() else "no Chromium (LAB_CHROMIUM unset and none on PATH)"
    if reason:
        print(f"skipped: {reason}", flush=True)
        return {"skipped": reason}
    from playwright.sync_api import expect, sync_playwright
    figures: dict[str, Any] = {"target_p95_ms": APP_TARGET_P95_MS, "steps": APP_STEPS, "modes": {}}
    out = ROOT / "test-output"
    out.mkdir(exist_ok=True)
    with panel_server(out / "bench-panel-serve.log") as (url, server), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        print(f"{'mode':<4} {'input':<6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'server CPU ms/step':>18}",
              flush=True)
        for mode, query in APP_RUNS.items():
            page.goto(f"{url}?{query}")
            expect(page.locator(".counter")).to_contain_text("step 1/", timeout=60_000)
            # the link's run, not the default
            expect(page.locator(".counter")).not_to_contain_text("/16 ", timeout=60_000)
            figures["modes"][mode] = {}
            actions = {"click": lambda: page.locator(".step-next button").click(),
                       "key": lambda: page.keyboard.press("ArrowRight")}
            for action, act in actions.items():
                page.locator("body").click(position={"x": 5, "y": 5})
                page.keyboard.press("Home")
                page.wait_for_timeout(300)
                busy = server_cpu_seconds(server.pid)
                times = step_latencies(page, act, APP_STEPS)
                row = {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1),
                       "max_ms": round(max(times), 1),
                       "server_cpu_ms_per_step": round((server_cpu_seconds(server.pid) - busy) * 1000 / APP_STEPS, 1)}
                row["met"] = row["p95_ms"] <= APP_TARGET_P95_MS
                figures["modes"][mode][action] = row
                print(f"{mode:<4} {action:<6} {row['p50_ms']:7.1f} {row['p95_ms']:7.1f} {row['max_ms']:7.1f} "
                      f"{row['server_cpu_ms_per_step']:18.1f}"
                      f"  target p95 <= {APP_TARGET_P95_MS} ms: {'met' if row['met'] else 'MISSED'}", flush=True)
        figures["playback"] = playback(page)
        print(f"playback at {PLAYBACK_SPEED} steps/s (the fastest setting): {figures['playback']['steps_per_second']} "
              f"steps/s over {figures['playback']['steps']} steps, longest gap between shown steps "
              f"{figures['playback']['longest_gap_ms']} ms", flush=True)
        # A link past the editor's limit: the lab runs its first MAX_ROWS tasks and the editor shows them a page at a
        # time; time until the first page of rows and the whole run's results table are there.
        from app.model import MAX_ROWS
        from app.ui import ROWS_PER_PAGE
        busy, started = server_cpu_seconds(server.pid), time.perf_counter()
        page.goto(f"{url}?{LINK_QUERY}")
        wait_for_the_link(page)
        figures["full_editor"] = {"link_tasks": LINK_TASKS, "rows": MAX_ROWS, "rows_on_screen": ROWS_PER_PAGE,
                                  "seconds": round(time.perf_counter() - started, 2),
                                  "server_cpu_seconds": round(server_cpu_seconds(server.pid) - busy, 2)}
        figures["full_editor"]["met"] = figures["full_editor"]["seconds"] <= LINK_TARGET_S
        print(f"a link with {LINK_TASKS} tasks: the run of its first {MAX_ROWS} and the editor's first "
              f"{ROWS_PER_PAGE} rows on the page after {figures['full_editor']['seconds']} s (server CPU "
              f"{figures['full_editor']['server_cpu_seconds']} s; target <= {LINK_TARGET_S} s)", flush=True)
        browser.close()
    from app.frames import WINDOW_BYTES
    figures["link_build_seconds"] = link_build_seconds()
    print("the large link's page built in this process (s, best of 3): " + ", ".join(
        f"{stage} {seconds}" for stage, seconds in figures["link_build_seconds"].items()), flush=True)
    figures["windows"] = window_figures()
    print(f"the pager's first window (app/frames.py, budget {WINDOW_BYTES:,} bytes of JSON):", flush=True)
    print(f"{'run':<20} {'steps':>8} {'window':>7} {'bytes':>9} {'bytes/step':>10} {'Python ms':>9}", flush=True)
    for row in figures["windows"]:
        print(f"{row['run']:<20} {row['steps']:>8} {row['window_steps']:>7} {row['bytes']:>9} "
              f"{row['bytes_per_step']:>10} {row['render_ms']:>9}", flush=True)
    return figures


SITE_VISITS = 3  # cold visits, each followed by a repeat visit (a reload); medians are reported
SITE_TARGETS_MS = {"cold": 8000, "repeat": 5000}  # Python ready (the lab usable), from navigation


CHROMIUM_THREADS = {"DedicatedWorker": "the Python worker", "chromium": "the page's main thread",
                    "ThreadPoolForeg": "compilers (wasm, JS) and other helpers"}


def chromium_threads() -> dict[tuple[int, str], tuple[str, float]]:
    """CPU seconds so far of every thread of this process's descendants (Chromium's processes), by (pid, tid):
    (the thread's name, prefixed by its process type for the renderer, the process that runs the page)."""
    def children(pid: int) -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            try:
                if entry.isdigit() and int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found += [int(entry), *children(int(entry))]
            except OSError:
                continue
        return found
    threads = {}
    for pid in children(os.getpid()):
        try:
            renderer = "--type=renderer" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
            for tid in os.listdir(f"/proc/{pid}/task"):
                name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
                fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
                threads[(pid, tid)] = (("renderer:" if renderer else "") + name,
                                       (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
        except OSError:
            continue
    return threads


def cpu_by_thread(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds spent between two ``chromium_threads`` readings: the page's threads by role, and all of it."""
    spent: dict[str, float] = {"all of Chromium": 0.0}
    for key, (name, seconds) in after.items():
        used = seconds - before.get(key, (name, 0.0))[1]
        spent["all of Chromium"] += used
        role = CHROMIUM_THREADS.get(name.removeprefix("renderer:")) if name.startswith("renderer:") else None
        if role:
            spent[role] = spent.get(role, 0.0) + used
    return {role: round(seconds, 1) for role, seconds in spent.items()}


class WorkerClock:
    """The CPU seconds of the Python worker's thread (Chromium's renderer threads named DedicatedWorker), sampled
    every 50 ms with the wall clock while a visit runs, so that each part of the boot gets its own share
    (``between``): what the worker itself spent, apart from the machine's load and the other threads."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, dict[Path, float]]] = []
        self.running = True
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def sample(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        stats: list[Path] = []
        rescanned = 0.0
        while self.running:
            now = time.time()
            if now - rescanned > 1.0:  # a new page, a new worker: look for its thread now and then
                stats = [Path(f"/proc/{pid}/task/{tid}/stat") for (pid, tid), (name, _) in chromium_threads().items()
                         if name == "renderer:DedicatedWorker"]
                rescanned = now
            seconds = {}
            for stat in stats:
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                except OSError:  # that worker has ended
                    continue
                seconds[stat] = (int(fields[11]) + int(fields[12])) / ticks
            self.samples.append((now, seconds))
            time.sleep(0.05)

    def __enter__(self) -> "WorkerClock":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.running = False
        self.thread.join()

    def between(self, start: float, end: float) -> float:
        """CPU seconds the workers spent from ``start`` to ``end`` (wall-clock times; 50 ms of slack): each thread's
        last reading by then minus its last reading by ``start`` (0 if it had not started)."""
        def readings(until: float) -> dict[Path, float]:
            last: dict[Path, float] = {}
            for moment, seconds in self.samples:
                if moment <= until:
                    last.update(seconds)
            return last
        before, after = readings(start), readings(end)
        return round(sum(seconds - before.get(stat, 0.0) for stat, seconds in after.items()), 2)


def site_step_times(page) -> dict[str, dict[str, float]]:
    """p50/p95 of SITE_STEPS real key presses and clicks on Next, each from the event to the counter's change."""
    page.locator("body").click(position={"x": 5, "y": 5})
    rows = {}
    for action, act in (("key", lambda: page.keyboard.press("ArrowRight")),
                        ("click", lambda: page.locator(".step-next button").first.click())):
        page.keyboard.press("Home")
        times = step_latencies(page, act, SITE_STEPS)
        rows[action] = {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1)}
    return rows


def site_without_python(browser, url: str) -> dict[str, Any]:
    """index.html and a prepared embed with every outside request aborted, so Python never starts: the time to the
    first answered step, and the step times."""
    from site_support import route_like_a_visitor
    figures: dict[str, Any] = {}
    for name, key in (("example-fcfs.html", "example_first_step_ms"), ("index.html", "first_step_ms")):
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        context.add_init_script(FIRST_STEP_JS)
        route_like_a_visitor(context, None)
        page = context.new_page()
        page.goto(url + name)
        page.wait_for_function("window.labFirstStep !== null", timeout=120_000)
        figures[key] = round(page.evaluate("window.labFirstStep"))
        if name == "index.html":
            figures["steps"] = site_step_times(page)
        context.close()
    return figures


SWITCH_TARGET_MS = 300   # a pick in the page's menus to its run on screen, Python never started (issue 19)
# In the page: from each real pick (the menu's input event, a button's click: the event's timeStamp; a change event
# does not leave the menu's shadow root) to the animation frame after runs.js has embedded the run it asked for, in ms.
SWITCH_TIMES_JS = """() => {
  window.__switches = []
  let started = null
  for (const type of ['input', 'click']) addEventListener(type, (e) => { started = e.timeStamp }, true)
  addEventListener('lab-run-shown', (e) => {   // until the page is idle after the next frame: drawn, laid out, painted
    const since = started
    requestAnimationFrame(() => requestIdleCallback(() => window.__switches.push({...e.detail,
                                                                                  ms: performance.now() - since})))
  })
}"""
MODE_BUTTONS = {"cpu": "CPU", "llm": "LLM router", "engine": "Inference engine"}


def site_switch_times(browser, url: str) -> list[dict[str, Any]]:
    """index.html with every outside request aborted (Python never starts): every algorithm of every mode picked
    in the algorithm menu, each mode by its button, Compare and the language, each timed from the real pick to its
    run on screen; the first time each run's file is fetched, then again from the browser's cache. Only outside
    requests are routed (aborted): a route for the site's own would hold each of its requests until this process
    answers it, a delay no visitor has."""
    from schedulers.modes import MODES
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort("internetdisconnected"))
    page = context.new_page()
    page.goto(url + "index.html")
    page.wait_for_function("document.documentElement.classList.contains('lab-stepping')", timeout=120_000)
    page.evaluate(SWITCH_TIMES_JS)
    picks = 0

    def shown(action) -> None:
        nonlocal picks
        action()
        picks += 1
        page.wait_for_function("([n]) => window.__switches.length >= n", arg=[picks], timeout=60_000)

    def choose(mode: str, name: str) -> None:
        shown(lambda: page.locator(".editor select").first.select_option(label=algorithms(mode)[name].label["en"]))

    def press(label: str) -> None:
        shown(lambda: page.get_by_role("button", name=label, exact=True).click())

    for fetched in ("first", "again"):
        for mode in MODES:
            if page.evaluate("window.labRuns.run").split("-")[0] != mode:
                press(MODE_BUTTONS[mode])
            for name in algorithms(mode):
                if page.evaluate("window.labRuns.run") != f"{mode}-{name}":
                    choose(mode, name)
        press(MODE_BUTTONS["cpu"])
        choose("cpu", "fcfs")
        shown(lambda: page.locator(".teach-tab-compare button").click())
        press("日本語")
        press("English")
        shown(lambda: page.locator(".teach-tab-lab button").click())
        page.evaluate("window.__switches.forEach((s) => { s.fetched = s.fetched || %s })" % json.dumps(fetched))
    times = [{**switch, "ms": round(switch["ms"], 1)} for switch in page.evaluate("window.__switches")]
    context.close()
    return times


def site_visit(page, url: str) -> dict[str, Any]:
    """One boot: its timeline (ms since navigation) and breakdown, with the Python worker's CPU seconds in each part;
    the first contentful paint; the CPU seconds Chromium's threads used until the lab was ready; the first answered
    step (the context runs FIRST_STEP_JS)."""
    from site_support import breakdown, wait_for_boot
    threads = chromium_threads()
    with WorkerClock() as clock:
        page.goto(url)
        page.wait_for_function("window.labFirstStep !== null", timeout=120_000)
        first_step = round(page.evaluate("window.labFirstStep"))
        state = wait_for_boot(page)
        time.sleep(0.1)  # one more sample past the end
    cpu = cpu_by_thread(threads, chromium_threads())
    origin = page.evaluate("performance.timeOrigin") / 1000  # the timeline's 0, on the wall clock
    paint = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null")
    ready = next(t["at"] for t in state["timeline"] if t["stage"] == "ready")
    first = state["timeline"][0]["at"]
    opening = ("page, until it starts the worker" if state["timeline"][0]["stage"] == "worker" else
               "page, until the worker's first word")
    parts = [(opening, 0, first), *breakdown(state["timeline"], spans=True)]
    return {"ready_ms": ready, "first_stage_ms": first, "first_contentful_paint_ms": paint, "cpu_seconds": cpu,
            "first_step_ms": first_step,
            "bytecode_restored": page.evaluate("(window.labBoot.bytecode || {}).restored === true"),
            "breakdown": [(what, end - start) for what, start, end in parts],
            "worker_cpu": [(what, clock.between(origin + start / 1000, origin + end / 1000))
                           for what, start, end in parts]}


def wait_for_the_link(page) -> None:
    """Until the large link's run is on the page: the editor's first page of rows and the whole run's table."""
    from app.model import MAX_ROWS
    from app.ui import ROWS_PER_PAGE
    page.locator(".row-editor").nth(ROWS_PER_PAGE - 1).wait_for(timeout=120_000)
    page.locator("table.metrics tbody tr").nth(MAX_ROWS - 1).wait_for(timeout=120_000)


def site_large_link(browser, url: str, cdn: str) -> dict[str, Any]:
    """The large link on the site, on a repeat visit (the first one kept Pyodide and the bytecode): from navigation
    to Python ready, and on to the link's run on the page."""
    from site_support import route_like_a_visitor, wait_for_boot
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    route_like_a_visitor(context, cdn)
    page = context.new_page()
    page.goto(url + "index.html")
    wait_for_boot(page)
    page.wait_for_function("(window.labBoot.bytecode || {}).stored === true", timeout=120_000)
    page.goto(f"{url}index.html?{LINK_QUERY}")
    state = wait_for_boot(page)
    wait_for_the_link(page)
    shown = page.evaluate("performance.now()")
    context.close()
    ready = next(t["at"] for t in state["timeline"] if t["stage"] == "ready")
    after = round((shown - ready) / 1000, 2)
    return {"ready_ms": round(ready), "shown_ms": round(shown), "after_ready_s": after, "met": after <= LINK_TARGET_S}


def print_switches(switches: list[dict[str, Any]], runs: dict[str, Any]) -> None:
    """The pick-to-shown times, by run, view and language (first fetch / from the cache), and the run files' sizes."""
    print(f"switch to a prerendered run, Python never started (pick -> shown, ms; target <= {SWITCH_TARGET_MS}):",
          flush=True)
    by_run: dict[str, dict[str, float]] = {}
    for switch in switches:
        by_run.setdefault(f"{switch['run']} {switch['view']} {switch['lang']}", {})[switch["fetched"]] = switch["ms"]
    for run, times in by_run.items():
        print(f"  {run:<36} first {times.get('first', '-'):>7}  again {times.get('again', '-'):>7}", flush=True)
    worst = max(switch["ms"] for switch in switches)
    print(f"  slowest {worst:.0f} ms, median {statistics.median(s['ms'] for s in switches):.0f} ms: "
          f"{'met' if worst <= SWITCH_TARGET_MS else 'MISSED'}", flush=True)
    sizes = sorted(size["gzip"] for size in runs["files"].values())
    print(f"prerendered runs: {len(sizes)} files, {sizes[0]:,}-{sizes[-1]:,} bytes each (gzipped, as shipped), "
          f"{sum(sizes) / 1e6:.2f} MB in all; the page's index of them {runs['index_bytes']:,} bytes", flush=True)


def part_site() -> dict[str, Any]:
    """`python3 build.py build` (Pyodide from its CDN) served on localhost, in headless Chromium with the CDN
    answered by the stand-in (tests/site_support.py: ../shared/pyodide-standin, or LAB_PYODIDE_DIST): cold first
    visits (a fresh browser context each) and repeat visits (a reload in the same context), the boot's breakdown
    from the page's own timeline, and the targets for "Python ready" (the lab usable)."""
    print("\nsite (python3 build.py build, served locally, headless Chromium, Pyodide's CDN stood in for)", flush=True)
    from conftest import CHROMIUM_ARGS, chromium_executable
    from site_support import (StandInMissing, StaticServer, build_site, prerendered_frames, pyodide_standin,
                              route_like_a_visitor)
    try:
        standin, real = pyodide_standin()
    except StandInMissing as missing:
        print(f"not measured: {missing}", flush=True)
        return {"skipped": str(missing)}
    if not chromium_executable():
        print("not measured: no Chromium (LAB_CHROMIUM unset and none on PATH)", flush=True)
        return {"skipped": "no Chromium"}
    from playwright.sync_api import sync_playwright
    site = ROOT / "test-output" / "bench-site"
    info = build_site(site)
    sizes = {k: info["sizes"][k] for k in ("own_total", "own_total_gzip", "wheels", "javascript_css")}
    print(f"own assets: {sizes['own_total'] / 1e6:.2f} MB raw, {sizes['own_total_gzip'] / 1e6:.2f} MB gzip "
          f"(wheels {sizes['wheels'] / 1e6:.2f} MB, JS/CSS {sizes['javascript_css'] / 1e6:.2f} MB)", flush=True)
    frames_bytes = {page.name: prerendered_frames(page) for page in sorted(site.glob("*.html"))}
    visits: dict[str, list[dict[str, Any]]] = {"cold": [], "repeat": []}
    requests: list[str] = []
    with StaticServer(standin, cdn=True) as cdn, StaticServer(site) as url, sync_playwright() as playwright, \
            contextlib.redirect_stderr(io.StringIO()):  # the stand-in's server logs the 404 of pyodide.asm.mjs
        browser = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        without = site_without_python(browser, url)
        switches = site_switch_times(browser, url)
        large_link = site_large_link(browser, url, cdn)
        for run in range(SITE_VISITS):
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            context.add_init_script(FIRST_STEP_JS)
            route_like_a_visitor(context, cdn)
            page = context.new_page()
            if run == 0:
                page.on("request", lambda request: requests.append(request.url))
            visits["cold"].append(site_visit(page, url + "index.html"))
            if run == 0:   # stepping once Python has taken over: in Pyodide
                in_pyodide = site_step_times(page)
            # The repeat visit finds what the first one kept: the service worker's caches, the bytecode.
            page.wait_for_function("(window.labBoot.bytecode || {}).stored === true", timeout=120_000)
            visits["repeat"].append(site_visit(page, url + "index.html"))
            context.close()
        browser.close()
    figures: dict[str, Any] = {"sizes": sizes, "pyodide": "real 314.0.7" if real else f"stand-in {standin}",
                               "load_average": os.getloadavg(), "visits": visits, "targets_ms": SITE_TARGETS_MS,
                               "first_visit_requests": len(requests), "frames_bytes": frames_bytes,
                               "without_python": without, "steps_in_pyodide": in_pyodide, "switches": switches,
                               "large_link": large_link,
                               "runs": info["runs"]}
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    print(f"{'part of the boot (median of ' + str(SITE_VISITS) + ')':<48} {'cold ms':>8} {'worker s':>8} "
          f"{'repeat ms':>9} {'worker s':>8}", flush=True)
    for what, _ in visits["cold"][0]["breakdown"]:
        cells = []
        for kind in ("cold", "repeat"):
            for key in ("breakdown", "worker_cpu"):
                values = [dict(v[key]).get(what) for v in visits[kind]]
                cells.append(str(median(values)) if None not in values else "-")
        print(f"{what:<48} {cells[0]:>8} {cells[1]:>8} {cells[2]:>9} {cells[3]:>8}", flush=True)
    for role in ["all of Chromium", *CHROMIUM_THREADS.values()]:
        cells = [median([v["cpu_seconds"].get(role, 0.0) for v in visits[kind]]) for kind in ("cold", "repeat")]
        print(f"{'CPU s, ' + role:<48} {cells[0]:>7} {cells[1]:>7}", flush=True)
    for kind in ("cold", "repeat"):
        ready = median([v["ready_ms"] for v in visits[kind]])
        met = ready <= SITE_TARGETS_MS[kind]
        figures[f"{kind}_ready_ms"] = ready
        figures[f"{kind}_target_met"] = met
        runs = ", ".join(f"{v['ready_ms'] / 1000:.1f}" for v in visits[kind])
        print(f"Python ready, {kind} visit: {ready / 1000:.1f} s (median; runs {runs}); target <= "
              f"{SITE_TARGETS_MS[kind] / 1000:g} s: {'met' if met else 'MISSED'}", flush=True)
    plain = median([v["ready_ms"] for v in visits["repeat"]])
    print(f"a link with {LINK_TASKS} tasks, repeat visit: Python ready at {large_link['ready_ms'] / 1000:.1f} s (the "
          f"default page's: {plain / 1000:.1f} s), its run on the page {large_link['after_ready_s']} s later (target "
          f"<= {LINK_TARGET_S} s)", flush=True)
    first_steps = [v["first_step_ms"] for v in visits["cold"]]
    figures["first_step_ms"] = median(first_steps)
    print(f"first answered step, index.html cold (Python starting beside it): {median(first_steps)} ms (median; runs "
          f"{', '.join(map(str, first_steps))}); prepared embed example-fcfs.html cold: "
          f"{without['example_first_step_ms']}"
          f" ms; index.html with Python never started: {without['first_step_ms']} ms; target <= "
          f"{SITE_FIRST_STEP_TARGET_MS} ms", flush=True)
    for where, times in (("Python never started", without["steps"]), ("in Pyodide (stand-in)", in_pyodide)):
        print(f"step time, {where}: " + "; ".join(f"{action} p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms"
                                                 for action, row in times.items())
              + f" (target p95 <= {APP_TARGET_P95_MS} ms)", flush=True)
    print_switches(switches, info["runs"])
    print("the frames the prerendered pages carry (bytes of JSON): " + "; ".join(
        f"{name} " + ", ".join(f"{lang} {size:,}" for lang, size in langs.items())
        for name, langs in frames_bytes.items()), flush=True)
    paint = median([v["first_contentful_paint_ms"] or 0 for v in visits["cold"]])
    print(f"first contentful paint (the prerendered lab), cold: {paint:.0f} ms; first visit: {len(requests)} "
          f"requests", flush=True)
    return figures


# --- the command --------------------------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "cpus": os.cpu_count(), "load_average": os.getloadavg(),
            "commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build.py bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^3 and 10^4 only (about a minute)")
    parser.add_argument("--only", choices=PARTS, action="append", help="run only this part (repeatable)")
    parser.add_argument("--out", default=str(ROOT / "test-output" / "bench.json"), help="the JSON file to write")
    args = parser.parse_args(argv)
    parts = args.only or list(PARTS)
    sizes = QUICK_SIZES if args.quick else SIZES
    report: dict[str, Any] = {"command": "python3 build.py bench " + " ".join(argv or sys.argv[1:]),
                              "machine": machine()}
    started = time.perf_counter()
    if "core" in parts:
        report["core"] = part_core(sizes)
    if "cli" in parts:
        report["cli"] = part_cli()
    if "ostep" in parts:
        report["ostep"] = reference_ostep.bench()
        report["ostep"]["multi"] = reference_multi.bench()
    if "vtc" in parts:
        report["vtc"] = reference_vtc.bench()
    if "simso" in parts:
        report["simso"] = reference_simso.bench()
    if "pyodide" in parts:
        report["pyodide"] = part_pyodide(sizes, report.get("core", {}).get("rows", []))
    if "app" in parts:
        report["app"] = part_app()
    if "site" in parts:
        report["site"] = part_site()
    report["machine"]["load_average_after"] = os.getloadavg()
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    missed = [r for r in report.get("core", {}).get("rows", []) if not r.get("target", {}).get("met", True)]
    missed += [report["cli"]] if report.get("cli", {}).get("met") is False else []
    print(f"\nwrote {out} ({report['wall_seconds']} s); load average {report['machine']['load_average'][0]:.1f} "
          f"at the start on {os.cpu_count()} CPUs" + (f"; {len(missed)} target(s) missed" if missed else ""),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

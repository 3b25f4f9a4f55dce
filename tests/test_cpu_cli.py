"""``python -m schedulers cpu``: text and JSON output, --list, and every kind of bad input."""
import json
import os
import subprocess
import sys

import pytest

from schedulers.cli import main
from schedulers.modes import MODES
from tests.cpu_support import ARTICLE, ROOT, scenario


def cli(capsys, *argv):
    status = main(["cpu", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("algorithm", ["fcfs", "sjf", "srtf", "rr"])
def test_json_matches_the_library(capsys, scenario_file, algorithm):
    from schedulers.cpu import run
    path = scenario_file(scenario(algorithm, ARTICLE, quantum=2))
    status, out, err = cli(capsys, "--scenario", path, "--json")
    assert (status, err) == (0, "")
    assert json.loads(out) == json.loads(json.dumps(run(scenario(algorithm, ARTICLE, quantum=2))))


def test_options_override_the_file(capsys, scenario_file):
    path = scenario_file(scenario("fcfs", ARTICLE))
    status, out, _ = cli(capsys, "--scenario", path, "--algorithm", "rr", "--quantum", "3", "--json")
    result = json.loads(out)
    assert status == 0 and result["algorithm"] == "rr" and result["parameters"] == {"quantum": 3}
    status, out, _ = cli(capsys, "--scenario", path, "--algorithm", "mlfq", "--quanta", "1,3", "--levels", "2",
                         "--allotment", "2", "--boost", "5", "--json")
    assert json.loads(out)["parameters"] == {"levels": 2, "quanta": [1, 3], "allotment": [2, 2], "boost": 5}
    status, out, _ = cli(capsys, "--scenario", path, "--algorithm", "lottery", "--lottery-seed", "9", "--json")
    assert json.loads(out)["parameters"] == {"quantum": 1, "lottery_seed": 9}


def test_text_output_in_both_languages(capsys, scenario_file):
    path = scenario_file(scenario("fcfs", ARTICLE))
    status, out, _ = cli(capsys, "--scenario", path)
    assert status == 0
    assert "AAAAAAABBBBCDDD" in out and "[7, 11) B" in out
    assert "average" in out and "5.75" in out and "context switches 3" in out
    status, out, _ = cli(capsys, "--scenario", path, "--lang", "ja")
    assert "平均" in out and "タスク" in out and "5.75" in out


def test_text_output_shows_idle_and_deadlines(capsys, scenario_file):
    path = scenario_file(scenario("edf", [("A", 1, 2, {"deadline": 2}), ("Bee", 0, 1)]))
    status, out, _ = cli(capsys, "--scenario", path)
    assert status == 0
    assert "[0, 1) Bee" in out and "[1, 3) A" in out and "missed" in out and "deadline misses 1" in out


def test_list(capsys):
    status, out, _ = cli(capsys, "--list")
    assert status == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names[:4] == ["fcfs", "sjf", "srtf", "rr"] and "lottery" in names and "mlfq" in names


def test_seeded_exercise_runs(capsys):
    status, out, _ = cli(capsys, "--seed", "42", "--algorithm", "srtf", "--json")
    assert status == 0 and json.loads(out)["algorithm"] == "srtf"


BAD = [
    ({"tasks": [{"name": "A", "arrival": 0}]}, "tasks[0].burst: is missing"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": "3"}]}, "tasks[0].burst: must be an integer"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": True}]}, "tasks[0].burst: must be an integer"),
    ({"tasks": [{"name": 5, "arrival": 0, "burst": 3}]}, "tasks[0].name: must be text"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 0}]}, "tasks[0].burst: must be >= 1"),
    ({"tasks": [{"name": "A", "arrival": -1, "burst": 1}]}, "tasks[0].arrival: must be >= 0"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1, "tickets": 0}]}, "tasks[0].tickets: must be >= 1"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1, "brust": 1}]}, "tasks[0].brust: unknown field"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1}, {"name": "A", "arrival": 0, "burst": 1}]},
     "tasks[1].name: duplicate name 'A'"),
    ({"tasks": []}, "tasks: must have at least 1 item"),
    ({"tasks": {"A": 1}}, "tasks: must be a list"),
    ({}, "tasks: is missing"),
    ({"algorithm": "sjf2", "tasks": [{"name": "A", "arrival": 0, "burst": 1}]}, "algorithm: must be one of"),
    ({"algorithm": "rr", "quantum": 0, "tasks": [{"name": "A", "arrival": 0, "burst": 1}]}, "quantum: must be >= 1"),
    ({"algorithm": "mlfq", "quanta": [1, 2], "tasks": [{"name": "A", "arrival": 0, "burst": 1}]},
     "quanta: must have at least 3 items"),
    ({"algorithm": "mlfq", "quanta": [1, 0, 2], "tasks": [{"name": "A", "arrival": 0, "burst": 1}]},
     "quanta[1]: must be >= 1"),
    ({"mode": "llm", "tasks": []}, "mode: must be cpu"),
    ({"tasks": [{"name": "A", "arrival": 1_000_000, "burst": 1}]}, "tasks: the last task would complete at t=1000001"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1_000_001}]}, "tasks[0].burst: must be <= 1000000"),
    ({"tasks": [{"name": f"T{i}", "arrival": 0, "burst": 1} for i in range(100_001)]},
     "tasks: must have at most 100000 items"),
    ({"algorithm": "priority", "aging": 1, "tasks": [{"name": f"T{i}", "arrival": 0, "burst": 1} for i in range(5000)]},
     "tasks: priority compares every ready task"),
    ({"algorithm": "hrrn", "tasks": [{"name": f"T{i}", "arrival": 0, "burst": i + 1 if i < 1000 else 1}
                                     for i in range(20_001)]},   # 1,000 distinct bursts x 20,001 decisions
     "tasks: hrrn compares the first ready task of each cohort at each decision: 1000 cohorts"),
    ({"quantum": 1, "tasks": [{"name": "A", "arrival": 0, "burst": 1}], "seed": 3}, "seed: unknown field"),
]


@pytest.mark.parametrize("content, message", BAD, ids=[message.split(":")[0] for _, message in BAD])
def test_bad_scenarios_are_one_error_line(capsys, scenario_file, content, message):
    status, out, err = cli(capsys, "--scenario", scenario_file(content))
    assert status == 2 and out == ""
    assert err.startswith("error: " + message) and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--quantum", "x"], "error: quantum: must be an integer"),
    (["--quantum", "-2", "--algorithm", "rr"], "error: quantum: must be >= 1"),
    (["--quanta", "1,x,2", "--algorithm", "mlfq"], "error: quanta[1]: must be an integer"),
    (["--lottery-seed", "1.5"], "error: lottery_seed: must be an integer"),
    (["--algorithm", "nope"], "error: algorithm: must be one of"),
    (["--bogus"], "error: unrecognized arguments: --bogus"),
])
def test_bad_options_are_one_error_line(capsys, scenario_file, argv, message):
    status, _, err = cli(capsys, "--scenario", scenario_file(scenario("fcfs", ARTICLE)), *argv)
    assert status == 2 and err.startswith(message) and err.count("\n") == 1


INTEGER_OPTIONS = [field for field in MODES["cpu"].schema.parameters if field.type in ("integer", "integers")]


@pytest.mark.parametrize("field", INTEGER_OPTIONS, ids=[field.name for field in INTEGER_OPTIONS])
def test_every_integer_option_says_its_range(capsys, scenario_file, field):
    """A number past the limit is told the limit, not "must be an integer"; a typo is told the range."""
    option = "--" + field.name.replace("_", "-")
    levels = ["--levels", "1"] if field.type == "integers" else []   # one level: a one-item list
    path = scenario_file(scenario("mlfq" if field.type == "integers" else "fcfs", ARTICLE))
    for typed, told in (("99999999999999999999", f"must be <= {field.maximum}, not 99999999999999999999 "
                                                 "(the documented limit)"),
                        ("9" * 5000, f"must be <= {field.maximum}, not an integer of 5000 digits"),
                        ("x", f"must be an integer from {field.minimum} to {field.maximum}, not 'x'"),
                        ("1.5", f"must be an integer from {field.minimum} to {field.maximum}, not '1.5'")):
        status, out, err = cli(capsys, "--scenario", path, *levels, option, typed)
        assert (status, out) == (2, "") and err.startswith(f"error: {field.name}: {told}") and err.count("\n") == 1


@pytest.mark.parametrize("content, message", [
    ("{\"tasks\": [", "error: scenario: malformed JSON at line 1"),
    ("[1, 2]", "error: scenario: must be a JSON object"),
    ("", "error: scenario: malformed JSON"),
])
def test_malformed_files(capsys, scenario_file, content, message):
    status, _, err = cli(capsys, "--scenario", scenario_file(content))
    assert status == 2 and err.startswith(message)


def test_real_process_exit_status_and_no_traceback(scenario_file):
    bad = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario",
                          scenario_file({"tasks": [{"name": "A", "arrival": 0, "burst": -3}]})],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "error: tasks[0].burst: must be >= 1, not -3\n"
    good = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario",
                           scenario_file(scenario("srtf", ARTICLE)), "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert good.returncode == 0 and json.loads(good.stdout)["timeline"][:3] == ["A", "B", "C"]


def test_a_file_of_the_other_mode_is_told_which_mode_to_use(capsys, scenario_file):
    path = scenario_file({"algorithm": "sfq", "tenants": [{"name": "A", "cost": 8, "count": 6}]})
    status, out, err = cli(capsys, "--scenario", path)
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("error: tenants: unknown field")
    assert err.endswith(f"this file is a scenario of the llm mode: run python -m schedulers llm --scenario {path}\n")
    # A CPU file with a mistake gets no hint: it is a CPU file.
    status, _, err = cli(capsys, "--scenario", scenario_file({"tasks": [{"name": "A", "arrival": 0, "burst": 0}]}))
    assert status == 2 and "mode" not in err


def test_text_writes_exact_values_as_a_teacher_would():
    from schedulers.cpu.text import ratio
    assert ratio("23/4") == "5.75"
    assert ratio("3") == "3"
    assert ratio("7/3") == "7/3 (2.333)"
    assert ratio("1/40") == "0.025"


@pytest.mark.parametrize("algorithm", ["fcfs", "rr", "srtf", "mlfq", "stride", "lottery", "hrrn", "cfs", "eevdf"])
def test_text_is_made_without_the_trace_and_says_the_same(capsys, scenario_file, algorithm):
    """The text path runs without a trace (and with the fast paths a run without one takes): every line,
    both languages, a wide name included, as from the full trace; past 200 segments only their count."""
    from schedulers.cpu import render_text, run
    from schedulers.exercises import cpu_exercise
    tasks = cpu_exercise(11, tasks=300, max_arrival=1000, max_burst=9)["tasks"]
    tasks[3]["name"] = "タスク"
    content = {"algorithm": algorithm, "tasks": tasks}
    traced = run(content)
    assert traced["steps"]
    for lang in ("en", "ja"):
        status, out, _ = cli(capsys, "--scenario", scenario_file(content), "--lang", lang)
        assert status == 0 and out == render_text(traced, lang) + "\n"
    assert "more segments" in out or "ほか" in out


def test_text_summary_of_ten_thousand_jobs_stays_small(tmp_path):
    """The issue's comparison with OSTEP's simulator: 10,000 jobs at t = 0, RR with q = 1, as a real process.
    With the trace it took 112 MB; the text needs none (about 30 MB, most of it the interpreter)."""
    from benchmarks import child_usage
    bursts = [1 + (job * 7919) % 20 for job in range(10_000)]
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps({"tasks": [{"name": str(job), "arrival": 0, "burst": burst}
                                          for job, burst in enumerate(bursts)]}))
    _, peak = child_usage([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--algorithm", "rr",
                           "--quantum", "1"], tmp_path / "out.txt")
    out = (tmp_path / "out.txt").read_text()
    assert f"makespan {sum(bursts)}, busy {sum(bursts)}, idle 0" in out and out.count("\n") > 10_000
    assert peak < 50e6, f"peak RSS {peak / 1e6:.1f} MB"


@pytest.mark.parametrize("output", [[], ["--json"]], ids=["text", "json"])
def test_a_run_imports_only_its_mode(output):
    """The registry imports a mode's package when it is first looked up: a CPU run, as a real process, imports
    neither the LLM nor the engine mode (a tenth of the command's time on the issue's 10,000 jobs)."""
    code = ("import sys\nfrom schedulers.cli import main\nstatus = main(sys.argv[1:])\n"
            "print(status, *sorted(name for name in sys.modules if name.startswith('schedulers.')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, "cpu", "--seed", "7", *output], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    status, *modules = done.stderr.split()
    assert status == "0" and "schedulers.cpu" in modules and "A" in done.stdout
    assert not [name for name in modules if name.startswith(("schedulers.llm", "schedulers.engine"))], modules


@pytest.mark.parametrize("argv", [["--list"], ["--seed", "7"]], ids=["list", "text"])
def test_a_reader_that_left_early_gets_no_traceback(argv):
    """`python -m schedulers cpu --list | head -1`: the pipe may be closed before anything is written."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", *argv], stdout=write,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=60)
    finally:
        os.close(write)
    assert done.returncode == 0 and done.stderr == ""

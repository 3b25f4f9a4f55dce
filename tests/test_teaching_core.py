"""The core's teaching helpers: the rule's own source with the deciding lines, quiz questions, exports."""
from __future__ import annotations

import csv
import inspect
import io
import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from schedulers import algorithms, simulate
from schedulers.cpu.policies import SRTF
from schedulers.engine import DEFAULT_SCENARIO
from schedulers.exercises import cpu_exercise, engine_exercise, llm_exercise
from schedulers.export import metrics_csv, trace_json
from schedulers.llm.policies import StartTimeFairQueueing
from schedulers.quiz import question, questions
from schedulers.rule import deciding_lines, rule_source
from tests.cpu_support import ARTICLE, ROOT, scenario

REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}


# --- the rule itself -----------------------------------------------------------------------------------

def marked_text(source, step) -> list[str]:
    lines = []
    for path, numbers in deciding_lines(source, step).items():
        text = (ROOT / path).read_text(encoding="utf-8").splitlines()
        lines += [text[n - 1].strip() for n in sorted(numbers)]
    return lines


@pytest.mark.parametrize("mode", ["cpu", "llm", "engine"])
def test_every_rule_shows_its_live_source_with_file_line_numbers(mode):
    for name in algorithms(mode):
        source = rule_source(mode, name)
        for section in source.sections:
            text = (ROOT / section.path).read_text(encoding="utf-8").splitlines()
            assert list(section.lines) == text[section.first - 1:section.first - 1 + len(section.lines)]
        assert source.sections[0].title == source.policy.__name__
        code = inspect.getsource(source.policy)
        assert source.text.startswith(code[code.index("class "):].rstrip("\n"))   # from its class line
        # Every method a step can mark is on screen.
        for path, first, last in source.methods.values():
            assert any(s.path == path and s.first <= first and last < s.first + len(s.lines) for s in source.sections)


@pytest.mark.parametrize("mode", ["cpu", "llm", "engine"])
def test_the_source_opens_on_the_rule_its_words_stay_above_it(mode):
    """The catalogue's words (``@words(...)`` above the class) are not in the source the lab shows: it opens on the
    class line and its docstring, then what decides."""
    for name in algorithms(mode):
        source = rule_source(mode, name)
        head = source.sections[0]
        text = (ROOT / head.path).read_text(encoding="utf-8").splitlines()
        assert head.lines[0].startswith(f"class {source.policy.__name__}(") and head.lines[1].strip().startswith('"""')
        assert text[head.first - 2].strip() == ")" or text[head.first - 2].strip().startswith("@words(")
        words = tuple(f"{word} = " for word in ("group", "label", "summary", "rule", "keep"))
        assert not any(line.strip().startswith(words) or "self.rule = " in line for line in head.lines)
        entry = algorithms(mode)[name]
        assert not any(f'"en": "{entry.label["en"]}"' in line or entry.summary["ja"][:20] in line
                       for line in head.lines)


def test_srtf_marks_the_preemption_test_when_it_preempts_and_key_when_it_dispatches():
    source = rule_source("cpu", "srtf")
    result = simulate("cpu", scenario("srtf", ARTICLE))
    preempt = next(step for step in result["steps"] if step["decision"] == "preempt")
    assert "return candidate.remaining < running.remaining" in marked_text(source, preempt)
    dispatch = result["steps"][1]
    assert marked_text(source, dispatch) == ["def key(self, task: Task, now: int) -> Any:",
                                              "return task.remaining, task.arrival, task.index"]
    assert source.policy is SRTF


def test_a_non_preemptive_rule_is_not_asked_while_its_task_continues():
    source = rule_source("cpu", "fcfs")
    result = simulate("cpu", scenario("fcfs", ARTICLE))
    assert deciding_lines(source, result["steps"][3]) == {}          # A continues
    assert deciding_lines(source, result["steps"][0]) == {}          # initial state
    priority = rule_source("cpu", "priority-preemptive")
    arrived = {"decision": "continue", "time": 5, "ready": ["E"],
               "events": [{"kind": "arrive", "task": "E", "time": 4}]}
    assert "return self.effective(candidate, now) < self.effective(running, now)" in marked_text(priority, arrived)
    assert any("waited // self.aging" in line for line in marked_text(priority, arrived))   # the helper it calls
    assert deciding_lines(rule_source("cpu", "priority"), arrived) == {}
    # Between two instants where something happens the engine does not look again: nothing is asked ...
    quiet = {"decision": "continue", "time": 6, "ready": ["E"], "events": []}
    assert deciding_lines(priority, quiet) == {}
    # ... unless the order moves with time (aging): then it asks at every instant.
    aging = rule_source("cpu", "priority-preemptive", {"aging": 2})
    assert aging.every_instant and "return self.effective(candidate, now) < self.effective(running, now)" in \
        marked_text(aging, quiet)


def test_sfq_marks_pick_then_charge_and_the_join_rule():
    source = rule_source("llm", "sfq")
    assert source.policy is StartTimeFairQueueing
    result = simulate("llm", REFERENCE)
    dispatch = next(step for step in result["steps"] if step["kind"] == "dispatch")
    lines = marked_text(source, dispatch)
    assert "self.virtual_time = self.meter[decision.tenant]" in lines
    assert "self.meter[tenant] += self.router.units(tenant, cost)" in lines
    join = next(step for step in result["steps"] if step["kind"] == "join")
    assert "self.meter[tenant] = max(self.meter[tenant], self.virtual_time)" in marked_text(source, join)
    assert any(s.title == "MeterPolicy.charge (inherited)" for s in source.sections)


def test_vtc_marks_pick_admit_and_charge_at_an_admission_and_the_lift_at_a_lift():
    source = rule_source("engine", "vtc")
    result = simulate("engine", DEFAULT_SCENARIO)
    admit = next(step for step in result["steps"] if step["kind"] == "admit")
    lines = marked_text(source, admit)
    assert "tenant = self.least_waiting()" in lines                                   # VTC.pick
    assert "return self.engine.units(running.request.tenant, input_tokens=running.request.input)" in lines
    assert any(line.startswith("self.refile(tenant)") for line in lines)               # VTC.charge
    lift = next(step for step in result["steps"] if step["kind"] == "lift")
    assert "self.counter[tenant] = max(self.counter[tenant], reference)" in marked_text(source, lift)
    decode = next(step for step in result["steps"] if step["kind"] == "decode" and step["finished"])
    predict = rule_source("engine", "vtc-predict")
    assert "unused = max(0, running.predicted - running.generated)" in marked_text(predict, decode)
    assert not any("unused" in line for line in marked_text(predict, {"kind": "decode", "finished": []}))
    fcfs = rule_source("engine", "fcfs")
    assert marked_text(fcfs, {"kind": "arrive", "joined": False}) == []              # FCFS is asked nothing
    assert any("heappush(self.heads" in line for line in marked_text(fcfs, {"kind": "arrive", "joined": True}))


# --- quiz ------------------------------------------------------------------------------------------------

def test_article_fcfs_questions():
    result = simulate("cpu", scenario("fcfs", ARTICLE))
    first = question(result, 2)          # instant 1: A runs, B has just arrived
    assert (first.time, first.candidates, first.answer) == (1, ("A", "B"), "A")
    assert first.grade("A") and not first.grade("B")
    assert first.why == result["steps"][2]["why"]
    assert question(result, 1) is None   # only A is there: nothing to choose
    assert question(result, 4) is None   # instant 3: nothing happens, A simply continues
    assert question(result, 5).candidates == ("A", "B", "C", "D")   # instant 4: D arrives; does A keep the CPU?
    assert [q.step for q in questions(result)] == [2, 3, 5, 8, 12]   # arrivals, then each dispatch with a choice
    assert question(result, 0) is None and question(result, 99) is None


cpu_tasks = st.lists(st.tuples(st.integers(0, 10), st.integers(1, 5)), min_size=1, max_size=5).map(
    lambda pairs: [(chr(65 + i), a, b) for i, (a, b) in enumerate(pairs)])


@settings(max_examples=40, deadline=None)
@given(cpu_tasks, st.sampled_from(["fcfs", "sjf", "srtf", "rr", "mlfq", "lottery"]))
def test_cpu_questions_are_the_present_tasks_and_the_timeline_answers(tasks, algorithm):
    result = simulate("cpu", scenario(algorithm, tasks))
    for q in questions(result):
        present = tuple(t[0] for t in tasks if t[1] <= q.time and
                        next(r for r in result["tasks"] if r["name"] == t[0])["completion"] > q.time)
        assert q.candidates == present
        assert q.answer == result["timeline"][q.time]


def test_llm_questions_and_the_seeded_exercise_matches_the_command_line():
    result = simulate("llm", REFERENCE)
    asked = questions(result)
    assert all(q.answer in q.candidates for q in asked)
    dispatched = {d["time"]: d["tenant"] for d in result["dispatch"]}
    assert all(dispatched[q.time] == q.answer for q in asked)
    assert asked[0].candidates == ("A", "B")
    assert any(q.candidates == ("A", "B", "C") for q in asked)
    # "seed 42, SRTF": the command line's timeline answers every question of the lab's exercise.
    out = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--seed", "42", "--algorithm", "srtf", "--json"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    graded = json.loads(out.stdout)
    lab = simulate("cpu", {**cpu_exercise(42), "algorithm": "srtf"})
    asked = questions(lab)
    assert [(q.step, q.answer) for q in asked] == [(q.step, graded["timeline"][q.time]) for q in asked]
    assert questions(simulate("llm", llm_exercise(42)))


def test_engine_questions_ask_which_waiting_tenant_takes_the_slot():
    result = simulate("engine", DEFAULT_SCENARIO)
    asked = questions(result)
    admits = {s["step"]: s for s in result["steps"] if s["kind"] == "admit"}
    assert asked and all(q.step in admits and q.answer == admits[q.step]["tenant"] for q in asked)
    assert (asked[0].time, asked[0].candidates, asked[0].answer) == (0, ("A", "B"), "A")
    # VTC's answer is always the least counter among the candidates (ties: tenant order)
    for q in asked:
        before = result["steps"][q.step - 1]["exact"]["counters"]
        assert q.answer == min(q.candidates, key=lambda name: (Fraction(before[name]), q.candidates.index(name)))
    assert questions(simulate("engine", engine_exercise(42)))


def test_a_compact_trace_has_no_questions():
    from schedulers.cpu import run
    assert questions(run(scenario("srtf", ARTICLE), trace="compact")) == []


# --- exports ---------------------------------------------------------------------------------------------

def test_trace_json_is_the_command_lines_output(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario("rr", ARTICLE, quantum=2)))
    out = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--json"],
                         capture_output=True, check=True, cwd=ROOT).stdout
    result = simulate("cpu", scenario("rr", ARTICLE, quantum=2))
    assert trace_json(result).encode("utf-8") == out and out.endswith(b"}\n")   # the newline included
    assert json.loads(trace_json(result)) == result


def test_cpu_metrics_csv_rows_and_averages():
    result = simulate("cpu", scenario("fcfs", ARTICLE))
    every = list(csv.DictReader(io.StringIO(metrics_csv(result))))
    rows = [r for r in every if r["row"] != "run"]
    assert [r["name"] for r in rows] == ["A", "B", "C", "D", ""]
    assert [r["waiting"] for r in rows] == ["0", "6", "9", "8", "5.75"]
    assert rows[-1]["row"] == "average" and rows[-1]["turnaround"] == "9.5"
    assert {r["row"] for r in rows[:-1]} == {"task"}
    # then the run's figures, NAME in the second column and VALUE in the third: FCFS on the article's tasks runs
    # 15 units in 15, switching 3 times (A, B, C, D)
    assert every[:5] == rows and [(r["name"], r["arrival"]) for r in every[5:]] == [
        ("makespan", "15"), ("busy", "15"), ("idle", "0"), ("utilisation", "1"), ("context_switches", "3"),
        ("deadline_misses", "0")]


def test_csv_keeps_names_text_and_optional_columns():
    tasks = [("average", 0, 2, {"deadline": 1}), ("=HYPERLINK(1)", 1, 1, {"deadline": 9})]
    rows = list(csv.reader(io.StringIO(metrics_csv(simulate("cpu", scenario("edf", tasks))))))
    assert rows[0] == ["row", "name", "arrival", "burst", "completion", "turnaround", "waiting", "response",
                       "deadline", "missed"]
    assert rows[1][:2] == ["task", "average"] and rows[1][-1] == "yes"
    assert rows[2][1] == "'=HYPERLINK(1)"


def test_engine_metrics_csv():
    result = simulate("engine", DEFAULT_SCENARIO)
    rows = list(csv.DictReader(io.StringIO(metrics_csv(result))))
    assert [(r["name"], r["output_tokens"], r["service"], r["mean_latency"]) for r in rows[:2]] == [
        ("A", "128", "320", "25.25"), ("B", "24", "96", str(28 / 3))]
    assert rows[2]["row"] == "average" and rows[2]["service"] == "208" and rows[2]["counter"] == ""


def test_llm_metrics_csv():
    result = simulate("llm", {**REFERENCE, "algorithm": "rr"})
    rows = list(csv.DictReader(io.StringIO(metrics_csv(result))))
    assert [(r["name"], r["dispatched"], r["charged"]) for r in rows[:3]] == [("A", "6", "48"), ("B", "6", "12"),
                                                                              ("C", "4", "8")]
    assert rows[3]["row"] == "average"
    assert rows[3]["charged"] == str(68 / 3) and rows[3]["dispatched"] == str(16 / 3)

"""CFS: every sentence of its rule pinned by a case worked out by hand (the comments show the arithmetic)."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.cpu import run
from schedulers.cpu.policies import CFS, NICE_WEIGHTS, VRUNTIME_SCALE
from schedulers.errors import ScenarioError
from schedulers.rule import deciding_lines, rule_source
from tests.cpu_support import ARTICLE, ROOT, chart, scenario, simulate


def vruntimes(result: dict, time: int) -> dict[str, Fraction]:
    step = result["steps"][time]
    return {name: Fraction(value) for name, value in step["exact"]["vruntime"].items()}


def test_weights_are_linuxs_table():
    assert len(NICE_WEIGHTS) == 40
    assert NICE_WEIGHTS[20] == 1024 and NICE_WEIGHTS[0] == 88761 and NICE_WEIGHTS[39] == 15
    # "about 1.25x per step": every neighbour ratio lies in [1.2, 1.28] (the small weights are rounded)
    assert all(1.2 <= a / b < 1.28 for a, b in zip(NICE_WEIGHTS, NICE_WEIGHTS[1:]))


def test_article_tasks_all_nice_0():
    # t=0 A alone: W = 1024, slice max(1, floor(6 * 1024 / 1024)) = 6, so A runs [0, 6) though B, C, D arrive:
    #   no wakeup preemption. Arrivals are lifted to the least vruntime present, A's own (running, so its
    #   current value): B at t=1 gets max(0, 1) = 1; C at t=2 gets min(A 2, B 1) = 1; D at t=4 min(4, 1, 1) = 1.
    # t=6 A's slice ends, vruntime 6. B, C, D tie at 1; B arrived first. W = 4096: slice floor(6/4) = 1.
    # t=7 B 2, C 1, D 1: C (arrived before D), slice 1; C completes at 8 and leaves W = 3072.
    # t=8 D 1: slice floor(6 * 1024 / 3072) = 2, runs [8, 10), vruntime 3.
    # t=10 A 6, B 2, D 3: B, slice 2, [10, 12), vruntime 4.  t=12 D 3: slice 2, 1 left: [12, 13).
    # t=13 A 6, B 4: B, W = 2048, slice 3, 1 left: [13, 14).  t=14 A alone: [14, 15).
    result = simulate("cfs", ARTICLE)
    assert chart(result) == "AAAAAABCDDBBDBA"
    assert [t["completion"] for t in result["tasks"]] == [15, 14, 8, 13]
    assert vruntimes(result, 5) == {"A": 5, "B": 1, "C": 1, "D": 1}
    assert vruntimes(result, 15) == {"A": 7, "B": 5, "C": 2, "D": 4}   # each: its lift + its burst
    assert result["steps"][7]["why"]["en"] == (
        "t=6: B (vruntime 1, weight 1024, slice 1 = max(1, floor(6 × 1024 / 4096))) is dispatched: "
        "CFS runs the least vruntime. It ties with C and arrived earlier. B's quantum expires at t=7.")
    assert result["steps"][2]["why"]["en"] == ("t=1: A (vruntime 1, weight 1024, 5 left of its slice) continues: "
                                               "its slice is not used up (no wakeup preemption).")
    assert result["parameters"] == {"latency": 6, "min_granularity": 1}


def test_nice_weights_vruntime_and_slices():
    # A nice 0 (1024), B nice 5 (335), both at t=0: W = 1359.
    # t=0 tie at vruntime 0, same arrival: A by input order; slice floor(6 * 1024 / 1359) = floor(4.52) = 4.
    # t=4 A 4, B 0: B, slice max(1, floor(6 * 335 / 1359) = 1) = 1; vruntime 1024/335 (3.06).
    # t=5 B 1024/335 < A 4: B again, vruntime 2048/335 (6.11).  t=6 A 4: slice 4, 2 left: [6, 8), vruntime 6.
    # t=8 B alone: W = 335, slice 6, 4 left: [8, 12); vruntime 6 * 1024 / 335 = 6144/335.
    result = simulate("cfs", [("A", 0, 6), ("B", 0, 6, {"nice": 5})])
    assert chart(result) == "AAAABBAABBBB"
    assert vruntimes(result, 5) == {"A": 4, "B": Fraction(1024, 335)}
    assert vruntimes(result, 12) == {"A": 6, "B": Fraction(6144, 335)}
    assert result["steps"][12]["weight"] == {"A": 1024, "B": 335}
    assert result["steps"][12]["vruntime"]["B"] == pytest.approx(6144 / 335)
    assert result["tasks"][1]["nice"] == 5 and "nice" not in result["tasks"][0]


def test_arrival_is_lifted_to_the_running_tasks_current_vruntime():
    # t=0 A alone: slice 6. B arrives at t=5: the only runnable task is A, running, vruntime 5 now (not 0, its
    # value at dispatch): B gets max(0, 5) = 5 and waits for A's slice to end (no wakeup preemption).
    # t=6 A 6, B 5: B, W = 2048, slice 3: [6, 9), vruntime 8.  t=9 A 6: slice 3: [9, 12), 9.
    # t=12 B 8 < A 9: B's last unit [12, 13).  t=13 A alone: its last unit.
    result = simulate("cfs", [("A", 0, 10), ("B", 5, 4)])
    assert chart(result) == "AAAAAABBBAAABA"
    assert vruntimes(result, 6) == {"A": 6, "B": 5}
    # Without the lift B (vruntime 0) would have run from t=6 until it completed: BBBB.
    assert not chart(result).startswith("AAAAAABBBB")


def test_arrival_to_an_idle_cpu_keeps_its_own_vruntime():
    # A runs [0, 2) and completes; nothing is runnable when B arrives at 5, so B keeps its own vruntime, 0.
    result = simulate("cfs", [("A", 0, 2), ("B", 5, 2)])
    assert chart(result) == "AA...BB"
    assert vruntimes(result, 6) == {"A": 2, "B": 1}


def test_slice_floor_and_min_granularity():
    # 8 equal tasks at t=0: floor(6 * 1024 / 8192) = 0, so the slice is min_granularity.
    tasks = [(name, 0, 2) for name in "ABCDEFGH"]
    assert chart(simulate("cfs", tasks)) == "ABCDEFGHABCDEFGH"
    assert chart(simulate("cfs", tasks, min_granularity=2)) == "AABBCCDDEEFFGGHH"
    assert chart(simulate("cfs", tasks, latency=20)) == "AABBCCDDEEFFGGHH"   # floor(20 / 8) = 2


def test_w_counts_the_runnable_tasks_at_dispatch():
    # t=0: A, B, C arrive: W = 3072; the three tie at 0 and A comes first in the input: slice floor(6 / 3) = 2.
    # t=2 B (0): slice 2.  t=4 C (0): slice 2, but its burst is 1: it completes at 5 and W drops to 2048.
    # t=5 A 2 ties B 2: A by input order, slice floor(6 * 1024 / 2048) = 3: [5, 8).  t=8 B: 2 left: [8, 10).
    result = simulate("cfs", [("A", 0, 6), ("B", 0, 4), ("C", 0, 1)])
    assert chart(result) == "AABBCAAABBA"
    assert result["steps"][6]["why"]["en"].startswith(
        "t=5: A (vruntime 2, weight 1024, slice 3 = max(1, floor(6 × 1024 / 2048))) is dispatched")


def test_ties_go_to_earlier_arrival_then_input_order():
    # B and C arrive together at t=1 and are lifted to A's vruntime 1; at t=2 (A's slice floor(6/1) = 6 is not
    # over) nothing changes; at t=6 B and C tie at 1 and arrived together: B by input order.
    result = simulate("cfs", [("A", 0, 6), ("B", 1, 1), ("C", 1, 1)])
    assert chart(result) == "AAAAAABC"
    assert "comes first in the input" in result["steps"][7]["why"]["en"]


def test_compact_trace_has_no_vruntime_snapshots():
    result = run(scenario("cfs", ARTICLE), trace="compact")
    assert all("vruntime" not in step for step in result["steps"])


def test_rule_source_marks_the_slice_and_the_lift():
    source = rule_source("cpu", "cfs")
    assert source.policy is CFS and {"key", "quantum", "admit", "complete"} <= set(source.methods)
    result = simulate("cfs", ARTICLE)
    marked = deciding_lines(source, result["steps"][2])          # t=1: B arrives (admit), A continues
    text = (ROOT / "schedulers/cpu/policies.py").read_text(encoding="utf-8").splitlines()
    lines = [text[n - 1].strip() for n in sorted(marked["schedulers/cpu/policies.py"])]
    assert "task.vruntime_base = max(task.vruntime_base, min_vruntime)" in lines
    dispatch = deciding_lines(source, result["steps"][7])       # t=6: B dispatched
    lines = [text[n - 1].strip() for n in sorted(dispatch["schedulers/cpu/policies.py"])]
    assert any("self.latency * self.weight(task) // self.runnable_weight" in line for line in lines)


@pytest.mark.parametrize("nice", [-21, 20, 1.5, "0", True])
def test_bad_nice_names_the_field(nice):
    with pytest.raises(ScenarioError) as caught:
        simulate("cfs", [("A", 0, 1, {"nice": nice})])
    assert caught.value.field == "tasks[0].nice"


class UnitModel:
    """A rule of the vruntime family simulated one time unit at a time with Fractions, straight from its statement:
    a subclass says where an arriving task is placed, what the end of a slice changes, and what runs next."""

    def __init__(self, tasks: list[tuple[str, int, int, int]]) -> None:
        self.tasks = tasks
        self.weight = {name: NICE_WEIGHTS[nice + 20] for name, _, _, nice in tasks}
        self.order = {name: (arrival, index) for index, (name, arrival, _, _) in enumerate(tasks)}
        self.vruntime: dict[str, Fraction] = {}
        self.runnable: list[str] = []

    def place(self, name: str) -> None:
        raise NotImplementedError

    def slice_ended(self, name: str) -> None:
        """The running task used its whole slice."""

    def choose(self) -> tuple[str, int]:
        """The task that runs next, and its slice."""
        raise NotImplementedError

    def run(self) -> tuple[list[str | None], dict[str, Fraction]]:
        remaining = {name: burst for name, _, burst, _ in self.tasks}
        running, slice_left, timeline, t = None, 0, [], 0
        while any(remaining.values()):
            for name, arrival, _, _ in self.tasks:
                if arrival == t:
                    self.place(name)
                    self.runnable.append(name)
            if running is not None and slice_left == 0:
                self.slice_ended(running)
                running = None
            if running is None and self.runnable:
                running, slice_left = self.choose()
            timeline.append(running)
            if running is not None:
                self.vruntime[running] += Fraction(1024, self.weight[running])
                remaining[running] -= 1
                slice_left -= 1
                if remaining[running] == 0:
                    self.runnable.remove(running)
                    running = None
            t += 1
        return timeline, self.vruntime


class CFSModel(UnitModel):
    def __init__(self, tasks, latency: int, granularity: int) -> None:
        super().__init__(tasks)
        self.latency, self.granularity = latency, granularity

    def place(self, name: str) -> None:
        self.vruntime[name] = max(Fraction(0), min((self.vruntime[n] for n in self.runnable), default=Fraction(0)))

    def choose(self) -> tuple[str, int]:
        chosen = min(self.runnable, key=lambda n: (self.vruntime[n], *self.order[n]))
        total = sum(self.weight[n] for n in self.runnable)
        return chosen, max(self.granularity, self.latency * self.weight[chosen] // total)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 6), st.integers(-20, 19)), min_size=1, max_size=6),
       st.integers(1, 12), st.integers(1, 3))
def test_cfs_agrees_with_a_unit_by_unit_model_of_the_rule(drawn, latency, granularity):
    tasks = [(f"T{i}", arrival, burst, nice) for i, (arrival, burst, nice) in enumerate(drawn)]
    result = simulate("cfs", [(n, a, b, {"nice": nice}) for n, a, b, nice in tasks], latency=latency,
                      min_granularity=granularity)
    timeline, vruntime = CFSModel(tasks, latency, granularity).run()
    assert result["timeline"] == timeline
    assert vruntimes(result, len(result["steps"]) - 1) == vruntime


def test_cli_options_and_errors(tmp_path):
    path = tmp_path / "cfs.json"
    path.write_text(json.dumps(scenario("cfs", [(n, 0, 2) for n in "ABCDEFGH"])), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--min-granularity",
                           "2", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "".join(json.loads(done.stdout)["timeline"]) == "AABBCCDDEEFFGGHH"
    bad = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--latency", "0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error: latency: must be >= 1")
    assert len(bad.stderr.strip().splitlines()) == 1
    path.write_text(json.dumps(scenario("eevdf", ARTICLE)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--slice", "1",
                           "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout)["parameters"] == {"slice": 1}


# --- EEVDF ------------------------------------------------------------------------------------------------

def test_eevdf_on_the_article_tasks():
    # All nice 0, so vruntime advances 1 per time unit; slice 3: a request's deadline is its start + 3.
    # t=0 A alone: v 0, d 3; runs [0, 3). B arrives at 1 at V = A's 1: d 4; C at 2 at V = (2 + 1) / 2 = 3/2: d 9/2.
    # t=3 A: v 3, d 6. V = (3 + 1 + 3/2) / 3 = 11/6: B (1) and C (3/2) are eligible, B's deadline 4 is the earliest.
    # D arrives at 4 at V = (3 + 2 + 3/2) / 3 = 13/6: d 31/6.  t=6 B: v 4, d 7. V = (3 + 4 + 3/2 + 13/6) / 4 = 8/3:
    # C and D are eligible, C (9/2) runs its last unit.  t=7 V = (3 + 4 + 13/6) / 3 = 55/18: A (3) and D (13/6)
    # are eligible, D (31/6 < 6) runs [7, 10).  t=10 V = 7/2: A (d 6) runs [10, 13).  t=13 V = (6 + 4) / 2 = 5: B.
    result = simulate("eevdf", ARTICLE)
    assert chart(result) == "AAABBBCDDDAAABA"
    assert result["steps"][7]["why"]["en"] == (
        "t=6: C (vruntime 3/2, lag 7/6, virtual deadline 9/2) is dispatched: EEVDF runs the eligible task with the "
        "earliest virtual deadline. C completes at t=7.")
    step = result["steps"][5]   # after [4, 5): D has just been placed at 13/6
    assert {k: Fraction(v) for k, v in step["exact"]["virtual_deadline"].items()} == \
        {"A": 6, "B": 4, "C": Fraction(9, 2), "D": Fraction(31, 6)}
    assert Fraction(step["exact"]["vruntime"]["D"]) == Fraction(13, 6)
    assert sum(Fraction(v) for v in step["exact"]["lag"].values()) == 0   # lags of the runnable tasks sum to 0
    assert result["parameters"] == {"slice": 3}


def test_eevdf_skips_an_ineligible_task_with_an_earlier_deadline():
    # A nice -5 (weight 3121), B nice 0, both at 0, slice 2. A's request is 2 * 1024 / 3121 = 2048/3121 of
    # vruntime, B's 2. t=0 both v 0, A's deadline is earlier: A runs 2 units, v 2048/3121 (0.66). t=2 V = 3121 *
    # (2048/3121) / 4145 = 2048/4145 (0.49): A is not eligible (0.66 > 0.49) though its deadline 4096/3121 (1.31)
    # is earlier than B's 2: B runs.
    result = simulate("eevdf", [("A", 0, 6, {"nice": -5}), ("B", 0, 4)], slice=2)
    assert chart(result)[:4] == "AABB"
    dispatch = result["steps"][3]["why"]["en"]
    assert dispatch.startswith("t=2: B (vruntime 0, lag 2048/4145, virtual deadline 2)")


def test_eevdf_places_an_arrival_at_v_rounded_down_to_vruntimes_unit():
    # As above, and C (nice 0) arrives at t=2, when V = 3121 * (2048/3121) / 4145 = 2048/4145. 4145 = 5 * 829 does
    # not divide lcm(the 40 weights), so C is placed at V rounded down to a multiple of 1/lcm: its lag is positive
    # and less than one unit, and the runnable tasks' weighted lags still sum to 0 (V is exact).
    assert VRUNTIME_SCALE % 4145
    result = simulate("eevdf", [("A", 0, 6, {"nice": -5}), ("B", 0, 4), ("C", 2, 3)], slice=2)
    step = result["steps"][3]   # after [2, 3): B ran one unit of vruntime 1
    placed = vruntimes(result, 3)["C"]
    average = Fraction(2048, 4145)
    assert placed == Fraction(math.floor(average * VRUNTIME_SCALE), VRUNTIME_SCALE)
    assert 0 < average - placed < Fraction(1, VRUNTIME_SCALE)
    lags = {name: Fraction(lag) for name, lag in step["exact"]["lag"].items()}
    weights = {"A": NICE_WEIGHTS[-5 + 20], "B": 1024, "C": 1024}
    assert lags["C"] > 0 and sum(weights[name] * lag for name, lag in lags.items()) == 0
    # A placement whose V needs no rounding is exact: the article's D at 13/6 (above).
    assert (Fraction(13, 6) * VRUNTIME_SCALE).denominator == 1


class EEVDFModel(UnitModel):
    def __init__(self, tasks, slice_length: int) -> None:
        super().__init__(tasks)
        self.slice_length = slice_length
        self.deadline: dict[str, Fraction] = {}

    def average(self) -> Fraction:
        weights = sum(self.weight[n] for n in self.runnable)
        return sum(self.weight[n] * self.vruntime[n] for n in self.runnable) / weights

    def request(self, name: str) -> Fraction:
        return Fraction(self.slice_length * 1024, self.weight[name])

    def place(self, name: str) -> None:
        # V rounded down to vruntime's unit, 1/lcm(the 40 weights) of a time unit
        self.vruntime[name] = Fraction(math.floor(self.average() * VRUNTIME_SCALE), VRUNTIME_SCALE) \
            if self.runnable else Fraction(0)
        self.deadline[name] = self.vruntime[name] + self.request(name)

    def slice_ended(self, name: str) -> None:
        self.deadline[name] += self.request(name)

    def choose(self) -> tuple[str, int]:
        average = self.average()
        eligible = [n for n in self.runnable if self.vruntime[n] <= average]
        return min(eligible, key=lambda n: (self.deadline[n], *self.order[n])), self.slice_length


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 6), st.integers(-20, 19)), min_size=1, max_size=6),
       st.integers(1, 5))
def test_eevdf_agrees_with_a_unit_by_unit_model_of_the_rule(drawn, slice_length):
    tasks = [(f"T{i}", arrival, burst, nice) for i, (arrival, burst, nice) in enumerate(drawn)]
    result = simulate("eevdf", [(n, a, b, {"nice": nice}) for n, a, b, nice in tasks], slice=slice_length)
    timeline, vruntime = EEVDFModel(tasks, slice_length).run()
    assert result["timeline"] == timeline
    assert vruntimes(result, len(result["steps"]) - 1) == vruntime

"""The algorithms beyond the article, each by exact hand-checked cases (the comment says how)."""
import inspect
import random

from schedulers.cpu import ALGORITHMS, run
from schedulers.cpu.policies import SRTF, Policy, make_policy
from schedulers.cpu.scenario import read_parameters
from schedulers.rule import rule_source
from tests.cpu_support import chart, events, scenario, simulate


def test_menu_order_and_documentation():
    assert list(ALGORITHMS)[:4] == ["fcfs", "sjf", "srtf", "rr"]
    assert set(ALGORITHMS) == {"fcfs", "sjf", "srtf", "rr", "priority", "priority-preemptive", "hrrn", "mlfq", "mlq",
                               "edf", "rm", "dm", "stride", "lottery", "cfs", "eevdf"}
    for name, algorithm in ALGORITHMS.items():
        assert algorithm.summary["en"] and algorithm.summary["ja"] and algorithm.label["ja"]
        policy = make_policy(name, read_parameters({}))
        assert policy.name == name
        assert "tie" in (type(policy).__doc__ or "").lower() or name in ("rr", "lottery", "mlfq")


def test_the_source_view_shows_the_code_that_decides():
    source = rule_source("cpu", "srtf")
    assert "return task.remaining, task.arrival, task.index" in source.text
    assert "candidate.remaining < running.remaining" in source.text
    assert inspect.getsource(SRTF.key) in source.text
    assert rule_source("cpu", "priority").helpers["key"] == ("effective",)   # the helpers key calls are marked too
    assert "ratio" in rule_source("cpu", "hrrn").helpers["key"]


class LongestFirst(Policy):
    """A rule of one's own: the longest remaining time first, preempting on strictly longer."""
    name = "ljf"
    preemptive = True
    rule = {"en": "LJF runs the longest remaining time", "ja": "LJFは残り時間が最長のタスクを実行する"}

    def key(self, task, now):
        return -task.remaining, task.arrival, task.index

    def preempts(self, candidate, running, now):
        return candidate.remaining > running.remaining


def test_a_rule_of_ones_own_plugs_into_the_same_engine():
    result = run(scenario("fcfs", [("A", 0, 2), ("B", 1, 3), ("C", 1, 1)]), policy=LongestFirst())
    # t=1: B (3) preempts A (1 left); C (1) ties with A and A arrived first.
    assert chart(result) == "ABBBAC"
    assert result["algorithm"] == "ljf"
    assert result["steps"][2]["why"]["en"] == \
        "t=1: B (remaining 3) preempts A (remaining 1): LJF runs the longest remaining time."


PRIORITIES = [("A", 0, 3, {"priority": 2}), ("B", 1, 2, {"priority": 3}), ("C", 2, 1, {"priority": 1})]


def test_priority_non_preemptive_and_preemptive():
    assert chart(simulate("priority", PRIORITIES)) == "AAACBB"             # C waits for A to finish
    preemptive = simulate("priority-preemptive", PRIORITIES)
    assert chart(preemptive) == "AACABB"                                    # C (1) preempts A (2) at t=2
    assert events(preemptive, "preempt") == [("preempt", "A", 2)]
    # Equal priority never preempts.
    assert chart(simulate("priority-preemptive", [("A", 0, 2, {"priority": 1}), ("B", 1, 1, {"priority": 1})])) == "AAB"


def test_priority_aging():
    tasks = [("A", 0, 6, {"priority": 0}), ("B", 0, 1, {"priority": 5}), ("C", 5, 1, {"priority": 2})]
    assert chart(simulate("priority", tasks)) == "AAAAAACB"
    # aging 2: at t=6 B has waited 6 (5 - 3 = 2), C has waited 1 (2 - 0 = 2): tie, B arrived first.
    assert chart(simulate("priority", tasks, aging=2)) == "AAAAAABC"
    # Preemptive, aging 1: at t=2 B (2 - 2 = 0) beats A (1); at t=4 A (1 - 2 = -1) beats B (0).
    aged = simulate("priority-preemptive", [("A", 0, 3, {"priority": 1}), ("B", 0, 3, {"priority": 2})], aging=1)
    assert chart(aged) == "AABBAB"
    assert aged["steps"][3]["why"]["en"].startswith("t=2: B (priority 0) preempts A (priority 1)")
    assert aged["parameters"] == {"aging": 1}


def test_hrrn():
    # t=0: A and B both ratio 1, A first in input. t=6: B (6 + 3) / 3 = 3 beats C (1 + 1) / 1 = 2
    # (SJF would take C).
    result = simulate("hrrn", [("A", 0, 6), ("B", 0, 3), ("C", 5, 1)])
    assert chart(result) == "AAAAAABBBC"
    assert result["steps"][7]["why"]["en"] == "t=6: B (ratio 3) is dispatched: HRRN runs the highest response " \
                                              "ratio (waiting + burst) / burst."


def test_mlfq_levels_quanta_and_demotion():
    # Default quanta 1, 2, 4; allotment one quantum. A: level 0 [0,1), level 1 [2,4), level 2 [5,6).
    result = simulate("mlfq", [("A", 0, 4), ("B", 1, 2)])
    assert chart(result) == "ABAABA"
    assert events(result, "demote") == [("demote", "A", 1), ("demote", "B", 2), ("demote", "A", 4)]
    assert result["parameters"] == {"levels": 3, "quanta": [1, 2, 4], "allotment": [1, 1, 1], "boost": None}


def test_mlfq_preempted_task_keeps_the_rest_of_its_quantum():
    # A at level 1 (quantum 2) from t=1; B arrives at level 0 at t=2 and preempts; A resumes at 3 with one
    # unit of its quantum left, so it moves down at 4 (not 5).
    result = simulate("mlfq", [("A", 0, 6), ("B", 2, 1)])
    assert chart(result) == "AABAAAA"
    assert events(result, "demote", "preempt") == [("demote", "A", 1), ("preempt", "A", 2), ("demote", "A", 4)]


def test_mlfq_allotment_counts_quanta():
    two = simulate("mlfq", [("A", 0, 3), ("B", 2, 2)], levels=2, quanta=[1, 1], allotment=2)
    assert chart(two) == "AABBA"       # A drops to level 1 only after two quanta; B keeps level 0
    one = simulate("mlfq", [("A", 0, 3), ("B", 2, 2)], levels=2, quanta=[1, 1], allotment=1)
    assert chart(one) == "AABAB"


def test_mlfq_boost():
    tasks = [("A", 0, 5), ("B", 4, 2), ("C", 5, 1)]
    # Without boost, at t=5 A and B are at level 1 and C (level 0) runs first.
    assert chart(simulate("mlfq", tasks, levels=2, quanta=[1, 1])) == "AAAABCAB"
    # Boost at t=4 lifts A to level 0 with a fresh allotment: at t=5 A (level 0, ahead of C) runs.
    boosted = simulate("mlfq", tasks, levels=2, quanta=[1, 1], boost=4)
    assert chart(boosted) == "AAAABACB"
    assert ("boost", None, 4) in events(boosted, "boost")


def test_mlfq_single_quantum_for_all_levels():
    result = simulate("mlfq", [("A", 0, 3)], quantum=3)
    assert result["parameters"]["quanta"] == [3, 3, 3]


def test_edf():
    # B (4) preempts A (10) at 1, C (3) preempts B at 2.
    result = simulate("edf", [("A", 0, 3, {"deadline": 10}), ("B", 1, 2, {"deadline": 4}),
                              ("C", 2, 1, {"deadline": 3})])
    assert chart(result) == "ABCBAA"
    assert result["summary"]["deadline_misses"] == 0
    assert events(result, "preempt") == [("preempt", "A", 1), ("preempt", "B", 2)]


def test_edf_misses_and_strictness():
    late = simulate("edf", [("A", 0, 2, {"deadline": 2}), ("B", 0, 2, {"deadline": 2})])
    assert chart(late) == "AABB"
    assert [t["missed"] for t in late["tasks"]] == [False, True]
    assert late["summary"]["deadline_misses"] == 1
    assert chart(simulate("edf", [("A", 0, 3, {"deadline": 5}), ("B", 1, 1, {"deadline": 5})])) == "AAAB"
    # No deadline: after every task with one.
    assert chart(simulate("edf", [("A", 0, 2), ("B", 1, 1, {"deadline": 9})])) == "ABA"


def test_stride():
    # strides 100 (A) and 200 (B); passes: A0 B0 -> A; A100 B0 -> B; A100 B200 -> A; A200 B200 -> A (tie:
    # input order); A300 B200 -> B; A300 -> A.
    result = simulate("stride", [("A", 0, 4, {"tickets": 100}), ("B", 0, 2, {"tickets": 50})])
    assert chart(result) == "ABAABA"
    assert result["parameters"] == {"quantum": 1}


def test_stride_newcomer_gets_the_least_pass():
    # Stride 100 each. A runs [0,2) (pass 200: its quantum is accounted at t=2 before arrivals), so B
    # arrives with pass 200 and loses the tie to A; C arrives at 4 with pass 300 (A's and B's), and from
    # then on the three take turns in arrival order.
    result = simulate("stride", [("A", 0, 6), ("B", 2, 3), ("C", 4, 2)])
    assert chart(result) == "AAABABCABCA"
    assert result["steps"][3]["why"]["en"] == \
        "t=2: A (pass 200) is dispatched: Stride runs the least pass. It ties with B and arrived earlier. " \
        "A's quantum expires at t=3."


def test_lottery_is_reproducible_and_follows_the_draws():
    tasks = [("A", 0, 3, {"tickets": 1}), ("B", 0, 3, {"tickets": 3})]
    first = simulate("lottery", tasks, lottery_seed=7)
    assert first == simulate("lottery", tasks, lottery_seed=7)
    # The documented rule by hand: draw randrange(total) over the ready queue's tickets, in queue order.
    rng, ready, remaining, expected = random.Random(7), ["A", "B"], {"A": 3, "B": 3}, ""
    tickets = {"A": 1, "B": 3}
    while ready:
        winner = rng.randrange(sum(tickets[n] for n in ready))
        for name in ready:
            winner -= tickets[name]
            if winner < 0:
                break
        expected += name
        remaining[name] -= 1
        ready.remove(name)
        if remaining[name]:
            ready.append(name)
    assert chart(first) == expected
    seeds = {chart(simulate("lottery", tasks, lottery_seed=seed)) for seed in range(20)}
    assert len(seeds) > 1
    assert first["parameters"] == {"quantum": 1, "lottery_seed": 7}

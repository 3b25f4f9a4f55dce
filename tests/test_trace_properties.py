"""schedulers.trace's fairness at a step, against a brute-force reading of the definitions (docs/llm.md "Fairness
metrics") on random workloads: every step of every rule, alone and against another rule of the same scenario."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.llm import run
from schedulers.llm.steps import compare_so_far, dispatched_so_far, fairness_so_far
from test_llm_properties import backlog, requests_of, workloads

RULES = ["fifo", "rr", "shortest", "sfq", "drr", "wfq"]


def runs_by_hand(scenario, dispatch, compared, count):
    """The common-backlog runs among the first ``count`` dispatches, as lists of dispatch indices: every compared
    tenant waits at each dispatch of a run, and none is emptied by a dispatch before the run's last."""
    waiting_at, waiting_after = backlog(scenario, dispatch)
    runs, current = [], None
    for k in range(count):
        if all(waiting_at[n][k] for n in compared):
            current = current if current is not None else []
            current.append(k)
            if not all(waiting_after[n][k] for n in compared):
                runs.append(current)
                current = None
        elif current is not None:
            runs.append(current)
            current = None
    return runs + ([current] if current else [])


def longest(runs, dispatch):
    """The longest run in time, the earliest on ties."""
    best = None
    for indices in runs:
        if best is None or dispatch[indices[-1]]["time"] - dispatch[indices[0]]["time"] > \
                dispatch[best[-1]]["time"] - dispatch[best[0]]["time"]:
            best = indices
    return best


def shared_by_hand(mine, theirs, count):
    """The stretches of dispatches that lie in a run on both sides, each within one run of each."""
    label = {}
    for side, runs in enumerate((mine, theirs)):
        for i, indices in enumerate(runs):
            for k in indices:
                label.setdefault(k, [None, None])[side] = i
    stretches, previous = [], None
    for k in range(count):
        pair = tuple(label.get(k, (None, None)))
        if None in pair:
            previous = None
            continue
        if pair == previous:
            stretches[-1].append(k)
        else:
            stretches.append([k])
        previous = pair
    return stretches


def figures_by_hand(scenario, dispatch, compared, indices):
    """Increments, Jain's index and the widest gap (value, time) over the dispatches ``indices``."""
    table = requests_of(scenario)
    x = dict.fromkeys(compared, Fraction(0))
    widest = (Fraction(0), dispatch[indices[0]]["time"])
    for k in indices:
        d = dispatch[k]
        if d["tenant"] in x:
            x[d["tenant"]] += Fraction(d["cost"]) / table[d["tenant"], d["request"]][2]
        gap = max(x.values()) - min(x.values())
        if gap > widest[0]:
            widest = (gap, d["time"])
    values = list(x.values())
    squares = sum(v * v for v in values)
    jain = sum(values) ** 2 / (len(values) * squares) if squares else None
    return {name: str(v) for name, v in x.items()}, (str(jain) if jain is not None else None), widest


def check(figures, by_hand, dispatch, indices):
    increments, jain, (gap, at) = by_hand
    assert figures["interval"] == {"start": dispatch[indices[0]]["time"], "end": dispatch[indices[-1]]["time"],
                                   "dispatches": len(indices)}
    assert figures["exact"]["increments"] == increments and figures["exact"].get("jain") == jain
    bound = figures["pairwise_bound"]
    if len(increments) > 1:
        assert (Fraction(bound["exact"]["max_gap"]), bound["at"]) == (gap, at)


@settings(max_examples=150, deadline=None)
@given(workloads(), st.sampled_from(RULES), st.booleans())
def test_fairness_so_far_is_the_definition_applied_to_the_dispatches_so_far(scenario, algorithm, two):
    names = [t["name"] for t in scenario["tenants"]]
    chosen = {"compare": names[:2]} if two and len(names) > 2 else {}   # the first two only, or all
    result = run({**scenario, **chosen, "algorithm": algorithm})
    compared = result["fairness"]["compared"]
    dispatch = result["dispatch"]
    for step in range(len(result["steps"])):
        count = dispatched_so_far(result, step)
        figures = fairness_so_far(result, step)
        best = longest(runs_by_hand(scenario, dispatch, compared, count), dispatch)
        if best is None:
            assert figures["interval"] is None and figures["jain"] is None and "interval" in figures["notes"]
            continue
        check(figures, figures_by_hand(scenario, dispatch, compared, best), dispatch, best)
    whole = result["fairness"]
    for key in ("interval", "increments", "jain", "pairwise_bound"):
        assert figures[key] == whole[key]
    assert figures["notes"] == {k: v for k, v in whole["notes"].items() if k != "band"}


@settings(max_examples=150, deadline=None)
@given(workloads(), st.sampled_from(RULES), st.sampled_from(RULES))
def test_compare_so_far_measures_both_runs_over_one_interval(scenario, one, other):
    left, right = run({**scenario, "algorithm": one}), run({**scenario, "algorithm": other})
    compared = left["fairness"]["compared"]
    assert [d["time"] for d in left["dispatch"]] == [d["time"] for d in right["dispatch"]]   # work-conserving
    for step in range(len(left["steps"])):
        count = dispatched_so_far(left, step)
        mine = runs_by_hand(scenario, left["dispatch"], compared, count)
        theirs = runs_by_hand(scenario, right["dispatch"], compared, count)
        shared = shared_by_hand(mine, theirs, count)
        best = longest(shared, left["dispatch"])
        both = compare_so_far(left, step, right)
        if best is None:
            assert both["interval"] is None and both["left"] is None and both["right"] is None
            continue
        for side, result in (("left", left), ("right", right)):
            check({**both[side], "interval": both["interval"]},
                  figures_by_hand(scenario, result["dispatch"], compared, best), result["dispatch"], best)


@settings(max_examples=100, deadline=None)
@given(workloads(), st.sampled_from(RULES))
def test_no_figure_at_a_step_reads_a_later_dispatch(scenario, algorithm):
    """Rewrite every dispatch after the step (other tenants, other costs): the figures at the step stay."""
    result = run({**scenario, "algorithm": algorithm})
    dispatch = result["dispatch"]
    for step in range(len(result["steps"])):
        count = dispatched_so_far(result, step)
        future = [{**d, "tenant": dispatch[-1 - k]["tenant"], "cost": dispatch[-1 - k]["cost"] + 1}
                  for k, d in enumerate(dispatch)][count:]
        rewritten = {**result, "dispatch": dispatch[:count] + future}
        assert fairness_so_far(rewritten, step) == fairness_so_far(result, step)
        assert compare_so_far(rewritten, step, result) == compare_so_far(result, step, result)

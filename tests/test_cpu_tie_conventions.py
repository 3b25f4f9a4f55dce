"""Issue 20's conventions (item 3): each flag by a hand-computed case, the "ostep" preset's extra rules, the sentences
that name a convention where it decides, and bad input."""
import json
import subprocess
import sys

import pytest

from schedulers import ScenarioError
from schedulers.cpu import run
from schedulers.cpu.presets import PRESETS, versus
from tests.cpu_support import ARTICLE, ROOT, chart, scenario


def test_arrival_before_requeue():
    # RR q=2: A's quantum ends at 2 as B arrives. (a) true, the lab's: B A -> AABBA; false: A B -> AAABB.
    tasks = [("A", 0, 3), ("B", 2, 2)]
    lab = run(scenario("rr", tasks, quantum=2, conventions="lab"))
    assert chart(lab) == "AABBA"
    assert lab["steps"][3]["why"]["en"].startswith(
        'B arrived as A\'s quantum ended: by the convention arrival_before_requeue ("lab"), A goes behind it. t=2: B')
    other = run(scenario("rr", tasks, quantum=2, conventions={"arrival_before_requeue": False}))
    assert chart(other) == "AAABB"
    # A mapping that is no preset is named as one's own setting (the lab's default is true: "the lab's" misled).
    assert other["steps"][3]["why"]["en"].startswith("B arrived as A's quantum ended: by the convention "
                                                     "arrival_before_requeue = false (a setting of your own), A goes "
                                                     "ahead of it.")
    assert "arrival_before_requeue = false（独自に指定した設定）" in other["steps"][3]["why"]["ja"]
    assert other["steps"][3]["why"]["ja"].startswith("Aのクォンタムが切れたときにBが到着しました。")
    assert other["conventions"] == {"name": None, "arrival_before_requeue": False, "boost_after_arrivals": True,
                                    "boost_order": "top-first"}


def test_boost_after_arrivals():
    # MLFQ, two levels, quanta 2, boost 2. A [0,2) uses its allotment: level 1. At 2 B arrives. With the expired task
    # rejoining first (a false): (b) true: A rejoins at level 1, B arrives at level 0, the boost keeps that order:
    # B [2,3), A [3,4). (b) false: A rejoins, the boost lifts it to level 0, then B queues behind it: A, B.
    tasks = [("A", 0, 3), ("B", 2, 1)]
    after = run(scenario("mlfq", tasks, levels=2, quanta=[2, 2], boost=2,
                         conventions={"arrival_before_requeue": False}))
    assert chart(after) == "AABA"
    assert "The boost comes after this instant's arrivals (convention boost_after_arrivals" in \
        after["steps"][3]["why"]["en"]
    before = run(scenario("mlfq", tasks, levels=2, quanta=[2, 2], boost=2,
                          conventions={"arrival_before_requeue": False, "boost_after_arrivals": False}))
    assert chart(before) == "AAAB"
    # The "ostep" preset: its quantum ends at the boost instant, so it is requeued before the boost (mlfq.py).
    assert chart(run(scenario("mlfq", tasks, levels=2, quanta=[2, 2], boost=2, conventions="ostep"))) == "AAAB"
    # The lab's default: arrivals, the requeue, then the boost: B first.
    assert chart(run(scenario("mlfq", tasks, levels=2, quanta=[2, 2], boost=2))) == "AABA"


def test_boost_order():
    # Three levels, quanta 1, boost 4. A [0,1) -> level 1; B [1,2) -> 1; A [2,3) -> 2; C arrives at 3, [3,4) -> 1. At
    # 4: B, C at level 1, A at level 2. Top first: B C A (B [4,5)); bottom first: A B C (A [4,5), its last unit).
    tasks = [("A", 0, 3), ("B", 0, 3), ("C", 3, 2)]
    top = run(scenario("mlfq", tasks, levels=3, quanta=[1, 1, 1], boost=4, conventions="lab"))
    assert chart(top) == "ABACBCAB"
    assert top["steps"][5]["why"]["en"].startswith('The boost gathers the levels top first (convention boost_order, '
                                                   '"lab"). t=4: B (level 0)')
    bottom = run(scenario("mlfq", tasks, levels=3, quanta=[1, 1, 1], boost=4,
                          conventions={"boost_order": "bottom-first"}))
    assert chart(bottom) == "ABACABCB"
    assert "top level, then bottom up" in bottom["steps"][5]["why"]["en"]


def test_conventions_left_out_say_nothing():
    given = run(scenario("rr", [("A", 0, 3), ("B", 2, 2)], quantum=2, conventions="lab"))
    plain = run(scenario("rr", [("A", 0, 3), ("B", 2, 2)], quantum=2))
    assert "conventions" not in plain and "convention" not in json.dumps(plain["steps"])
    assert given["timeline"] == plain["timeline"] and given["conventions"]["name"] == "lab"


def test_ostep_changes_nothing_where_all_arrive_at_zero():
    for algorithm in ("fcfs", "sjf", "rr"):
        tasks = [(name, 0, burst) for name, _, burst in ARTICLE]
        assert run(scenario(algorithm, tasks, conventions="ostep"))["timeline"] == \
            run(scenario(algorithm, tasks))["timeline"]


@pytest.mark.parametrize("value, field", [
    ("textbook", "conventions"), (3, "conventions"), ({"boost_order": "sideways"}, "conventions.boost_order"),
    ({"arrival_before_requeue": "maybe"}, "conventions.arrival_before_requeue"), ({"ties": True}, "conventions.ties")])
def test_bad_conventions_are_named(value, field):
    with pytest.raises(ScenarioError) as error:
        run(scenario("rr", ARTICLE, conventions=value))
    assert error.value.field == field


def test_the_command_line_takes_a_convention(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario("rr", [("A", 0, 3), ("B", 2, 2)], quantum=2)))
    command = [sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--json"]
    done = subprocess.run([*command, "--conventions", "ostep"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["timeline"] == list("AAABB")
    bad = subprocess.run([*command, "--conventions", "nope"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error: conventions: must be one of lab, ostep")
    assert "Traceback" not in bad.stderr


def test_the_presets_under_ostep():
    # mlfq-gaming is OSTEP's own homework: `mlfq.py -n 2 -q 3 -a 1 -l 0,8,2:0,12,0 -i 1 -S -c` prints the timeline
    # GGHHHGGHGGHGGHHHHHHH, G response 0 turnaround 13, H 2 and 20; without -S GGHHHGHHHGHHHGGHHHGG, 0/20 and 2/18.
    # No tie the conventions decide arises: both runs are the same under "lab" and "ostep".
    gaming = PRESETS["mlfq-gaming"]["scenario"]
    for conventions in ("lab", "ostep"):
        for shape, want, rows in ((gaming, "GGHHHGGHGGHGGHHHHHHH", [(0, 13), (2, 20)]),
                                  (versus("mlfq-gaming"), "GGHHHGHHHGHHHGGHHHGG", [(0, 20), (2, 18)])):
            result = run({**shape, "conventions": conventions}, trace=False)
            assert chart(result) == want
            assert [(row["response"], row["turnaround"]) for row in result["tasks"]] == rows
    # rr-switch-cost (q=1, switch 1) under "ostep": at 1 B arrives as A's quantum ends; A rejoins first and runs on
    # with no switch [1,2); at 2 C arrives as A's ends: queue B A C, switch [2,3), B [3,4); at 4 D arrives as B's ends:
    # A C B D, switch to A... The same 12 switches, the later responses of B (2), C (5), D (7): average 3.5, not 2.75.
    result = run({**PRESETS["rr-switch-cost"]["scenario"], "conventions": "ostep"}, trace=False)
    assert "".join(unit if isinstance(unit, str) else "~" for unit in result["timeline"]) == \
        "AA~B~A~C~B~D~A~B~D~A~B~D~AA"
    assert result["switches"] == 12 and [row["response"] for row in result["tasks"]] == [0, 2, 5, 7]
    assert result["averages"]["response"] == 3.5

"""Locks in the lab's views, without a browser: the Pathfinder preset loads its sections into the editor as their
compact text and runs the core's scenario; a link keeps the sections and the protocol; the Locks card says who holds
each resource, who waits, each task's effective priority and, at the step a deadlock ends the run, the core's
sentence, in en and ja; bad sections name their field and keep the last run. Every value comes from
``schedulers.simulate``."""
from __future__ import annotations

import html

import pytest

pytest.importorskip("panel")

from app.model import Lab
from app.modes import app_mode
from app.modes.cpu.views import locks_card
from schedulers import simulate
from schedulers.cpu.presets import PATHFINDER, PRESETS, versus

LINK = "mode=cpu&algorithm=priority-preemptive&protocol=inheritance&tasks=L:0:4:priority=3:sections=R%3A1%3A2," \
       "H:2:3:priority=1:sections=R%3A1%3A1,M:3:4:priority=2"


def test_the_pathfinder_preset_loads_its_sections_and_offers_the_other_protocol():
    lab = Lab()
    lab.use_preset("pathfinder-inheritance")
    assert [row.text("sections") for row in lab.rows] == ["R:1:2", "R:1:1", ""]
    assert lab.result == simulate("cpu", PRESETS["pathfinder-inheritance"]["scenario"])
    assert lab.offer == {"algorithm": "priority-preemptive", "protocol": "inheritance"}
    assert "protocol" in lab.used_parameters()


def test_a_link_keeps_the_sections_and_the_protocol():
    lab = Lab()
    lab.restore(LINK)
    assert lab.notices == []
    assert lab.result == simulate("cpu", {**PATHFINDER, "protocol": "inheritance"})
    again = Lab()
    again.restore(lab.link())
    assert again.notices == [] and again.result == lab.result and again.link() == lab.link()
    assert "sections=R%3A1%3A2" in lab.link() and "protocol=inheritance" in lab.link()
    assert app_mode("cpu").typed({"name": "A", "sections": ({"resource": "R", "start": 0, "length": 3},
                                                            {"resource": "S", "start": 1, "length": 1})}) == \
        {"name": "A", "sections": "R:0:3;S:1:1"}


def test_bad_sections_name_their_field_and_keep_the_run():
    lab = Lab()
    lab.restore(LINK)
    before = lab.result
    lab.rows[0].sections = "R:1:9"   # past L's burst of 4
    assert list(lab.errors) == ["tasks[0].sections[0].length"] and lab.result is before
    lab.rows[0].sections = "R:1:2"
    assert lab.errors == {} and lab.result == before


@pytest.mark.parametrize("lang, holder, raised, protocol", [
    ("en", "Held by", "runs at H's priority", "Protocol: priority inheritance. Ceiling of each resource: R H."),
    ("ja", "保持者", "H の優先度で実行", "プロトコル: 優先度継承。各資源の上限: R H。"),
])
def test_the_locks_card_shows_holders_waiters_and_effective_priorities(lang, holder, raised, protocol):
    result = simulate("cpu", versus("pathfinder-inheritance"))
    step = result["steps"][4]   # [3,4): L holds R and runs at H's priority, H waits
    card = html.unescape(locks_card(step, result, lang))
    assert holder in card and protocol in card
    holders = card.split('<td class="holder">')[1].split("</td>")[0]
    waiters = card.split('<td class="waiters">')[1].split("</td>")[0]
    assert ">L<" in holders and ">H<" in waiters
    assert raised in card
    assert locks_card(simulate("cpu", {"algorithm": "fcfs", "tasks": [{"name": "A", "arrival": 0, "burst": 1}]})
                      ["steps"][0], {"tasks": []}, lang) == ""   # no sections, no card


def test_the_locks_card_says_the_deadlock_at_its_step():
    scenario = {"algorithm": "priority-preemptive", "tasks": [
        {"name": "A", "arrival": 0, "burst": 4, "priority": 2, "sections": "R1:0:3;R2:1:1"},
        {"name": "B", "arrival": 1, "burst": 4, "priority": 1, "sections": "R2:0:3;R1:1:1"}]}
    result = simulate("cpu", scenario)
    card = locks_card(result["steps"][-1], result, "en")
    assert 'class="deadlock" role="alert"' in card and "Deadlock at t=2: A holds R1 and waits for R2" in card
    assert "deadlock" not in locks_card(result["steps"][1], result, "en").split("<table")[0]
    assert "デッドロック" in locks_card(result["steps"][-1], result, "ja")


def test_compare_and_the_exports_take_a_deadlocked_run():
    from app.modes.cpu.views import whole_run_diff
    from schedulers.export import metrics_csv

    scenario = {"algorithm": "priority-preemptive", "tasks": [
        {"name": "A", "arrival": 0, "burst": 4, "priority": 2, "sections": "R1:0:3;R2:1:1"},
        {"name": "B", "arrival": 1, "burst": 4, "priority": 1, "sections": "R2:0:3;R1:1:1"}]}
    stuck, ceiling = simulate("cpu", scenario), simulate("cpu", {**scenario, "protocol": "ceiling"})
    # A never completes on the left; under the ceiling its turnaround is 8 (done at 8): no change is computed
    assert "<td>— → 8</td>" in whole_run_diff(stuck, ceiling, "en")
    assert "task,A,0,4,,,," in metrics_csv(stuck).splitlines()


def test_predict_shows_who_holds_what_before_the_student_picks():
    """The preset's inversion (no protocol): [3,4) is asked after [2,3), where H ran its first unit and needs R next,
    which L holds. H is no candidate (it will wait for R); the known state's Locks card says who holds R -- what
    decides that M, not L, runs next."""
    from app.quiz import QuizView
    from schedulers.quiz import question

    lab = Lab()
    lab.use_preset("pathfinder-inheritance")
    asked = question(lab.result, 4)
    assert (asked.candidates, asked.answer) == (("L", "M"), "M")
    known = html.unescape("".join(str(part.object) for part in QuizView(lab).known_state(lab.result, 3, "en")
                                  if isinstance(part.object, str)))
    assert "locks-card" in known and "Protocol: none" in known
    assert ">L<" in known.split('<td class="holder">')[1].split("</td>")[0]

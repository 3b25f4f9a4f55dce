"""English nouns follow their counts: "1 task", "2 tasks". Every template is filled by ``narration.render``, whose
``{n:one|many}`` chooses the noun; a run where every count is 1 says no "1 tasks", and no template says "(s)"."""
from __future__ import annotations

import re
import string
from fractions import Fraction

import pytest

from schedulers import MODES, simulate
from schedulers.narration import _CHOICE, render
from test_japanese import core_tables, japanese

# A count of exactly 1 (not the end of 1/2, 0.1 or 11) followed by a plural noun.
ONE_PLURAL = re.compile(r"(?<![\d/.])1 (more |first |running )?(tasks|requests|tokens|dispatches|tenants|slots|"
                        r"iterations|servers|replicas|routers|boundaries|steps|segments|decodes|units|parameters|"
                        r"switches|jobs)\b")


@pytest.mark.parametrize("count, said", [(1, "1 task"), (2, "2 tasks"), (0, "0 tasks"), (Fraction(3, 2), "3/2 tasks"),
                                         (Fraction(1), "1 task"), ("1", "1 task")])
def test_a_noun_follows_its_count(count, said):
    assert render("{n} {n:task|tasks}", n=count) == said


def test_a_bar_outside_a_placeholder_is_text():
    assert render("max |x_i - x_j| = {gap}", gap=3) == "max |x_i - x_j| = 3"
    assert render("{n:>3}|", n=7) == "  7|"   # a format spec without a bar is str.format's


def english_templates() -> dict[str, str]:
    from app.modes import all_modes
    from app.text import HELP, LABELS, SHORT, TEXT
    texts = core_tables("en")
    for table in (TEXT, LABELS, SHORT, HELP, *(mode.words for mode in all_modes())):
        texts.update({text: f"app {key}" for key, entry in table.items() for text in japanese(entry, set(), "en")})
    return texts


def test_every_english_template_chooses_its_nouns_by_count():
    texts = english_templates()
    assert len(texts) > 500   # the scan really reached the tables
    assert {where: text for text, where in texts.items() if "(s)" in text} == {}
    choices = {text: [spec for _, _, spec, _ in string.Formatter().parse(text) if spec and "|" in spec]
               for text in texts}
    assert sum(map(len, choices.values())) > 30
    # every choice has one word for one and one for many, and render reads each one (none is left to str.format)
    assert {texts[text]: specs for text, specs in choices.items()
            if any(spec.count("|") != 1 for spec in specs) or len(_CHOICE.findall(text)) != len(specs)} == {}


ONES = {   # every count these runs say is 1: one task, one request, one token, one slot, one server
    "cpu": {"tasks": [{"name": "A", "arrival": 0, "burst": 1}], "algorithm": "rr", "switch_cost": 1},
    "llm": {"tenants": [{"name": "A", "cost": 1, "count": 1, "join": 0}], "servers": 1},
    "engine": {"slots": 1, "loop": "prefill-decode", "charge_first_token": False,
               "tenants": [{"name": "A", "requests": [{"arrival": 0, "input": 1, "output": 1}]}]},
}


@pytest.mark.parametrize("mode", sorted(ONES))
def test_a_run_of_ones_says_every_noun_in_the_singular(mode):
    result = simulate(mode, ONES[mode])
    said = [step["why"]["en"] for step in result["steps"]] + [MODES[mode].render_text(result, "en")]
    assert [found.group(0) for text in said for found in ONE_PLURAL.finditer(text)] == []
    assert any(re.search(r"(?<![\d/.])1 (task|request|token|slot|server)\b", text) for text in said)

"""The rule itself, beside the timeline: the selected policy's source from the running core
(``schedulers.rule``), with the lines that decided the current step highlighted; for your own policy, your code
with the lines your ``choose`` ran at this step."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import param

from schedulers.rule import RuleSource, deciding_lines, rule_source, step_uses

from .render import esc
from .teach_text import t


@lru_cache(maxsize=64)
def cached_source(mode: str, algorithm: str) -> RuleSource:
    return rule_source(mode, algorithm)


def listing(lines: Iterable[tuple[int, str]], marked: set[int], css: str = "mark") -> str:
    """Numbered lines; the ``marked`` numbers get the class ``css``."""
    return "".join(f'<span class="line{" " + css if number in marked else ""}" data-line="{number}">'
                   f'<span class="no">{number}</span>{esc(text)}</span>' for number, text in lines)


def rule_html(source: RuleSource, step: Mapping[str, Any], lang: str) -> str:
    marks = deciding_lines(source, step)
    body = []
    for index, section in enumerate(source.sections):
        if index:
            body.append(f'<span class="section">{esc(section.title.replace("(inherited)", ""))}'
                        f'({esc(t(lang, "rule.inherited"))}) — {esc(section.path)}</span>')
        numbered = ((section.first + i, text) for i, text in enumerate(section.lines))
        body.append(listing(numbered, marks.get(section.path, set())))
    first = source.sections[0]
    head = f'<p class="muted">{esc(t(lang, "rule.from", path=first.path, first=first.first))}</p>'
    asked = [name for name in step_uses(source.mode, step) if name in source.methods]
    if marks:
        section_note = t(lang, "rule.marked", methods=", ".join(f"{name}()" for name in asked))
    elif step.get("decision") == "continue":
        section_note = t(lang, "rule.unasked", reason=t(lang, "rule.unasked.continue"))
    else:
        section_note = t(lang, "rule.unasked", reason=t(lang, "rule.unasked.other"))
    return f'{head}<p class="rule-note">{esc(section_note)}</p><pre class="source">{"".join(body)}</pre>'


def custom_html(result: Mapping[str, Any], code: str, step: Mapping[str, Any], lang: str) -> str:
    """Your code; the lines ``choose`` ran for the decision of this step (CPU: at its slice's start)."""
    time = step.get("time", 0) - 1 if result["mode"] == "cpu" else step.get("time")
    ran: set[int] = set()
    if result["mode"] == "cpu" or step.get("kind") == "dispatch":
        for call in result.get("custom", {}).get("lines", []):
            if call["time"] == time:
                ran = set(call["lines"])
    note = t(lang, "rule.custom") if ran else t(lang, "rule.custom.none")
    numbered = enumerate(code.splitlines(), start=1)
    return f'<p class="rule-note">{esc(note)}</p><pre class="source">{listing(numbered, ran)}</pre>'


class SourceView(param.Parameterized):
    """The code that decides, for the lab's current algorithm, at any step of its run (the pager's frames)."""

    lab = param.Parameter()

    def __init__(self, lab, **params) -> None:
        super().__init__(lab=lab, **params)

    def html(self, step: int) -> str:
        lab, lang = self.lab, self.lab.lang
        result = lab.result
        if not result:
            return ""
        state = result["steps"][min(step, len(result["steps"]) - 1)]
        title = f'<h3>{esc(t(lang, "rule.title"))}</h3>'
        if result.get("algorithm") == "custom":
            return title + custom_html(result, lab.policy_code.get(result["mode"], ""), state, lang)
        return title + rule_html(cached_source(result["mode"], result["algorithm"]), state, lang)

    def card(self, step: int) -> str:
        return f'<section class="card source-view">{self.html(step)}</section>'

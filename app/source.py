"""The rule itself, beside the timeline: the selected policy's source from the running core
(``schedulers.rule``), with the lines that decided the current step highlighted; for your own policy, your code
with the lines your ``choose`` ran at this step."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from schedulers.custom import CUSTOM
from schedulers.rule import RuleSource, asked, deciding_lines, rule_source
from schedulers.trace import policy_lines, resumes_quantum

from .model import LabView
from .render import esc
from .text import t


@lru_cache(maxsize=64)
def cached_source(mode: str, algorithm: str, parameters: str) -> RuleSource:
    """``rule_source`` for a run's algorithm and its parameters (as JSON text: a cache key)."""
    return rule_source(mode, algorithm, json.loads(parameters))


def listing(lines: Iterable[tuple[int, str]], marked: set[int], css: str = "mark") -> str:
    """Numbered lines; the ``marked`` numbers get the class ``css``."""
    return "".join(f'<span class="line{f" {css}" if number in marked else ""}" data-line="{number}">'
                   f'<span class="no">{number}</span>{esc(text)}</span>' for number, text in lines)


def rule_html(source: RuleSource, result: Mapping[str, Any], index: int, lang: str) -> str:
    step, resumed = result["steps"][index], resumes_quantum(result, index)
    marks = deciding_lines(source, step, resumed)
    body = []
    for index, section in enumerate(source.sections):
        if index:
            body.append(f'<span class="section">{esc(section.title.replace("(inherited)", ""))}'
                        f'({esc(t(lang, "rule.inherited"))}) — {esc(section.path)}</span>')
        numbered = ((section.first + i, text) for i, text in enumerate(section.lines))
        body.append(listing(numbered, marks.get(section.path, set())))
    first = source.sections[0]
    head = f'<p class="muted">{esc(t(lang, "rule.from", path=first.path, first=first.first))}</p>'
    if marks:
        methods = ", ".join(f"{name}()" for name in asked(source, step, resumed))
        section_note = t(lang, "rule.marked", methods=methods)
    elif step.get("decision") == "continue":
        reason = "rule.unasked.quiet" if source.preemptive else "rule.unasked.continue"
        section_note = t(lang, "rule.unasked", reason=t(lang, reason))
    else:
        section_note = t(lang, "rule.unasked", reason=t(lang, "rule.unasked.other"))
    return f'{head}<p class="rule-note">{esc(section_note)}</p><pre class="source">{"".join(body)}</pre>'


def custom_html(result: Mapping[str, Any], code: str, step: int, lang: str) -> str:
    """Your code; the lines ``choose`` ran for the decision of this step."""
    ran = policy_lines(result, step)
    note = t(lang, "rule.custom") if ran else t(lang, "rule.custom.none")
    numbered = enumerate(code.splitlines(), start=1)
    return f'<p class="rule-note">{esc(note)}</p><pre class="source">{listing(numbered, ran)}</pre>'


class SourceView(LabView):
    """The code that decides, for the lab's current algorithm, at any step of its run (the pager's frames); its
    title is the card's that holds it (``ui.LabUI.visuals``: collapsible)."""

    def html(self, step: int) -> str:
        lab, lang = self.lab, self.lab.lang
        result = lab.result
        if not result:
            return ""
        index = min(step, len(result["steps"]) - 1)
        if result.get("algorithm") == CUSTOM:
            return custom_html(result, lab.policy_code.get(result["mode"], ""), index, lang)
        source = cached_source(result["mode"], result["algorithm"], json.dumps(result["parameters"], sort_keys=True))
        return rule_html(source, result, index, lang)

    def card(self, step: int) -> str:
        return f'<section class="card source-view">{self.html(step)}</section>'

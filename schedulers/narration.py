"""One-sentence explanations in every language the lab speaks.

Each mode keeps its own table ``{key: {"en": template, "ja": template}}`` beside the rules it explains;
``say`` fills a template in every language. Names are inserted as plain text: whoever displays a
sentence must render it as text (the app does), never as HTML.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

LANGUAGES = ("en", "ja")

Messages = Mapping[str, Mapping[str, str]]


# A count's noun in English, ``{n:task|tasks}``: "task" when n is 1 (its text is "1"), else "tasks".
_CHOICE = re.compile(r"\{(\w+):([^{}|]*)\|([^{}|]*)\}")


@functools.cache
def _counts(template: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(match[1] for match in _CHOICE.finditer(template)))


@functools.cache
def _chosen(template: str, singular: frozenset[str]) -> str:
    """The template with each count's noun chosen: a plain ``str.format`` template, made once per choice."""
    return _CHOICE.sub(lambda match: match[2] if match[1] in singular else match[3], template)


def render(template: str, **values: Any) -> str:
    """A template filled as ``str.format`` fills it, with ``{n:one|many}`` choosing a noun by the count ``n``:
    ``{n} {n:task|tasks}`` is "1 task", "2 tasks", "3/2 tasks"."""
    if "|" not in template:   # the step loop's narration mostly: str.format alone
        return template.format(**values)
    singular = frozenset(name for name in _counts(template) if str(values[name]) == "1")
    return _chosen(template, singular).format(**values)


def say(messages: Messages, key: str, **values: Any) -> dict[str, str]:
    """Fill ``messages[key]`` in every language; a value given as ``{lang: text}`` (a dict) is taken per language."""
    templates = messages[key]
    return {lang: render(templates[lang], **{name: value[lang] if type(value) is dict else value
                                             for name, value in values.items()})
            for lang in LANGUAGES}


def fill(templates: Mapping[str, str], **values: Any) -> dict[str, str]:
    """One sentence's templates, ``{lang: template}``, filled in every language as ``say`` fills a table's."""
    return say({"sentence": templates}, "sentence", **values)


def show(value: Fraction | int) -> str:
    """A rational as a student writes it in a sentence: 8, 17/2."""
    return str(value)


# The last tie-break of every rule of the tenant modes, said the same in each.
TENANT_ORDER_TIE = {"en": "({other} was level; {tenant} comes first in tenant order.)",
                    "ja": "({other} と同点のため、テナント順で {tenant} が先です。)"}


def join(*sentences: Mapping[str, str]) -> dict[str, str]:
    """Several sentences as one explanation, in every language."""
    separator = {"en": " ", "ja": ""}
    return {lang: separator[lang].join(s[lang] for s in sentences) for lang in LANGUAGES}

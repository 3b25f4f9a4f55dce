"""One register in Japanese: every sentence the lab can show ends in the polite form (です/ます), in every mode —
the core's step sentences, rules, notes and errors, and the app's words. Labels, headings and list entries are
noun phrases or button verbs and have no register; sentences are what ends in 。, ？ or ！ in the app's tables,
and every Japanese text of the core (which is all sentences or fragments of sentences)."""
from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import schedulers
from schedulers import MODES, simulate

POLITE = re.compile(r"(ます|です|ません|ました|でした|ましょう|ください|でしょう)$")
# The plain form ends a verb in -u (る, く, す, ...), -ta/-da, or an adjective in -i (ない, 早い).
PLAIN = re.compile(r"[うくぐすつぬぶむるただい]$")
TRAILING = re.compile(r"(\{[^{}]*\}|[\s。？！）」』)\]】:：、,])+$")   # closing marks and a placeholder at the end


def plain_endings(text: str, whole: bool) -> list[str]:
    """The sentences of ``text`` that end in the plain form: those ending in 。？！, and the rest too if ``whole``."""
    found = []
    for part in re.split(r"(?<=[。？！])", text):
        if not part.strip() or not (whole or re.search(r"[。？！]\s*$", part)):
            continue
        ending = TRAILING.sub("", part.strip())
        if not re.search(r"[ぁ-んァ-ヶ一-龥]", ending):
            continue
        if part.strip().endswith("？"):   # a polite question asks with ですか / ますか
            polite = re.search(r"(です|ます|ません|でしょう)か$", ending)
        else:
            polite = POLITE.search(ending) or not PLAIN.search(ending)
        if not polite:
            found.append(part.strip())
    return found


def japanese(value, seen: set[int], lang: str = "ja"):
    """Every string under a ``lang`` key ("ja" unless told) inside ``value`` (dicts, lists, tuples)."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == lang and isinstance(inner, str):
                yield inner
            elif key == lang and isinstance(inner, dict):   # a table by language first: {"ja": {"arrive": ...}}
                yield from (text for text in inner.values() if isinstance(text, str))
            else:
                yield from japanese(inner, seen, lang)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from japanese(inner, seen, lang)


def core_tables(lang: str = "ja") -> dict[str, str]:
    """Every text in ``lang`` of the core's tables and rule classes: {text: where}."""
    texts: dict[str, str] = {}
    for info in pkgutil.walk_packages(schedulers.__path__, "schedulers."):
        if info.name.endswith("__main__"):
            continue
        module, seen = importlib.import_module(info.name), set()
        for name, value in vars(module).items():
            values = [value] + (list(vars(value).values()) if isinstance(value, type) else [])
            for text in (t for v in values for t in japanese(v, seen, lang)):
                texts.setdefault(text, f"{info.name}.{name}")
    return texts


def core_texts() -> dict[str, str]:
    """Every Japanese text of the core: its tables and rule classes, and what runs of every rule of every mode say
    (step sentences with the rules' own fragments filled in, fairness notes)."""
    texts = core_tables()
    for mode in MODES.values():
        for algorithm in mode.algorithms:
            for seed in range(3):
                result = simulate(mode.name, {**mode.exercise(seed), "algorithm": algorithm})
                for text in japanese([step.get("why") for step in result["steps"]] + [result.get("fairness")], set()):
                    texts.setdefault(text, f"a {mode.name} {algorithm} run")
    return texts


def test_the_core_speaks_politely_in_every_mode():
    texts = core_texts()
    assert len(texts) > 500   # the scan really reached the step sentences
    bad = {where: sentence for text, where in texts.items() for sentence in plain_endings(text, whole=True)}
    assert bad == {}


def test_the_apps_sentences_are_polite():
    from app.modes import all_modes
    from app.text import HELP, LABELS, SHORT, TEXT
    tables = (TEXT, LABELS, SHORT, HELP, *(mode.words for mode in all_modes()))
    bad = {key: plain_endings(entry["ja"], whole=False) for table in tables for key, entry in table.items()}
    assert {key: found for key, found in bad.items() if found} == {}


@pytest.mark.parametrize("sentence, plain", [
    ("t=0: A（残り2）をディスパッチします: RRは待ち行列の先頭を最大q=2実行する。", True),
    ("{rival}と同点だが、到着が早い。", True),
    ("t=1 → 2 に実行されるのはどのタスク？", True),
    ("この方式はメーターを持たない", True),
    ("{task}はt={t}に完了します。", False),
    ("段ごとに 1 つ（例: 1, 2, 4）。", False),
    ("正解: {answer}。", False),
    ("t={t}: どのテナントのリクエストが送出されますか？", False),
    ("{line} 行目: choose が {value} を返しました{at}", False),
])
def test_the_check_tells_the_two_registers_apart(sentence, plain):
    assert bool(plain_endings(sentence, whole=True)) == plain

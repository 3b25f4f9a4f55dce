"""The app side of the tests' toy mode (the core's ``tests/toy_mode``: one printer, whole jobs): what the lab's
view-models read (``MODE``, an ``AppMode``) here, what it draws in ``views.py``. It is found as any mode elsewhere is:
``app.modes.register("toy", "tests.toy_app")`` in a test, ``LAB_APP_MODES=toy=tests.toy_app`` for a served app.

A mode of the lab keeps the words of its fields and columns in ``app/text.py``; this one cannot edit that file, so
it adds its own to those tables when it is imported (``add_words``), and a test takes them away again
(``remove_words``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import unquote

from app import text
from app.modes import AppMode, Link
from app.query import decode_items, encode_item, part
from schedulers import schema

NAME = "toy"
REQUIRED = schema(NAME).required   # name:pages
OPTIONAL = schema(NAME).optional   # :arrival=...
JOBS = ({"name": "A", "pages": "3"}, {"name": "B", "arrival": "1", "pages": "2"},
        {"name": "C", "arrival": "1", "pages": "1"}, {"name": "D", "arrival": "9", "pages": "1"})

WORDS: dict[str, dict[str, dict[str, str]]] = {   # table of app/text.py -> its entries for this mode
    "LABELS": {"job": {"en": "Job", "ja": "ジョブ"}, "pages": {"en": "Pages", "ja": "ページ数"},
               "done": {"en": "Done", "ja": "完了"}},
    "SHORT": {"pages": {"en": "Pp.", "ja": "頁"}, "done": {"en": "Done", "ja": "完了"}},
    "TEXT": {"jobs": {"en": "Jobs", "ja": "ジョブ"}, "add.jobs": {"en": "+ Add job", "ja": "+ ジョブを追加"},
             "kind.print": {"en": "print", "ja": "印刷"}},
}


def add_words() -> None:
    for table, entries in WORDS.items():
        getattr(text, table).update(entries)


def remove_words() -> None:
    for table, entries in WORDS.items():
        for key in entries:
            getattr(text, table).pop(key, None)


def encode_jobs(rows: Sequence[Mapping[str, str]]) -> str:
    return ",".join(encode_item(row, [part(row.get(f, "")) for f in REQUIRED], OPTIONAL) for row in rows)


def decode_jobs(value: str) -> list[dict[str, str]]:
    return decode_items(value, len(REQUIRED), ":".join(REQUIRED),
                        lambda parts: {f: unquote(p) for f, p in zip(REQUIRED, parts, strict=True)}, OPTIONAL)


OWN = {   # what the shared views ask a mode to say (AppMode.words)
    "label": {"en": "Printer (toy)", "ja": "プリンター（試験用）"},
    "help": {"en": "A mode of the tests: one printer prints whole jobs, one at a time.",
             "ja": "テスト用のモードです。1 台のプリンターがジョブを 1 つずつ最後まで印刷します。"},
    "question": {"en": "t={t}: which job prints next?", "ja": "t={t}: 次に印刷するジョブはどれですか？"},
    "chart": {"en": "Jobs printed ({algorithm})", "ja": "印刷したジョブ（{algorithm}）"},
}
MODE = AppMode(name=NAME, words=OWN, algorithm="first", rows=JOBS, link=Link(encode_jobs, decode_jobs),
               compare=("first", "fewest"))
add_words()

"""Every algorithm of every mode on its mode's default scenario, prerendered, so that the page's menus work before
Python starts (run by ``build_site.py``).

A *run* is a mode and one of its algorithms on the mode's default scenario (the lab's default rows and
parameters), in one of the lab's languages and one of two views: the lab's own (``lab``) and Compare (``compare``,
beside the algorithm the lab compares it with by default). Each is the whole page's document as Python draws it,
written to ``runs/MODE-ALGORITHM.VIEW.LANG.json.gz`` (gzipped here, unpacked by the page: its size is the same on any
host), with the *controls* the page hooks: which Bokeh model's property, set to which value, asks for which run
(``{"p12": {"value": {"srtf": {"algorithm": "srtf"}}}}``: picking SRTF in the algorithm menu; a change not listed,
such as "Your policy", waits for Python). The page fetches a run's file when it is picked, never all up front.

The page itself carries ``manifest``'s small index (``window.labSite.runs``): each run's address (the lab's own link,
which Python starts from when it takes over) and which address queries show which run, each form checked by the
lab itself (``Lab.restore``), so that ``?mode=cpu&algorithm=srtf`` opens from its prerender too.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import panel_adapter

FOLDER = "runs"
VIEWS = ("lab", "compare")   # the teaching views a run is prerendered in; the others need Python
TAB = "teach-tab-{}"         # the class of a teaching view's button (app/teach.py)


def setup_of(query: str) -> str:
    """A link's run, without the step and the language (the pager's ``setupOf``, app/pager.js)."""
    return "&".join(p for p in query.lstrip("?").split("&") if p and not p.startswith(("step=", "lang=")))


def runs() -> list[tuple[str, str]]:
    """(mode, algorithm) for every built-in algorithm of every mode, in the menus' order."""
    from schedulers import algorithms
    from schedulers.modes import MODES
    return [(mode, name) for mode in MODES for name in algorithms(mode)]


def key(mode: str, algorithm: str) -> str:
    return f"{mode}-{algorithm}"


def file_name(run: str, view: str, lang: str) -> str:
    return f"{FOLDER}/{run}.{view}.{lang}.json.gz"


def languages() -> list[str]:
    """The lab's languages, the page's own first."""
    from app.model import Lab
    return list(Lab.param.lang.objects)


def controls(view: panel_adapter.Prerendered) -> dict[str, dict[str, dict[str, dict[str, str]]]]:
    """The page's controls in ``view``'s document and the run each of their values asks for: the algorithm menu (its
    built-in rules), the mode and language buttons, and the teaching views' buttons of ``VIEWS``. Each must be on the
    page exactly once: a layout the build cannot read stops it, rather than a page whose menus quietly do nothing."""
    import panel as pn
    from schedulers import algorithms
    from schedulers.custom import CUSTOM
    from schedulers.modes import MODES

    from app.model import Lab
    lab = Lab()
    lab.restore(view.query)
    names = list(algorithms(lab.mode))   # the menu's built-in rules, then "Your policy", which needs Python

    def one(kind: type, what: str, test) -> Any:
        found = view.find(kind, test)
        if len(found) != 1:
            raise panel_adapter.AdapterError(f"the page ?{view.query} has {len(found)} {what}, not one: "
                                             "static/prerendered_runs.py cannot hook the page's menus")
        return found[0]

    algorithm = one(pn.widgets.Select, "algorithm menus", lambda w: w.values == [*names, CUSTOM])
    mode_buttons = one(pn.widgets.RadioButtonGroup, "mode switches", lambda w: w.values == list(MODES))
    lang_buttons = one(pn.widgets.RadioButtonGroup, "language switches", lambda w: w.values == languages())
    hooked = {view.model_id(algorithm): {"value": {name: {"algorithm": name} for name in names}},
              view.model_id(mode_buttons): {"active": {str(i): {"mode": m} for i, m in enumerate(MODES)}},
              view.model_id(lang_buttons): {"active": {str(i): {"lang": lang} for i, lang in enumerate(languages())}}}
    for shown in VIEWS:
        tab = one(pn.widgets.Button, f"{shown} view buttons", lambda w, shown=shown: TAB.format(shown) in w.css_classes)
        hooked[view.model_id(tab)] = {"click": {"": {"view": shown}}}
    return hooked


def switch(view: panel_adapter.Prerendered, shown: str) -> None:
    """Show the teaching view ``shown`` as a reader would: through its button."""
    import panel as pn
    [tab] = view.find(pn.widgets.Button, lambda w: TAB.format(shown) in w.css_classes)
    view.act(lambda: setattr(tab, "clicks", tab.clicks + 1))


def write(out: Path, name: str, text: str) -> int:
    """``text`` gzipped into ``out/name`` with a fixed time stamp (the same bytes for the same run); its size."""
    data = gzip.compress(text.encode(), compresslevel=9, mtime=0)
    (out / name).write_bytes(data)
    return len(data)


def prerender_all(app: Path, page: str, out: Path, panel_urls: tuple[str, str]) -> dict[str, Any]:
    """Every run's documents into ``out/runs/``, Panel's files at the site's URL (``panel_urls``: the build's, the
    site's); returns the page's index of them (``manifest``) and their sizes."""
    (out / FOLDER).mkdir(exist_ok=True)
    links, sizes = {}, {}
    for mode, algorithm in runs():
        run = key(mode, algorithm)
        query = f"mode={mode}&algorithm={algorithm}"
        links[run] = link(query)
        for lang in languages():   # each language drawn afresh, as a reader's page in it is
            with panel_adapter.Prerendered(app, page, f"{query}&lang={lang}") as view:
                for shown in VIEWS:
                    switch(view, shown)
                    text = json.dumps({"run": run, "view": shown, "lang": lang, "link": links[run],
                                       "controls": controls(view), "doc": json.loads(view.document_json())},
                                      ensure_ascii=False, separators=(",", ":")).replace(*panel_urls)
                    name = file_name(run, shown, lang)
                    sizes[name] = {"bytes": len(text.encode()), "gzip": write(out, name, text)}
    return {"index": manifest(links), "sizes": sizes}


def link(query: str) -> str:
    """The lab's own link for ``query``'s run (what its address bar holds), without the step and the language."""
    from app.model import Lab
    lab = Lab()
    lab.restore(query)
    return setup_of(lab.link())


def query_forms(mode: str, algorithm: str) -> list[str]:
    """The short addresses that may name the run: mode and algorithm, the algorithm alone, the mode alone, none."""
    return [f"mode={mode}&algorithm={algorithm}", f"algorithm={algorithm}", f"mode={mode}", ""]


def manifest(links: dict[str, str]) -> dict[str, Any]:
    """What the page needs to pick a run: the folder, each run's link, and which address (without step and lang)
    shows which run: every short form the lab reads as that very run, and the run's own link."""
    from app.model import Lab
    defaults = {}
    queries = {}
    for mode, algorithm in runs():
        run = key(mode, algorithm)
        for form in [links[run], *query_forms(mode, algorithm)]:
            lab = Lab()
            lab.restore(form)
            if not lab.notices and setup_of(lab.link()) == links[run]:
                queries.setdefault(form, run)
        if f"mode={mode}" in queries and queries[f"mode={mode}"] == run:
            defaults[mode] = algorithm
    return {"folder": FOLDER, "links": links, "queries": queries, "defaults": defaults, "own": queries[""]}

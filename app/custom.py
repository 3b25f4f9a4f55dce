"""Your own policy: a code editor for ``choose``, run in the core's engine (``simulate(..., policy_source=code)``)
as the lab's algorithm "custom", so every view shows its run.

The editor is a ``TextAreaInput`` (monospace): it needs nothing beyond Panel's own bundle, so it works the same
served and in the static Pyodide site, offline. A mistake never reaches the page: the core turns every failure
into a ``PolicyCodeError`` with the line, shown here in the lab's language next to a numbered listing with that
line marked, while the last valid run stays on screen (the lab's usual rule for bad input).
"""
from __future__ import annotations

import panel as pn
import param

from schedulers.custom import CUSTOM, MAX_DECISIONS, MAX_LINES_PER_CALL, TEMPLATES, PolicyCodeError

from .model import LabView
from .modes import app_mode, views_of
from .panes import pane
from .render import esc
from .source import listing
from .text import t


class CustomEditor(LabView):
    draft = param.Dict(default=dict(TEMPLATES), doc="mode -> the code in the editor (not yet run)")
    failure = param.Parameter(default=None, doc="the last PolicyCodeError, or None")
    failure_from_lab = param.Boolean(default=False, doc="the failure came from a run of the lab, not from Run")

    def submit(self) -> None:
        """Run the editor's code: on success it becomes the lab's algorithm; else its error is shown here."""
        error = self.lab.use_policy(self.draft.get(self.lab.mode, ""))
        if error is not None:
            self.param.update(failure=error, failure_from_lab=False)
        else:
            self.failure = None

    def reset(self) -> None:
        self.draft = {**self.draft, self.lab.mode: TEMPLATES[self.lab.mode]}

    @param.depends("lab.errors", watch=True)
    def _lab_error(self) -> None:
        """A later run (rows edited) that your code cannot handle: show its line here as well."""
        error = getattr(self.lab, "last_error", None)
        if "policy" in self.lab.errors and isinstance(error, PolicyCodeError):
            self.param.update(failure=error, failure_from_lab=True)
        elif self.failure_from_lab:
            self.param.update(failure=None, failure_from_lab=False)

    @param.depends("lab.mode", "lab.lang", "draft")
    def editor(self):
        lab, lang = self.lab, self.lab.lang
        if lab.mode not in TEMPLATES:   # a mode whose core offers no policy of your own (the tests' toy mode)
            return pane(f'<p class="muted custom-none">{esc(t(lang, "custom.none"))}</p>')
        code = self.draft.get(lab.mode, TEMPLATES[lab.mode])
        area = pn.widgets.TextAreaInput(label=t(lang, "custom.code"), value=code, rows=16, sizing_mode="stretch_width",
                                        css_classes=["policy-code"], max_length=20_000,
                                        stylesheets=["textarea { font-family: ui-monospace, Menlo, Consolas, "
                                                     "monospace; font-size: 0.9em; tab-size: 4; }"])

        def keep(event) -> None:   # the draft follows the typing without re-rendering the editor
            self.draft[lab.mode] = event.new
        area.param.watch(keep, "value")
        go = pn.widgets.Button(label=t(lang, "custom.run"), color="primary", css_classes=["policy-run"])
        go.on_click(lambda _: self.submit())
        again = pn.widgets.Button(label=t(lang, "custom.template"), css_classes=["policy-reset"])
        again.on_click(lambda _: self.reset())
        return pn.Column(area, pn.FlexBox(go, again), sizing_mode="stretch_width")

    @param.depends("lab.mode", "lab.lang", "failure", "lab.result")
    def status(self):
        lab, lang = self.lab, self.lab.lang
        error = self.failure
        if error is None or error.field != "policy":
            if lab.result and lab.result.get("algorithm") == CUSTOM and "policy" not in lab.errors:
                return pane(f'<p class="why policy-ok" role="status">{esc(t(lang, "custom.ok"))}</p>')
            return pane("")
        code = self.draft.get(lab.mode, "")
        bad = {error.line} if error.line else set()
        numbered = enumerate(code.splitlines(), start=1)
        return pane(f'<div class="policy-error" role="alert"><p class="error">{esc(t(lang, "custom.error"))} '
                    f'{esc(error.message.get(lang, error.problem))}</p>'
                    f'<p class="muted">{esc(t(lang, "custom.listing"))}</p>'
                    f'<pre class="source">{listing(numbered, bad, "bad")}</pre></div>')

    @param.depends("lab.result", "lab.lang", "lab.presenter")
    def preview(self):
        """Your policy's whole run at a glance (every other view of the lab shows it step by step)."""
        lab, lang = self.lab, self.lab.lang
        result = lab.result
        if not result or result.get("algorithm") != CUSTOM:
            return pn.Column()
        return views_of(result["mode"]).preview(result, lang, lab.presenter)

    @param.depends("lab.mode", "lab.lang")
    def header(self):
        lang, mode = self.lab.lang, self.lab.mode
        if mode not in TEMPLATES:
            return pane(f'<h2>{esc(t(lang, "custom.title"))}</h2>')
        limits = t(lang, "custom.limits", lines=MAX_LINES_PER_CALL, decisions=MAX_DECISIONS)
        return pane(f'<h2>{esc(t(lang, "custom.title"))}</h2><p>{esc(app_mode(mode).say(lang, "api"))}</p>'
                    f'<p class="muted">{esc(limits)}</p>')

    def panel(self):
        return pn.Column(self.header, self.editor, self.status, self.preview, sizing_mode="stretch_width")


"""The teaching features, hooked into the lab's page: the rule's source beside the timeline, and a bar of views
(step through, compare, predict, your own policy, export) over the lab's visuals. Each feature is its own module
(``compare``, ``quiz``, ``source``, ``custom``, ``exports``) with a view-model on the same ``Lab``.

The bar is a row of buttons rebuilt in the lab's language (as the app's header is), and only the chosen view is on
the page: a hidden view costs nothing, and the quiz's hidden future is really not in the page. A view is imported
and built when it is first opened: the page the lab starts with needs none of them (the static site starts sooner).
"""
from __future__ import annotations

import panel as pn
import param

# exports defines a custom model (PngDownload, a JSComponent): under Pyodide, Panel sends the definitions of custom
# models with the first page only, so its class must exist before the page is written, even if the view is not.
from . import exports
from .model import LabView
from .panes import SCALED
from .source import SourceView
from .text import t

VIEWS = ("lab", "compare", "quiz", "custom", "export")


class Teaching(LabView):
    view = param.Selector(objects=list(VIEWS), default="lab")
    features = param.Dict(default={}, doc="the views opened so far, by key (a new dict at each opening: the "
                                          "pager follows Compare once it exists)")

    def __init__(self, lab=None, **params) -> None:
        super().__init__(lab, **params)
        self.source = SourceView(self.lab)  # beside the timeline: part of the lab's own view
        self._panels: dict[str, object] = {}
        self._controls = None

    def bar(self) -> pn.FlexBox:
        """One button per view, the chosen one filled; they wrap on a narrow screen. The buttons are made once and
        relabelled in place: a bar rebuilt in the new language would drop a click that lands while it is replaced."""
        buttons = {}
        for key in VIEWS:
            button = pn.widgets.Button(color="primary", margin=(2, 2), css_classes=[f"teach-tab-{key}"],
                                       stylesheets=SCALED)
            button.on_click(lambda _, key=key: setattr(self, "view", key))
            buttons[key] = button

        def label(*_) -> None:
            for key, button in buttons.items():
                button.param.update(label=t(self.lab.lang, f"tab.{key}"),
                                    variant="solid" if key == self.view else "outline")
        label()
        self.lab.param.watch(label, "lang")
        self.param.watch(label, "view")
        return pn.FlexBox(*buttons.values(), css_classes=["teach-tabs"], gap="0 2px", sizing_mode="stretch_width")

    @param.depends("view", watch=True)
    def _show(self) -> None:
        """Only the chosen view draws: the others would rebuild their charts on every step for nobody."""
        for key, feature in self.features.items():
            if "shown" in feature.param:
                feature.shown = key == self.view

    def _compare(self):
        from .compare import CompareView
        self.features = {**self.features, "compare": CompareView(self.lab)}
        self._show()
        return pn.Column(self._controls, self.features["compare"].panel(), sizing_mode="stretch_width")

    def _quiz(self):
        from .quiz import QuizView
        self.features = {**self.features, "quiz": QuizView(self.lab)}
        self._show()
        return self.features["quiz"].panel()

    def _custom(self):
        from .custom import CustomEditor
        self.features = {**self.features, "custom": CustomEditor(self.lab)}
        return self.features["custom"].panel()

    def _export(self):
        self.features = {**self.features, "export": exports.ExportView(self.lab)}
        return self.features["export"].panel

    @param.depends("view")
    def body(self):
        if self.view not in self._panels:  # first opened: import and build it
            self._panels[self.view] = getattr(self, f"_{self.view}")()
        return self._panels[self.view]

    def views(self, step_through, controls) -> pn.Column:
        """The lab's own view first, the features after it; ``controls`` (the step buttons) also lead compare."""
        self._panels = {"lab": step_through}
        self._controls = controls
        return pn.Column(self.bar(), self.body, sizing_mode="stretch_width")

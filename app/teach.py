"""The teaching features, hooked into the lab's page: the rule's source beside the timeline, and a bar of views
(step through, compare, predict, your own policy, export) over the lab's visuals. Each feature is its own module
(``compare``, ``quiz``, ``source``, ``custom``, ``exports``) with a view-model on the same ``Lab``.

The bar is a row of buttons rebuilt in the lab's language (as the app's header is), and only the chosen view is on
the page: a hidden view costs nothing, and the quiz's hidden future is really not in the page.
"""
from __future__ import annotations

import panel as pn
import param

from .compare import CompareView
from .custom import CustomEditor
from .exports import ExportView
from .model import LabView
from .quiz import QuizView
from .source import SourceView
from .teach_text import t

VIEWS = ("lab", "compare", "quiz", "custom", "export")


class Teaching(LabView):
    view = param.Selector(objects=list(VIEWS), default="lab")

    def __init__(self, lab=None, **params) -> None:
        super().__init__(lab, **params)
        lab = self.lab
        self.source = SourceView(lab)
        self.compare = CompareView(lab)
        self.quiz = QuizView(lab)
        self.custom = CustomEditor(lab)
        self.export = ExportView(lab)
        self._show()
        self._panels: dict[str, object] = {}

    @param.depends("lab.lang", "view")
    def bar(self):
        """One button per view, the chosen one filled; they wrap on a narrow screen."""
        lang = self.lab.lang
        buttons = []
        for key in VIEWS:
            button = pn.widgets.Button(label=t(lang, f"tab.{key}"), color="primary", margin=(2, 2),
                                       variant="solid" if key == self.view else "outline",
                                       css_classes=[f"teach-tab-{key}"])
            button.on_click(lambda _, key=key: setattr(self, "view", key))
            buttons.append(button)
        return pn.FlexBox(*buttons, css_classes=["teach-tabs"], gap="0 2px", sizing_mode="stretch_width")

    @param.depends("view", watch=True)
    def _show(self) -> None:
        """Only the chosen view draws: the others would rebuild their charts on every step for nobody."""
        self.compare.shown = self.view == "compare"
        self.quiz.shown = self.view == "quiz"

    @param.depends("view")
    def body(self):
        return self._panels[self.view]

    def views(self, step_through, controls) -> pn.Column:
        """The lab's own view first, the features after it; ``controls`` (the step buttons) also lead compare."""
        self._panels = {"lab": step_through,
                        "compare": pn.Column(controls, self.compare.panel(), sizing_mode="stretch_width"),
                        "quiz": self.quiz.panel(), "custom": self.custom.panel(), "export": self.export.panel}
        return pn.Column(self.bar, self.body, sizing_mode="stretch_width")

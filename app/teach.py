"""The teaching features, hooked into the lab's page: the rule's source beside the timeline, and tabs for
compare, predict, your own policy and export next to the step-through view. Each feature is its own module
(``compare``, ``quiz``, ``source``, ``custom``, ``exports``) with a view-model on the same ``Lab``."""
from __future__ import annotations

import panel as pn

from .compare import CompareView
from .custom import CustomEditor
from .exports import ExportView
from .quiz import QuizView
from .source import SourceView
from .teach_text import t

TABS = ("compare", "quiz", "custom", "export")


class Teaching:
    def __init__(self, lab) -> None:
        self.lab = lab
        self.source = SourceView(lab)
        self.compare = CompareView(lab)
        self.quiz = QuizView(lab)
        self.custom = CustomEditor(lab)
        self.export = ExportView(lab)

    def tabs(self, step_through, controls) -> pn.Tabs:
        """The lab's own view first; the features after it. Titles follow the language."""
        panels = {"lab": step_through, "compare": pn.Column(controls, self.compare.panel(), sizing_mode="stretch_width"),
                  "quiz": self.quiz.panel(), "custom": self.custom.panel(), "export": self.export.panel}
        tabs = pn.Tabs(*((t(self.lab.lang, f"tab.{key}"), view) for key, view in panels.items()), dynamic=True,
                       sizing_mode="stretch_width", css_classes=["lab-tabs"])

        def rename(event) -> None:
            active = tabs.active
            tabs[:] = [(t(event.new, f"tab.{key}"), view) for key, view in zip(panels, tabs.objects)]
            tabs.active = active
        self.lab.param.watch(rename, "lang")
        return tabs

"""Predict the next step: before each step is revealed the student picks who runs next (``schedulers.quiz``),
sees right or wrong with the core's own explanation, and keeps a score. Seeded exercises come from
``schedulers.exercises``, so "seed 42" here is ``python -m schedulers cpu --seed 42`` on the command line.

The quiz shows only what the student may know at the question: the state of the step before it, the timeline
(or dispatch order) up to that moment with the future hidden, and the candidates; never the results table.
"""
from __future__ import annotations

import random
import shlex
from typing import Any

import panel as pn
import param

from schedulers import MODES, ScenarioError, schema
from schedulers.custom import CUSTOM
from schedulers.exercises import MAX_SEED
from schedulers.quiz import next_question, question

from . import render
from .model import LabView, number, parameter_text, parameter_value, rows_from_text
from .modes import app_mode, views_of
from .panes import SCALED, Kept, pane
from .render import esc
from .text import t
from .textfield import TextField


# A size's label wraps inside its field (Bokeh keeps an input's label on one line): in Japanese in presenter mode
# "最遅の到着（--max-arrival）" ran over the next field's.
WRAPPING_LABEL = [".bk-input-group > label { white-space: normal; }"]


def command_line(mode: str, seed: int, algorithm: str, parameters: dict[str, str],
                 sizes: dict[str, int] | None = None) -> str:
    """The command that prints the answers of this exercise (its sizes as the command line's ``--jobs 5``)."""
    words = ["python -m schedulers", mode, "--seed", str(seed)]
    for name, value in (sizes or {}).items():
        words += [f"--{name.replace('_', '-')}", str(value)]
    words += ["--algorithm", algorithm]
    for name, text in parameters.items():
        value = parameter_value(text, schema(mode).field(name).type)
        written = ",".join(map(str, value)) if isinstance(value, list) else parameter_text(value)
        words += [f"--{name.replace('_', '-')}", shlex.quote(written)]   # MLQ's "rr:quantum=2;fcfs" has a ;
    return " ".join(words)


def exercise_rows(mode: str, scenario: dict[str, Any]) -> list:
    """A seeded exercise's items as the editor's rows."""
    return rows_from_text(mode, [app_mode(mode).typed(item) for item in scenario[schema(mode).items]])


class QuizView(LabView):
    seed = param.String(default="42")
    sizes = param.Dict(default={}, doc="the exercise's sizes as typed (the mode's exercise_sizes: CPU's jobs, ...)")
    exercise = param.Integer(default=None, allow_None=True, doc="the seed of the exercise loaded, if any")
    sized = param.Dict(default={}, doc="the sizes of the exercise loaded, those given")
    right = param.Integer(default=0)
    asked = param.Integer(default=0)
    feedback = param.Dict(default=None, allow_None=True, doc="the last answer: step, choice, correct")
    problem = param.String(default="")
    shown = param.Boolean(default=False, doc="on the page (set by the teaching bar): a hidden view draws nothing")

    def __init__(self, lab=None, **params) -> None:
        super().__init__(lab, **params)
        self._answered: set[tuple[int, int]] = set()   # (id of the run, step): each question counts once
        # The board is laid out again in place, its buttons kept (``Kept``): a choice clicked while the board is
        # drawn anew in the other language still answers (on a new button the click was dropped).
        self._keep = Kept()
        self._board = pn.Column(sizing_mode="stretch_width")
        self._lay_out_board()
        # The controls too: a click on "New exercise" while they are drawn in the other language still loads it.
        self._keep_controls = Kept()
        self._controls = pn.Column(sizing_mode="stretch_width")
        self._lay_out_controls()

    # --- actions ------------------------------------------------------------------------------------------
    def load(self, seed_text: str | None = None) -> None:
        """Put the seeded exercise into the lab's rows (the algorithm stays the student's choice)."""
        text = (seed_text if seed_text is not None else self.seed).strip()
        sizes = {size.name: number(self.sizes[size.name]) for size in MODES[self.lab.mode].exercise_sizes
                 if self.sizes.get(size.name, "").strip()}
        try:
            if not (text.isascii() and text.isdigit()) or int(text) > MAX_SEED:
                raise ScenarioError("seed", f"must be a whole number from 0 to 2**63 - 1, not {text[:40]!r}")
            scenario = MODES[self.lab.mode].exercise(int(text), **sizes)   # the core judges the sizes
        except ScenarioError as error:
            self.problem = f"{error.field}: {error.problem}"
            return
        rows = exercise_rows(self.lab.mode, scenario)
        with param.parameterized.batch_call_watchers(self):
            self.param.update(seed=text, exercise=int(text), sized=sizes, problem="")
        settings = {k: str(v) for k, v in scenario.items() if k != schema(self.lab.mode).items}   # engine: slots
        self.lab.state.param.update(rows=rows, **({"parameters": {**self.lab.parameters, **settings}}
                                                  if settings else {}))   # one run
        self.restart()

    def set_size(self, name: str, text: str) -> None:
        self.sizes = {**self.sizes, name: text}

    def random_seed(self) -> None:
        self.load(str(random.randrange(10**6)))

    def restart(self) -> None:
        self._answered.clear()
        self.param.update(right=0, asked=0, feedback=None)
        self.lab.step = 0
        self.skip()

    def skip(self) -> None:
        """Go to the moment just before the next question (the step before it)."""
        result = self.lab.result
        if not result:
            return
        found = next_question(result, self.lab.step)
        if found is not None:
            self.lab.step = found.step - 1
        self.feedback = None

    def answer(self, choice: str) -> None:
        result = self.lab.result
        found = question(result, self.lab.step + 1) if result else None
        if found is None:
            return
        correct = found.grade(choice)
        key = (id(result), found.step)
        if key not in self._answered:
            self._answered.add(key)
            self.param.update(asked=self.asked + 1, right=self.right + correct)
        self.feedback = {"step": found.step, "choice": choice, "correct": correct, "answer": found.answer,
                         "why": dict(found.why)}
        self.lab.step = found.step   # reveal it

    @param.depends("lab.result", watch=True)
    def _new_run(self) -> None:
        """Another scenario or algorithm: a new quiz (the score belongs to one run)."""
        self._answered.clear()
        self.param.update(right=0, asked=0, feedback=None)

    # --- views --------------------------------------------------------------------------------------------
    @param.depends("lab.lang", "lab.mode", "problem", watch=True)
    def _lay_out_controls(self) -> None:
        self._keep_controls.lay_out(self._controls, self._control_parts)

    def controls(self) -> pn.Column:
        """The seed, the exercise's sizes and the buttons that load, draw and restart an exercise."""
        return self._controls

    def _control_parts(self) -> list:
        lang, keep = self.lab.lang, self._keep_controls

        def button(name: str, action, **looks) -> pn.widgets.Button:
            def make():
                made = pn.widgets.Button(css_classes=[f"quiz-{name}"], align="end", stylesheets=SCALED, **looks)
                made.on_click(lambda _: action())
                return made
            made = keep(("button", name), make)
            made.label = t(lang, f"quiz.{name}")
            return made

        def size_box(size) -> TextField:
            def make():
                box = TextField(value=self.sizes.get(size.name, ""), width=215, placeholder=str(size.default),
                                css_classes=[f"quiz-size-{size.name}"], stylesheets=WRAPPING_LABEL)
                pn.bind(self.set_size, size.name, box, watch=True)
                return box
            box = keep(("size", self.lab.mode, size.name), make)
            box.label = t(lang, f"quiz.size.{size.name}")
            return box

        seed = keep(("seed",), lambda: TextField.from_param(self.param.seed, width=160, css_classes=["quiz-seed"]))
        seed.label = t(lang, "quiz.seed")
        sizes = [size_box(size) for size in MODES[self.lab.mode].exercise_sizes]   # as the command line's --jobs
        row = keep(("row",), lambda: pn.FlexBox(align_items="end"))
        row.objects = [seed, *sizes, button("new", self.load, color="primary"), button("random", self.random_seed),
                       button("restart", self.restart)]
        parts = [row]
        if self.problem:
            parts.append(pane(render.error_note(self.problem), css_classes=["quiz-problem"]))
        return parts

    def cli_note(self, lang: str) -> str:
        lab = self.lab
        if self.exercise is None or lab.algorithm == CUSTOM:
            return ""
        exercise = MODES[lab.mode].exercise(self.exercise, **self.sized)
        if [row.as_text() for row in lab.rows] != [row.as_text() for row in exercise_rows(lab.mode, exercise)] or \
                any(lab.parameters.get(k) != str(v) for k, v in exercise.items() if k != schema(lab.mode).items):
            return ""   # edited since: no longer the seeded exercise
        parameters = {k: v for k, v in lab.parameters.items() if k in lab.used_parameters() and v.strip()}
        if any("=" in v for v in parameters.values()):
            return ""   # flags given one by one (CPU's conventions) have no command-line form
        command = command_line(lab.mode, self.exercise, lab.algorithm, parameters, self.sized)
        return f'<p class="muted">{esc(t(lang, "quiz.cli", command=""))}<code class="cli">{esc(command)}</code></p>'

    def known_state(self, result: dict[str, Any], step: int, lang: str) -> list:
        """What the student may know before step ``step + 1``: no future."""
        now = result["steps"][step]
        parts: list = [pane(f'<p class="label">{esc(t(lang, "quiz.state", k=step + 1))}</p>'
                            + render.narration(now, lang))]
        return parts + views_of(result["mode"]).known_state(result, step, lang, self.lab.presenter)

    @param.depends("lab.result", "lab.step", "lab.lang", "lab.presenter", "feedback", "right", "asked", "exercise",
                   "shown", watch=True)
    def _lay_out_board(self) -> None:
        if self.shown:   # hidden (off the page): nothing is built at each step, not even an empty column
            self._keep.lay_out(self._board, self._board_parts)

    def board(self) -> pn.Column:
        """The score, the question and its choices (or the verdict), and what the student may know."""
        return self._board

    def _next_button(self, lang: str) -> pn.widgets.Button:
        def make():
            go = pn.widgets.Button(color="primary", css_classes=["quiz-next"], stylesheets=SCALED)
            go.on_click(lambda _: self.skip())
            return go
        go = self._keep(("next",), make)
        go.label = t(lang, "quiz.next")
        return go

    def _choice_button(self, name: str, place: int) -> pn.widgets.Button:
        def make():
            button = pn.widgets.Button(label=name, styles={"min-width": "4em"}, stylesheets=SCALED)
            button.on_click(lambda _: self.answer(name))
            return button
        button = self._keep(("choice", name), make)
        button.css_classes = ["quiz-choice", f"quiz-choice-{place}"]   # a task's colour in this run
        return button

    def _board_parts(self) -> list:
        lab, lang = self.lab, self.lab.lang
        result = lab.result
        if not result:
            return []
        words = t(lang, "quiz.score", right=self.right, asked=self.asked)
        score = pane(f'<p class="score" aria-live="polite">{esc(words)}'
                     f'</p>{self.cli_note(lang)}', css_classes=["quiz-score"])
        parts: list = [score]
        feedback = self.feedback
        if feedback is not None:
            correct = feedback["correct"]
            verdict = t(lang, "quiz.right" if correct else "quiz.wrong", choice=feedback["choice"],
                        answer=feedback["answer"])
            why = feedback["why"].get(lang) or feedback["why"].get("en", "")
            parts.append(pane(f'<div class="quiz-feedback {"right" if correct else "wrong"}" role="status">'
                              f'<p><strong>{esc(verdict)}</strong></p><p>{esc(why)}</p></div>',
                              css_classes=["quiz-feedback-pane"]))
            if next_question(result, lab.step) is not None:
                parts.append(self._next_button(lang))
            else:
                parts.append(pane(f'<p>{esc(t(lang, "quiz.done", right=self.right, asked=self.asked))}</p>',
                                  css_classes=["quiz-done"]))
            return [*parts, *self.known_state(result, lab.step, lang)]
        if result.get("trace", {}).get("level") != "full":
            return [*parts, pane(f'<p class="muted">{esc(t(lang, "quiz.compact"))}</p>')]
        asked = question(result, lab.step + 1)
        if asked is None:
            if next_question(result, lab.step) is None:
                key = "quiz.done" if self.asked else "quiz.none"
                return [*parts, pane(f'<p>{esc(t(lang, key, right=self.right, asked=self.asked))}</p>',
                                     css_classes=["quiz-done"])]
            return [*parts, self._next_button(lang), *self.known_state(result, lab.step, lang)]
        role = "question" if asked.cpu is None else "question on a cpu"
        prompt = app_mode(result["mode"]).say(lang, role, t=asked.time, next=asked.time + 1, cpu=asked.cpu)
        where = views_of(result["mode"]).places(result)
        choices = self._keep(("choices",), lambda: pn.FlexBox(gap="6px"))
        choices.objects = [self._choice_button(name, where[name]) for name in asked.candidates]
        parts += [pane(f'<p class="counter">{esc(prompt)}</p>', css_classes=["quiz-question"]), choices]
        return [*parts, *self.known_state(result, lab.step, lang)]

    @param.depends("lab.lang")
    def header(self):
        lang = self.lab.lang
        return pane(f'<h2>{esc(t(lang, "quiz.title"))}</h2><p class="muted">{esc(t(lang, "quiz.intro"))}</p>')

    def panel(self):
        return pn.Column(self.header, self._controls, self._board, sizing_mode="stretch_width")

"""No choice is lost (issue 19 item 5): seeded random sequences of a teacher's clicks, 0-150 ms apart, on the served
app; at the end every widget shows the last choice made on it and the run shown is the core's for those choices.

The same actions are applied, in order, to the app's own view-model (``app.model.Lab``) in this process: its state
is what the page must show, and its run is the core's (``simulate``). The pauses between clicks are the user's pace,
part of the input; what the test waits for, it waits for with ``expect``.
"""
from __future__ import annotations

import random
import re

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

from tests.test_app_browser import TIMEOUT, expect_table  # noqa: E402

pytestmark = pytest.mark.browser
LANGUAGES = ("English", "日本語")
ACTIONS = 12
SETTLE = 60_000   # ms: a busy 2-core machine answers a burst of twelve clicks (and is ready for the next click)


def menu_order(mode: str) -> list[str]:
    """The algorithm menu's entries in the page's order (the index picks the same entry in every language)."""
    from app.model import algorithms
    from app.ui import menu_groups
    return [name for group in menu_groups(mode, algorithms(mode), "en").values() for name in group.values()]


def actions(seed: int) -> list[tuple[str, object, int]]:
    """(what, which, pause in ms before it): an algorithm by its menu index, a mode, a language."""
    from app.model import names
    draw = random.Random(seed)
    modes = [mode for mode in names() if mode in ("cpu", "llm")]   # the two modes whose runs the test reads
    assert len({len(menu_order(mode)) for mode in modes}) == len(modes)   # burst() tells them apart so
    plan, mode = [], "cpu"
    for _ in range(ACTIONS):
        kind = draw.choices(("algorithm", "mode", "lang"), weights=(6, 2, 2))[0]
        if kind == "algorithm":
            entries = [k for k, name in enumerate(menu_order(mode)) if name != "custom"]
            plan.append(("algorithm", draw.choice(entries), draw.randint(0, 150)))
        elif kind == "mode":
            mode = draw.choice(modes)
            plan.append(("mode", mode, draw.randint(0, 150)))
        else:
            plan.append(("lang", draw.choice(LANGUAGES), draw.randint(0, 150)))
    return plan


def burst(lab, seed: int, test_output, where: str) -> None:
    """Play ``actions(seed)`` on the page of ``lab`` (a ``tests.test_app_browser.Lab``, opened) and on a view-model
    beside it; then the page must show the view-model's choices and its run."""
    from app.model import Lab, names
    model = Lab()
    page = lab.page
    mode_buttons = page.locator(".lab-header .bk-btn-group").first.locator("button")
    order = list(names())
    for kind, which, pause in actions(seed):
        page.wait_for_timeout(pause)
        if kind == "algorithm":
            page.locator(".editor select").first.select_option(index=which, timeout=SETTLE)
            model.set_algorithm(menu_order(model.mode)[which])
        elif kind == "mode":
            mode_buttons.nth(order.index(which)).click(timeout=SETTLE)
            model.mode = which
            # A reader picks from the menu on screen: the next pick waits until it is the new mode's (languages
            # change its words, never its entries' order, so they are not waited for).
            # (the menus' lengths tell the modes apart; the options' texts are in the page's language)
            expect(page.locator(".editor select").first.locator("option")).to_have_count(
                len(menu_order(which)), timeout=SETTLE)
        else:
            page.get_by_role("button", name=which).click(timeout=SETTLE)
            model.lang = "en" if which == "English" else "ja"
    # Every widget ends on the last choice made on it...
    expect(page.get_by_role("button", name=LANGUAGES[model.lang == "ja"])).to_have_class(
        re.compile(r"bk-active"), timeout=SETTLE)
    expect(mode_buttons.nth(order.index(model.mode))).to_have_class(re.compile(r"bk-active"))
    menu = page.locator(".editor select").first
    wanted = menu_order(model.mode).index(model.algorithm)
    page.wait_for_function("([menu, index]) => menu.selectedIndex === index",
                           arg=[menu.element_handle(), wanted], timeout=SETTLE)
    # ... and the run shown is the core's for those choices.
    result = model.result
    assert result["algorithm"] == model.algorithm
    if model.mode == "cpu":
        expect_table(lab, result)
    else:
        expect(page.locator("ol.strip .cell-name")).to_have_text([d["tenant"] for d in result["dispatch"]],
                                                                 timeout=TIMEOUT)
    lab.shot(test_output, f"choices-burst-{where}-{seed}")


def site_lab(visitor, cdn_site_url):
    """The built site's lab in a visitor's browser, once Python is ready (Pyodide's CDN stood in for)."""
    from site_support import wait_for_boot
    from tests.test_app_browser import Lab
    context, _ = visitor()
    lab = Lab(context.new_page(), f"{cdn_site_url}index.html")
    lab.open()
    wait_for_boot(lab.page)
    return lab


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_burst_of_choices_ends_on_the_last_of_each(lab, seed, test_output):
    lab.open()
    burst(lab, seed, test_output, "app")


@pytest.mark.parametrize("seed", [1, 2])
def test_a_burst_of_choices_on_the_static_site(visitor, cdn_site_url, seed, test_output):
    """The same on the built site once Python is ready (Pyodide's CDN stood in for)."""
    lab = site_lab(visitor, cdn_site_url)
    burst(lab, seed, test_output, "site")


@pytest.mark.parametrize("seed", [4, 5])
def test_a_burst_of_compare_choices_ends_on_the_last(lab, seed, test_output):
    """Compare's right side picked again and again, 0-150 ms apart, beside the lab's own algorithm."""
    from app.model import Lab, algorithms
    from app.compare import CompareView
    model = Lab()
    compare = CompareView(model)
    lab.open()
    page = lab.page
    page.locator(".teach-tab-compare button").click()
    right_menu = page.locator(".compare-algorithm select")
    expect(right_menu).to_be_visible(timeout=TIMEOUT)
    right_order = list(algorithms("cpu"))
    draw = random.Random(seed)
    for _ in range(ACTIONS):
        page.wait_for_timeout(draw.randint(0, 150))
        if draw.random() < 0.7:
            index = draw.randrange(len(right_order))
            right_menu.select_option(index=index, timeout=SETTLE)
            compare.set_algorithm(right_order[index])
        else:
            index = draw.choice([k for k, name in enumerate(menu_order("cpu")) if name != "custom"])
            page.locator(".editor select").first.select_option(index=index, timeout=SETTLE)
            model.set_algorithm(menu_order("cpu")[index])
    page.wait_for_function("([menu, index]) => menu.selectedIndex === index",
                           arg=[right_menu.element_handle(), right_order.index(compare.algorithm)], timeout=SETTLE)
    page.wait_for_function("([menu, index]) => menu.selectedIndex === index",
                           arg=[page.locator(".editor select").first.element_handle(),
                                menu_order("cpu").index(model.algorithm)], timeout=SETTLE)
    right = compare.result
    name = algorithms("cpu")[right["algorithm"]].label["en"]
    expect(page.locator(".compare-right h3")).to_have_text(f"Right: {name}", timeout=SETTLE)
    expect(page.locator(".compare-right")).to_contain_text(f"/{len(right['steps'])}", timeout=SETTLE)
    left = algorithms("cpu")[model.algorithm].label["en"]
    expect(page.locator(".compare-left h3")).to_have_text(f"Left: {left}", timeout=SETTLE)
    expect(page.locator(".compare-left")).to_contain_text(f"/{len(model.result['steps'])}", timeout=SETTLE)
    lab.shot(test_output, f"choices-compare-burst-{seed}")


def test_a_click_made_while_python_is_busy_comes_after_the_choices_made_before_it(visitor, cdn_site_url,
                                                                                   test_output):
    """On the built site once Python is ready: SRTF picked (Python busy with its run), at once seed 10 typed in
    Predict and "New exercise" clicked. The exercise loaded is seed 10's: the click waited behind the seed (Panel's
    handler sent a click at once, ahead of the changes waiting for the busy worker: it loaded seed 42's)."""
    from schedulers.exercises import cpu_exercise
    lab = site_lab(visitor, cdn_site_url)
    page = lab.page
    page.locator(".teach-tabs button", has_text="Predict").click()
    seed = page.locator(".quiz-seed input")
    expect(seed).to_have_value("42", timeout=SETTLE)
    page.locator(".editor select").first.select_option(index=menu_order("cpu").index("srtf"))
    seed.fill("10")
    seed.press("Enter")
    page.locator(".quiz-new button").click()
    exercise = cpu_exercise(10)["tasks"]
    for row, task in enumerate(exercise):
        expect(lab.field("arrival", row)).to_have_value(str(task["arrival"]), timeout=SETTLE)
        expect(lab.field("burst", row)).to_have_value(str(task["burst"]))
    expect(page.locator(".quiz-score")).to_contain_text("python -m schedulers cpu --seed 10 --algorithm srtf",
                                                        timeout=SETTLE)
    lab.shot(test_output, "choices-click-after-seed-site")


# --- presenter mode, the step slider and the checkboxes ------------------------------------------------------

PRESENTER = re.compile("Presenter mode|プレゼンターモード")
# A drag of the step slider that ends at ``value``: the pager hears the input event.
SLIDER_JS = "([slider, value]) => { slider.value = value; slider.dispatchEvent(new Event('input', {bubbles: true})) }"


class Settings:
    """What a teacher sets while stepping, on the page and, in the same order, on the app's own view-models: the
    lab (presenter mode, the step, the algorithm, the language), the conventions card and the editor's I/O box."""

    def __init__(self, page) -> None:
        from app.model import Lab
        from app.modes.cpu.conventions import ConventionsCard
        from app.panes import pane
        self.page, self.model = page, Lab()
        self.card = ConventionsCard(self.model, lambda owns: pane(""))
        self.io_shown = False
        self.steps = len(self.model.result["steps"])   # every run of the article's tasks has as many (no idle)

    def plan(self, seed: int) -> list[tuple[str, object, int]]:
        """(what, which, pause in ms before it); the editor's widgets only while the model shows the editor."""
        from schedulers.cpu.scenario import CONVENTIONS
        draw, presenter, plan = random.Random(seed), False, []
        flags = list(self.card.flags)
        for _ in range(ACTIONS):
            kinds = {"presenter": 1, "step": 2, "lang": 1} if presenter else {
                "presenter": 1, "step": 2, "lang": 1, "flag": 2, "preset": 1, "io": 1, "algorithm": 1}
            kind = draw.choices(list(kinds), weights=list(kinds.values()))[0]
            if kind == "presenter":
                presenter = not presenter
                which = None
            elif kind == "step":
                which = draw.randrange(self.steps)
            elif kind == "lang":
                which = draw.choice(LANGUAGES)
            elif kind == "flag":
                which = (draw.choice(flags), draw.random() < 0.5)
            elif kind == "preset":
                which = draw.randrange(len(CONVENTIONS) + 1)   # the presets, then "my own flags"
            elif kind == "io":
                which = draw.random() < 0.5
            else:
                which = draw.choice([k for k, name in enumerate(menu_order("cpu")) if name != "custom"])
            plan.append((kind, which, draw.randint(0, 150)))
        return plan

    def act(self, kind: str, which) -> None:
        page, model = self.page, self.model
        if kind == "presenter":
            page.locator(".lab-header button", has_text=PRESENTER).click(timeout=SETTLE)
            model.presenter = not model.presenter
        elif kind == "step":
            page.evaluate(SLIDER_JS, [page.locator(".step-slider input").element_handle(timeout=SETTLE), which])
            model.go(which)
        elif kind == "lang":
            page.get_by_role("button", name=which).click(timeout=SETTLE)
            model.lang = "en" if which == "English" else "ja"
        elif kind == "flag":
            name, value = which
            page.locator(f".conventions-{name} input").set_checked(value, timeout=SETTLE)
            self.card.flags[name].value = value
        elif kind == "preset":
            page.locator(".conventions-preset select").select_option(index=which, timeout=SETTLE)
            self.card.preset.value = list(self.card.preset.options.values())[which]
        elif kind == "io":
            page.locator(".show-bursts input").set_checked(which, timeout=SETTLE)
            self.io_shown = which
        else:
            page.locator(".editor select").first.select_option(index=which, timeout=SETTLE)
            model.set_algorithm(menu_order("cpu")[which])

    def expect_shown(self, lab) -> None:
        """Every widget on its last choice, the step the last one chosen, the run the core's for them."""
        page, model = self.page, self.model
        expect(page.get_by_role("button", name=LANGUAGES[model.lang == "ja"])).to_have_class(
            re.compile(r"bk-active"), timeout=SETTLE)
        presenter = page.locator(".lab-header button", has_text=PRESENTER)
        if model.presenter:
            expect(presenter).to_have_class(re.compile(r"bk-active"), timeout=SETTLE)
        else:
            expect(presenter).not_to_have_class(re.compile(r"bk-active"), timeout=SETTLE)
        expect(page.locator(".editor")).to_be_visible(visible=not model.presenter, timeout=SETTLE)
        for name, box in self.card.flags.items():
            expect(page.locator(f".conventions-{name} input")).to_be_checked(checked=box.value, timeout=SETTLE)
        options = list(self.card.preset.options.values())
        for css, index in ((".conventions-preset select", options.index(self.card.preset.value)),
                           (".editor select", menu_order("cpu").index(model.algorithm))):
            page.wait_for_function("([menu, index]) => menu.selectedIndex === index",
                                   arg=[page.locator(css).first.element_handle(), index], timeout=SETTLE)
        expect(page.locator(".show-bursts input")).to_be_checked(checked=self.io_shown, timeout=SETTLE)
        expect(page.locator(".field-bursts input")).to_have_count(len(model.rows) if self.io_shown else 0,
                                                                  timeout=SETTLE)
        result = model.result
        expect(lab.counter()).to_contain_text(re.compile(rf"(step|ステップ) {model.step + 1}/{len(result['steps'])}"),
                                              timeout=SETTLE)
        expect_table(lab, result)
        # The address is the model's link: conventions, algorithm and step as the last choices left them.
        expect(page).to_have_url(re.compile(rf"\?{re.escape(model.link())}$"), timeout=SETTLE)


def settings_burst(lab, seed: int, test_output, where: str) -> None:
    page = lab.page
    settings = Settings(page)
    page.locator(".conventions-card .card-header").click()   # unfolded: its widgets are clicked
    expect(page.locator(".conventions-preset select")).to_be_visible(timeout=SETTLE)
    for kind, which, pause in settings.plan(seed):
        page.wait_for_timeout(pause)
        settings.act(kind, which)
    settings.expect_shown(lab)
    lab.shot(test_output, f"choices-settings-{where}-{seed}")


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_a_burst_of_settings_ends_on_the_last_of_each(lab, seed, test_output):
    """Presenter mode, the step slider, the conventions' checkboxes and preset, the I/O box and the algorithm,
    0-150 ms apart on the served app."""
    lab.open()
    settings_burst(lab, seed, test_output, "app")


def test_a_burst_of_settings_on_the_static_site(visitor, cdn_site_url, test_output):
    lab = site_lab(visitor, cdn_site_url)
    settings_burst(lab, 9, test_output, "site")


# --- Predict's choices -----------------------------------------------------------------------------------

def predict_burst(lab, seed: int, test_output, where: str) -> None:
    """Predict's answers and "Next question", with the language and presenter mode changed between them, 0-150 ms
    apart: the page's score, verdict and question are at the end what the quiz's own view-model says for the same
    clicks. An answer is clicked once the question's choices are on the page (a student answers what is asked),
    whatever the language the page is in by then."""
    from app.model import Lab
    from app.quiz import QuizView
    from app.text import t
    from schedulers.quiz import next_question, question
    model = Lab()
    quiz = QuizView(model, shown=True)
    page = lab.page
    page.locator(".teach-tabs button", has_text="Predict").click()
    expect(page.locator(".quiz-score")).to_be_visible(timeout=SETTLE)
    draw = random.Random(seed)
    for _ in range(ACTIONS * 2):
        result = model.result
        asked = question(result, model.step + 1) if quiz.feedback is None else None
        following = next_question(result, model.step)
        kinds = {"lang": 1, "presenter": 1, **({"answer": 4} if asked else {}),
                 **({"next": 3} if not asked and following is not None else {})}
        kind = draw.choices(list(kinds), weights=list(kinds.values()))[0]
        page.wait_for_timeout(draw.randint(0, 150))
        if kind == "answer":
            choice = draw.choice(asked.candidates)
            expect(page.locator(".quiz-choice")).to_have_text(list(asked.candidates), timeout=SETTLE)
            page.locator(".quiz-choice button", has_text=re.compile(rf"^{re.escape(choice)}$")).click(timeout=SETTLE)
            quiz.answer(choice)
        elif kind == "next":
            page.locator(".quiz-next button").click(timeout=SETTLE)
            quiz.skip()
        elif kind == "lang":
            language = LANGUAGES[model.lang == "en"]   # the other one
            page.get_by_role("button", name=language).click(timeout=SETTLE)
            model.lang = "en" if language == "English" else "ja"
        else:
            page.locator(".lab-header button", has_text=PRESENTER).click(timeout=SETTLE)
            model.presenter = not model.presenter
    lang = model.lang
    expect(page.get_by_role("button", name=LANGUAGES[lang == "ja"])).to_have_class(re.compile(r"bk-active"),
                                                                                 timeout=SETTLE)
    expect(page.locator(".quiz-score .score")).to_have_text(t(lang, "quiz.score", right=quiz.right,
                                                              asked=quiz.asked), timeout=SETTLE)
    assert quiz.asked >= 2, "the plan answered fewer than two questions: nothing much was tried"
    feedback = quiz.feedback
    if feedback is not None:
        verdict = t(lang, "quiz.right" if feedback["correct"] else "quiz.wrong", choice=feedback["choice"],
                    answer=feedback["answer"])
        expect(page.locator(".quiz-feedback strong")).to_have_text(verdict, timeout=SETTLE)
    else:
        asked = question(model.result, model.step + 1)
        expect(page.locator(".quiz-choice")).to_have_text(list(asked.candidates) if asked else [], timeout=SETTLE)
        if asked:   # the question asked is the model's (its time, in the page's language)
            expect(page.locator(".quiz-question")).to_contain_text(f"t={asked.time}", timeout=SETTLE)
    lab.shot(test_output, f"choices-predict-{where}-{seed}")


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_a_burst_of_predict_answers_keeps_every_answer(lab, seed, test_output):
    lab.open()
    predict_burst(lab, seed, test_output, "app")


def test_a_burst_of_predict_answers_on_the_static_site(visitor, cdn_site_url, test_output):
    lab = site_lab(visitor, cdn_site_url)
    predict_burst(lab, 13, test_output, "site")

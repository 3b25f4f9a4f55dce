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


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_burst_of_choices_ends_on_the_last_of_each(lab, seed, test_output):
    lab.open()
    burst(lab, seed, test_output, "app")


@pytest.mark.parametrize("seed", [1, 2])
def test_a_burst_of_choices_on_the_static_site(visitor, cdn_site_url, seed, test_output):
    """The same on the built site once Python is ready (Pyodide's CDN stood in for)."""
    from site_support import wait_for_boot
    from tests.test_app_browser import Lab
    context, _ = visitor()
    lab = Lab(context.new_page(), f"{cdn_site_url}index.html")
    lab.open()
    wait_for_boot(lab.page)
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
    expect(page.locator(".compare-right")).to_contain_text(f"/{len(right['steps'])}")
    left = algorithms("cpu")[model.algorithm].label["en"]
    expect(page.locator(".compare-left h3")).to_have_text(f"Left: {left}")
    expect(page.locator(".compare-left")).to_contain_text(f"/{len(model.result['steps'])}")
    lab.shot(test_output, f"choices-compare-burst-{seed}")


def test_a_click_made_while_python_is_busy_comes_after_the_choices_made_before_it(visitor, cdn_site_url,
                                                                                   test_output):
    """On the built site once Python is ready: SRTF picked (Python busy with its run), at once seed 10 typed in
    Predict and "New exercise" clicked. The exercise loaded is seed 10's: the click waited behind the seed (Panel's
    handler sent a click at once, ahead of the changes waiting for the busy worker: it loaded seed 42's)."""
    from site_support import wait_for_boot
    from tests.test_app_browser import Lab
    from schedulers.exercises import cpu_exercise
    context, _ = visitor()
    lab = Lab(context.new_page(), f"{cdn_site_url}index.html")
    lab.open()
    wait_for_boot(lab.page)
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

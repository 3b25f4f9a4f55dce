"""The documentation holds together: README.md is one page a newcomer reads (at most 300 lines), every relative link
in it and in docs/*.md reaches an existing file, image or heading (GitHub's anchors), docs/index.md links every page
of docs/, and the code's mentions of a documentation section (`docs/cpu.md "The trace"`, `README "Run it"`) name one
that exists. No browser: the Markdown is read as GitHub renders its headings and links."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
README_MAX_LINES = 300
SOURCES = ("app", "schedulers", "static", "tests")   # and build.py: where code names a documentation section

FENCE = re.compile(r"^ {0,3}(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
# [text](target) and ![alt](target); link text may hold one level of brackets; an optional "title" after the target
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(?:a|img|iframe|script)\b[^>]*?\b(?:href|src)=\"([^\"]*)\"", re.I)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)   # https:, mailto:, ...
# `docs/cpu.md "The trace"`, `README "Run it"`, `README, "Run it"`: a page, and optionally the section it names
SECTION_MENTION = re.compile(r"\b(README|docs/[\w.-]+\.md)(?:,? \"([^\"]+)\")?")


def prose(text: str) -> list[tuple[int, str]]:
    """The page's lines outside fenced code blocks, numbered from 1; fenced lines come back empty."""
    lines, fenced = [], None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence and (fenced is None or fence.group(1) == fenced):
            fenced = fence.group(1) if fenced is None else None
            lines.append((number, ""))
        else:
            lines.append((number, "" if fenced else line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: inline markup kept as its text, lowercase, every character but
    letters, digits, marks, '_', '-' and spaces dropped, each space a hyphen."""
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = LINK.sub(lambda m: m.group(1), text)
    text = text.strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor on a page; a repeated one gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose(text):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def headings(text: str) -> list[str]:
    return [CODE_SPAN.sub(lambda m: m.group(2), match.group(2)) for _, line in prose(text)
            if (match := HEADING.match(line))]


def links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every link and image outside code, a link's text spanning lines included."""
    lines = prose(text)
    joined = "\n".join(line for _, line in lines)
    # a code span becomes as many spaces (newlines kept), so positions and line numbers stay
    joined = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), joined)
    found = []
    for pattern, group in ((LINK, 2), (HTML_LINK, 1)):
        for match in pattern.finditer(joined):
            found.append((match.start(group), joined.count("\n", 0, match.start(group)) + 1, match.group(group)))
    return [(number, target) for _, number, target in sorted(found)]


def broken_links(page: Path, text: str, root: Path = ROOT) -> list[str]:
    """What is wrong with each relative link of ``page`` (whose text is ``text``), one line each."""
    problems = []
    for number, target in links(text):
        where = f"{page.relative_to(root)}:{number}: {target}"
        if not target:
            problems.append(f"{where}: an empty link")
            continue
        if EXTERNAL.match(target):
            continue
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if not destination.is_relative_to(root.resolve()) and destination != page:
            problems.append(f"{where}: points outside the repository")
        elif not destination.exists():
            problems.append(f"{where}: no such file")
        elif anchor and destination.suffix != ".md":
            problems.append(f"{where}: an anchor into a file that is not Markdown")
        elif anchor and anchor not in anchors(text if destination == page else destination.read_text(encoding="utf-8")):
            problems.append(f"{where}: no heading with that anchor in {destination.name}")
    return problems


# --- the rules themselves, on pages made up here (so the checks below can fail) -----------------------------------

@pytest.mark.parametrize("heading, anchor", [
    ("Self-contained build (no network at all)", "self-contained-build-no-network-at-all"),
    ("The article's contrast", "the-articles-contrast"),
    ("Teaching helpers (the core side of the lab's teaching features)",
     "teaching-helpers-the-core-side-of-the-labs-teaching-features"),
    ("`python -m schedulers` and `--json`", "python--m-schedulers-and---json"),
    ("Presenter mode at 1920 × 1080", "presenter-mode-at-1920--1080"),
    ("The *trace*, **in full**", "the-trace-in-full"),
    ("Fenwick_tree 日本語の説明", "fenwick_tree-日本語の説明"),
    ("[Links](other.md) in a heading", "links-in-a-heading"),
])
def test_anchor_follows_githubs_rules(heading, anchor):
    assert slug(heading) == anchor


def test_repeated_headings_get_numbered_anchors_and_code_blocks_hold_none():
    page = "# Limits\n\n## Limits\n\n```\n# Limits\n```\n\n### Limits ###\n"
    assert anchors(page) == {"limits", "limits-1", "limits-2"}


def test_a_broken_link_of_each_kind_is_reported(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A section\n")
    (tmp_path / "shot.png").write_bytes(b"")
    page = tmp_path / "page.md"
    page.write_text(text := ("# Page\n\n## Here\n\n"
            "[fine](other.md#a-section) [fine too](#here) ![fine](shot.png) [web](https://example.org/x#y)\n"
            "[gone](missing.md) [no anchor](other.md#no-such-section) ![no image](missing.png)\n"
            "[bad local anchor](#nowhere) [a link whose text\nspans two lines](other.md#gone-too)\n"
            "`[inside code](missing-too.md)`\n\n```\n[in a fence](missing-three.md)\n```\n"
            '<img src="absent.png" alt="">\n'))
    problems = broken_links(page, text, root=tmp_path)
    wrong = [problem.split(": ", 2)[1] for problem in problems]
    assert wrong == ["missing.md", "other.md#no-such-section", "missing.png", "#nowhere", "other.md#gone-too",
                     "absent.png"], problems
    assert problems[4].startswith("page.md:8:"), problems   # the line the link's target is on


# --- the repository's own documentation ---------------------------------------------------------------------------

def test_readme_is_one_page():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines, more than {README_MAX_LINES}: move detail to docs/"


def test_every_relative_link_resolves():
    assert DOCS.is_dir() and len(PAGES) > 2
    problems = [problem for page in PAGES for problem in broken_links(page, page.read_text(encoding="utf-8"))]
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_index_links_every_page_of_docs():
    index = DOCS / "index.md"
    linked = {(DOCS / target.partition("#")[0]).resolve() for _, target in links(index.read_text(encoding="utf-8"))
              if not EXTERNAL.match(target) and target.partition("#")[0]}
    unlisted = [page.name for page in PAGES[1:] if page != index and page.resolve() not in linked]
    assert not unlisted, f"docs/index.md links no {', '.join(unlisted)}"
    readme_targets = {target for _, target in links(README.read_text(encoding="utf-8"))}
    assert "docs/index.md" in readme_targets, "README.md does not link docs/index.md"


def test_code_names_only_sections_that_exist():
    """A docstring's `docs/engine.md "The loop"` or `README "Run it"` points at a heading that begins so."""
    files = [ROOT / "build.py", *(path for folder in SOURCES for path in sorted((ROOT / folder).rglob("*"))
                                  if path.suffix in (".py", ".js", ".mjs") and path.is_file())]
    problems = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in SECTION_MENTION.finditer(line):
                name, section = match.groups()
                page = README if name == "README" else ROOT / name
                where = f"{path.relative_to(ROOT)}:{number}: {match.group(0)}"
                if not page.exists():
                    problems.append(f"{where}: no such page")
                elif section and not any(heading.startswith(section)
                                         for heading in headings(page.read_text(encoding="utf-8"))):
                    problems.append(f"{where}: no such heading in {page.relative_to(ROOT)}")
    assert not problems, "documentation sections the code names that do not exist:\n" + "\n".join(problems)

"""The documentation's screenshots from the browser tests' own (``python3 build.py screenshots`` after a test run):
each image of static/screenshots/ that docs/lab.md shows, the test-output file it is made from, reduced to a
256-colour palette (a tenth of the bytes)."""
from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
# image in static/screenshots/ -> the screenshot a browser test saves (tests/test_app_browser.py)
SHOTS = {
    "presenter-1920x1080.png": "cpu-en-presenter-1920x1080.png",   # test_presenter_mode_fits_a_projector
    "presenter-llm-ja-1920x1080.png": "llm-ja-presenter-1920x1080.png",
    "large-time.png": "time-axis-million-1366.png",                # test_the_time_axis_reads_at_every_scale
    "cpu-io.png": "cpu-io-en-1366.png",                            # tests/test_cpu_io_browser.py
    "cpu-switch-compare.png": "cpu-switch-compare-rr-switch-cost-1366.png",
    "cpu-locks.png": "cpu-locks-en-1366.png",                      # tests/test_cpu_locks_browser.py
}


def main(output: Path) -> int:
    missing = [name for name in SHOTS.values() if not (output / name).exists()]
    if missing:
        print(f"not in {output}: {', '.join(missing)}; run python3 build.py test tests/test_app_browser.py "
              "tests/test_cpu_io_browser.py tests/test_cpu_locks_browser.py first",
              file=sys.stderr)
        return 1
    for image, source in SHOTS.items():
        target = ROOT / "static" / "screenshots" / image
        Image.open(output / source).convert("RGB").quantize(256).save(target, optimize=True)
        print(f"{target.relative_to(ROOT)} ({target.stat().st_size // 1024} kB) from {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "test-output"))

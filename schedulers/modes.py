"""The lab's modes, one entry each: ``simulate``, ``algorithms``, ``schema`` and ``python -m schedulers`` reach a
mode only through ``MODES``. A new mode is a package that defines its ``MODE`` (``catalog.Mode``) and one entry
here."""
from __future__ import annotations

from . import cpu, llm
from .catalog import Mode
from .errors import ScenarioError
from .fields import describe

MODES: dict[str, Mode] = {mode.name: mode for mode in (cpu.MODE, llm.MODE)}


def mode(name: object) -> Mode:
    """The mode called ``name``; anything else is a ScenarioError naming the field ``mode``."""
    if not isinstance(name, str) or name not in MODES:
        raise ScenarioError("mode", f"must be one of {', '.join(MODES)}, not {describe(name)}")
    return MODES[name]

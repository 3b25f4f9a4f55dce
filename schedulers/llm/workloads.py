"""The router's presets (named scenarios) and seeded hostile generators (the article's checklist, §11 item 8), each
with one sentence per language on what to look for; ``MODE.presets`` and ``MODE.patterns`` offer them (the app's
presets, ``python -m schedulers llm --pattern NAME --seed N``).
"""
from __future__ import annotations

from typing import Any

from ..catalog import Workload


def mispredict_preset(seed: int = 0) -> dict[str, Any]:
    """A and B send the same estimates on two servers; B's requests take three times theirs."""
    return {"algorithm": "sfq", "servers": 2, "tenants": [
        {"name": "A", "costs": [4] * 6},
        {"name": "B", "costs": [{"cost": 4, "actual": 12}] * 6}]}


PRESETS = {workload.name: workload for workload in (
    Workload("mispredict", {
        "en": "B's requests take three times their estimate: SFQ charges both tenants alike and keeps the charged "
              "difference within 2c̄, while B's actual service runs far past it.",
        "ja": "B のリクエストは推定の 3 倍かかります。SFQ は両者に同じだけ課金し、課金の差は 2c̄ 以内に保ちますが、"
              "B の実サービスはそれを大きく超えます。"}, mispredict_preset),
)}

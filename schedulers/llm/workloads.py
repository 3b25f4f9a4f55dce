"""The router's presets (named scenarios) and seeded hostile generators (the article's checklist, §11 item 8), each
with one sentence per language on what to look for; ``MODE.presets`` and ``MODE.patterns`` offer them (the app's
presets, ``python -m schedulers llm --pattern NAME --seed N``).
"""
from __future__ import annotations

import random
from typing import Any

from ..catalog import Workload
from ..fields import integer

MAX_SEED = 2**63 - 1
SERVERS = 2


def seeded(seed: int) -> random.Random:
    """Mersenne Twister and ``randint`` give the same numbers in CPython and Pyodide; the generators use only
    integers, so a seed gives the same scenario everywhere."""
    return random.Random(integer(seed, "seed", minimum=0, maximum=MAX_SEED))


def fleet(*tenants: dict[str, Any]) -> dict[str, Any]:
    return {"algorithm": "sfq", "servers": SERVERS, "tenants": list(tenants)}


def heavy_tail(seed: int) -> dict[str, Any]:
    """Three tenants of twelve requests whose costs are Pareto with shape 1, drawn by inversion in integers:
    1000 // U for U uniform in 1..1000, so P(cost >= x) is about 1/x (half are 1, a few are hundreds)."""
    rng = seeded(seed)
    return fleet(*({"name": name, "costs": [1000 // rng.randint(1, 1000) for _ in range(12)]} for name in "ABC"))


def on_off(seed: int) -> dict[str, Any]:
    """A always has work (24 requests of cost 2 at t=0); B sends four bursts of 3-5 requests of cost 2, each 12-24
    time units after the one before (a burst takes at most 10 with half the servers, so B falls silent between)."""
    rng = seeded(seed)
    arrivals, now = [], 0
    for _ in range(4):
        arrivals += [now] * rng.randint(3, 5)
        now += rng.randint(12, 24)
    return fleet({"name": "A", "cost": 2, "count": 24}, {"name": "B", "costs": [2] * len(arrivals),
                                                          "arrivals": arrivals})


def rejoin(seed: int) -> dict[str, Any]:
    """A always has work (20 requests of cost 3); B sends one request of cost 1-3 at a time, the next 4-8 time
    units later, when the one before has long been served: every one of B's requests is a join."""
    rng = seeded(seed)
    arrivals = [0]
    while len(arrivals) < 10:
        arrivals.append(arrivals[-1] + rng.randint(4, 8))
    return fleet({"name": "A", "cost": 3, "count": 20},
                 {"name": "B", "costs": [rng.randint(1, 3) for _ in arrivals], "arrivals": arrivals})


def mispredict(seed: int) -> dict[str, Any]:
    """A and B send eight requests each with estimates 2-8; A's run as estimated, B's take three times theirs."""
    rng = seeded(seed)
    costs = [[rng.randint(2, 8) for _ in range(8)] for _ in "AB"]
    return fleet({"name": "A", "costs": costs[0]},
                 {"name": "B", "costs": [{"cost": cost, "actual": 3 * cost} for cost in costs[1]]})


def cancel(seed: int) -> dict[str, Any]:
    """A and B send ten requests each (estimates 2-8, at t=0); about a third of them are cancelled 0-15 time units
    after they arrive, some still waiting, some already running."""
    rng = seeded(seed)

    def request() -> int | dict[str, int]:
        cost = rng.randint(2, 8)
        return {"cost": cost, "cancel": rng.randint(0, 15)} if rng.randint(1, 3) == 1 else cost
    return fleet(*({"name": name, "costs": [request() for _ in range(10)]} for name in "AB"))


def mispredict_preset(seed: int = 0) -> dict[str, Any]:
    """A and B send the same estimates on two servers; B's requests take three times theirs."""
    return fleet({"name": "A", "costs": [4] * 6}, {"name": "B", "costs": [{"cost": 4, "actual": 12}] * 6})


def replicas_preset(seed: int = 0) -> dict[str, Any]:
    """Three tenants of twelve requests of cost 1 on two servers, split over two routers by tenant."""
    return {**fleet(*({"name": name, "cost": 1, "count": 12} for name in "ABC")), "replicas": 2, "spread": "tenant"}


PRESETS = {workload.name: workload for workload in (
    Workload("mispredict", {
        "en": "B's requests take three times their estimate: SFQ charges both tenants alike and keeps the charged "
              "difference within 2c̄, while B's actual service runs far past it.",
        "ja": "B のリクエストは推定の 3 倍かかります。SFQ は両者に同じだけ課金し、課金の差は 2c̄ 以内に保ちますが、"
              "B の実サービスはそれを大きく超えます。"}, mispredict_preset),
    Workload("replicas", {
        "en": "Two routers, each fair on its own: A and C share one server while B has the other to itself, so over "
              "the whole system B's lead passes one router's 2c̄; one router with the same two servers keeps it.",
        "ja": "2 台のルーターはそれぞれ単独では公平ですが、A と C が 1 台のサーバーを分け合う間に B はもう 1 台を"
              "独占し、システム全体では B の先行がルーター 1 台の 2c̄ を超えます。同じ 2 台を 1 台のルーターで扱えば"
              "収まります。"},
             replicas_preset),
)}
PATTERNS = {workload.name: workload for workload in (
    Workload("heavy-tail", {
        "en": "A few requests cost hundreds of times the usual one: SFQ's 2c̄ is set by the largest, so a tenant may "
              "trail by a whole giant request, and a server is held by it for a long time.",
        "ja": "ごく一部のリクエストが普段の数百倍のコストです。SFQ の 2c̄ は最大のものが決めるので、巨大な 1 件分だけ"
              "遅れるテナントがあり、サーバーも長く占有されます。"}, heavy_tail),
    Workload("on-off", {
        "en": "Each time B comes back from silence its meter is raised to V: the silence earns it nothing, and the "
              "common-backlog interval starts again with each burst.",
        "ja": "B が沈黙から戻るたびにメーターが V に引き上げられます。沈黙の間の分は貯まらず、全員が待つ区間も"
              "バーストごとに始まり直します。"}, on_off),
    Workload("rejoin", {
        "en": "Every request of B is a join: the max(M_i, V) lift puts it at V each time, so B goes next but never "
              "gets ahead of its share; watch the join steps.",
        "ja": "B のリクエストは毎回が参加です。max(M_i, V) の引き上げで毎回 V に置かれるので、B はすぐ選ばれますが"
              "取り分を超えません。参加のステップを見てください。"}, rejoin),
    Workload("mispredict", {
        "en": "B's requests take three times their estimate: the charged costs stay within 2c̄ while B's actual "
              "service leaves the bound, since SFQ only ever sees the estimates.",
        "ja": "B のリクエストは推定の 3 倍かかります。課金の差は 2c̄ 以内に収まりますが、B の実サービスは上界を"
              "外れます。SFQ が見るのは推定値だけだからです。"}, mispredict),
    Workload("cancel", {
        "en": "A request cancelled while waiting is never charged; one cancelled while running keeps its charge "
              "though its server was freed early, so charged cost and actual service part ways.",
        "ja": "待ちの間に取り消されたリクエストは課金されず、実行中に取り消されたものはサーバーが早く空いても課金が"
              "残ります。課金と実サービスがずれていきます。"}, cancel),
)}

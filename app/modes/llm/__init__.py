"""LLM router mode in the lab: tenants whose requests a router sends to a server fleet (``schedulers.llm``).

``MODE`` is what the view-models read (no Panel): the contract's reference tenants under SFQ to start with, a tenant
in a link as ``name:COSTxCOUNT`` (``A:8x6``: six requests of cost 8) or ``name:C1+C2+C3`` (one cost per request, in
FIFO order, each maybe in the core's compact form ``COST[~ACTUAL][!CANCEL]``: ``B:4~12+2!5``), then its optional
fields (``:join=6:weight=2``) and its arrivals (``:arrivals=0+0+5``), and Compare's SFQ beside Round Robin. Its pictures
(the dispatch strip, the queues and meters, the fairness so far) and its results table are ``views.py``'s.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote

from schedulers import schema
from schedulers.llm.scenario import format_costs

from .. import AppMode, Link
from ...query import decode_items, encode_item, encode_lists, part, refining_lists, split_costs

NAME = "llm"
OPTIONAL = schema(NAME).optional   # :join=... :weight=...
LISTS = refining_lists(NAME)       # :arrivals=0+0+5
REFERENCE = ({"name": "A", "cost": "8", "count": "6"}, {"name": "B", "cost": "2", "count": "6"},
             {"name": "C", "cost": "2", "count": "4", "join": "6"})   # the contract's reference tenants


def encode_tenants(rows: Sequence[Mapping[str, str]]) -> str:
    items = []
    for row in rows:
        costs = split_costs(row.get("costs", ""))
        # a cost's compact form (8~12!5) stays readable: ~ and ! separate nothing in a link
        amount = "+".join(quote(c, safe="~!") for c in costs) if costs else \
            f"{part(row.get('cost', ''))}x{part(row.get('count', ''))}"
        items.append(encode_item(row, [part(row.get("name", "")), amount], OPTIONAL) + "".join(
            f":{listed}" for listed in encode_lists(row, LISTS)))
    return ",".join(items)


def tenant_head(parts: list[str]) -> dict[str, str]:
    name, amount = parts
    if "x" in amount:
        cost, _, count = amount.partition("x")
        return {"name": unquote(name), "cost": unquote(cost), "count": unquote(count), "costs": ""}
    costs = " ".join(unquote(c) for c in amount.replace(" ", "+").split("+") if c)
    return {"name": unquote(name), "cost": "", "count": "", "costs": costs}


def listed(values: list[Any]) -> str:
    """A list of the core's (a preset's costs, in their compact form, or arrivals) as the editor types it:
    ``8 8~24 2!5``."""
    return " ".join(format_costs([value]) for value in values)


def decode_tenants(value: str) -> list[dict[str, str]]:
    return decode_items(value, 2, "name:COSTxCOUNT or name:C1+C2+...", tenant_head, OPTIONAL, LISTS)


WORDS = {
    "label": {"en": "LLM router", "ja": "LLM ルーター"},
    "help": {
        "en": "Each tenant sends requests with an estimated cost; the router decides the order in which they go to "
              "the server fleet. Compare how the algorithms share the fleet while every tenant is waiting.",
        "ja": "各テナントは推定コスト付きのリクエストを送り、ルーターがサーバー群への送出順を決めます。"
              "全テナントが待っている間に、各アルゴリズムがどう分け合うかを比べてください。"},
    "question": {"en": "t={t}: which tenant's request is dispatched?",
                 "ja": "t={t}: どのテナントのリクエストが送出されますか？"},
    "api": {
        "en": "Define choose(waiting, time, state) and return a tenant's name: its oldest waiting request is "
              "dispatched. It is called once per dispatch. waiting: the tenants with waiting requests, in tenant order "
              "(name, index, weight, since, waiting, head_cost, costs, dispatched, charged). state: a dict of your "
              "own. Fraction is built in; import, try and names starting with _ are not available.",
        "ja": "choose(waiting, time, state) を定義し、テナント名を返してください。"
              "そのテナントの最も古い待ちリクエストが送出されます。"
              "送出ごとに 1 回呼ばれます。waiting: 待ちのあるテナント（テナント順。name, index, weight, since, "
              "waiting, "
              "head_cost, costs, dispatched, charged）。state: 自由に使える dict。Fraction が使えます。import、try、"
              "_ で始まる名前は使えません。"},
    "chart": {"en": "Dispatch order ({algorithm})", "ja": "送出順（{algorithm}）"},
    "option.spread.request": {"en": "round the replicas", "ja": "レプリカを順に"},
    "option.spread.tenant": {"en": "fixed per tenant", "ja": "テナントごとに固定"},
}

MODE = AppMode(name=NAME, words=WORDS, algorithm="sfq", rows=REFERENCE, link=Link(encode_tenants, decode_tenants),
               compare=("sfq", "rr"), item_text={"costs": listed, "arrivals": listed})

"""Inference-engine mode in the lab: one engine batching the requests of several tenants (``schedulers.engine``).

``MODE`` is what the view-models read (no Panel): the core's default scenario to start with, a tenant in a link as
``name:REQUESTS``, its requests in the engine's compact form (``INPUT/OUTPUT[~PREDICTED][xCOUNT][@ARRIVAL]`` groups
joined by ``+``: ``A:4/8x16+4/2@10``), then ``:weight=W``, and Compare's VTC beside FCFS (or beside the LLM router on
the same workload, ``views.ROUTER``). Its pictures (the batch, the queues and counters, the service and the fairness
so far) and its results table are ``views.py``'s.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote

from schedulers import schema
from schedulers.engine import DEFAULT_SCENARIO, format_requests
from schedulers.engine.scenario import CONVENTION_FIELDS

from .. import AppMode, Card, Link
from ...query import decode_items, encode_item, part, split_costs

NAME = "engine"
OPTIONAL = schema(NAME).optional   # :weight=...


def encode_tenants(rows: Sequence[Mapping[str, str]]) -> str:
    # the compact groups as the core splits them (on +, commas or spaces), joined by +
    return ",".join(encode_item(row, [part(row.get("name", "")), "+".join(
        quote(group, safe="/~@") for group in split_costs(row.get("requests", "")))], OPTIONAL) for row in rows)


def tenant_head(parts: list[str]) -> dict[str, str]:
    name, groups = parts
    return {"name": unquote(name), "requests": "+".join(unquote(g) for g in groups.split("+") if g)}


def decode_tenants(value: str) -> list[dict[str, str]]:
    return decode_items(value, 2, "name:INPUT/OUTPUTxCOUNT+...", tenant_head, OPTIONAL)


def requests_text(requests: Any) -> str:
    """A tenant's requests as the editor types them: a list of records (a seeded exercise's) in the compact form."""
    return format_requests(requests) if isinstance(requests, list) else str(requests)


WORDS = {
    "help": {
        "en": "One inference engine batches requests from several tenants; every decode iteration each running "
              "request generates one token. The rule decides which waiting request takes a free slot: FCFS by "
              "arrival, VTC by the least tokens charged so far.",
        "ja": "1 台の推論エンジンが複数テナントのリクエストをまとめて処理し、デコード反復ごとに実行中の各リクエストが "
              "1 トークンを生成します。規則は空いたスロットにどの待ちリクエストを入れるかを決めます。FCFS は到着順、"
              "VTC はこれまでに課金されたトークンが最も少ないテナントから受け入れます。"},
    "label": {"en": "Inference engine", "ja": "推論エンジン"},
    "question": {"en": "t={t}: a slot is free. Which tenant's request is admitted?",
                 "ja": "t={t}: スロットが空いています。どのテナントのリクエストを受け入れますか？"},
    "api": {
        "en": "Define choose(waiting, time, state) and return a tenant's name: its oldest waiting request takes the "
              "free slot of the batch. It is called at iteration time whenever a slot is free and requests wait. "
              "waiting: the tenants with waiting requests, in tenant order (name, index, weight, since, waiting, "
              "head_input, inputs, running, input_tokens, output_tokens, service); no output length is shown, as no "
              "rule may read it. state: a dict of your own. Fraction is built in; import, try and names starting "
              "with _ are not available.",
        "ja": "choose(waiting, time, state) を定義し、テナント名を返してください。"
              "そのテナントの最も古い待ちリクエストがバッチの"
              "空きスロットに入ります。スロットが空いていて待ちがあるたびに、反復 time で呼ばれます。waiting: "
              "待ちのあるテナント"
              "（テナント順。name, index, weight, since, waiting, head_input, inputs, running, input_tokens, "
              "output_tokens, service）。出力長はどの規則も読めないので見えません。state: 自由に使える dict。Fraction "
              "が"
              "使えます。import、try、_ で始まる名前は使えません。"},
    "chart": {"en": "Batch slots ({algorithm})", "ja": "バッチのスロット（{algorithm}）"},
    # The folded card of the conventions (docs/engine.md "The conventions") and the words of their choices
    "conventions": {"en": "Conventions (the lab's or the VTC artifact's)",
                    "ja": "規約（ラボか VTC アーティファクトか）"},
    "conventions.unset": {"en": "as the preset says", "ja": "プリセットのとおり"},
    "option.conventions.lab": {"en": "the lab's", "ja": "ラボの規約"},
    "option.conventions.s-lora": {"en": "the VTC artifact's S-LoRA router", "ja": "VTC アーティファクトの S-LoRA"},
    "option.lift.lab": {"en": "to the largest counter in the batch", "ja": "バッチ内の最大カウンターまで"},
    "option.lift.waiting-only": {"en": "only beside others waiting", "ja": "他が待っているときだけ"},
    "option.ties.tenant-order": {"en": "tenant order", "ja": "テナント順"},
    "option.ties.first-arrival": {"en": "first arrived first", "ja": "初めて届いた順"},
    "option.charge_first_token.true": {"en": "charged", "ja": "課金する"},
    "option.charge_first_token.false": {"en": "free", "ja": "無料"},
    "option.loop.mixed": {"en": "admit and decode in each", "ja": "毎回受け入れとデコード"},
    "option.loop.prefill-decode": {"en": "a prefill or a decode", "ja": "プリフィルかデコード"},
    "option.reserve.input": {"en": "the input and first token", "ja": "入力と最初のトークン"},
    "option.reserve.input+output": {"en": "the whole output", "ja": "出力全体"},
}
CONVENTIONS = Card("conventions", ("conventions", *CONVENTION_FIELDS), preset="conventions")

MODE = AppMode(name=NAME, words=WORDS, algorithm=DEFAULT_SCENARIO["algorithm"],
               rows=tuple({k: requests_text(v) for k, v in tenant.items()} for tenant in DEFAULT_SCENARIO["tenants"]),
               link=Link(encode_tenants, decode_tenants), compare=("vtc", "fcfs"),
               item_text={"requests": requests_text}, cards=(CONVENTIONS,))

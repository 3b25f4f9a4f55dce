"""The readable text form of an LLM run: the dispatch order, every step's sentence, the tenant table and
the fairness metrics, in English or Japanese."""
from __future__ import annotations

import unicodedata
from typing import Any

from ..narration import render
from .results import RESULTS

TEXT_NEEDS_STEPS = True   # the text prints every step's sentence

HEADINGS = {
    "en": {"order": "Dispatch order", "steps": "Steps", "tenants": "Tenants", "fairness": "Fairness",
           "columns": {"name": "tenant", "weight": "weight", "join": "join", "requests": "requests",
                       "dispatched": "dispatched", "charged": "charged", "normalized": "normalized",
                       "actual_service": "actual", "latency_mean": "latency", "latency_p95": "p95",
                       "wait_mean": "wait"},
           "servers": "{n} {n:server|servers}", "service": "Actual service", "replica": "[replica {k}] ",
           "replicas": "{n} {n:replica|replicas}, spread by {spread}", "system": "Whole system: max |x_i - x_j|",
           "one_router": "one router's 2q̄", "exceeds": "EXCEEDS it", "keeps": "within it", "within": "within it",
           "beyond": "BEYOND it (SFQ bounds the estimates, not this)",
           "interval": "Common-backlog interval", "none": "none", "jain": "Jain's index", "band": "Band",
           "bound": "Pairwise bound", "holds": "holds", "fails": "does NOT hold", "undefined": "undefined",
           "trace": "Trace", "least": "least", "greatest": "greatest", "over": "over {n} {n:boundary|boundaries}"},
    "ja": {"order": "送出順", "steps": "ステップ", "tenants": "テナント", "fairness": "公平性",
           "columns": {"name": "テナント", "weight": "重み", "join": "参加", "requests": "件数", "dispatched": "送出",
                       "charged": "課金", "normalized": "正規化", "actual_service": "実サービス",
                       "latency_mean": "遅延", "latency_p95": "p95", "wait_mean": "待ち"},
           "servers": "サーバー {n} 台", "service": "実サービス", "replica": "[複製 {k}] ",
           "replicas": "ルーター複製 {n} 台 ({spread} ごとに振り分け)", "system": "システム全体: max |x_i - x_j|",
           "one_router": "ルーター 1 台の 2q̄", "exceeds": "超過", "keeps": "範囲内", "within": "範囲内",
           "beyond": "範囲外 (SFQ が抑えるのは推定値で、これではありません)",
           "interval": "全員が待つ区間", "none": "なし", "jain": "Jain 指数", "band": "帯",
           "bound": "対ごとの上界", "holds": "成立", "fails": "不成立", "undefined": "未定義",
           "trace": "トレース", "least": "最小", "greatest": "最大", "over": "境界 {n} 箇所で"},
}


def note(text: dict[str, str], lang: str) -> str:
    """A fairness note (en and ja in the JSON) in ``lang``, without the "undefined:" the heading says."""
    return text[lang].split(": ", 1)[-1] if text[lang].startswith(("undefined", "未定義")) else text[lang]


def render_text(result: dict[str, Any], lang: str = "en") -> str:
    h = HEADINGS[lang]
    lines = [f"LLM router · {result['algorithm']}"
             + (f" · quantum {result['parameters']['exact']['quantum']}" if result["parameters"] else "")
             + (f" · {render(h['servers'], n=result['servers'])}" if "servers" in result else "")
             + (f" · {render(h['replicas'], n=len(result['replicas']), spread=result['spread'])}"
                if "replicas" in result else "")]
    names = [e["tenant"] for e in result["dispatch"]]
    separator = "" if all(len(n) == 1 for n in names) else " "
    lines += ["", f"{h['order']}: {separator.join(names)}", "", f"{h['steps']}:"]
    for step in result["steps"]:
        if step["why"] is not None:
            lines.append(f"  {render(h['replica'], k=step['replica']) if 'replica' in step else ''}{step['why'][lang]}")
        elif step["kind"] == "dispatch":
            lines.append(f"  t={step['time']}: {step['tenant']} #{step['request']} (cost {step['cost']})")
    if result["trace"]["level"] != "full":
        lines.append(f"  ({h['trace']}: {result['trace'].get('note', result['trace']['level'])})")
    columns = [column.name for column in RESULTS.shown(result)]
    lines += ["", f"{h['tenants']}:", table(tuple(h["columns"][name] for name in columns), [
        tuple(cell(t["exact"].get(name, t[name])) for name in columns) for t in result["tenants"]])]
    lines += ["", f"{h['fairness']}:"] + fairness_lines(result["fairness"], h, lang)
    difference = result.get("system_difference")
    if difference is not None:
        verdict = h["exceeds"] if difference["exceeds"] else h["keeps"]
        lines.append(f"  {h['system']} = {difference['exact']['max_gap']} ({' vs '.join(difference['tenants'])}, "
                     f"t={difference['at']}), {h['one_router']} = {difference['exact']['bound']}: {verdict}")
    return "\n".join(lines)


def fairness_lines(f: dict[str, Any], h: dict[str, Any], lang: str) -> list[str]:
    lines = []
    interval = f["interval"]
    if interval is None:
        lines.append(f"  {h['interval']}: {h['none']} ({note(f['notes']['interval'], lang)})")
    else:
        increments = ", ".join(f"{name} +{x}" for name, x in f["exact"]["increments"].items())
        lines.append(f"  {h['interval']}: t={interval['start']}..{interval['end']}: {increments}")
    jain = f["exact"].get("jain")
    lines.append(f"  {h['jain']}: " + (f"{jain} ≈ {f['jain']:.4f}" if jain else
                                      f"{h['undefined']} ({note(f['notes']['jain'], lang)})"))
    bound = f["pairwise_bound"]
    if bound is not None:
        verdict = h["holds"] if bound["holds"] else h["fails"]
        pair = " vs ".join(bound["tenants"])
        lines.append(f"  {h['bound']}: max |x_i - x_j| = {bound['exact']['max_gap']} ({pair}, t={bound['at']}) "
                     f"<= 2q̄ = {bound['exact']['bound']}: {verdict}")
    service = f.get("service")
    if service is not None:
        verdict = h["within"] if service["within_bound"] else h["beyond"]
        pair = " vs ".join(service["tenants"])
        lines.append(f"  {h['service']}: max |s_i - s_j| = {service['exact']['max_gap']} ({pair}, t={service['at']}), "
                     f"2q̄ = {service['exact']['bound']}: {verdict}")
    band = f["band"]
    if band is None:
        lines.append(f"  {h['band']}: — ({note(f['notes']['band'], lang)})")
    else:
        verdict = h["holds"] if band["holds"] else h["fails"]
        lines.append(f"  {h['band']}: 0 <= M_i - V <= c̄ = {band['exact']['width']}: {h['least']} "
                     f"{band['exact']['least']}, {h['greatest']} {band['exact']['greatest']}, "
                     f"{render(h['over'], n=band['checked'])}: {verdict}")
    return lines


def cell(value: Any) -> Any:
    return "—" if value is None else value


def table(columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    cells = [list(map(str, columns))] + [list(map(str, row)) for row in rows]
    widths = [max(width(row[k]) for row in cells) for k in range(len(columns))]
    return "\n".join("  " + "  ".join(c + " " * (w - width(c)) for c, w in zip(row, widths)).rstrip()
                     for row in cells)


def width(text: str) -> int:
    """Columns a terminal gives ``text``: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

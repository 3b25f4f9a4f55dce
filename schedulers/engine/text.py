"""The readable text form of an engine run: the batch slots over the iterations, every step's sentence, the
tenant table and the fairness measure, in English or Japanese."""
from __future__ import annotations

from typing import Any

from ..llm.text import table, width
from ..narration import render
from .scenario import CONVENTION_FIELDS

TEXT_NEEDS_STEPS = True   # the text prints every step's sentence
MAX_CHART = 120       # iterations drawn one character each
MAX_SENTENCES = 400   # step sentences printed; the JSON has them all

PHASE_MARKS = {"prefill": "P", "decode": "D"}   # loop prefill-decode: what each iteration was

HEADINGS = {
    "en": {"title": "Inference engine", "slots": "Batch slots (one character per iteration)", "slot": "slot",
           "steps": "Steps", "tenants": "Tenants", "fairness": "Fairness", "phase": "  P/D",
           "columns": ("tenant", "weight", "requests", "input", "output", "service", "counter", "mean wait",
                       "mean latency"),
           "more": "… {n} more {n:step|steps} (see --json)", "trace": "Trace", "wide": "(too many iterations to draw: "
           "{n}; see --json)", "none": "none", "holds": "holds", "fails": "does NOT hold",
           "bound": "max |ΔS_{f}/w - ΔS_{g}/w| = {gap} over the iterations t={start} … {end}, bound "
                    "max(w_in × L, w_out × M) × (1/w_{f} + 1/w_{g}) = {bound} (L = {largest}, M = {tokens}): {verdict}",
           "summary": "{iterations} {iterations:iteration|iterations} ({idle} idle), {tokens} "
                      "{tokens:token|tokens} generated, {occupancy} {occupancy:request|requests} per busy "
                      "iteration on average"},
    "ja": {"title": "推論エンジン", "slots": "バッチのスロット (1 文字 = 1 反復)", "slot": "スロット",
           "steps": "ステップ", "tenants": "テナント", "fairness": "公平性", "phase": "  P/D",
           "columns": ("テナント", "重み", "件数", "入力", "出力", "サービス", "カウンター", "平均待ち", "平均遅延"),
           "more": "… ほか {n} ステップ (--json を参照)", "trace": "トレース",
           "wide": "(反復が多すぎて描けません: {n}。--json を参照)", "none": "なし", "holds": "成立",
           "fails": "不成立",
           "bound": "max |ΔS_{f}/w - ΔS_{g}/w| = {gap} (反復 t={start} … {end})、上界 max(w_in × L, w_out × M) × "
                    "(1/w_{f} + 1/w_{g}) = {bound} (L = {largest}, M = {tokens}): {verdict}",
           "summary": "{iterations} 反復 (空き {idle})、生成 {tokens} トークン、稼働中の反復あたり平均 {occupancy} 件"},
}


def render_text(result: dict[str, Any], lang: str = "en") -> str:
    h = HEADINGS[lang]
    p = result["parameters"]
    settings = [f"slots {p['slots']}"] + ([f"memory {p['memory']}"] if p["memory"] is not None else []) \
        + [f"w_in {p['exact']['w_in']}", f"w_out {p['exact']['w_out']}"] \
        + ([f"prediction {p['prediction']}"] if p.get("prediction") is not None else []) \
        + ([f"conventions {p['conventions']} (" + ", ".join(f"{name} {written(p[name])}" for name in CONVENTION_FIELDS)
            + ")"] if "conventions" in p else [])
    lines = [f"{h['title']} · {result['algorithm']} · " + " · ".join(settings), ""]
    lines += slot_lines(result, h) + [""]
    summary = result["summary"]
    lines += [render(h["summary"], iterations=summary["iterations"], idle=summary["idle"], tokens=summary["tokens"],
                                  occupancy=summary["exact"]["occupancy"]), "", f"{h['steps']}:"]
    sentences = [step["why"][lang] for step in result["steps"] if step["why"] is not None]
    lines += [f"  {sentence}" for sentence in sentences[:MAX_SENTENCES]]
    if len(sentences) > MAX_SENTENCES:
        lines.append("  " + render(h["more"], n=len(sentences) - MAX_SENTENCES))
    if result["trace"]["level"] != "full":
        lines.append(f"  ({h['trace']}: {result['trace'].get('note', result['trace']['level'])})")
    lines += ["", f"{h['tenants']}:", table(h["columns"], [
        (t["name"], t["exact"]["weight"], t["requests"], t["input_tokens"], t["output_tokens"], t["exact"]["service"],
         t["exact"]["counter"], t["exact"]["mean_waiting"], t["exact"]["mean_latency"]) for t in result["tenants"]])]
    lines += ["", f"{h['fairness']}:", "  " + fairness_line(result["fairness"], h, lang)]
    return "\n".join(lines)


def written(value: Any) -> str:
    """A parameter as JSON writes it: false, not False."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def slot_lines(result: dict[str, Any], h: dict[str, Any]) -> list[str]:
    """One row per slot, one character per iteration: the first character of the tenant's name, "." when free."""
    iterations = result["summary"]["iterations"]
    if iterations > MAX_CHART:
        return [f"{h['slots']}:", "  " + render(h["wide"], n=iterations)]
    rows = [["."] * iterations for _ in range(result["parameters"]["slots"])]
    for request in result["requests"]:
        for i in range(request["admitted"], request["finished"] + 1):
            rows[request["slot"]][i] = request["tenant"][0]
    digits = len(str(len(rows) - 1))
    labels = [f"  {h['slot']} {k:>{digits}}  " for k in range(len(rows))]
    ticks = "".join(f"{t:<5}" for t in range(0, iterations, 5)).rstrip()
    lines = [f"{h['slots']}:", " " * width(labels[0]) + ticks]
    if result["parameters"].get("loop") == "prefill-decode":   # each iteration a prefill (P) or a decode (D)
        kinds = ["."] * iterations
        for step in result["steps"]:
            if step["kind"] in PHASE_MARKS:
                kinds[step["iteration"]] = PHASE_MARKS[step["kind"]]
        lines.append(f"{h['phase']:<{width(labels[0])}}" + "".join(kinds))
    return lines + [label + "".join(row) for label, row in zip(labels, rows)]


def fairness_line(f: dict[str, Any], h: dict[str, Any], lang: str) -> str:
    if f["compared"] is None:
        return f"{h['none']} ({f['notes']['pair'][lang]})"
    first, second = f["compared"]
    if f["interval"] is None:
        return f"{first} vs {second}: {h['none']} ({f['notes']['interval'][lang]})"
    return f"{first} vs {second}: " + render(h["bound"],
        f=first, g=second, gap=f["exact"]["max_gap"], start=f["interval"]["start"], end=f["interval"]["end"],
        bound=f["exact"]["bound"], largest=f["largest_input"], tokens=f["max_batch_tokens"],
        verdict=h["holds"] if f["holds"] else h["fails"])

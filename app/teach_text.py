"""Every word of the teaching features (compare, quiz, the rule, your own policy, exports), in English and
Japanese. ``t`` works as ``app.text.t``: callers that build HTML escape the result."""
from __future__ import annotations

from schedulers import algorithms
from schedulers.custom import CUSTOM

TEXT: dict[str, dict[str, str]] = {
    "tab.lab": {"en": "Step through", "ja": "ステップ実行"},
    "tab.compare": {"en": "Compare", "ja": "比較"},
    "tab.quiz": {"en": "Predict", "ja": "予想クイズ"},
    "tab.custom": {"en": "Your policy", "ja": "自作ポリシー"},
    "tab.export": {"en": "Export", "ja": "書き出し"},
    # the rule itself
    "rule.title": {"en": "The rule itself: the code that decides", "ja": "規則そのもの: 判断するコード"},
    "rule.from": {"en": "{path}, from line {first} — the code the lab is running, read from the core.",
                  "ja": "{path} の {first} 行目から。実行中のコアから読み出したコードそのものです。"},
    "rule.marked": {"en": "Highlighted: what the engine asked the rule at this step ({methods}).",
                    "ja": "ハイライト: このステップでエンジンが規則に尋ねたところ（{methods}）。"},
    "rule.unasked": {"en": "At this step the rule is not asked: {reason}",
                     "ja": "このステップでは規則は呼ばれません: {reason}"},
    "rule.unasked.continue": {"en": "it never preempts, so the running task simply continues.",
                              "ja": "横取りしない規則なので、実行中のタスクがそのまま続きます。"},
    "rule.unasked.quiet": {"en": "the engine asks only when something could change who runs (an arrival, a boost, "
                                 "or waiting tasks whose order moves with time); here nothing could, so the running "
                                 "task continues.",
                           "ja": "エンジンが規則に尋ねるのは、実行するタスクが変わりうるとき（到着、ブースト、時間とともに順位が"
                                 "変わる待ちタスク）だけです。ここでは何も変わりえないので、実行中のタスクがそのまま続きます。"},
    "rule.unasked.other": {"en": "nothing is chosen here.", "ja": "ここでは何も選びません。"},
    "rule.custom": {"en": "Your policy: the lines your choose() ran at this step are highlighted.",
                    "ja": "あなたのポリシー: このステップで choose() が実行した行をハイライトしています。"},
    "rule.custom.none": {"en": "Your choose() was not called at this step (no choice to make).",
                         "ja": "このステップでは choose() は呼ばれていません（選ぶものがありません）。"},
    "rule.inherited": {"en": "inherited", "ja": "継承"},
    # compare
    "compare.title": {"en": "Compare two algorithms on the same scenario", "ja": "同じシナリオで 2 つのアルゴリズムを比較"},
    "compare.with": {"en": "Compare with", "ja": "比較相手"},
    "compare.left": {"en": "Left: {name}", "ja": "左: {name}"},
    "compare.right": {"en": "Right: {name}", "ja": "右: {name}"},
    "compare.same": {"en": "Both sides step together: the step control above moves both.",
                     "ja": "両側は一緒に進みます。上のステップ操作で両方が動きます。"},
    "compare.diff": {"en": "Differences (right − left); green: the right side is better on that row, red: worse.",
                     "ja": "差（右 − 左）。緑は右が良い行、赤は右が悪い行です。"},
    "compare.like": {"en": "Each row measures both runs over the same stretch: the same dispatches, or the same "
                           "interval. No colour where neither side is better.",
                     "ja": "各行は両方の実行を同じ範囲（同じ送出、または同じ区間）で比べています。色がない行は、"
                           "どちらが良いとも言えません。"},
    "compare.whole": {"en": "Whole runs, from the first step to the last", "ja": "実行全体（最初から最後まで）"},
    "compare.normalised": {"en": "Cost ÷ weight received so far (the first {count} dispatches of each run)",
                           "ja": "これまでに受けたコスト ÷ 重み（各実行の最初の {count} 件の送出）"},
    "compare.interval": {"en": "While every tenant was waiting in both runs: t={start} … {end} ({count} dispatches)",
                         "ja": "両方の実行で全テナントが待っていた間: t={start} … {end}（送出 {count} 件）"},
    "compare.interval.none": {"en": "No fairness figures to compare yet: so far no dispatch had every tenant waiting "
                                    "in both runs.",
                              "ja": "比べられる公平性の値はまだありません。これまでのところ、両方の実行で全テナントが"
                                    "待っていた送出はありません。"},
    "compare.sofar": {"en": "So far: both runs at the same moment (no colour: neither side is better)",
                      "ja": "ここまで: 両方の実行の同じ時点（色なし: どちらが良いとも言えません）"},
    "compare.gap.engine": {"en": "Widest difference in service ÷ weight while both waited",
                           "ja": "両方が待っていた間のサービス ÷ 重みの最大差"},
    "compare.router": {"en": "LLM router: SFQ on the same workload", "ja": "LLM ルーター: 同じ負荷で SFQ"},
    "compare.router.column": {"en": "Service ÷ weight (left: tokens processed) vs cost ÷ weight (right: estimated "
                                    "at dispatch)",
                              "ja": "サービス ÷ 重み（左: 処理したトークン）と コスト ÷ 重み（右: 送出時の見積もり）"},
    "compare.router.note": {"en": "The router (SFQ) charges each request w_in × input + w_out × output, an estimate, "
                                  "when it dispatches it, one request per time unit; the engine (VTC) charges the "
                                  "tokens really processed, iteration by iteration, and needs no output length in "
                                  "advance.",
                            "ja": "ルーター（SFQ）は各リクエストを送出するときに見積もり w_in × 入力 + w_out × 出力 を"
                                  "課金し、1 時刻に 1 件送ります。エンジン（VTC）は実際に処理したトークンを反復ごとに"
                                  "課金し、出力長を前もって知る必要がありません。"},
    "compare.error": {"en": "The right side does not run: {problem}", "ja": "右側は実行できません: {problem}"},
    "compare.change": {"en": "left → right (change)", "ja": "左 → 右（差）"},
    "compare.average": {"en": "Average", "ja": "平均"},
    "compare.metric": {"en": "Metric", "ja": "指標"},
    "compare.jain": {"en": "How even, by Jain's index (1 = perfectly even)", "ja": "均等さ（Jain 指数。1 = 完全に均等）"},
    "compare.gap": {"en": "Largest difference in cost ÷ weight between two tenants",
                    "ja": "2 テナント間のコスト ÷ 重みの最大差"},
    "compare.switches": {"en": "Context switches", "ja": "コンテキストスイッチ"},
    # quiz
    "quiz.title": {"en": "Predict the next step", "ja": "次のステップを予想"},
    "quiz.intro": {"en": "Before each step is shown, pick who runs next. The future of the timeline is hidden.",
                   "ja": "各ステップが表示される前に、次に実行されるものを選んでください。タイムラインの先は隠れています。"},
    "quiz.seed": {"en": "Exercise seed", "ja": "演習のシード"},
    "quiz.new": {"en": "New exercise", "ja": "新しい演習"},
    "quiz.random": {"en": "Random seed", "ja": "ランダムなシード"},
    "quiz.restart": {"en": "Start over", "ja": "最初から"},
    "quiz.cli": {"en": "Same exercise on the command line: {command}", "ja": "コマンドラインで同じ演習: {command}"},
    "quiz.question.cpu": {"en": "Which task runs over t={t} → {next}?",
                          "ja": "t={t} → {next} に実行されるのはどのタスクですか？"},
    "quiz.question.llm": {"en": "t={t}: which tenant's request is dispatched?",
                          "ja": "t={t}: どのテナントのリクエストが送出されますか？"},
    "quiz.question.engine": {"en": "t={t}: a slot is free. Which tenant's request is admitted?",
                             "ja": "t={t}: スロットが空いています。どのテナントのリクエストを受け入れますか？"},
    "quiz.right": {"en": "Right: {answer}.", "ja": "正解: {answer}。"},
    "quiz.wrong": {"en": "Not {choice}: {answer} runs.", "ja": "{choice} ではありません。{answer} です。"},
    "quiz.score": {"en": "Score: {right} of {asked}", "ja": "得点: {asked} 問中 {right} 問"},
    "quiz.next": {"en": "Next question ▶", "ja": "次の問題 ▶"},
    "quiz.done": {"en": "No more questions in this run. Final score: {right} of {asked}.",
                  "ja": "この実行の問題は終わりです。最終得点: {asked} 問中 {right} 問。"},
    "quiz.none": {"en": "This run offers no choice to predict (at most one candidate at every step): try another "
                        "seed or algorithm.",
                  "ja": "この実行には予想する選択がありません（各ステップの候補は 1 つ以下）。別のシードかアルゴリズムを"
                        "試してください。"},
    "quiz.compact": {"en": "This run is too large for a quiz (compact trace).",
                     "ja": "この実行はクイズには大きすぎます（簡略トレース）。"},
    "quiz.state": {"en": "What you know (step {k}):", "ja": "わかっていること（ステップ {k}）:"},
    # your own policy
    "custom.title": {"en": "Your own policy, in Python", "ja": "自作ポリシー（Python）"},
    "custom.api.cpu": {
        "en": "Define choose(ready, running, time, state) and return a task's name. It is called at every time unit "
              "at which a task is ready. ready: the waiting tasks in queue order (name, index, arrival, burst, "
              "remaining, ran, waited, deadline, priority, tickets); running: the task that ran last and is not "
              "finished, or None. Return running.name to keep it, another ready task's name to dispatch it "
              "(preempting). state: a dict of your own. Fraction is built in; import, try and names starting with _ "
              "are not available.",
        "ja": "choose(ready, running, time, state) を定義し、タスク名を返してください。実行可能なタスクがある各時刻に呼ばれます。"
              "ready: 待ちタスク（キュー順。name, index, arrival, burst, remaining, ran, waited, deadline, priority, "
              "tickets）。running: 直前に実行していた未完了のタスクか None。running.name を返すと続行、別の待ちタスク名を"
              "返すとそれを実行（横取り）します。state: 自由に使える dict。Fraction が使えます。import、try、_ で始まる名前は"
              "使えません。"},
    "custom.api.llm": {
        "en": "Define choose(waiting, time, state) and return a tenant's name: its oldest waiting request is "
              "dispatched. It is called once per dispatch. waiting: the tenants with waiting requests, in tenant order "
              "(name, index, weight, since, waiting, head_cost, costs, dispatched, charged). state: a dict of your "
              "own. Fraction is built in; import, try and names starting with _ are not available.",
        "ja": "choose(waiting, time, state) を定義し、テナント名を返してください。そのテナントの最も古い待ちリクエストが送出されます。"
              "送出ごとに 1 回呼ばれます。waiting: 待ちのあるテナント（テナント順。name, index, weight, since, waiting, "
              "head_cost, costs, dispatched, charged）。state: 自由に使える dict。Fraction が使えます。import、try、"
              "_ で始まる名前は使えません。"},
    "custom.api.engine": {
        "en": "Define choose(waiting, time, state) and return a tenant's name: its oldest waiting request takes the "
              "free slot of the batch. It is called at iteration time whenever a slot is free and requests wait. "
              "waiting: the tenants with waiting requests, in tenant order (name, index, weight, since, waiting, "
              "head_input, inputs, running, input_tokens, output_tokens, service); no output length is shown, as no "
              "rule may read it. state: a dict of your own. Fraction is built in; import, try and names starting "
              "with _ are not available.",
        "ja": "choose(waiting, time, state) を定義し、テナント名を返してください。そのテナントの最も古い待ちリクエストがバッチの"
              "空きスロットに入ります。スロットが空いていて待ちがあるたびに、反復 time で呼ばれます。waiting: 待ちのあるテナント"
              "（テナント順。name, index, weight, since, waiting, head_input, inputs, running, input_tokens, "
              "output_tokens, service）。出力長はどの規則も読めないので見えません。state: 自由に使える dict。Fraction が"
              "使えます。import、try、_ で始まる名前は使えません。"},
    "custom.limits": {"en": "Limits: {lines} lines per call, {decisions} decisions per run.",
                      "ja": "上限: 1 回の呼び出しで {lines} 行、1 回の実行で {decisions} 回の判断。"},
    "custom.code": {"en": "Your code", "ja": "あなたのコード"},
    "custom.run": {"en": "Run my policy", "ja": "自作ポリシーで実行"},
    "custom.template": {"en": "Reset to the template", "ja": "テンプレートに戻す"},
    "custom.ok": {"en": "Your policy ran: every view of the lab now shows its run.",
                  "ja": "自作ポリシーで実行しました。ラボのすべての表示がその結果です。"},
    "custom.error": {"en": "Your policy did not run — the last valid run stays on screen:",
                     "ja": "自作ポリシーは実行できませんでした（直前の有効な結果を表示中）:"},
    "custom.listing": {"en": "Your code, with the line of the problem marked", "ja": "コード（問題の行に印）"},
    "group.custom": {"en": "Your own", "ja": "自作"},
    "custom.label": {"en": "Your policy (choose)", "ja": "自作ポリシー（choose）"},
    # exports
    "export.title": {"en": "Export this run", "ja": "この実行を書き出す"},
    "export.json": {"en": "Trace (JSON)", "ja": "トレース（JSON）"},
    "export.csv": {"en": "Metrics (CSV)", "ja": "指標（CSV）"},
    "export.svg": {"en": "Chart (SVG)", "ja": "図（SVG）"},
    "export.png": {"en": "Chart (PNG)", "ja": "図（PNG）"},
    "export.link": {"en": "Permalink (this setup and step)", "ja": "パーマリンク（この設定とステップ）"},
    "export.note": {"en": "The JSON is byte for byte what the command “python -m schedulers {mode} --json” prints for "
                          "this scenario.",
                    "ja": "JSON は、このシナリオに対するコマンド「python -m schedulers {mode} --json」の出力とバイト単位で"
                          "同じです。"},
    "export.custom": {"en": "A link cannot carry your own policy's code: it opens the default algorithm.",
                      "ja": "リンクには自作ポリシーのコードは入りません。既定のアルゴリズムで開きます。"},
    "export.preview": {"en": "Preview of the chart", "ja": "図のプレビュー"},
    "chart.cpu": {"en": "Timeline ({algorithm})", "ja": "タイムライン（{algorithm}）"},
    "chart.llm": {"en": "Dispatch order ({algorithm})", "ja": "送出順（{algorithm}）"},
    "chart.engine": {"en": "Batch slots ({algorithm})", "ja": "バッチのスロット（{algorithm}）"},
    "chart.time": {"en": "time", "ja": "時刻"},
    "chart.idle": {"en": "idle", "ja": "アイドル"},
}


def t(lang: str, key: str, **values: object) -> str:
    entry = TEXT[key]
    template = entry.get(lang, entry["en"])
    return template.format(**values) if values else template


def algorithm_label(result, lang: str) -> str:
    """A run's algorithm as the menu names it ("Round Robin"); your own policy by its own label."""
    info = algorithms(result["mode"]).get(result["algorithm"])
    if info is not None:
        return info.label.get(lang, info.name)
    return t(lang, "custom.label") if result["algorithm"] == CUSTOM else result["algorithm"]

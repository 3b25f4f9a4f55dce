"""Every word the lab shows, in English and Japanese.

``t(lang, key, **values)`` fills a sentence of ``TEXT``. The fields of a scenario and the columns of a results table
have their words by their name in the core, in one table each: ``LABELS`` (a field's label in the editor is its
column's heading), ``SHORT`` (a column's heading on a narrow screen) and ``HELP`` (a field's sentence of help, where
its label is not enough); ``label``, ``short_label`` and ``field_help`` read them. tests/test_app_words.py fails,
naming it, on a field or column of any mode without words; on screen such a name shows as itself. The one name a
shared module may not spell, a column named as a mode is (CPU's ``cpu``, a task's CPU time), has its words added
by that mode's package (``app/modes/cpu/``). A mode's own words
(its name in the menu, its help, ...) are its ``AppMode.words`` (``app/modes/<name>/``).

Values are inserted as given: callers that build HTML escape the finished sentence (``render.esc``), so a name is
always text, never markup.
"""
from __future__ import annotations

from collections.abc import Mapping

from schedulers import algorithms
from schedulers.custom import CUSTOM
from schedulers.narration import render

LANGUAGES = {"en": "English", "ja": "日本語"}

TEXT: dict[str, dict[str, str]] = {
    "title": {"en": "The scheduling lab", "ja": "スケジューリング実験室"},
    "mode": {"en": "Mode", "ja": "モード"},
    "language": {"en": "Language", "ja": "言語"},
    "presenter": {"en": "Presenter mode", "ja": "プレゼンターモード"},
    "algorithm": {"en": "Algorithm", "ja": "アルゴリズム"},
    "presets": {"en": "Presets", "ja": "プリセット"},
    "presets.choose": {"en": "— load a ready-made lesson —", "ja": "— 用意された教材を読み込む —"},
    "presets.what": {"en": "What the presets show", "ja": "各プリセットの内容"},
    "preset": {"en": "Preset", "ja": "プリセット"},
    "preset.seed": {"en": "Seed", "ja": "シード"},
    "preset.load": {"en": "Load", "ja": "読み込む"},
    "preset.look": {"en": "What to look for: {look}", "ja": "注目する点: {look}"},
    "preset.named": {"en": "{name} (preset)", "ja": "{name}（プリセット）"},
    "preset.seeded": {"en": "{name} (seeded pattern)", "ja": "{name}（シード付きパターン）"},
    "preset.problem": {"en": "Not loaded: {problem} — the editor keeps its inputs.",
                       "ja": "読み込みません: {problem} — エディターの入力はそのままです。"},
    "group.article": {"en": "The article's four", "ja": "記事の 4 つ"},
    "group.more": {"en": "Beyond the article", "ja": "記事の先"},
    "tasks": {"en": "Tasks", "ja": "タスク"},
    "tenants": {"en": "Tenants", "ja": "テナント"},
    "add.tasks": {"en": "+ Add task", "ja": "+ タスクを追加"},   # by the scenario's list (schema.items)
    "add.tenants": {"en": "+ Add tenant", "ja": "+ テナントを追加"},
    "remove.row": {"en": "Remove {name}", "ja": "{name} を削除"},
    "rows.shown": {"en": "{what} {first}–{last} of {total}", "ja": "{what} {total} 件中 {first}–{last}"},
    "rows.previous": {"en": "◀ Previous {n}", "ja": "◀ 前の {n} 件"},
    "rows.next": {"en": "Next {n} ▶", "ja": "次の {n} 件 ▶"},
    "fields.show": {"en": "Show the field {field}", "ja": "{field} の欄を表示"},
    "invalid": {"en": "Not run: {problem} — the last valid run stays on screen.",
                "ja": "実行しません: {problem} — 直前の有効な結果を表示中です。"},
    "limit.rows": {"en": "the editor holds at most {limit} {what}; only the first {limit} of {count} are used "
                         "(the command line runs up to 100,000)",
                   "ja": "エディターで扱えるのは {limit} 件までです。{count} 件のうち最初の {limit} 件だけを使います"
                         "（コマンドラインなら 100,000 件まで実行できます）"},
    "compare.conventions": {"en": "{name}, conventions {preset}", "ja": "{name}、規約 {preset}"},
    "choice.default": {"en": "default: {value}", "ja": "既定: {value}"},
    "limit.full": {"en": "The editor holds at most {limit} {what} (the command line runs up to 100,000).",
                   "ja": "エディターで扱えるのは {limit} 件までです"
                         "（コマンドラインなら 100,000 件まで実行できます）。"},
    "url.ignored": {"en": "Ignored from the link: {field}: {problem}",
                    "ja": "リンクの値を無視しました: {field}: {problem}"},
    "step.counter": {"en": "step {k}/{n}", "ja": "ステップ {k}/{n}"},
    # The time a step shows (schedulers.trace.span): a CPU slice, an LLM instant, or before anything happened.
    "step.span": {"en": "t={start} → {end}", "ja": "t={start} → {end}"},
    "step.time": {"en": "t={t}", "ja": "t={t}"},
    "step.before": {"en": "before t={t}", "ja": "t={t} の前"},
    "step": {"en": "Step", "ja": "ステップ"},
    "step.pending": {"en": "Loading this step…", "ja": "このステップを読み込み中…"},
    "step.link": {"en": "This link's run is shown once Python has started.",
                  "ja": "このリンクの実行は Python の起動後に表示されます。"},
    "first": {"en": "« First", "ja": "« 最初"},
    "prev": {"en": "◀ Prev", "ja": "◀ 前へ"},
    "next": {"en": "Next ▶", "ja": "次へ ▶"},
    "last": {"en": "Last »", "ja": "最後 »"},
    "play": {"en": "▶ Play", "ja": "▶ 再生"},
    "pause": {"en": "⏸ Pause", "ja": "⏸ 一時停止"},
    "speed": {"en": "Speed (steps/s)", "ja": "速度（ステップ/秒）"},
    "keys": {"en": "Keys: ← → step, Space play/pause, Home/End first/last.",
             "ja": "キー: ← → で 1 ステップ、Space で再生/停止、Home/End で最初/最後。"},
    "gantt": {"en": "Timeline", "ja": "タイムライン"},
    "gantt.time": {"en": "time", "ja": "時刻"},
    "gantt.task": {"en": "Task", "ja": "タスク"},
    "gantt.slice": {"en": "Runs", "ja": "実行"},
    "gantt.io": {"en": "I/O", "ja": "I/O"},
    "gantt.switch": {"en": "Switch", "ja": "切り替え"},
    "gantt.switch.row": {"en": "switch", "ja": "切り替え"},
    "gantt.legend.run": {"en": "on the CPU", "ja": "CPU で実行"},
    "gantt.legend.io": {"en": "I/O (blocked)", "ja": "I/O（ブロック中）"},
    "gantt.legend.switch": {"en": "switch (its cost)", "ja": "切り替え（コスト）"},
    "gantt.processor": {"en": "CPU {cpu}", "ja": "CPU {cpu}"},
    "gantt.by_task": {"en": "One row per task (each slice labelled with its CPU)",
                      "ja": "タスクごとに 1 行（各区間に CPU 番号）"},
    "summary.cpus": {"en": "Utilisation {utilisation} of all CPUs ({shares}); migrations: {migrations}.",
                     "ja": "全 CPU の利用率 {utilisation}（{shares}）。移動（マイグレーション）: {migrations} 回。"},
    "summary.steals": {"en": "Per-CPU queues; steals: {steals}.", "ja": "CPU ごとのキュー。スチール: {steals} 回。"},
    "gantt.miss": {"en": "{task} misses t={t} ({left} left)", "ja": "{task} 締切超過 t={t}（残り {left}）"},
    "idle": {"en": "idle", "ja": "アイドル"},
    "running": {"en": "Running", "ja": "実行中"},
    "running.none": {"en": "nothing (idle)", "ja": "なし（アイドル）"},
    "running.before": {"en": "nothing yet", "ja": "まだなし"},
    "running.switch": {"en": "switching to", "ja": "切り替え中:"},
    "ready": {"en": "Ready queue", "ja": "実行可能キュー"},
    "ready.empty": {"en": "empty", "ja": "空"},
    "ready.queues": {"en": "Ready queues (one per CPU)", "ja": "実行可能キュー（CPU ごと）"},
    "blocked": {"en": "Blocked (I/O)", "ja": "I/O でブロック中"},
    "blocked.until": {"en": "returns at t={t}", "ja": "t={t} に復帰"},
    "blocked.none": {"en": "none", "ja": "なし"},
    "remaining": {"en": "Remaining time", "ja": "残り時間"},
    "remaining.io": {"en": "With I/O: what is left of the current CPU burst, out of the task's CPU time in all.",
                     "ja": "I/O があるタスクは、現在の CPU バーストの残りを CPU 時間の合計に対して示します。"},
    "events": {"en": "Events at this step", "ja": "このステップの出来事"},
    "events.none": {"en": "none", "ja": "なし"},
    "metrics": {"en": "Results of the whole run", "ja": "実行全体の結果"},
    "metrics.pending": {"en": "not finished at this step", "ja": "このステップでは未完了"},
    "metrics.average": {"en": "Average", "ja": "平均"},
    "yes": {"en": "yes", "ja": "はい"},
    "no": {"en": "no", "ja": "いいえ"},
    "summary": {"en": "Makespan {makespan} · busy {busy} · idle {idle} · context switches {context_switches}",
                "ja": "総時間 {makespan} ・ 稼働 {busy} ・ アイドル {idle} ・ コンテキストスイッチ {context_switches}"},
    "summary.switching": {"en": "CPU utilisation {utilisation} · time switching {switch_time}",
                          "ja": "CPU 利用率 {utilisation} ・ 切り替えの時間 {switch_time}"},
    "dispatch": {"en": "Dispatch order", "ja": "送出順"},
    "queues": {"en": "Waiting requests per tenant (costs)", "ja": "テナントごとの待ちリクエスト（コスト）"},
    "queue.empty": {"en": "empty", "ja": "空"},
    "meters": {"en": "Meters M_i and virtual time V", "ja": "メーター M_i と仮想時刻 V"},
    "meters.none": {"en": "This algorithm keeps no meters.", "ja": "このアルゴリズムはメーターを持ちません。"},
    "fairness": {"en": "Fairness while every tenant is waiting", "ja": "全テナントが待っている間の公平性"},
    "fairness.upto": {"en": "Up to this step: the first {count} {count:dispatch|dispatches}, nothing later.",
                      "ja": "このステップまで: 最初の {count} 件の送出だけを使い、この先は使いません。"},
    "fairness.whole": {"en": "* the whole run, including the steps still to come",
                       "ja": "* 実行全体（この先のステップも含みます）"},
    "fairness.interval": {"en": "Every tenant waiting: t={start} … {end} ({count} {count:dispatch|dispatches})",
                          "ja": "全テナントが待っていた区間: t={start} … {end}（送出 {count} 件）"},
    "fairness.none": {"en": "So far no dispatch had every tenant waiting.",
                      "ja": "これまでのところ、全テナントが待っていた送出はありません。"},
    "fairness.increments": {"en": "Cost ÷ weight each tenant received there",
                            "ja": "その間に各テナントが受けたコスト ÷ 重み"},
    "fairness.jain": {"en": "How even, by Jain's index (1 = perfectly even, 1/n = all to one): {value}",
                      "ja": "均等さ（Jain 指数。1 = 完全に均等、1/n = 1 テナントに集中）: {value}"},
    "fairness.bound": {"en": "Largest difference in cost ÷ weight between two tenants: {gap}, against the bound "
                             "2c̄ = {bound}: {status}",
                       "ja": "2 テナント間のコスト ÷ 重みの最大差: {gap}（上限 2c̄ = {bound}）: {status}"},
    "fairness.bound.system": {"en": "Whole system so far ({replicas} {replicas:router|routers}): largest difference in "
                                    "cost ÷ weight between two tenants {gap}, against one router's 2c̄ = {bound}: "
                                    "{status}",
                              "ja": "これまでのシステム全体（ルーター {replicas} 台）: 2 テナント間のコスト ÷ 重みの"
                                    "最大差 {gap}（1 台のルーターの 2c̄ = {bound}）: {status}"},
    "fairness.band": {"en": "Band V ≤ M_i ≤ V + c̄ (c̄ = {width}): {status}",
                      "ja": "帯 V ≤ M_i ≤ V + c̄（c̄ = {width}）: {status}"},
    "fairness.service": {"en": "Largest difference in actual service ÷ weight there (what the servers really gave): "
                               "{gap}, against the same 2c̄ = {bound}: {status}",
                         "ja": "同じ区間の実際のサービス ÷ 重みの最大差（サーバーが実際に与えた分）: {gap}"
                               "（同じ 2c̄ = {bound}）: {status}"},
    "fairness.service.now": {"en": "Actual service ÷ weight those requests got by t={time} (a running one counted up "
                                   "to then): {given}; difference {gap}, against the same 2c̄ = {bound}: {status}",
                             "ja": "それらのリクエストが t={time} までに受けた実際のサービス ÷ 重み"
                                   "（実行中のものはその時点まで）: {given}。差 {gap}（同じ 2c̄ = {bound}）: {status}"},
    "fairness.system": {"en": "Whole system ({replicas} {replicas:router|routers}, each with its own meters): "
                              "largest difference in cost ÷ weight between two tenants {gap}, against one router's "
                              "2c̄ = {bound}: {status}",
                        "ja": "システム全体（ルーター {replicas} 台、それぞれ自分のメーター）: 2 テナント間のコスト ÷ "
                              "重みの最大差 {gap}（1 台のルーターの 2c̄ = {bound}）: {status}"},
    "fairness.replica": {"en": "Replica {replica} alone: largest difference {gap}, against 2c̄ = {bound}: {status}",
                         "ja": "レプリカ {replica} 単独: 最大差 {gap}（2c̄ = {bound}）: {status}"},
    "fairness.replica.none": {"en": "Replica {replica} alone: {note}", "ja": "レプリカ {replica} 単独: {note}"},
    "fairness.within": {"en": "within it", "ja": "範囲内"},
    "fairness.outside": {"en": "outside it: SFQ bounds the estimates it charges, not the real service",
                         "ja": "範囲外（SFQ が抑えるのは課金する見積もりで、実際のサービスではありません）"},
    "holds": {"en": "holds", "ja": "成立"},
    "broken": {"en": "broken", "ja": "不成立"},
    "deficits": {"en": "Deficit counters of deficit round robin.",
                 "ja": "Deficit ラウンドロビンの deficit カウンター。"},
    "deficits.title": {"en": "Deficits D_i", "ja": "Deficit D_i"},
    "queues.compact": {"en": "Queues are not recorded for a run this large (compact trace).",
                       "ja": "この規模の実行ではキューを記録していません（簡略トレース）。"},
    "kind.initial": {"en": "initial state", "ja": "初期状態"},
    "kind.dispatch": {"en": "dispatch", "ja": "送出"},
    "kind.join": {"en": "join", "ja": "参加"},
    "kind.idle_reset": {"en": "idle reset", "ja": "アイドルリセット"},
    "kind.arrive": {"en": "arrival", "ja": "到着"},
    "kind.idle": {"en": "idle", "ja": "アイドル"},
    "kind.lift": {"en": "counter lift", "ja": "カウンター引き上げ"},
    "kind.admit": {"en": "admission", "ja": "受け入れ"},
    "kind.decode": {"en": "decode iteration", "ja": "デコード反復"},
    # CPU mode: the conventions card (app/modes/cpu/conventions.py)
    "conventions.title": {"en": "Conventions: {preset}", "ja": "規約: {preset}"},
    "conventions.preset": {"en": "Preset", "ja": "プリセット"},
    "conventions.lab": {"en": "the lab's (default)", "ja": "ラボの規約（既定）"},
    "conventions.ostep": {"en": "OSTEP's simulators", "ja": "OSTEP のシミュレーター"},
    "conventions.own": {"en": "my own flags", "ja": "フラグを個別に指定"},
    "conventions.arrival_before_requeue": {
        "en": "(a) A task arriving at t goes ahead of the task whose quantum ended at t",
        "ja": "(a) 時刻 t に到着したタスクを、t にクォンタムが切れたタスクより前へ"},
    "conventions.boost_after_arrivals": {"en": "(b) MLFQ's boost comes after the instant's arrivals",
                                         "ja": "(b) MLFQ のブーストはその時刻の到着の後"},
    "conventions.boost_order": {"en": "(c) The boost gathers the levels", "ja": "(c) ブーストで段を集める順"},
    "conventions.order.top-first": {"en": "top level first", "ja": "上の段から"},
    "conventions.order.bottom-first": {"en": "bottom level first", "ja": "下の段から"},
    "conventions.note": {"en": "They decide ties at one instant only; the narration names the one that broke a tie. "
                               "OSTEP's preset also follows mlfq.py's other rules (docs/cpu.md, Conventions).",
                         "ja": "同じ時刻の同着だけを決めます。同着を決めた規約はナレーションが名指しします。"
                               "OSTEP のプリセットは mlfq.py のほかの規則にも従います（docs/cpu.md の Conventions）。"},
    "kind.complete": {"en": "completion", "ja": "完了"},
    "kind.cancel": {"en": "cancellation", "ja": "取り消し"},
    "kind.prefill": {"en": "prefill iteration", "ja": "プリフィル反復"},
    # CPU mode: the rule's own numbers per task (CFS, EEVDF)
    "rule.state": {"en": "The rule's numbers per task", "ja": "タスクごとの規則の値"},
    "rule.state.none": {"en": "not runnable yet", "ja": "まだ実行可能ではありません"},
    "rule.state.note": {"en": "vruntime += ran × 1024 ÷ weight; the bar is each task's vruntime.",
                        "ja": "vruntime += 実行時間 × 1024 ÷ 重み。棒は各タスクの vruntime です。"},
    # Events are list entries: noun phrases in Japanese, which have no register.
    "event.arrive": {"en": "{task} arrives", "ja": "{task} が到着"},
    "event.requeue": {"en": "{task} returns to the queue", "ja": "{task} がキューに復帰"},
    "event.dispatch": {"en": "{task} is dispatched", "ja": "{task} を割り当て"},
    "event.preempt": {"en": "{task} is preempted", "ja": "{task} が横取りで中断"},
    "event.expire": {"en": "{task}'s quantum expires", "ja": "{task} のクォンタム切れ"},
    "event.complete": {"en": "{task} completes", "ja": "{task} が完了"},
    "event.migrate": {"en": "{task} migrates from CPU {source} to CPU {cpu}",
                      "ja": "{task} が CPU {source} から CPU {cpu} へ移動"},
    "event.steal": {"en": "CPU {cpu} steals {task} from CPU {source}'s queue",
                    "ja": "CPU {cpu} が CPU {source} のキューから {task} をスチール"},
    "event.idle": {"en": "the CPU is idle", "ja": "CPU はアイドル"},
    "event.boost": {"en": "{task} is boosted to the top level", "ja": "{task} が最上段へ（ブースト）"},
    "event.demote": {"en": "{task} moves down a level", "ja": "{task} が 1 段下へ"},
    "event.block": {"en": "{task} starts I/O until t={until}", "ja": "{task} が t={until} まで I/O"},
    "event.return": {"en": "{task} returns from I/O", "ja": "{task} が I/O から復帰"},
    "event.switch": {"en": "switch to {task} until t={until}", "ja": "t={until} まで {task} への切り替え"},
    "analysis": {"en": "Schedulability tests beside the run", "ja": "実行と並べたスケジューリング可能性の判定"},
    "analysis.under": {"en": "U = {u} ≤ {bound}: the Liu-Layland bound promises that RM meets every deadline",
                       "ja": "U = {u} ≤ {bound}: Liu–Layland 上限により RM はすべての締切を守ると保証されます"},
    "analysis.over": {"en": "U = {u} > {bound}: the Liu-Layland bound says nothing",
                      "ja": "U = {u} > {bound}: Liu–Layland 上限からは何も言えません"},
    "analysis.exact.rm": {"en": "the exact test says {names} misses under RM",
                          "ja": "厳密な応答時間解析では RM で {names} が締切を落とします"},
    "analysis.exact.rm.meets": {"en": "the exact test says every task meets its deadline under RM",
                                "ja": "厳密な応答時間解析では RM ですべてのタスクが締切を守ります"},
    "analysis.exact.dm": {"en": "the exact test says {names} misses under DM",
                          "ja": "厳密な応答時間解析では DM で {names} が締切を落とします"},
    "analysis.exact.dm.meets": {"en": "the exact test says every task meets its deadline under DM",
                                "ja": "厳密な応答時間解析では DM ですべてのタスクが締切を守ります"},
    "analysis.edf": {"en": "U ≤ 1: EDF can meet every deadline", "ja": "U ≤ 1: EDF はすべての締切を守れます"},
    "analysis.edf.over": {"en": "U > 1: no schedule meets every deadline",
                          "ja": "U > 1: すべての締切を守るスケジュールはありません"},
    "analysis.run": {"en": "the run ({algorithm}) shows {jobs}{more}", "ja": "実行（{algorithm}）では {jobs}{more}"},
    "analysis.run.meets": {"en": "the run ({algorithm}) meets every deadline",
                           "ja": "実行（{algorithm}）はすべての締切を守ります"},
    "analysis.late": {"en": "{job} late by {by}", "ja": "{job} が {by} 遅れ"},
    "analysis.dropped": {"en": "{job} dropped at its deadline", "ja": "{job} が締切で打ち切り"},
    "analysis.more": {"en": " and {n} more", "ja": " ほか {n} 件"},
    "analysis.join": {"en": "; ", "ja": "。"},
    "analysis.u": {"en": "U_i = C_i / T_i", "ja": "U_i = C_i / T_i"},
    "analysis.r.rm": {"en": "R_i under RM", "ja": "RM での R_i"},
    "analysis.r.dm": {"en": "R_i under DM", "ja": "DM での R_i"},
    "analysis.meets": {"en": "meets", "ja": "守る"},
    "analysis.misses": {"en": "misses", "ja": "落とす"},
    "analysis.note": {"en": "R_i = C_i + Σ ⌈R_i / T_j⌉ C_j over the higher-priority tasks, iterated to a fixed point "
                            "or stopped at the first value past the deadline. The bound n(2^(1/n) − 1) is shown to "
                            "three places; U is compared with it exactly. U ≤ 1 is exact for EDF when every deadline "
                            "is its period.",
                      "ja": "R_i = C_i + Σ ⌈R_i / T_j⌉ C_j（優先度の高いタスクについて）を不動点まで反復し、締切を"
                            "超えた最初の値で止めます。上限 n(2^(1/n) − 1) は小数 3 桁で表示し、U との比較は厳密です。"
                            "U ≤ 1 は締切が周期に等しいとき EDF について厳密です。"},
    "event.miss": {"en": "{task} misses its deadline at t={time}; it has {left} left",
                   "ja": "{task} が t={time} に締切超過（残り {left}）"},
    "not.recorded": {"en": "not recorded for a run this large (compact trace)",
                     "ja": "この規模の実行では記録していません（簡略トレース）"},
    "event.other": {"en": "{kind}: {task}", "ja": "{kind}: {task}"},
    # locks (issue 23): the events, the Locks card, the chart's holds and waits
    "event.lock": {"en": "{task} locks {resource}", "ja": "{task} が {resource} をロック"},
    "event.wait": {"en": "{task} waits for {resource}, held by {holder}",
                   "ja": "{task} が {resource} を待機（{holder} が保持）"},
    "event.unlock": {"en": "{task} releases {resource}", "ja": "{task} が {resource} を解放"},
    "event.deadlock": {"en": "deadlock: the run ends", "ja": "デッドロック: 実行はここで終わります"},
    "locks": {"en": "Locks", "ja": "ロック"},
    "locks.resource": {"en": "Resource", "ja": "資源"},
    "locks.holder": {"en": "Held by", "ja": "保持者"},
    "locks.waiters": {"en": "Waiting", "ja": "待ち"},
    "locks.free": {"en": "free", "ja": "空き"},
    "locks.nobody": {"en": "nobody", "ja": "なし"},
    "locks.effective": {"en": "Effective priority", "ja": "実効優先度"},
    "locks.own": {"en": "its own", "ja": "自分の優先度"},
    "locks.runs_at": {"en": "runs at {task}'s priority", "ja": "{task} の優先度で実行"},
    "locks.protocol": {"en": "Waiting in the order they came. Protocol: {protocol}. Ceiling of each resource: "
                             "{ceilings}.",
                       "ja": "待ちは来た順です。プロトコル: {protocol}。各資源の上限: {ceilings}。"},
    "locks.protocol.none": {"en": "none (a holder keeps its own priority)",
                            "ja": "なし（保持者は自分の優先度のまま）"},
    "locks.protocol.inheritance": {"en": "priority inheritance", "ja": "優先度継承"},
    "locks.protocol.ceiling": {"en": "priority ceiling (immediate)", "ja": "優先度上限プロトコル（即時）"},
    "gantt.hold": {"en": "Holds", "ja": "保持"},
    "gantt.wait": {"en": "Waits for", "ja": "待ち"},
    "gantt.legend.holds": {"en": "holds a resource", "ja": "資源を保持"},
    "gantt.legend.waits": {"en": "waits for one", "ja": "資源を待機"},
    "batch": {"en": "Batch slots, iteration by iteration", "ja": "バッチのスロット（反復ごと）"},
    "batch.slot": {"en": "slot {slot}", "ja": "スロット {slot}"},
    "batch.free": {"en": "free", "ja": "空き"},
    "batch.request": {"en": "{tenant} #{request}: input {input}, {generated} of {output} {output:token|tokens}",
                      "ja": "{tenant} #{request}: 入力 {input}、出力 {generated}/{output} トークン"},
    "batch.axis": {"en": "iterations {start} … {end}; the line is now (t={now})",
                   "ja": "反復 {start} … {end}。縦線が現在（t={now}）"},
    "batch.more": {"en": "{count} more {count:slot is|slots are} not drawn (the table and the exports have them all).",
                   "ja": "ほか {count} スロットは描いていません（表と書き出しにはすべてあります）。"},
    "batch.memory": {"en": "Tokens in the batch: {held} of {memory}", "ja": "バッチ内のトークン: {held} / {memory}"},
    "batch.held": {"en": "Tokens in the batch: {held}", "ja": "バッチ内のトークン: {held}"},
    "batch.phase": {"en": "iteration", "ja": "反復"},
    "batch.prefill": {"en": "prefill", "ja": "プリフィル"},
    "batch.decode": {"en": "decode", "ja": "デコード"},
    "batch.phases": {"en": "loop = prefill-decode: in the row of iterations a dark cell is a prefill (only the "
                           "requests just admitted generate their first token), a light one a decode (only the "
                           "running ones generate); a running batch takes new requests after {between} "
                           "{between:decode|decodes}.",
                     "ja": "loop = prefill-decode: 反復の行の濃いセルはプリフィル (受け入れたばかりのリクエストだけが"
                           "最初のトークンを生成)、淡いセルはデコード (実行中のリクエストだけが生成) です。実行中の"
                           "バッチは {between} 回デコードした後に新しいリクエストを受け入れます。"},
    "queues.tokens": {"en": "Waiting requests per tenant (input/output tokens)",
                      "ja": "テナントごとの待ちリクエスト（入力/出力 トークン）"},
    "queues.more": {"en": "+{count} more", "ja": "ほか {count} 件"},
    "counters": {"en": "Virtual token counters", "ja": "仮想トークンカウンター"},
    "counters.unread": {"en": "Counted as VTC counts, but this rule never reads them to choose.",
                        "ja": "VTC と同じように数えますが、この規則は選ぶときに読みません。"},
    "counters.lifted": {"en": "{tenant} lifted: {before} → {after} (the line marks {before})",
                        "ja": "{tenant} を引き上げ: {before} → {after}（縦線が {before}）"},
    "counters.kept": {"en": "{tenant} rejoins: its counter {before} stays",
                      "ja": "{tenant} が復帰: カウンター {before} のまま"},
    "service": {"en": "Service so far (w_in × input + w_out × output tokens)",
                "ja": "これまでのサービス（w_in × 入力 + w_out × 出力トークン）"},
    "service.axes": {"en": "0 … {top} over iterations 0 … {end}", "ja": "0 … {top}、反復 0 … {end}"},
    "fairness.pair": {"en": "Fairness: {first} and {second} while both wait",
                      "ja": "公平性: {first} と {second} がともに待つ間"},
    "fairness.pair.live": {"en": "Both waiting since t={since}: the difference of the service they received since "
                                 "then is {gap} (widest in this stretch {widest}); the VTC bound is {bound}: "
                                 "{status}.",
                           "ja": "t={since} から両方が待っています。その間に受けたサービスの差は {gap}"
                                 "（この区間の最大 {widest}）、VTC の上界は {bound}: {status}。"},
    "fairness.pair.idle": {"en": "Not both waiting at the end of this iteration; the bound is {bound}.",
                           "ja": "この反復の終わりには両方は待っていません。上界は {bound} です。"},
    "fairness.pair.run": {"en": "Over the whole run: the widest difference was {gap}, over t={start} … {end}; bound "
                                "{bound}: {status}.",
                          "ja": "実行全体では、最大の差は {gap}（t={start} … {end}）、上界 {bound}: {status}。"},
    "fairness.pair.before": {"en": "As of the last iteration (t={t}).", "ja": "直前の反復（t={t}）の時点。"},
    "fairness.pair.bound": {"en": "Bound 2 × max(w_in × L, w_out × M) for weights 1: L = {largest} (largest input), "
                                  "M = {tokens} (most tokens a batch can hold).",
                            "ja": "上界は重み 1 のとき 2 × max(w_in × L, w_out × M)。L = {largest}（最大の入力）、"
                                  "M = {tokens}（バッチが保持できる最大トークン数）。"},
    "fairness.pair.one": {"en": "One tenant: no pair to compare.",
                          "ja": "テナントが 1 つなので、比べる対がありません。"},
    "summary.batch": {"en": "{iterations} {iterations:iteration|iterations} ({idle} idle) · {tokens} "
                             "{tokens:token|tokens} generated · {occupancy} {occupancy:request|requests} per busy "
                             "iteration", "ja": "{iterations} 反復（空き {idle}）・生成 {tokens} トークン・"
                             "稼働反復あたり {occupancy} 件"},
    # LLM router mode with a fleet (``servers``): the servers' rows, cancellations, actual service, replicas
    "fleet": {"en": "Servers, over time", "ja": "サーバー（時間の経過）"},
    "fleet.server": {"en": "server {server}", "ja": "サーバー {server}"},
    "fleet.request": {"en": "{tenant} #{request}: charged {cost}, runs {actual}",
                      "ja": "{tenant} #{request}: 課金 {cost}、実行 {actual}"},
    "fleet.cancelled": {"en": "cancelled at t={t}", "ja": "t={t} に取り消し"},
    "fleet.withdrawn": {"en": "{tenant} #{request}: cancelled while waiting, uncharged",
                        "ja": "{tenant} #{request}: 待ちの間に取り消し（課金なし）"},
    "fleet.server.replica": {"en": "server {server} · replica {replica}",
                             "ja": "サーバー {server}・レプリカ {replica}"},
    "fleet.replica": {"en": "Replica {replica} (servers: {servers})",
                      "ja": "レプリカ {replica}（サーバー: {servers}）"},
    "fleet.acting": {"en": "this step", "ja": "このステップ"},
    "fleet.holds": {"en": "{tenant} #{request} {ran}/{actual}", "ja": "{tenant} #{request} {ran}/{actual}"},
    "fleet.axis": {"en": "t = {start} … {end}; the line is now (t={now})",
                   "ja": "t = {start} … {end}。縦線が現在（t={now}）"},
    "fleet.legend": {"en": "Each bar is a request from its dispatch to its end or now; ✕: cancelled while running "
                           "(its charge stays).",
                     "ja": "各棒は送出から終了（または現在）までのリクエストです。✕: 実行中に取り消し"
                           "（課金はそのまま）。"},
    "fleet.more": {"en": "{count} more {count:server is|servers are} not drawn (the exports have them all).",
                   "ja": "ほか {count} 台のサーバーは描いていません（書き出しにはすべてあります）。"},
    # --- the teaching features: the rule, compare, the quiz, your own policy, exports
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
                           "ja": "エンジンが規則に尋ねるのは、実行するタスクが変わりうるとき（到着、ブースト、"
                                 "時間とともに順位が"
                                 "変わる待ちタスク）だけです。ここでは何も変わりえないので、"
                                 "実行中のタスクがそのまま続きます。"},
    "rule.unasked.other": {"en": "nothing is chosen here.", "ja": "ここでは何も選びません。"},
    "rule.custom": {"en": "Your policy: the lines your choose() ran at this step are highlighted.",
                    "ja": "あなたのポリシー: このステップで choose() が実行した行をハイライトしています。"},
    "rule.custom.none": {"en": "Your choose() was not called at this step (no choice to make).",
                         "ja": "このステップでは choose() は呼ばれていません（選ぶものがありません）。"},
    "rule.inherited": {"en": "inherited", "ja": "継承"},
    # compare
    "compare.title": {"en": "Compare two algorithms on the same scenario",
                      "ja": "同じシナリオで 2 つのアルゴリズムを比較"},
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
    "compare.normalised": {"en": "Cost ÷ weight received so far (the first {count} {count:dispatch|dispatches} of "
                                  "each run)",
                           "ja": "これまでに受けたコスト ÷ 重み（各実行の最初の {count} 件の送出）"},
    "compare.interval": {"en": "While every tenant was waiting in both runs: t={start} … {end} ({count} "
                                "{count:dispatch|dispatches})",
                         "ja": "両方の実行で全テナントが待っていた間: t={start} … {end}（送出 {count} 件）"},
    "compare.interval.none": {"en": "No fairness figures to compare yet: so far no dispatch had every tenant waiting "
                                    "in both runs.",
                              "ja": "比べられる公平性の値はまだありません。これまでのところ、両方の実行で全テナントが"
                                    "待っていた送出はありません。"},
    "compare.sofar": {"en": "So far: both runs at the same moment (no colour: neither side is better)",
                      "ja": "ここまで: 両方の実行の同じ時点（色なし: どちらが良いとも言えません）"},
    "compare.gap.service": {"en": "Widest difference in service ÷ weight while both waited",
                            "ja": "両方が待っていた間のサービス ÷ 重みの最大差"},
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
    "compare.jain": {"en": "How even, by Jain's index (1 = perfectly even)",
                     "ja": "均等さ（Jain 指数。1 = 完全に均等）"},
    "compare.gap": {"en": "Largest difference in cost ÷ weight between two tenants",
                    "ja": "2 テナント間のコスト ÷ 重みの最大差"},
    "compare.gap.actual": {"en": "Largest difference in actual service ÷ weight between two tenants",
                           "ja": "2 テナント間の実際のサービス ÷ 重みの最大差"},
    "compare.fleet": {"en": "With servers each run dispatches when its own servers free, so the two runs share no "
                            "stretch of dispatches: both sides are shown at the same time t, and the widest gaps are "
                            "each whole run's, over its own interval.",
                      "ja": "サーバーがあると、各実行は自分のサーバーが空いたときに送出するので、両者に共通の送出の"
                            "区間はありません。両側は同じ時刻 t で示し、最大差は各実行全体のもので、それぞれの区間で"
                            "測っています。"},
    "compare.charged.at": {"en": "Cost ÷ weight charged by t={t} in each run",
                           "ja": "各実行で t={t} までに課金したコスト ÷ 重み"},
    "compare.service.at": {"en": "Actual service ÷ weight given by t={t} in each run (a running request counted up "
                                 "to then)",
                           "ja": "各実行で t={t} までに与えた実際のサービス ÷ 重み（実行中のものはその時点まで）"},
    "compare.switches": {"en": "Context switches", "ja": "コンテキストスイッチ"},
    "compare.switch_time": {"en": "Time switching", "ja": "切り替えの時間"},
    "compare.utilisation": {"en": "CPU utilisation", "ja": "CPU 利用率"},
    "compare.steals": {"en": "Steals", "ja": "スチール"},
    # quiz
    "quiz.title": {"en": "Predict the next step", "ja": "次のステップを予想"},
    "quiz.intro": {"en": "Before each step is shown, pick who runs next. The future of the timeline is hidden.",
                   "ja": "各ステップが表示される前に、次に実行されるものを選んでください。"
                         "タイムラインの先は隠れています。"},
    "quiz.seed": {"en": "Exercise seed", "ja": "演習のシード"},
    "quiz.new": {"en": "New exercise", "ja": "新しい演習"},
    # the sizes of a seeded exercise, as the command line's --jobs, --max-length, --max-arrival, --io
    "quiz.size.jobs": {"en": "Tasks (--jobs)", "ja": "タスク数（--jobs）"},
    "quiz.size.max_length": {"en": "Longest (--max-length)", "ja": "最長（--max-length）"},
    "quiz.size.max_arrival": {"en": "Latest arrival (--max-arrival)", "ja": "最遅の到着（--max-arrival）"},
    "quiz.size.io": {"en": "I/O % (--io)", "ja": "I/O の割合 %（--io）"},
    "quiz.random": {"en": "Random seed", "ja": "ランダムなシード"},
    "quiz.restart": {"en": "Start over", "ja": "最初から"},
    "quiz.cli": {"en": "Same exercise on the command line: {command}", "ja": "コマンドラインで同じ演習: {command}"},
    "quiz.right": {"en": "Right: {answer}.", "ja": "正解: {answer}。"},
    "quiz.wrong": {"en": "Not {choice}: {answer} runs.", "ja": "{choice} ではありません。{answer} です。"},
    "quiz.score": {"en": "Score: {right} of {asked}", "ja": "得点: {asked} 問中 {right} 問"},
    "quiz.next": {"en": "Next question ▶", "ja": "次の問題 ▶"},
    "quiz.done": {"en": "No more questions in this run. Final score: {right} of {asked}.",
                  "ja": "この実行の問題は終わりです。最終得点: {asked} 問中 {right} 問。"},
    "quiz.none": {"en": "This run offers no choice to predict (at most one candidate at every step): try another "
                        "seed or algorithm.",
                  "ja": "この実行には予想する選択がありません（各ステップの候補は 1 つ以下）。"
                        "別のシードかアルゴリズムを"
                        "試してください。"},
    "quiz.compact": {"en": "This run is too large for a quiz (compact trace).",
                     "ja": "この実行はクイズには大きすぎます（簡略トレース）。"},
    "quiz.state": {"en": "What you know (step {k}):", "ja": "わかっていること（ステップ {k}）:"},
    # your own policy
    "custom.title": {"en": "Your own policy, in Python", "ja": "自作ポリシー（Python）"},
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
    "custom.none": {"en": "This mode has no policy of your own.", "ja": "このモードには自作ポリシーがありません。"},
    # exports
    "export.title": {"en": "Export this run", "ja": "この実行を書き出す"},
    "export.json": {"en": "Trace (JSON)", "ja": "トレース（JSON）"},
    "export.csv": {"en": "Metrics (CSV)", "ja": "指標（CSV）"},
    "export.svg": {"en": "Chart (SVG)", "ja": "図（SVG）"},
    "export.png": {"en": "Chart (PNG)", "ja": "図（PNG）"},
    "export.link": {"en": "Permalink (this setup and step)", "ja": "パーマリンク（この設定とステップ）"},
    "export.note": {"en": "The JSON is byte for byte what the command “python -m schedulers {mode} --json” prints for "
                          "this scenario.",
                    "ja": "JSON は、このシナリオに対するコマンド「python -m schedulers {mode} "
                          "--json」の出力とバイト単位で"
                          "同じです。"},
    "export.custom": {"en": "A link cannot carry your own policy's code: it opens the default algorithm.",
                      "ja": "リンクには自作ポリシーのコードは入りません。既定のアルゴリズムで開きます。"},
    "export.preview": {"en": "Preview of the chart", "ja": "図のプレビュー"},
    "chart.time": {"en": "time", "ja": "時刻"},
    "chart.idle": {"en": "idle", "ja": "アイドル"},
    "chart.io": {"en": "I/O", "ja": "I/O"},
    "chart.switch": {"en": "switch", "ja": "切り替え"},
    "chart.switch.into": {"en": "switch into {task}", "ja": "{task} への切り替え"},
}

LABELS: dict[str, dict[str, str]] = {
    "name": {"en": "Name", "ja": "名前"},
    "arrival": {"en": "Arrival", "ja": "到着"},
    "burst": {"en": "Burst", "ja": "実行時間"},
    "deadline": {"en": "Deadline", "ja": "締切"},
    "priority": {"en": "Priority", "ja": "優先度"},
    "tickets": {"en": "Tickets", "ja": "チケット"},
    "nice": {"en": "Nice", "ja": "nice値"},
    "weight": {"en": "Weight", "ja": "重み"},
    "cost": {"en": "Cost", "ja": "コスト"},
    "count": {"en": "Count", "ja": "件数"},
    "costs": {"en": "Costs", "ja": "コスト列"},
    "join": {"en": "Join", "ja": "参加時刻"},
    "arrivals": {"en": "Arrivals", "ja": "到着時刻列"},
    "servers": {"en": "Servers", "ja": "サーバー数"},
    "replicas": {"en": "Replicas (routers)", "ja": "レプリカ（ルーター数）"},
    "spread": {"en": "Spread", "ja": "振り分け"},
    "quantum": {"en": "Quantum", "ja": "クォンタム"},
    "levels": {"en": "Levels", "ja": "段数"},
    "quanta": {"en": "Quanta per level", "ja": "段ごとのクォンタム"},
    "allotment": {"en": "Allotment per level", "ja": "段ごとの割り当て"},
    "boost": {"en": "Boost period", "ja": "ブースト周期"},
    "class": {"en": "Class", "ja": "クラス"},
    "classes": {"en": "Classes (rule per class)", "ja": "クラスごとの規則"},
    "aging": {"en": "Aging every N waited", "ja": "エージング間隔 N"},
    "lottery_seed": {"en": "Lottery seed", "ja": "抽選のシード"},
    "latency": {"en": "Latency (period)", "ja": "レイテンシ（周期）"},
    "min_granularity": {"en": "Min. granularity", "ja": "最小粒度"},
    "slice": {"en": "Slice (request)", "ja": "スライス（要求長）"},
    "bursts": {"en": "Bursts (I/O)", "ja": "バースト列"},
    "switch_cost": {"en": "Switch cost", "ja": "切り替えコスト"},
    "io_resets_allotment": {"en": "Blocking keeps the level (OSTEP -S)", "ja": "ブロックで段を維持（OSTEP -S）"},
    "io_to_front": {"en": "I/O return to the front (OSTEP -I)", "ja": "I/O 復帰で段の先頭へ（OSTEP -I）"},
    "io": {"en": "I/O time", "ja": "I/O 時間"},
    "task": {"en": "Task", "ja": "タスク"},
    "completion": {"en": "Completion", "ja": "完了"},
    "turnaround": {"en": "Turnaround", "ja": "ターンアラウンド"},
    "waiting": {"en": "Waiting", "ja": "待ち時間"},
    "response": {"en": "Response", "ja": "応答時間"},
    "missed": {"en": "Missed", "ja": "締切超過"},
    "cpus": {"en": "CPUs", "ja": "CPU 数"},
    "queues": {"en": "Ready queues", "ja": "実行可能キュー"},
    "steal": {"en": "Stealing", "ja": "スチール"},
    "period": {"en": "Period", "ja": "周期"},
    "relative_deadline": {"en": "Relative deadline", "ja": "相対締切"},
    "horizon": {"en": "Horizon (releases before it)", "ja": "ホライズン（この時刻より前に解放）"},
    "on_miss": {"en": "A job past its deadline", "ja": "締切を過ぎたジョブ"},
    "sections": {"en": "Sections (locks)", "ja": "ロック区間"},
    "protocol": {"en": "Lock protocol", "ja": "ロックのプロトコル"},
    "jobs": {"en": "Jobs", "ja": "ジョブ数"},
    "misses": {"en": "Misses", "ja": "締切超過数"},
    "max_lateness": {"en": "Worst lateness", "ja": "最大遅れ"},
    "max_response": {"en": "Worst response", "ja": "最大応答時間"},
    "step_details": {"en": "Step details", "ja": "ステップの詳細"},
    "tenant": {"en": "Tenant", "ja": "テナント"},
    "requests": {"en": "Requests", "ja": "リクエスト"},
    "dispatched": {"en": "Dispatched", "ja": "送出数"},
    "charged": {"en": "Charged cost", "ja": "課金コスト"},
    "normalized": {"en": "Cost ÷ weight", "ja": "コスト ÷ 重み"},
    "vruntime": {"en": "vruntime", "ja": "vruntime"},
    "lag": {"en": "Lag", "ja": "ラグ"},
    "virtual_deadline": {"en": "Virtual deadline", "ja": "仮想締切"},
    "slots": {"en": "Slots", "ja": "スロット数"},
    "memory": {"en": "Memory (tokens)", "ja": "メモリ（トークン）"},
    "w_in": {"en": "w_in (per input token)", "ja": "w_in（入力 1 トークン）"},
    "w_out": {"en": "w_out (per output token)", "ja": "w_out（出力 1 トークン）"},
    "prediction": {"en": "Prediction", "ja": "予測"},
    "conventions": {"en": "Conventions preset", "ja": "規約のプリセット"},   # also alone, in Compare
    "lift": {"en": "Lift (a tenant joining alone)", "ja": "引き上げ（単独で戻るテナント）"},
    "ties": {"en": "Ties of equal counters", "ja": "同じカウンターの順"},
    "charge_first_token": {"en": "The first token", "ja": "最初のトークン"},
    "loop": {"en": "Iterations", "ja": "反復"},
    "decodes_between_prefills": {"en": "Decodes between prefills", "ja": "プリフィル間のデコード数"},
    "reserve": {"en": "Memory reserves", "ja": "メモリの確保"},
    "input_tokens": {"en": "Input tokens", "ja": "入力トークン"},
    "output_tokens": {"en": "Output tokens", "ja": "出力トークン"},
    "service": {"en": "Service", "ja": "サービス"},
    "counter": {"en": "Counter", "ja": "カウンター"},
    "mean_waiting": {"en": "Mean wait", "ja": "平均待ち"},
    "mean_latency": {"en": "Mean latency", "ja": "平均遅延"},
    "actual_service": {"en": "Actual service", "ja": "実際のサービス"},
    "latency_mean": {"en": "Mean latency", "ja": "平均遅延"},
    "latency_p95": {"en": "Latency p95", "ja": "遅延 p95"},
    "wait_mean": {"en": "Mean wait", "ja": "平均待ち"},
}

SHORT: dict[str, dict[str, str]] = {
    "io": {"en": "I/O", "ja": "I/O"},
    "arrival": {"en": "Arr.", "ja": "到着"},
    "burst": {"en": "Burst", "ja": "実行"},
    "completion": {"en": "Done", "ja": "完了"},
    "turnaround": {"en": "TAT", "ja": "TAT"},
    "waiting": {"en": "Wait", "ja": "待ち"},
    "response": {"en": "Resp.", "ja": "応答"},
    "deadline": {"en": "DL", "ja": "締切"},
    "period": {"en": "T", "ja": "周期"},
    "relative_deadline": {"en": "D", "ja": "相対締切"},
    "jobs": {"en": "Jobs", "ja": "ジョブ"},
    "misses": {"en": "Miss", "ja": "超過"},
    "max_lateness": {"en": "Max L", "ja": "最大遅れ"},
    "max_response": {"en": "Max R", "ja": "最大応答"},
    "missed": {"en": "Late", "ja": "超過"},
    "priority": {"en": "Prio.", "ja": "優先"},
    "tickets": {"en": "Tix", "ja": "券"},
    "nice": {"en": "Nice", "ja": "nice"},
    "class": {"en": "Cls", "ja": "クラス"},
    "weight": {"en": "Wt", "ja": "重み"},
    "requests": {"en": "Req.", "ja": "件数"},
    "dispatched": {"en": "Sent", "ja": "送出"},
    "charged": {"en": "Cost", "ja": "課金"},
    "normalized": {"en": "÷ wt", "ja": "÷重み"},
    "input_tokens": {"en": "In", "ja": "入力"},
    "output_tokens": {"en": "Out", "ja": "出力"},
    "service": {"en": "Serv.", "ja": "サービス"},
    "counter": {"en": "Ctr", "ja": "カウンター"},
    "mean_waiting": {"en": "Wait", "ja": "待ち"},
    "mean_latency": {"en": "Lat.", "ja": "遅延"},
    "actual_service": {"en": "Ran", "ja": "実行"},
    "latency_mean": {"en": "Lat.", "ja": "遅延"},
    "latency_p95": {"en": "p95", "ja": "p95"},
    "wait_mean": {"en": "Wait", "ja": "待ち"},
}

HELP: dict[str, dict[str, str]] = {
    "nice": {"en": "Sets the weight: nice 0 weighs 1024, each step lower weighs about 1.25× more.",
             "ja": "重みを決めます。nice 0 の重みは 1024 で、1 つ下げるごとに約 1.25 倍になります。"},
    "costs": {"en": "One cost per request, e.g. 8 8 2; when given it replaces cost × count.",
              "ja": "リクエストごとのコスト（例: 8 8 2）。指定するとコスト × 件数の代わりに使います。"},
    "latency": {"en": "The period the runnable tasks share in proportion to their weights.",
                "ja": "実行可能なタスクが重みに比例して分け合う周期です。"},
    "min_granularity": {"en": "The shortest slice a task is given.", "ja": "タスクに与える最短のスライスです。"},
    "slice": {"en": "The length of every request a task makes.", "ja": "タスクが出す各要求の長さです。"},
    "quanta": {"en": "One per level, e.g. 1, 2, 4.", "ja": "段ごとに 1 つ（例: 1, 2, 4）。"},
    "allotment": {"en": "Quanta a task may use at each level, e.g. 1, 1, 1.",
                  "ja": "各段で使えるクォンタム数（例: 1, 1, 1）。"},
    "boost": {"en": "Empty: never.", "ja": "空欄: ブーストなし。"},
    "class": {"en": "MLQ's class of the task: 0 is the highest; empty: 0.",
              "ja": "MLQ でのタスクのクラスです。0 が最上位で、空欄は 0 です。"},
    "classes": {"en": "Each class's rule, class 0 first, separated by ; with its parameters after a colon, e.g. "
                      "rr:quantum=2;fcfs (fcfs, sjf, srtf, rr, priority).",
                "ja": "クラス 0 から順に各クラスの規則を ; で区切り、パラメーターはコロンの後に書きます。"
                      "例: rr:quantum=2;fcfs（fcfs, sjf, srtf, rr, priority）。"},
    "bursts": {"en": "CPU and I/O in turn, e.g. 3, 2, 4 (CPU 3, I/O 2, CPU 4); when given it replaces the burst.",
               "ja": "CPU と I/O を交互に書きます。例: 3, 2, 4（CPU 3、I/O 2、CPU 4）。"
                     "指定すると実行時間の代わりに使います。"},
    "queues": {"en": "Several CPUs: one ready queue for all of them, or one per CPU (a task joins the queue of the CPU "
                     "it last ran on, at first the shortest).",
               "ja": "複数 CPU のとき、全 CPU で 1 つのキューか、CPU ごとのキューかを選びます（タスクは最後に実行した "
                     "CPU のキューに入り、最初は最も短いキューに入ります）。"},
    "steal": {"en": "Per-CPU queues: a free CPU whose queue is empty takes the last task to join the longest queue.",
              "ja": "CPU ごとのキューのとき、自分のキューが空で空いている CPU が、最も長いキューに最後に入ったタスクを"
                    "取ります。"},
    "switch_cost": {"en": "Time units each switch to another task takes; 0: switches are free.",
                    "ja": "別のタスクへの切り替えごとにかかる時間です。0 なら切り替えは無料です。"},
    "io_resets_allotment": {"en": "A task that blocks before its quantum ends keeps its level with a fresh "
                                  "allotment: the rule a task can game.",
                            "ja": "クォンタムが切れる前にブロックしたタスクは、割り当てを新しくしてその段に残ります。"
                                  "タスクが悪用できる規則です。"},
    "step_details": {"en": "Adds each step's quantum and allotment left, MLFQ's level and lottery's draw to the trace "
                           "(the JSON export), as --trace prints them.",
                     "ja": "各ステップの残りクォンタムと割り当て、MLFQ の段、抽選の当たりをトレース（JSON 書き出し）に"
                           "加えます。--trace が表示する内容です。"},
    "io_to_front": {"en": "A task returning from I/O goes to the front of its level, not the back.",
                    "ja": "I/O から戻ったタスクは、その段の末尾ではなく先頭に入ります。"},
    "aging": {"en": "Empty: no aging.", "ja": "空欄: エージングなし。"},
    "sections": {"en": "resource:start:length, e.g. R:1:2 (the task's CPU units 1 and 2 hold R); several joined by "
                       "semicolons (R:0:3;S:1:1), nested or apart.",
                 "ja": "資源:開始:長さ。例: R:1:2（タスクの CPU 単位 1 と 2 で R を保持）。複数はセミコロンでつなぎ"
                       "（R:0:3;S:1:1）、入れ子か離して書きます。"},
    "protocol": {"en": "none: a lock holder keeps its priority; inheritance: it runs at the priority of the tasks it "
                       "blocks; ceiling: at the highest priority of any task using the resource.",
                 "ja": "なし: ロック保持者は自分の優先度のまま。継承: 待たせているタスクの優先度で実行。上限: "
                       "その資源を使うタスクの最高の優先度で実行。"},
    "requests": {"en": "INPUT/OUTPUT tokens per request, e.g. 4/8x16 (16 requests), 8/30x2@10 (arriving at "
                       "iteration 10), 4/5~3 (predicted output 3); several groups joined by +.",
                 "ja": "リクエストごとの 入力/出力 トークン。例: 4/8x16（16 件）、8/30x2@10（反復 10 に到着）、"
                       "4/5~3（予測出力 3）。複数のグループは + でつなぎます。"},
    "slots": {"en": "Requests in the batch at once.", "ja": "バッチに同時に入るリクエスト数。"},
    "arrivals": {"en": "One arrival time per request, e.g. 0 0 5 5; when given it replaces join.",
                 "ja": "リクエストごとの到着時刻（例: 0 0 5 5）。指定すると参加時刻の代わりに使います。"},
    "servers": {"en": "Servers in the fleet; each runs one request for its actual time. Empty: no fleet, one "
                      "dispatch per time unit.",
                "ja": "サーバー群の台数。各サーバーは 1 件ずつ、その実際の時間だけ実行します。空欄: "
                      "サーバーなし（1 時刻に 1 件送出）。"},
    "replicas": {"en": "Routers, each with its own meters and an equal share of the servers.",
                 "ja": "ルーターの数。それぞれが自分のメーターとサーバーの等しい取り分を持ちます。"},
    "spread": {"en": "request: the request's arrival number modulo the replicas; tenant: tenant k always to "
                     "replica k modulo the replicas.",
               "ja": "request: リクエストの到着番号をレプリカ数で割った余り。tenant: テナント k は常にレプリカ "
                     "k mod レプリカ数へ。"},
    "memory": {"en": "Tokens the batch may hold (inputs + tokens generated); empty: no limit.",
               "ja": "バッチが保持できるトークン数（入力 + 生成済み）。空欄: 制限なし。"},
    "conventions": {"en": "Where the VTC artifact's S-LoRA router decides otherwise than the lab: lab sets every "
                          "convention below to the lab's, s-lora to the artifact's; one set below wins over it.",
                    "ja": "VTC アーティファクトの S-LoRA ルーターがラボと違う決め方をするところ。lab は下の規約をすべて"
                          "ラボの決め方に、s-lora はアーティファクトの決め方にします。下で選んだものはプリセットより"
                          "優先します。"},
    "lift": {"en": "A tenant whose queue was empty gets requests while nobody else waits: lifted to the largest "
                   "counter in the batch (lab), or left as it is (waiting-only, the artifact).",
             "ja": "待ちが空だったテナントに、他に誰も待っていないときリクエストが届いたら: バッチ内の最大カウンター"
                   "まで引き上げる (lab) か、そのままにする (waiting-only、アーティファクト)。"},
    "ties": {"en": "Equal counters: tenant order (lab), or the order tenants first arrived (first-arrival, the "
                   "artifact).",
             "ja": "カウンターが同じとき: テナント順 (lab) か、テナントが初めて届いた順 (first-arrival、"
                   "アーティファクト)。"},
    "charge_first_token": {"en": "Charge w_out for a request's first token (true, lab), or leave it free (false: the "
                                 "artifact's prefill token is not charged).",
                           "ja": "リクエストの最初のトークンに w_out を課金する (true、lab) か、無料にする (false: "
                                 "アーティファクトのプリフィルのトークンは課金されません)。"},
    "loop": {"en": "Each iteration admits and decodes (mixed, lab), or is a prefill of new requests or a decode of the "
                   "running ones (prefill-decode, the artifact).",
             "ja": "各反復で受け入れとデコードを両方行う (mixed、lab) か、新しいリクエストのプリフィルか実行中の"
                   "デコードのどちらかにする (prefill-decode、アーティファクト)。"},
    "decodes_between_prefills": {"en": "prefill-decode: decodes a running batch makes before it takes new requests "
                                       "(the artifact: 10).",
                                 "ja": "prefill-decode: 実行中のバッチが新しいリクエストを受け入れる前に行うデコード数"
                                       " (アーティファクト: 10)。"},
    "reserve": {"en": "With memory: admit if the input and first token fit (input, lab), or while the batch's peak "
                      "with every request run to its output stays below memory (input+output, the artifact).",
                "ja": "メモリがあるとき: 入力と最初のトークンが入れば受け入れる (input、lab) か、すべてのリクエストが"
                      "出力を終えるまでのバッチの最大量がメモリ未満のあいだ受け入れる (input+output、"
                      "アーティファクト)。"},
    "prediction": {"en": "The predicted output of a request without its own; empty: the tenant's mean output "
                              "so far.", "ja": "予測を持たないリクエストの予測出力。空欄: "
                                               "そのテナントのこれまでの平均出力。"},
}


def pick(entry: Mapping[str, str], lang: str) -> str:
    return entry.get(lang, entry["en"])


def fill(entry: Mapping[str, str], lang: str, **values: object) -> str:
    """Words in ``lang`` (English where they have none), their ``{name}`` places filled with ``values``."""
    template = pick(entry, lang)
    return render(template, **values) if values else template


def t(lang: str, key: str, **values: object) -> str:
    return fill(TEXT[key], lang, **values)


def label(lang: str, name: str) -> str:
    """The words of a field or a results column, by its name in the core (the name itself if it has none)."""
    return pick(LABELS[name], lang) if name in LABELS else name


def short_label(lang: str, name: str) -> str:
    """A column's heading on a narrow screen (its label if it has no shorter one)."""
    return pick(SHORT[name], lang) if name in SHORT else label(lang, name)


def field_help(lang: str, name: str) -> str | None:
    """A field's sentence of help, or None where its label says enough."""
    return pick(HELP[name], lang) if name in HELP else None


def side_label(result: Mapping[str, object], lang: str) -> str:
    """A Compare side's run: its algorithm, and the conventions preset when a run shows one (the engine's
    ``conventions``, in a result's parameters only when they are not the lab's)."""
    preset = result.get("parameters", {}).get("conventions")
    name = algorithm_label(result, lang)
    return name if preset is None else t(lang, "compare.conventions", name=name, preset=preset)


def algorithm_label(result: Mapping[str, object], lang: str) -> str:
    """A run's algorithm as the menu names it ("Round Robin"); your own policy by its own label."""
    info = algorithms(str(result["mode"])).get(str(result["algorithm"]))
    if info is not None:
        return info.label.get(lang, info.name)
    return t(lang, "custom.label") if result["algorithm"] == CUSTOM else str(result["algorithm"])

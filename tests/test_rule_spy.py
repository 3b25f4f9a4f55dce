"""The rule's source view highlights what the mode's loop asked at each step (``schedulers.rule.asked``, from each
mode's ``lines.py``: the CPU loop, the router, the inference engine). Here a spy records which policy hooks the loop
really calls, step by step, for every rule of every mode on many scenarios, and the two must be the same.

What counts as "asked": a call of one of the protocol's deciding hooks that the rule has code for (its own, or an
ancestor's; CPU's ``Policy.preempts`` counts for a preemptive rule, since comparing keys is then its decision)
made by the loop itself, not by another hook (those are that hook's helpers). Calls that only keep the ready
queue in order (``push``, ``rekey``: a heap's keys, lottery's ``tickets``, HRRN's ``cohort``) or present the state
(``ordered``, ``tie_note``, the narration) are not decisions; a heap's or a FIFO's answer to "who is best?" is the
key deciding (the spy checks that it is the least key). ``start`` is asked before t=0, for step 0; ``streak`` only by
a run without a trace, so never here. ``next_instant`` only plans when ``at_instant`` must run and is
not a decision either. In engine mode a hook is asked for the step the engine records next (an admission, a decode),
except a ``join`` that lifts nothing: it belongs to the arrival just recorded (FCFS files the tenant in its heap).
"""
from __future__ import annotations

import inspect
import sys
from collections import defaultdict
from typing import Any

import pytest

import schedulers.cpu.loop as loop
from schedulers import algorithms, simulate
from schedulers.cpu import run as run_cpu
from schedulers.cpu.policies import Policy as CpuPolicy, make_policy
from schedulers.cpu.scenario import read_parameters
from schedulers.engine import ALGORITHMS as ENGINE_ALGORITHMS
from schedulers.engine.batching import Engine
from schedulers.engine.policies import POLICIES as ENGINE_POLICIES, Policy as EnginePolicy
from schedulers.engine.scenario import read as read_engine
from schedulers.exercises import cpu_exercise, engine_exercise, llm_exercise
from schedulers.llm import ALGORITHMS as LLM_ALGORITHMS
from schedulers.llm.policies import POLICIES as LLM_POLICIES, MeterPolicy, Policy as LlmPolicy
from schedulers.llm.router import Router
from schedulers.llm.scenario import read as read_llm
from schedulers.rule import asked, rule_source
from schedulers.trace import resumes_quantum

CPU_HOOKS = ("key", "choose", "preempts", "quantum", "admit", "expire", "complete", "at_instant", "start", "streak",
             "block", "wake")
LLM_HOOKS = ("arrive", "pick", "charge", "leave", "idle_reset", "withdraw")
ENGINE_HOOKS = ("join", "pick", "admit", "generate", "finish", "charge")
NOT_DECIDING = {"engine": set(),
                "cpu": {"next_instant", "detail", "parameters", "from_parameters", "trace_state"},
                "llm": {"state", "explain", "name_of", "pick_sentence", "parameters"}}
ASKING = {"schedule", "finish"}                                               # the engine asks the rule
BOOKKEEPING = {"push", "rekey", "ordered", "tie_note", "record_stretch", "continuation"}   # it keeps or shows


def cpu_scenarios() -> list[dict]:
    """Seeded exercises with every option varied: quanta, aging, boosts, levels, seeds, CFS's and EEVDF's
    parameters, and nice values (every third scenario)."""
    found = []
    for seed in range(24):
        scenario = cpu_exercise(seed, tasks=4 + seed % 4, max_arrival=6 + seed % 5)
        options = [{}, {"quantum": 1, "slice": 1}, {"quantum": 3, "aging": 2, "latency": 12, "min_granularity": 2},
                   {"boost": 5, "levels": 2, "aging": 4, "slice": 5},
                   {"boost": 3, "quanta": [1, 2, 3], "allotment": 2, "lottery_seed": 7, "latency": 3}]
        if seed % 3 == 0:
            scenario["tasks"] = [{**task, "nice": (-7, 0, 4, 19)[i % 4]} for i, task in enumerate(scenario["tasks"])]
        found.append({**scenario, **options[seed % len(options)]})
    return found


def llm_scenarios() -> list[dict]:
    found = []
    for seed in range(24):
        scenario = llm_exercise(seed, tenants=2 + seed % 4, max_join=4 + seed % 9)
        if seed % 3 == 0:
            scenario["tenants"][-1]["weight"] = "3/2"
        if seed % 4 == 1:
            scenario["quantum"] = 2
        if seed % 6 == 5:   # a fleet: actual costs, and cancellations of waiting and of running requests
            scenario["servers"] = 1 + seed // 6 % 3
            for k, tenant in enumerate(scenario["tenants"]):
                cost, count = tenant.pop("cost"), tenant.pop("count")
                tenant["costs"] = [{"cost": cost, "actual": 1 + (cost * (k + i)) % 7,
                                    **({"cancel": tenant["join"] + i + k} if (i + k) % 3 == 0 else {})}
                                   for i in range(count)]
        found.append(scenario)
    return found


def engine_scenarios() -> list[dict]:
    """Seeded exercises with slots, memory (so that a pick may not fit), weights, predictions and late arrivals."""
    found = []
    for seed in range(24):
        scenario = engine_exercise(seed, tenants=2 + seed % 3, max_arrival=4 + 3 * (seed % 4))
        scenario["slots"] = 1 + seed % 3
        if seed % 2:
            scenario["memory"] = 14 + seed % 5
        if seed % 3 == 1:
            scenario["tenants"][-1]["weight"] = "3/2"
            scenario["tenants"][0]["requests"][0]["predicted"] = 3
        if seed % 4 == 2:
            scenario["prediction"] = 4
        found.append(scenario)
    return found


def test_the_spy_watches_every_deciding_hook_of_the_protocols():
    extra = {"cpu": set(), "llm": {"idle_reset"}, "engine": set()}   # the router resets the meter family's V
    protocols = ((CpuPolicy, CPU_HOOKS, "cpu"), (LlmPolicy, LLM_HOOKS, "llm"), (EnginePolicy, ENGINE_HOOKS, "engine"))
    for protocol, hooks, mode in protocols:
        public = {name for name, member in vars(protocol).items() if callable(member) or isinstance(
            member, (classmethod, staticmethod)) if not name.startswith("_")}
        assert public - NOT_DECIDING[mode] | extra[mode] == set(hooks)
    assert "idle_reset" in vars(MeterPolicy)


def has_code(rule: type, protocol: type, name: str) -> bool:
    owner = next((klass for klass in rule.__mro__ if name in vars(klass)), protocol)
    return owner is not protocol or (name == "preempts" and rule.preemptive)


def asking(frame) -> bool:
    """Whether the engine function nearest up the stack is one that asks the rule (not one that keeps or shows)."""
    while frame is not None:
        if frame.f_code.co_name in ASKING:
            return True
        if frame.f_code.co_name in BOOKKEEPING:
            return False
        frame = frame.f_back
    return False


def spy_cpu(algorithm: str, scenario: dict, monkeypatch) -> tuple[dict, dict[int, set[str]]]:
    """Run ``scenario`` with a spy on the rule; step -> the hooks the engine called for it."""
    policy = make_policy(algorithm, read_parameters(scenario))
    watched = {name for name in CPU_HOOKS if has_code(type(policy), CpuPolicy, name)}
    calls: dict[int, set[str]] = defaultdict(set)
    state = {"depth": 0}

    def note(name: str, now: int | None, frame) -> None:
        # An expiry or a completion is the end of the step's slice; everything else is asked at an instant t, for
        # step t + 1: the instant the engine's loop is at when a hook does not say (quantum), and before the loop
        # (start), step 0.
        if now is None:
            while frame.f_code.co_name != "schedule":
                frame = frame.f_back
            now = frame.f_locals.get("t", -1)
        calls[now if name in ("expire", "complete") else now + 1].add(name)

    for name in watched:
        original = getattr(policy, name)
        signature = inspect.signature(original)

        def spied(*arguments, name=name, original=original, signature=signature):
            if state["depth"] == 0 and asking(sys._getframe(1)):
                note(name, signature.bind(*arguments).arguments.get("now"), sys._getframe(1))
            state["depth"] += 1
            try:
                return original(*arguments)
            finally:
                state["depth"] -= 1
        setattr(policy, name, spied)   # on the instance: the engine's class-level checks see the real rule

    def spying_best(best):
        def spied_best(queue, now):   # a heap's or a FIFO's order is the key's: their answer is the key deciding
            if "key" in watched and len(queue) and state["depth"] == 0 and asking(sys._getframe(1)):
                note("key", now, sys._getframe(1))
            answer = best(queue, now)
            assert answer is min(queue.tasks(), key=lambda task: (type(policy).key(policy, task, now), task.index),
                                 default=None)
            return answer
        return spied_best

    for queue in (loop.HeapQueue, loop.FifoQueue):
        monkeypatch.setattr(queue, "best", spying_best(queue.best))
    result = run_cpu({**scenario, "algorithm": algorithm}, policy=policy)
    monkeypatch.undo()
    return result, calls


def spying(rule: type, protocol: type, hooks: tuple[str, ...], step_of) -> tuple[Any, dict[int, set[str]]]:
    """A maker of ``rule`` for the router or the inference engine (its ``owner``) with a spy on the hooks it has
    code for, and what the spy sees: step -> the hooks the owner itself called for it, ``step_of(owner, hook,
    answer)`` placing each call."""
    watched = {name for name in hooks if has_code(rule, protocol, name)}
    calls: dict[int, set[str]] = defaultdict(set)
    depth = [0]

    def make(owner):
        policy = rule(owner)
        for name in watched:
            original = getattr(policy, name)

            def spied(*arguments, name=name, original=original):
                depth[0] += 1
                try:
                    answer = original(*arguments)
                finally:
                    depth[0] -= 1
                if depth[0] == 0:   # the owner asked, not another hook
                    calls[step_of(owner, name, answer)].add(name)
                return answer
            setattr(policy, name, spied)
        return policy
    return make, calls


def spy_llm(algorithm: str, scenario: dict) -> tuple[list[dict], dict[int, set[str]]]:
    make, calls = spying(LLM_POLICIES[algorithm], LlmPolicy, LLM_HOOKS,
                         lambda router, name, answer: len(router.steps))   # the step the router records next
    router = Router(read_llm({**scenario, "algorithm": algorithm}, LLM_ALGORITHMS), make)
    router.run()
    calls[len(router.steps) - 1] |= calls.pop(len(router.steps), set())   # the final reset: noted on the last step
    for index, step in enumerate(router.steps):   # with servers, on the step that emptied the queues, before others
        if "final_reset" in step and "idle_reset" in calls.get(index + 1, set()) \
                and router.steps[index + 1]["kind"] != "idle_reset":
            calls[index + 1].discard("idle_reset")
            calls[index].add("idle_reset")
    return router.steps, calls


def spy_engine(algorithm: str, scenario: dict) -> tuple[list[dict], dict[int, set[str]]]:
    # The step the engine records next; a join that lifted nothing, the arrival's just recorded.
    make, calls = spying(ENGINE_POLICIES[algorithm], EnginePolicy, ENGINE_HOOKS,
                         lambda engine, name, answer: len(engine.steps) - (name == "join" and answer is None))
    engine = Engine(read_engine({**scenario, "algorithm": algorithm}, ENGINE_ALGORITHMS), make)
    engine.run()
    return engine.steps, calls


@pytest.mark.parametrize("algorithm", list(algorithms("cpu")))
def test_cpu_highlights_are_what_the_engine_asked(algorithm, monkeypatch):
    for scenario in cpu_scenarios():
        result, calls = spy_cpu(algorithm, scenario, monkeypatch)
        assert result == simulate("cpu", {**scenario, "algorithm": algorithm})   # the spy changed nothing
        assert result["trace"]["level"] == "full"
        source = rule_source("cpu", algorithm, result["parameters"])
        for index, step in enumerate(result["steps"]):
            claimed = set(asked(source, step, resumes_quantum(result, index)))
            assert claimed == calls.get(index, set()), (scenario, index, step["decision"], step["events"])
    assert any(calls.values())


@pytest.mark.parametrize("algorithm", list(algorithms("llm")))
def test_llm_highlights_are_what_the_router_asked(algorithm):
    seen: set[str] = set()
    for scenario in llm_scenarios():
        steps, calls = spy_llm(algorithm, scenario)
        assert steps == simulate("llm", {**scenario, "algorithm": algorithm})["steps"]
        source = rule_source("llm", algorithm)
        for index, step in enumerate(steps):
            claimed = set(asked(source, step))
            assert claimed == calls.get(index, set()), (scenario, index, step["kind"])
            seen |= claimed
    assert "pick" in seen and "arrive" in seen or algorithm == "shortest"


@pytest.mark.parametrize("algorithm", list(algorithms("engine")))
def test_engine_highlights_are_what_the_engine_asked(algorithm):
    seen: set[str] = set()
    for scenario in engine_scenarios():
        steps, calls = spy_engine(algorithm, scenario)
        assert steps == simulate("engine", {**scenario, "algorithm": algorithm})["steps"]
        source = rule_source("engine", algorithm)
        for index, step in enumerate(steps):
            claimed = set(asked(source, step))
            assert claimed == calls.get(index, set()), (scenario, index, step["kind"])
            seen |= claimed
    assert {"join", "pick", "admit", "generate"} <= seen
    assert ("charge" in seen) == (algorithm != "fcfs") and ("finish" in seen) == (algorithm == "vtc-predict")


def test_the_spy_sees_the_hooks_that_were_easy_to_miss(monkeypatch):
    """DRR's leave (a dispatch that empties a queue), SFQ's final reset, MLFQ's resumed quantum and its boost."""
    steps, calls = spy_llm("drr", llm_scenarios()[0])
    assert any("leave" in hooks for hooks in calls.values())
    steps, calls = spy_llm("sfq", llm_scenarios()[0])
    assert "idle_reset" in calls[len(steps) - 1] and "final_reset" in steps[-1]
    fleet = [scenario for scenario in llm_scenarios() if "servers" in scenario]   # a waiting request's cancellation
    for algorithm in ("fifo", "rr", "drr", "sfq", "wfq"):
        seen = [spy_llm(algorithm, scenario) for scenario in fleet]
        assert any(step["kind"] == "cancel" and not step["running"] and "withdraw" in calls[index]
                   for steps, calls in seen for index, step in enumerate(steps))
    resumed = boosted = False
    for scenario in cpu_scenarios():
        result, calls = spy_cpu("mlfq", scenario, monkeypatch)
        for index, step in enumerate(result["steps"]):
            if resumes_quantum(result, index):
                resumed = True
                assert "quantum" not in calls.get(index, set())
            if any(event["kind"] == "boost" for event in step["events"]) and step["running"]:
                boosted = True
                assert "quantum" in calls[index]
    assert resumed and boosted
    # The engine: a pick that did not fit in memory (asked on the decode step that says so), FCFS's join on the
    # arrival (it lifts nothing), VTC's on its lift step, vtc-predict's refund at a finish.
    blocked = fcfs_join = vtc_join = refund = False
    for scenario in engine_scenarios():
        for algorithm in ("fcfs", "vtc", "vtc-predict"):
            steps, calls = spy_engine(algorithm, scenario)
            for index, step in enumerate(steps):
                blocked |= "blocked" in step and "pick" in calls[index]
                fcfs_join |= algorithm == "fcfs" and step["kind"] == "arrive" and "join" in calls[index]
                vtc_join |= algorithm == "vtc" and step["kind"] == "lift" and "join" in calls[index]
                refund |= "refunds" in step and "finish" in calls[index]
    assert blocked and fcfs_join and vtc_join and refund

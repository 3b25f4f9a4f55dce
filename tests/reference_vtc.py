"""Engine mode's VTC against the VTC paper's own code, the artifact's ``VTCReqQueue``, on seeded random scenarios.

    LAB_VTC_ARTIFACT=DIR python tests/reference_vtc.py [--cases N] [--show K] [--align NAME,...] [--lab s-lora]

DIR is a checkout of github.com/Ying1123/VTC-artifact (Apache-2.0). Its queue classes are imported from there at run
time (``slora/server/router/vtc_req_queue.py``, ``req_queue.py``, ``slora/server/io_struct.py``), with a stand-in
for torch, which they import but never use; nothing of it is stored here. The artifact's router loop
(``slora/server/router/manager.py``, ``RouterManager._step``) drives the model over RPC, so ``ArtifactEngine`` below
is our own small harness that does what that loop does, with a model that returns one token per request per
forward pass, one pass per time unit.

Six differences separate the lab's engine from the artifact (issue 21). ``ArtifactEngine`` can align each of them to
the lab's choice; aligned all six, it must agree with the lab on every scenario, which is what shows the list is
complete:

- ``lift``: a tenant whose queue was empty gets requests while nobody else waits: the artifact leaves its counter
  as it is (vtc_req_queue.py:44-50 lifts only to the least *waiting* counter); the lab lifts it to the largest
  counter among the tenants with a request in the batch;
- ``ties``: the artifact's least counter is ``min`` over a dict in the order tenants first arrived
  (vtc_req_queue.py:107, the dict filled at :38-40); the lab breaks ties by tenant order;
- ``first_token``: the prefill produces each new request's first token (manager.py:293-305) and nothing charges
  it; the lab charges w_out for it;
- ``finish_charge``: whenever a forward pass finishes a request, every request of that pass is charged w_out once
  more (manager.py:337-339); the lab does not;
- ``loop``: an artifact iteration is a prefill (of newly admitted requests only) or a decode (of the running
  batch), and a running batch takes new requests only after 10 decodes (manager.py:114-115, 244-285); the lab
  admits in every iteration and decodes every running request, the new ones included;
- ``memory``: the artifact admits only while the batch's estimated peak of tokens, running and new requests with
  their whole output, is strictly below the memory (req_queue.py:195-213), and refuses at arrival a request with
  input + output + 1 > memory (httpserver/manager.py:58); the lab checks held + input + 1 <= memory.

The scenarios are the lab's JSON (``schedulers.simulate("engine", ...)``); ``compare`` counts agreements on the
admission order, each admission's iteration and each request's finishing iteration.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import types
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from schedulers import ScenarioError, simulate  # noqa: E402  (after the path is set)

ENV = "LAB_VTC_ARTIFACT"
CASES = 300
DIFFERENCES = ("lift", "ties", "first_token", "finish_charge", "loop", "memory")   # issue 21's order
DECODES_BETWEEN_PREFILLS = 10   # manager.py:115, max_wait_tokens
UNLIMITED = 10**12              # the artifact needs a memory size; a scenario without one gets this
EOS = 2                         # manager's eos_id; the stand-in model never emits it and requests ignore it anyway


# --- the scenarios ------------------------------------------------------------------------------------------------

def scenario(seed: int) -> dict[str, Any]:
    """A random engine scenario in the lab's JSON: 2-4 tenants of 1-6 requests (input 1-12, output 1-16 tokens)
    arriving in bursts over the first 30 or so iterations, 1-4 slots, weights 1 or 2 (exact in binary, so the
    artifact's float counters do not round), and mostly a memory between the largest request's input + output + 1
    (the least the artifact accepts at arrival) and 40 more."""
    draw = random.Random(seed)
    tenants = []
    for order in range(draw.randint(2, 4)):
        arrival = draw.choice([0, 0, draw.randint(0, 12)])
        requests = []
        for _ in range(draw.randint(1, 6)):
            arrival += draw.choice([0, 0, 1, 2, draw.randint(3, 12)])
            requests.append({"arrival": arrival, "input": draw.randint(1, 12), "output": draw.randint(1, 16)})
        tenant = {"name": "ABCD"[order], "requests": requests}
        if draw.random() < 0.25:
            tenant["weight"] = 2
        tenants.append(tenant)
    result: dict[str, Any] = {"algorithm": "vtc", "slots": draw.randint(1, 4), "tenants": tenants}
    if draw.random() < 0.8:
        result["memory"] = max(r["input"] + r["output"] + 1 for t in tenants for r in t["requests"]) \
            + draw.randint(0, 40)
    return result


# --- the artifact -------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def torch_stand_in() -> Iterator[None]:
    """``slora/utils/infer_utils.py`` imports torch and torch.distributed at its top and uses them only inside
    timing decorators that the queues never call: empty modules do, for the import only."""
    saved = {name: sys.modules.get(name) for name in ("torch", "torch.distributed")}
    torch = types.ModuleType("torch")
    torch.distributed = types.ModuleType("torch.distributed")
    sys.modules.update({"torch": torch, "torch.distributed": torch.distributed})
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


class Artifact:
    """The artifact's classes, imported from a checkout: ``VTCReqQueue``, ``Req``, ``Batch``, ``SamplingParams``."""

    def __init__(self, directory: str | Path) -> None:
        directory = Path(directory)
        if not (directory / "slora" / "server" / "router" / "vtc_req_queue.py").is_file():
            raise FileNotFoundError(f"{directory} has no slora/server/router/vtc_req_queue.py: not a checkout of "
                                    "github.com/Ying1123/VTC-artifact")
        sys.path.insert(0, str(directory))
        try:
            with torch_stand_in():
                from slora.server.io_struct import Batch, Req
                from slora.server.router.vtc_req_queue import VTCReqQueue
                from slora.server.sampling_params import SamplingParams
        finally:
            sys.path.remove(str(directory))
        self.VTCReqQueue, self.Req, self.Batch, self.SamplingParams = VTCReqQueue, Req, Batch, SamplingParams
        self.queues: dict[frozenset[str], type] = {}

    def queue_class(self, aligned: frozenset[str]) -> type:
        """``VTCReqQueue`` with the queue-side differences in ``aligned`` (lift, ties, memory) set to the lab's."""
        if aligned not in self.queues:
            self.queues[aligned] = aligned_queue(self.VTCReqQueue, aligned)
        return self.queues[aligned]


def aligned_queue(base: type, aligned: frozenset[str]) -> type:
    """A subclass of the artifact's queue; each override is the lab's rule, and only for a difference in
    ``aligned`` (the others are the artifact's own methods)."""
    namespace: dict[str, Any] = {}

    if "ties" in aligned:
        def __init__(self, *args, **kwargs):
            base.__init__(self, *args, **kwargs)
            # The least counter is min() over ``served`` in its insertion order: fill it in tenant order first.
            for name in self.adapter_dirs:
                self.user_req_list[name] = deque()
                self.served[name] = 0
        namespace["__init__"] = __init__

    if "lift" in aligned:
        def append(self, req):
            joined = not self.user_req_list.get(req.adapter_dir)
            base.append(self, req)   # the artifact's lift to the least waiting counter, if others wait
            # batch_tenants: the tenants running at this instant, set by ArtifactEngine before the arrivals
            others_wait = any(queue for name, queue in self.user_req_list.items() if name != req.adapter_dir)
            if joined and not others_wait and self.batch_tenants:
                self.served[req.adapter_dir] = max(self.served[req.adapter_dir],
                                                   max(self.served[name] for name in self.batch_tenants))
        namespace["append"] = append

    if "memory" in aligned:
        def _init_cache_list(self, current_batch, lora_ranks):
            base._init_cache_list(self, current_batch, lora_ranks)
            self.held = sum(r.input_len + len(r.output_ids) for r in current_batch.reqs) if current_batch else 0

        def _can_add_new_req(self, req, lora_ranks):
            self.cache_len_list.append((req.input_len + 1, req.max_output_len - 1))   # counts the slots
            if self.held + req.input_len + 1 > self.max_total_tokens \
                    or len(self.cache_len_list) > self.running_max_req_size:
                return False
            self.held += req.input_len
            return True
        namespace.update(_init_cache_list=_init_cache_list, _can_add_new_req=_can_add_new_req)

    return type(f"VTCReqQueue_{'_'.join(sorted(aligned)) or 'artifact'}", (base,), namespace)


class ArtifactEngine:
    """What ``RouterManager._step`` (manager.py:208-285) does, with a model that emits one token per request per
    forward pass and a clock that counts passes. At each time t: the requests arriving at t are appended to the queue
    (tenant order, then request order, as the lab's arrivals), then one step:

    - no running batch: ``generate_new_batch(None)``; a new batch is prefilled (each request gets its first token;
      manager.py:213-242), and the decode count restarts; if nothing is admitted, the pass is empty (the artifact
      sleeps 10 ms and tries again; time jumps to the next arrival when nothing waits);
    - a running batch that has had fewer than 10 decodes since its last prefill: one decode (manager.py:244-261);
    - else ``generate_new_batch(running)``: new requests are prefilled on their own (the running ones wait) and
      merged in, and the count restarts; if none is admitted, one decode, and the next step tries again
      (manager.py:262-285).

    A decode charges every running request w_out before its token (manager.py:307-308, vtc_req_queue.py:144-147);
    a pass that finishes a request charges every request of the pass once more (manager.py:337-339). With ``loop``
    aligned, every step admits (if a slot is free) and the new requests' first token and the running requests' next
    one come in the same pass, as in the lab."""

    def __init__(self, artifact: Artifact, scenario: dict[str, Any], aligned: frozenset[str] = frozenset()) -> None:
        unknown = aligned - set(DIFFERENCES)
        if unknown:
            raise ValueError(f"unknown differences {sorted(unknown)}; known: {', '.join(DIFFERENCES)}")
        self.artifact, self.aligned = artifact, aligned
        tenants = scenario["tenants"]
        self.names = [tenant["name"] for tenant in tenants]
        self.memory = scenario.get("memory") or UNLIMITED
        self.queue = artifact.queue_class(aligned & {"lift", "ties", "memory"})(
            self.memory, self.memory, scenario.get("slots", 4), self.names,
            [float(tenant.get("weight", 1)) for tenant in tenants], "linear")
        self.queue.batch_tenants = set()
        self.lora_ranks = {name: 0 for name in self.names}   # no adapters: their memory is 0
        self.arrivals = sorted((request.get("arrival", 0), order, index, request)
                               for order, tenant in enumerate(tenants)
                               for index, request in enumerate(tenant["requests"]))
        self.admissions: list[dict[str, Any]] = []
        self.finished: dict[tuple[str, int], int] = {}
        self.refused: list[tuple[str, int]] = []
        self.running = None
        self.decodes = 0   # manager's has_wait_tokens

    def run(self) -> dict[str, Any]:
        t, next_arrival = 0, 0
        while next_arrival < len(self.arrivals) or self.queue.waiting_req_list or self.running is not None:
            if not self.queue.waiting_req_list and self.running is None:
                t = max(t, self.arrivals[next_arrival][0])
            self.queue.batch_tenants = {r.adapter_dir for r in self.running.reqs} if self.running else set()
            while next_arrival < len(self.arrivals) and self.arrivals[next_arrival][0] == t:
                self.arrive(*self.arrivals[next_arrival][1:])
                next_arrival += 1
            (self.mixed_step if "loop" in self.aligned else self.step)(t)
            t += 1
        return {"admissions": self.admissions, "finished": self.finished, "refused": self.refused}

    def arrive(self, order: int, index: int, request: dict[str, Any]) -> None:
        name = self.names[order]
        if "memory" not in self.aligned and request["input"] + request["output"] + 1 > self.memory:
            self.refused.append((name, index))   # httpserver/manager.py:58: an error before the router sees it
            return
        params = self.artifact.SamplingParams(ignore_eos=True, max_new_tokens=request["output"], stop_sequences=[])
        self.queue.append(self.artifact.Req(name, f"{name}#{index}", [0] * request["input"], params))

    def step(self, t: int) -> None:
        if self.running is None:
            batch = self.admit(t, None)
            if batch is not None:
                self.running = self.forward(t, batch, prefill=True)
                self.decodes = 0
        elif self.decodes < DECODES_BETWEEN_PREFILLS:
            self.running = self.forward(t, self.running, prefill=False)
            self.decodes += 1
        else:
            batch = self.admit(t, self.running)
            if batch is None:
                self.running = self.forward(t, self.running, prefill=False)
            else:
                if self.forward(t, batch, prefill=True) is not None:
                    self.running.merge(batch)
                self.decodes = 0

    def mixed_step(self, t: int) -> None:
        """The lab's iteration: admissions, then one pass in which the new requests get their first token and the
        running ones their next."""
        batch = self.admit(t, self.running)
        running = self.forward(t, self.running, prefill=False) if self.running is not None else None
        new = self.forward(t, batch, prefill=True) if batch is not None else None
        if running is not None and new is not None:
            running.merge(new)
        self.running = running if running is not None else new

    def admit(self, t: int, running):
        batch = self.queue.generate_new_batch(running, self.lora_ranks)
        for req in batch.reqs if batch is not None else ():
            name, index = req.request_id.rsplit("#", 1)
            self.admissions.append({"iteration": t, "tenant": name, "request": int(index)})
        return batch

    def forward(self, t: int, batch, prefill: bool):
        """One pass over ``batch``; returns the batch without its finished requests (None once empty)."""
        if not prefill:
            self.queue.update_counter(batch)          # manager.py:308: w_out for each request, before its token
        elif "first_token" in self.aligned:
            self.queue.update_counter(batch)          # the lab charges the first token too
        for req in batch.reqs:
            req.output_ids.append(0)
        if batch.mark_finished_req(EOS):
            if "finish_charge" not in self.aligned:
                self.queue.update_counter(batch)      # manager.py:339: once more for every request of the pass
            for req in batch.reqs:
                if req.has_generate_finished:
                    name, index = req.request_id.rsplit("#", 1)
                    self.finished[name, int(index)] = t
            batch.filter_finished()
        return None if batch.is_clear() else batch


# --- the lab and the comparison -------------------------------------------------------------------------------------

def lab_run(scenario: dict[str, Any]) -> dict[str, Any]:
    """The lab's run in the harness's terms; raises ScenarioError where the lab refuses the scenario."""
    result = simulate("engine", scenario, trace=False)
    return {"admissions": [{"iteration": a["iteration"], "tenant": a["tenant"], "request": a["request"]}
                           for a in result["admissions"]],
            "finished": {(row["tenant"], row["request"]): row["finished"] for row in result["requests"]},
            "refused": []}


def differences(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Readable differences between two runs (empty: they agree): the first admission that differs, the
    requests that finish at other iterations, the requests one side refused."""
    found = []
    if ours["refused"] != theirs["refused"]:
        found.append(f"refused at arrival: lab {ours['refused']}, artifact {theirs['refused']}")
    for k, (a, b) in enumerate(zip(ours["admissions"], theirs["admissions"])):
        if a != b:
            found.append(f"admission {k}: lab {label(a)}, artifact {label(b)}")
            break
    else:
        if len(ours["admissions"]) != len(theirs["admissions"]):
            found.append(f"admissions: lab {len(ours['admissions'])}, artifact {len(theirs['admissions'])}")
    late = [f"{t}#{r}: lab {ours['finished'].get((t, r))}, artifact {theirs['finished'].get((t, r))}"
            for t, r in sorted(set(ours["finished"]) | set(theirs["finished"]))
            if ours["finished"].get((t, r)) != theirs["finished"].get((t, r))]
    if late:
        found.append("finished: " + "; ".join(late[:4]) + (f"; ... ({len(late)} in all)" if len(late) > 4 else ""))
    return found


def label(admission: dict[str, Any]) -> str:
    return f"{admission['tenant']}#{admission['request']} at t={admission['iteration']}"


def outcomes(artifact: Artifact, cases: int, aligned: frozenset[str] = frozenset(),
             conventions: str | None = None) -> Iterator[tuple[int, dict[str, Any], Any, dict[str, Any]]]:
    """For the seeds 0 .. cases-1: (seed, scenario, the lab's run or its ScenarioError, the artifact's run), the lab
    with ``conventions`` as the scenario's key if given, the artifact with the differences in ``aligned`` set to
    the lab's."""
    for seed in range(cases):
        case = scenario(seed)
        theirs = ArtifactEngine(artifact, case, aligned).run()
        try:
            ours = lab_run({**case, "conventions": conventions} if conventions else case)
        except ScenarioError as error:
            ours = error
        yield seed, case, ours, theirs


def compare(artifact: Artifact, cases: int = CASES, aligned: frozenset[str] = frozenset(),
            conventions: str | None = None) -> dict[str, Any]:
    """Agreements over ``outcomes``; a scenario the lab refuses is "unsupported" (a key not built yet), not a
    disagreement."""
    counts: dict[str, Any] = {"agree": 0, "disagree": 0, "unsupported": 0, "first": []}
    for seed, _, ours, theirs in outcomes(artifact, cases, aligned, conventions):
        if isinstance(ours, ScenarioError):
            counts["unsupported"] += 1
            counts.setdefault("reason", str(ours))
            continue
        found = differences(ours, theirs)
        counts["agree" if not found else "disagree"] += 1
        if found and len(counts["first"]) < 3:
            counts["first"].append({"seed": seed, "differences": found})
    return counts


def agreement_table(artifact: Artifact, cases: int = CASES) -> list[dict[str, Any]]:
    """The measurements the spec quotes: the lab as it stands against the artifact as it is, against the artifact
    with each difference alone aligned, with the first 1, 2, ..., 6 aligned (issue 21's order), with all but one,
    and the lab's ``conventions: "s-lora"`` against the artifact without its finish charge (difference 4, which
    the preset documents and does not reproduce), and as it stands."""
    every = frozenset(DIFFERENCES)
    rows = [("none aligned (the artifact as it stands)", frozenset(), None)]
    rows += [(f"{name} only", frozenset({name}), None) for name in DIFFERENCES]
    rows += [(f"the first {k}: {', '.join(DIFFERENCES[:k])}", frozenset(DIFFERENCES[:k]), None)
             for k in range(2, len(DIFFERENCES) + 1)]
    rows += [(f"all but {name}", every - {name}, None) for name in DIFFERENCES]
    rows += [('lab with conventions "s-lora"; artifact without its finish charge', frozenset({"finish_charge"}),
              "s-lora"),
             ('lab with conventions "s-lora"; the artifact as it stands', frozenset(), "s-lora")]
    return [{"label": text, "aligned": sorted(aligned), "conventions": conventions,
             **compare(artifact, cases, aligned, conventions)} for text, aligned, conventions in rows]


def line(row: dict[str, Any], cases: int) -> str:
    text = f"{row['label']:<70} {row['agree']:>4}/{cases}"
    if row["unsupported"]:
        text += f"  ({row['unsupported']} unsupported: {row['reason']})"
    return text


def bench(cases: int = CASES) -> dict[str, Any]:
    """The bench's part: prints the agreement table, or one line saying it was not measured."""
    directory = os.environ.get(ENV)
    print(f"\nvtc: engine mode's VTC against the VTC artifact's VTCReqQueue in our harness of its router loop, "
          f"{cases} random scenarios: the lab as it stands against the artifact with the differences named set to "
          "the lab's choice", flush=True)
    if not directory:
        reason = (f"the agreement with the VTC artifact was NOT measured: {ENV} is not set "
                  "(point it to a checkout of github.com/Ying1123/VTC-artifact)")
        print(reason, flush=True)
        return {"skipped": reason}
    try:
        artifact = Artifact(directory)
    except (FileNotFoundError, ImportError) as error:
        reason = f"the agreement with the VTC artifact was NOT measured: {ENV}={directory!r}: {error}"
        print(reason, flush=True)
        return {"skipped": reason}
    rows = agreement_table(artifact, cases)
    for row in rows:
        print(line(row, cases), flush=True)
    return {"cases": cases, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=CASES, help=f"random scenarios, seeds 0..N-1 (default {CASES})")
    parser.add_argument("--align", default="", help=f"differences set to the lab's, comma-separated: "
                        f"{','.join(DIFFERENCES)} or all")
    parser.add_argument("--lab", metavar="CONVENTIONS", help='run the lab with this "conventions" key (s-lora)')
    parser.add_argument("--show", type=int, default=3, help="print the first K disagreements in full (default 3)")
    parser.add_argument("--table", action="store_true", help="print the whole agreement table instead")
    args = parser.parse_args(argv)
    directory = os.environ.get(ENV)
    if not directory:
        parser.error(f"{ENV} must name a checkout of github.com/Ying1123/VTC-artifact")
    try:
        artifact = Artifact(directory)
    except (FileNotFoundError, ImportError) as error:
        parser.error(f"{ENV}={directory!r}: {error}")
    if args.table:
        for row in agreement_table(artifact, args.cases):
            print(line(row, args.cases))
        return 0
    aligned = frozenset(DIFFERENCES) if args.align == "all" else frozenset(filter(None, args.align.split(",")))
    if not aligned <= set(DIFFERENCES):
        parser.error(f"--align: unknown {', '.join(sorted(aligned - set(DIFFERENCES)))}; known: "
                     f"{', '.join(DIFFERENCES)} or all")
    shown = 0
    for seed, case, ours, theirs in outcomes(artifact, args.cases, aligned, args.lab):
        found = [f"the lab refuses it: {ours}"] if isinstance(ours, ScenarioError) else differences(ours, theirs)
        if found and shown < args.show:
            shown += 1
            print(f"--- seed {seed}: {json.dumps(case)}")
            for text in found:
                print("   " + text)
            if not isinstance(ours, ScenarioError):
                print("   lab:      " + " ".join(label(a) for a in ours["admissions"]))
            print("   artifact: " + " ".join(label(a) for a in theirs["admissions"]))
    counts = compare(artifact, args.cases, aligned, args.lab)
    print(f"{counts['agree']}/{args.cases} agree, {counts['disagree']} disagree, {counts['unsupported']} unsupported "
          f"(aligned: {', '.join(sorted(aligned)) or 'none'}; lab conventions: {args.lab or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The reference harnesses' own parts, without the references: the parsers on outputs written here by hand in the
references' formats, the job-set and scenario generators (deterministic by seed, accepted by the lab), the
conversion to the lab's JSON, the model of MLFQ on hand-computed cases, and the VTC harness's loop on a stand-in
queue. The comparisons themselves run in ``python3 build.py bench --only ostep --only vtc``."""
from __future__ import annotations

import random
import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference_ostep as ostep
import reference_vtc as vtc
from schedulers import simulate

# scheduler.py -p SJF -l 4,1,4 -c, by hand: job 1 first, then the tie 0, 2 in job order.
SJF_OUTPUT = """ARG policy SJF
ARG jlist 4,1,4

Here is the job list, with the run time of each job:
  Job 0 ( length = 4.0 )
  Job 1 ( length = 1.0 )
  Job 2 ( length = 4.0 )


** Solutions **

Execution trace:
  [ time   0 ] Run job 1 for 1.00 secs ( DONE at 1.00 )
  [ time   1 ] Run job 0 for 4.00 secs ( DONE at 5.00 )
  [ time   5 ] Run job 2 for 4.00 secs ( DONE at 9.00 )

Final statistics:
  Job   1 -- Response: 0.00  Turnaround 1.00  Wait 0.00
  Job   0 -- Response: 1.00  Turnaround 5.00  Wait 1.00
  Job   2 -- Response: 5.00  Turnaround 9.00  Wait 5.00

  Average -- Response: 2.00  Turnaround 5.00  Wait 2.00

"""

# mlfq.py -n 2 -q 2 -a 1 -i 2 -B 4 -l 0,3,1:5,1,0 -c, by hand: job 0 blocks after each unit; at t=4 its quantum
# ends as it blocks (down to queue 0), the boost at 4 raises it while blocked, so it returns at 6 to queue 1.
MLFQ_OUTPUT = """Here is the list of inputs:
OPTIONS jobs 2
OPTIONS queues 2
OPTIONS allotments for queue  1 is   1
OPTIONS quantum length for queue  1 is   2
OPTIONS allotments for queue  0 is   1
OPTIONS quantum length for queue  0 is   2
OPTIONS boost 4
OPTIONS ioTime 2
OPTIONS stayAfterIO False
OPTIONS iobump False


Job List:
  Job  0: startTime   0 - runTime   3 - ioFreq   1
  Job  1: startTime   5 - runTime   1 - ioFreq   0


Execution Trace:

[ time 0 ] JOB BEGINS by JOB 0
[ time 0 ] Run JOB 0 at PRIORITY 1 [ TICKS 1 ALLOT 1 TIME 2 (of 3) ]
[ time 1 ] IO_START by JOB 0
IO DONE
[ time 1 ] IDLE
[ time 2 ] IDLE
[ time 3 ] IO_DONE by JOB 0
[ time 3 ] Run JOB 0 at PRIORITY 1 [ TICKS 0 ALLOT 1 TIME 1 (of 3) ]
[ time 4 ] IO_START by JOB 0
IO DONE
[ time 4 ] BOOST ( every 4 )
[ time 4 ] IDLE
[ time 5 ] JOB BEGINS by JOB 1
[ time 5 ] Run JOB 1 at PRIORITY 1 [ TICKS 1 ALLOT 1 TIME 0 (of 1) ]
[ time 6 ] FINISHED JOB 1
[ time 6 ] IO_DONE by JOB 0
[ time 6 ] Run JOB 0 at PRIORITY 1 [ TICKS 1 ALLOT 1 TIME 0 (of 3) ]
[ time 7 ] FINISHED JOB 0

Final statistics:
  Job  0: startTime   0 - response   0 - turnaround   7
  Job  1: startTime   5 - response   0 - turnaround   1

  Avg  1: startTime n/a - response 0.00 - turnaround 4.00

"""


def test_parse_scheduler_reads_jobs_trace_and_statistics():
    reference = ostep.parse_scheduler(SJF_OUTPUT)
    assert [(j["job"], j["run"]) for j in reference.jobs] == [(0, 4), (1, 1), (2, 4)]
    assert reference.timeline == ["1", "0", "0", "0", "0", "2", "2", "2", "2"]
    assert reference.metrics == {"1": {"response": 0, "turnaround": 1, "waiting": 0},
                                 "0": {"response": 1, "turnaround": 5, "waiting": 1},
                                 "2": {"response": 5, "turnaround": 9, "waiting": 5}}


def test_a_scheduler_job_set_agrees_with_the_lab_and_a_wrong_one_does_not():
    reference = ostep.parse_scheduler(SJF_OUTPUT)
    case = ostep.Case("sjf", 0, [], reference, ostep.scenario("sjf", reference))
    assert case.scenario == {"algorithm": "sjf", "tasks": [{"name": "0", "arrival": 0, "burst": 4},
                                                           {"name": "1", "arrival": 0, "burst": 1},
                                                           {"name": "2", "arrival": 0, "burst": 4}]}
    assert ostep.mismatches(case, simulate("cpu", case.scenario)) == []
    fcfs = simulate("cpu", {**case.scenario, "algorithm": "fcfs"})
    found = ostep.mismatches(case, fcfs)
    assert found[0].startswith("timeline differs from t=0")
    assert "job 1: response lab 4 reference 0, turnaround lab 5 reference 1, waiting lab 4 reference 0" in found


def test_parse_scheduler_refuses_other_text():
    with pytest.raises(ValueError):
        ostep.parse_scheduler(MLFQ_OUTPUT)


def test_parse_mlfq_reads_options_top_level_first_and_the_timeline():
    reference = ostep.parse_mlfq(MLFQ_OUTPUT)
    assert reference.options == {"queues": 2, "boost": 4, "ioTime": 2, "stayAfterIO": False, "iobump": False,
                                 "quanta": [2, 2], "allotment": [1, 1]}
    assert reference.jobs == [{"job": 0, "arrival": 0, "run": 3, "io_every": 1},
                              {"job": 1, "arrival": 5, "run": 1, "io_every": 0}]
    assert reference.timeline == ["0", None, None, "0", None, "1", "0"]
    assert reference.metrics == {"0": {"response": 0, "turnaround": 7}, "1": {"response": 0, "turnaround": 1}}
    assert reference.notes[4] == ["IO_START by JOB 0", "BOOST ( every 4 )", "IDLE"]
    assert reference.notes[3][-1] == "run 0 at level 0, ticks 0, allot 1"   # PRIORITY 1 of 2 queues: the top


def test_parse_mlfq_levels_count_down_from_the_top():
    text = MLFQ_OUTPUT.replace("allotments for queue  1 is   1", "allotments for queue  1 is   3") \
        .replace("quantum length for queue  0 is   2", "quantum length for queue  0 is   8")
    reference = ostep.parse_mlfq(text)
    assert reference.options["quanta"] == [2, 8] and reference.options["allotment"] == [3, 1]


@pytest.mark.parametrize("run, every, expected", [
    (6, 3, [3, 5, 3]),            # blocks at 3; at 6 it finishes instead
    (7, 3, [3, 5, 3, 5, 1]),
    (3, 1, [1, 5, 1, 5, 1]),
    (4, 0, [4]),                  # ioFreq 0: never
    (4, 4, [4]), (4, 9, [4]),     # it finishes before its first I/O
])
def test_bursts_of_an_mlfq_job(run, every, expected):
    assert ostep.bursts(run, every, 5) == expected


def test_an_mlfq_job_set_becomes_issue_20s_json():
    reference = ostep.parse_mlfq(MLFQ_OUTPUT.replace("stayAfterIO False", "stayAfterIO True"))
    assert ostep.scenario("mlfq-io", reference) == {
        "algorithm": "mlfq", "levels": 2, "quanta": [2, 2], "allotment": [1, 1], "boost": 4,
        "io_resets_allotment": True,
        "tasks": [{"name": "0", "arrival": 0, "bursts": [1, 2, 1, 2, 1]}, {"name": "1", "arrival": 5, "burst": 1}]}
    without_io = MLFQ_OUTPUT.replace("ioFreq   1", "ioFreq   0").replace("stayAfterIO False", "stayAfterIO True")
    converted = ostep.scenario("mlfq", ostep.parse_mlfq(without_io))
    assert "io_resets_allotment" not in converted and converted["tasks"][0] == {"name": "0", "arrival": 0, "burst": 3}


def test_the_model_reproduces_the_hand_computed_trace():
    reference = ostep.parse_mlfq(MLFQ_OUTPUT)
    case = ostep.Case("mlfq-io", 0, [], reference, ostep.scenario("mlfq-io", reference))
    assert ostep.mismatches(case, ostep.model_mlfq(case.scenario, ostep.CONVENTIONS["ostep"])) == []


def mlfq(tasks, levels=1, quanta=(2,), allotment=(1,), **parameters):
    return {"algorithm": "mlfq", "levels": levels, "quanta": list(quanta), "allotment": list(allotment),
            "tasks": [dict(zip(("name", "arrival", "burst" if isinstance(work, int) else "bursts"), (n, a, work)))
                      for n, a, work in tasks], **parameters}


def timeline(scenario, conventions):
    return "".join(entry or "-" for entry in ostep.model_mlfq(scenario, ostep.CONVENTIONS[conventions])["timeline"])


def test_model_a_the_expired_task_before_the_arrival():
    # mlfq.py -n 1 -q 2 -l 0,4,0:2,2,0: at t=2 A's quantum ends as B arrives; mlfq.py requeues A first.
    scenario = mlfq([("A", 0, 4), ("B", 2, 2)])
    assert timeline(scenario, "ostep") == "AAAABB"
    assert timeline(scenario, "lab") == "AABBAA" == "".join(simulate("cpu", scenario)["timeline"])


def test_model_b_c_the_boost_before_arrivals_and_bottom_first():
    # mlfq.py -n 3 -q 1 -a 1 -B 5 -l 0,6,0:0,6,0:4,6,0: at t=5 A and B are at the bottom, C one level up;
    # mlfq.py gathers the bottom first (A B C), the lab the higher level first (C A B).
    scenario = mlfq([("A", 0, 6), ("B", 0, 6), ("C", 4, 6)], levels=3, quanta=(1, 1, 1), allotment=(1, 1, 1), boost=5)
    assert timeline(scenario, "ostep")[:10] == "ABABCABCAB"
    assert timeline(scenario, "lab") == "ABABCCABCABCABCABC" == "".join(simulate("cpu", scenario)["timeline"])


def test_model_io_to_front_goes_ahead_of_the_running_task():
    # mlfq.py -n 1 -q 10 -i 2 -I -l 0,4,1:0,6,0: A blocks after every unit and, back, preempts B at its level.
    scenario = mlfq([("A", 0, [1, 2, 1, 2, 1, 2, 1]), ("B", 0, 6)], quanta=(10,), io_to_front=True)
    assert timeline(scenario, "ostep") == "ABBABBABBA"
    # Without it A queues behind B, which keeps the CPU for its 6 units (its quantum is 10).
    assert timeline({**scenario, "io_to_front": False}, "ostep") == "ABBBBBBA--A--A"


def test_model_io_resets_allotment_still_spends_one_when_the_quantum_ends_as_it_blocks():
    # mlfq.py -n 2 -q 2 -a 1 -S -i 1 -l 0,6,2:0,10,0: A blocks exactly as its quantum ends and goes down to
    # level 1 all the same, so back at t=3 it does not preempt B, which still has its quantum at the top.
    scenario = mlfq([("A", 0, [2, 1, 2, 1, 2]), ("B", 0, 10)], levels=2, quanta=(2, 2), allotment=(1, 1),
                    io_resets_allotment=True)
    assert timeline(scenario, "ostep") == "AABBAABBAABBBBBB"


def test_job_sets_are_deterministic_by_case_and_differ_between_cases():
    for family in ostep.FAMILIES:
        assert ostep.arguments(family, 7) == ostep.arguments(family, 7)
        assert ostep.arguments(family, 7)[-1] == "-c"
        assert len({tuple(ostep.arguments(family, k)) for k in range(20)}) == 20


def test_io_job_lists_always_have_a_job_that_blocks():
    for seed in range(200):
        jobs = [tuple(map(int, job.split(","))) for job in ostep.job_list(random.Random(seed), io=True).split(":")]
        assert any(0 < every < run for _, run, every in jobs)
        assert all(run >= 1 and every >= 0 for _, run, every in jobs)
    plain = ostep.job_list(random.Random(1), io=False)
    assert all(job.endswith(",0") for job in plain.split(":"))


def test_run_script_runs_a_script_with_its_argv_and_restores_the_process(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import sys, random\nrandom.seed(5)\nprint('args', sys.argv[1:])\n"
                      "if '-x' in sys.argv: sys.exit(3)\n")
    state, argv = random.getstate(), list(sys.argv)
    assert ostep.run_script(script, ["-a", "1"]) == "args ['-a', '1']\n"
    assert random.getstate() == state and sys.argv == argv
    with pytest.raises(RuntimeError, match="exited with 3"):
        ostep.run_script(script, ["-x"])


def test_ostep_bench_says_when_it_did_not_measure(monkeypatch, capsys):
    monkeypatch.delenv(ostep.ENV, raising=False)
    assert "NOT measured" in ostep.bench()["skipped"]
    assert "NOT measured" in capsys.readouterr().out


# --- VTC ----------------------------------------------------------------------------------------------------------

def test_vtc_scenarios_are_deterministic_valid_and_never_refused_at_arrival():
    assert vtc.scenario(3) == vtc.scenario(3) != vtc.scenario(4)
    for seed in range(100):
        case = vtc.scenario(seed)
        simulate("engine", case, trace=False)   # the lab reads every one
        memory = case.get("memory")
        if memory is not None:
            assert all(r["input"] + r["output"] + 1 <= memory for t in case["tenants"] for r in t["requests"])


class StandInReq:
    """The fields of the artifact's Req (slora/server/io_struct.py) that the harness reads."""

    def __init__(self, adapter_dir, request_id, prompt_ids, params):
        self.adapter_dir, self.request_id, self.input_len = adapter_dir, request_id, len(prompt_ids)
        self.max_output_len, self.output_ids, self.has_generate_finished = params.max_new_tokens, [], False


class StandInBatch:
    def __init__(self, reqs):
        self.reqs = reqs

    def mark_finished_req(self, eos):
        done = [r for r in self.reqs if len(r.output_ids) >= r.max_output_len]
        for r in done:
            r.has_generate_finished = True
        return bool(done)

    def filter_finished(self):
        self.reqs = [r for r in self.reqs if not r.has_generate_finished]

    def is_clear(self):
        return not self.reqs

    def merge(self, other):
        self.reqs += other.reqs


class FifoQueue:
    """A queue with the artifact queue's interface that admits in arrival order while slots last and counts the
    w_out charges (update_counter) it is asked for."""

    def __init__(self, memory, batch_max_tokens, slots, names, weights, cost):
        self.slots, self.waiting_req_list, self.charged = slots, [], 0

    def append(self, req):
        self.waiting_req_list.append(req)

    def generate_new_batch(self, running, lora_ranks):
        room = self.slots - (len(running.reqs) if running else 0)
        taken, self.waiting_req_list = self.waiting_req_list[:max(room, 0)], self.waiting_req_list[max(room, 0):]
        return StandInBatch(taken) if taken else None

    def update_counter(self, batch):
        self.charged += len(batch.reqs)


class StandInArtifact:
    Req, Batch = StandInReq, StandInBatch

    @staticmethod
    def SamplingParams(**values):
        return types.SimpleNamespace(**values)

    def queue_class(self, aligned):
        return FifoQueue


def run_loop(scenario, aligned=()):
    engine = vtc.ArtifactEngine(StandInArtifact(), scenario, frozenset(aligned))
    return engine.run(), engine.queue.charged


LONG_THEN_SHORT = {"slots": 2, "tenants": [{"name": "A", "requests": [{"arrival": 0, "input": 1, "output": 30}]},
                                           {"name": "B", "requests": [{"arrival": 1, "input": 1, "output": 5}]}]}


def test_the_artifact_loop_admits_into_a_running_batch_only_after_ten_decodes():
    # A is prefilled at 0 and decoded at 1..10; B, waiting since 1, is prefilled alone at 11 (A waits), then both
    # decode: B's 5th token at 15, A's 30th at 30 (one pass later than without the prefill of B).
    result, _ = run_loop(LONG_THEN_SHORT)
    assert result["admissions"] == [{"iteration": 0, "tenant": "A", "request": 0},
                                    {"iteration": 11, "tenant": "B", "request": 0}]
    assert result["finished"] == {("B", 0): 15, ("A", 0): 30}


def test_the_lab_loop_admits_and_decodes_in_one_iteration():
    result, _ = run_loop(LONG_THEN_SHORT, {"loop"})
    assert [a["iteration"] for a in result["admissions"]] == [0, 1]
    assert result["finished"] == {("B", 0): 5, ("A", 0): 29}


@pytest.mark.parametrize("aligned, charges", [
    ((), 3),                          # decodes at 1 and 2, and once more as the request finishes at 2
    (("first_token",), 4),            # and its first token, at the prefill
    (("finish_charge",), 2),
    (("first_token", "finish_charge"), 3),
])
def test_the_artifact_loop_charges_decodes_and_the_finish_but_not_the_first_token(aligned, charges):
    one = {"slots": 1, "tenants": [{"name": "A", "requests": [{"input": 1, "output": 3}]}]}
    assert run_loop(one, aligned)[1] == charges


def test_a_request_that_cannot_fit_whole_is_refused_at_arrival():
    case = {"slots": 1, "memory": 4, "tenants": [{"name": "A", "requests": [{"input": 2, "output": 2},
                                                                           {"input": 1, "output": 2}]}]}
    result, _ = run_loop(case)
    assert result["refused"] == [("A", 0)] and [a["request"] for a in result["admissions"]] == [1]
    assert run_loop(case, {"memory"})[0]["refused"] == []


def test_lab_runs_in_the_harness_terms_agree_with_themselves_and_differences_are_readable():
    ours = vtc.lab_run({"algorithm": "vtc", **LONG_THEN_SHORT})
    assert ours["admissions"][1] == {"iteration": 1, "tenant": "B", "request": 0}
    assert vtc.differences(ours, ours) == []
    theirs, _ = run_loop(LONG_THEN_SHORT)
    assert vtc.differences(ours, theirs) == ["admission 1: lab B#0 at t=1, artifact B#0 at t=11",
                                             "finished: A#0: lab 29, artifact 30; B#0: lab 5, artifact 15"]


def test_unknown_differences_are_refused():
    with pytest.raises(ValueError, match="unknown differences"):
        vtc.ArtifactEngine(StandInArtifact(), LONG_THEN_SHORT, frozenset({"lifts"}))


def test_the_artifact_must_be_a_checkout(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a checkout"):
        vtc.Artifact(tmp_path)


def test_the_torch_stand_in_is_there_only_during_the_import():
    before = sys.modules.get("torch")
    with vtc.torch_stand_in():
        import torch.distributed   # noqa: F401
        assert isinstance(sys.modules["torch"], types.ModuleType)
    assert sys.modules.get("torch") is before


def test_vtc_bench_says_when_it_did_not_measure(monkeypatch, capsys):
    monkeypatch.delenv(vtc.ENV, raising=False)
    assert "NOT measured" in vtc.bench()["skipped"]
    assert "NOT measured" in capsys.readouterr().out


def test_model_under_the_lab_puts_a_return_behind_the_running_task():
    # A runs [1, 2), is in I/O over [2, 4); B arrives at 3 and runs. At t=4 A returns to the front of level 0:
    # mlfq.py (-I) puts it ahead of B, which it preempts; the lab puts it behind B, which keeps its quantum of 2.
    scenario = mlfq([("A", 1, [1, 2, 1]), ("B", 3, 2)], levels=2, quanta=(2, 2), allotment=(2, 1), io_to_front=True)
    assert timeline(scenario, "ostep") == "-A-BAB"
    assert timeline(scenario, "lab") == "-A-BBA" == "".join(e or "-" for e in simulate("cpu", scenario)["timeline"])


def test_model_under_the_lab_joins_arrivals_and_returns_in_input_order():
    # A (input first) blocks over [1, 2) and returns at 2 as B arrives: the lab queues A first, mlfq.py B (arrivals
    # before returns). One level, quantum 4.
    scenario = mlfq([("A", 0, [1, 1, 1]), ("B", 2, 1)], quanta=(4,))
    assert timeline(scenario, "lab") == "A-AB" == "".join(e or "-" for e in simulate("cpu", scenario)["timeline"])
    assert timeline(scenario, "ostep") == "A-BA"

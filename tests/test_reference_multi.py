"""The multi.py harness's own parts (``reference_multi.py``) without the reference: the parser on an output written
here in multi.py's format, the conversion to the lab's JSON, what is compared, the model of multi.py's rules on
hand-computed cases (each difference of convention alone) and, with the lab's conventions, against the lab on
random job sets, the job sets; and, when LAB_OSTEP_HOMEWORK names a
checkout, the real multi.py on a few job sets of each family. The full comparison runs in
``python3 build.py bench --only ostep``."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference_multi as multi
from schedulers import simulate

# multi.py -n 2 -L a:3:0,b:3:0,c:3:0 -q 1 -r 1 -t -c (the ARG lines it prints that the harness reads), by hand:
# every tick both running jobs are descheduled in CPU order and each idle CPU, in CPU order, takes the head.
# t0: a b (queue c); t1: queue c a b -> c a; t2: queue b c a -> b c; t3: queue a b c -> a b (both done: 3 ticks);
# t4: c alone (done). Finished at 5; CPU 0 ran 5 of 5 ticks, CPU 1 4 of 5; each job changes CPU twice (a: 0 1 0,
# b: 1 0 1, c: 0 1 0): 6 migrations.
OUTPUT = """ARG seed 0
ARG job_num 3
ARG job_list a:3:0,b:3:0,c:3:0
ARG affinity
ARG per_cpu_queues False
ARG num_cpus 2
ARG quantum 1
ARG peek_interval 30

Job name:a run_time:3 working_set_size:0
Job name:b run_time:3 working_set_size:0
Job name:c run_time:3 working_set_size:0

Scheduler central queue: ['a', 'b', 'c']

   0   a      b
-----------------
   1   c      a
-----------------
   2   b      c
-----------------
   3   a      b
-----------------
   4   c      -

Finished time 5

Per-CPU stats
  CPU 0  utilization 100.00 [ warm 0.00 ]
  CPU 1  utilization 80.00 [ warm 0.00 ]

"""
THREE = [["a", "c", "b", "a", "c"], ["b", "a", "c", "b", None]]


def run(jobs: str, cpus: int, quantum: int, per_cpu: bool = False, peek: int = 0) -> multi.Run:
    """A Run as multi.py would have printed it for ``-L jobs`` (the timelines are the model's business)."""
    listed = [(name, int(length)) for name, length in (job.split(":")[:2] for job in jobs.split(","))]
    return multi.Run(listed, {"cpus": cpus, "quantum": quantum, "per_cpu": per_cpu, "peek": peek, "seed": 0,
                              "generated": False}, [], 0, [])


def test_parse_multi_reads_jobs_options_trace_and_statistics():
    parsed = multi.parse_multi(OUTPUT)
    assert parsed.jobs == [("a", 3), ("b", 3), ("c", 3)]
    assert parsed.options == {"cpus": 2, "quantum": 1, "per_cpu": False, "peek": 30, "seed": 0, "generated": False}
    assert parsed.timelines == THREE
    assert (parsed.finished, parsed.utilisation) == (5, ["100.00", "80.00"])
    assert multi.of_reference(parsed) == {"completion": {"a": 4, "b": 4, "c": 5}, "makespan": 5,
                                          "utilisation": ["100.00", "80.00"], "migrations": 6}


def test_parse_multi_refuses_other_text_and_a_short_trace_line():
    with pytest.raises(ValueError):
        multi.parse_multi("Finished time 5\n")
    with pytest.raises(ValueError, match="tick 1"):
        multi.parse_multi(OUTPUT.replace("   1   c      a", "   1   c"))


def test_a_job_set_becomes_the_labs_json():
    parsed = multi.parse_multi(OUTPUT)
    assert multi.scenario("rr", parsed) == {"algorithm": "rr", "cpus": 2, "quantum": 1, "tasks": [
        {"name": "a", "arrival": 0, "burst": 3}, {"name": "b", "arrival": 0, "burst": 3},
        {"name": "c", "arrival": 0, "burst": 3}]}
    # a job of run time 0 runs one tick in multi.py: the lab's burst 1
    zero = run("a:0:0,b:20:0", 2, 10, per_cpu=True, peek=5)
    assert multi.scenario("steal", zero) == {"algorithm": "rr", "cpus": 2, "quantum": 10, "queues": "per-cpu",
                                             "steal": True, "tasks": [{"name": "a", "arrival": 0, "burst": 1},
                                                                      {"name": "b", "arrival": 0, "burst": 20}]}
    assert multi.model_multi(zero, multi.CONVENTIONS["ostep"])[0][:2] == ["a", None]
    assert "quantum" not in multi.scenario("fcfs", run("a:3:0", 2, multi.FOREVER))


def test_the_lab_on_the_three_jobs_keeps_affinity_and_differs_from_multi_py():
    # The lab, by hand: t0 a on 0, b on 1; t1 a, b requeue in CPU order (queue c a b): c takes the lowest free CPU 0,
    # a its last CPU... taken, so CPU 1 (a migration); t2 c, a requeue (queue b c a): b takes its last CPU 1, c its
    # last CPU 0; t3 c, b requeue in CPU order (queue a c b): a takes CPU 1, c CPU 0 (c's third tick: done at 4);
    # t4 b alone on its last CPU 1 (done at 5). multi.py: a 4, b 4, c 5.
    result = simulate("cpu", multi.scenario("rr", multi.parse_multi(OUTPUT)), trace=False)
    lab = [["a", "c", "c", "c", None], ["b", "a", "b", "a", "b"]]
    assert result["timelines"] == lab
    assert multi.of_lab(result) == {"completion": {"a": 4, "b": 5, "c": 4}, "makespan": 5,
                                    "utilisation": ["80.00", "100.00"], "migrations": 1}
    assert multi.mismatches(multi.of_reference(multi.parse_multi(OUTPUT)), multi.of_lab(result)) == [
        "job b: completion 5 instead of 4", "job c: completion 4 instead of 5",
        "utilisation ['80.00', '100.00'] instead of ['100.00', '80.00']", "migrations 1 instead of 6"]
    three = multi.parse_multi(OUTPUT)
    assert multi.model_multi(three, multi.CONVENTIONS["ostep"]) == THREE
    assert multi.model_multi(three, multi.CONVENTIONS["lab"]) == lab
    # the dispatch alone makes the difference here (one tick slices: the timers agree; no stealing)
    assert multi.model_multi(three, {**multi.CONVENTIONS["ostep"], "dispatch": "affinity"}) == lab


def test_model_timer_global_against_each_tasks_own_quantum():
    # One CPU, -q 2, a:1 b:2 c:2. Global timer: t0 a (done 1); t1 b; at 2 the timer deschedules b (queue c b);
    # t2-3 c (done 4); t4 b (done 5). Own quanta: b runs t1-2 (done 3), c t3-4 (done 5).
    jobs = run("a:1:0,b:2:0,c:2:0", 1, 2)
    assert multi.model_multi(jobs, multi.CONVENTIONS["ostep"]) == [["a", "b", "c", "c", "b"]]
    assert multi.model_multi(jobs, multi.CONVENTIONS["lab"]) == [["a", "b", "b", "c", "c"]]
    lab = simulate("cpu", {"algorithm": "rr", "quantum": 2, "tasks": [
        {"name": name, "arrival": 0, "burst": burst} for name, burst in (("a", 1), ("b", 2), ("c", 2))]})
    assert lab["timeline"] == ["a", "b", "b", "c", "c"]


def test_model_steal_at_the_peek_against_every_instant_from_the_longest():
    # 2 CPUs, -p -P 2 -q 10, a:3 b:1 c:3: queues 0: a c, 1: b. b is done at 1 and CPU 1 idles. multi.py peeks at 2:
    # queue 1 is empty, the only other CPU is 0, its head c moves to queue 1 and runs t2-4 (done 5). The lab: at 1
    # CPU 1 is free with an empty queue and steals the tail of the longest queue, c, which runs t1-3 (done 4).
    jobs = run("a:3:0,b:1:0,c:3:0", 2, 10, per_cpu=True, peek=2)
    assert multi.model_multi(jobs, multi.CONVENTIONS["ostep"]) == [["a", "a", "a", None, None],
                                                                  ["b", None, "c", "c", "c"]]
    lab = [["a", "a", "a", None], ["b", "c", "c", "c"]]
    assert multi.model_multi(jobs, multi.CONVENTIONS["lab"]) == lab
    assert simulate("cpu", multi.scenario("steal", jobs), trace=False)["timelines"] == lab


def test_model_peek_steals_the_head_even_for_a_running_cpu():
    # 2 CPUs, -p -P 1 -q 10, a:3 b:1 c:1 d:2 (queues 0: a c, 1: b d). t0 a, b; b done at 1; t1 d on 1 (queue 1
    # empty). Peek at 1 came before that dispatch: queue 1 held d. Peek at 2: queue 1 is empty though CPU 1 runs d,
    # so CPU 1 takes queue 0's head c; c runs after d, at 3 (done 4). The lab steals only for a free CPU: c runs on
    # CPU 0 after a, t3 (done 4) too, but on CPU 0.
    jobs = run("a:3:0,b:1:0,c:1:0,d:2:0", 2, 10, per_cpu=True, peek=1)
    assert multi.model_multi(jobs, multi.CONVENTIONS["ostep"]) == [["a", "a", "a", None], ["b", "d", "d", "c"]]
    assert multi.model_multi(jobs, multi.CONVENTIONS["lab"]) == [["a", "a", "a", "c"], ["b", "d", "d", None]]


@st.composite
def job_sets(draw: st.DrawFn) -> tuple[str, multi.Run]:
    """A family and a job set as multi.py would run it: 2-4 CPUs, 1-8 jobs of 0-30 (0 is one tick)."""
    family = draw(st.sampled_from(sorted(multi.FAMILIES)))
    lengths = draw(st.lists(st.integers(0, 30), min_size=1, max_size=8))
    quantum = multi.FOREVER if family == "fcfs" else draw(st.integers(1, 6))
    peek = draw(st.integers(1, 8)) if family == "steal" else 0
    jobs = ",".join(f"{number}:{length}:0" for number, length in enumerate(lengths))
    return family, run(jobs, draw(st.integers(2, 4)), quantum, per_cpu=family in ("per-cpu", "steal"), peek=peek)


@settings(max_examples=60, deadline=None)
@given(job_sets())
def test_the_model_with_the_labs_conventions_is_the_lab(family_and_jobs):
    # The bench's "model lab" without the checkout: the lab's several CPUs (one queue under FCFS and RR, per-CPU
    # queues, stealing) are multi.py's rules with the lab's three conventions, tick by tick and in what is compared.
    family, jobs = family_and_jobs
    result = simulate("cpu", multi.scenario(family, jobs), trace=False)
    assert multi.model_multi(jobs, multi.CONVENTIONS["lab"]) == result["timelines"]
    assert multi.outcome([name for name, _ in jobs.jobs], result["timelines"]) == multi.of_lab(result)


def test_outcome_counts_completions_utilisation_and_migrations_from_timelines():
    found = multi.outcome(["a", "b"], [["a", "b", None], ["b", "a", {"switch": "a"}]])
    assert found == {"completion": {"a": 2, "b": 2}, "makespan": 2, "utilisation": ["100.00", "100.00"],
                     "migrations": 2}


def test_job_sets_are_deterministic_and_given_lists_are_multiples_of_the_slice():
    assert multi.arguments("rr", 3) == multi.arguments("rr", 3) != multi.arguments("rr", 5)
    for family in multi.FAMILIES:
        for case in range(1, 40, 2):
            argv = multi.arguments(family, case)
            quantum = int(argv[argv.index("-q") + 1])
            lengths = [int(job.split(":")[1]) for job in argv[argv.index("-L") + 1].split(",")]
            assert all(length > 0 for length in lengths)
            assert family == "fcfs" or all(length % quantum == 0 for length in lengths)
            assert ("-p" in argv) == (family in ("per-cpu", "steal")) and "-r" in argv
            cpus = int(argv[argv.index("-n") + 1])
            assert 2 <= cpus <= 4


def test_multi_bench_says_when_it_did_not_measure(monkeypatch, capsys):
    monkeypatch.delenv(multi.ENV, raising=False)
    assert "NOT measured" in multi.bench()["skipped"]
    assert "NOT measured" in capsys.readouterr().out


CHECKOUT = os.environ.get(multi.ENV)

# Defined only where LAB_OSTEP_HOMEWORK names a checkout: elsewhere it would be a skip, which build.py test refuses;
# the bench's ostep part says when the real multi.py was NOT measured.
if multi.is_checkout(CHECKOUT):
    def test_the_real_multi_py_matches_the_model_and_the_lab_where_they_meet():
        directory = Path(CHECKOUT)
        assert multi.parse_multi(multi.run_multi(directory, ["-n", "2", "-L", "a:3:0,b:3:0,c:3:0", "-q", "1", "-r", "1",
                                                             "-t", "-c"])).timelines == THREE
        for family in multi.FAMILIES:
            counts = multi.tally(directory, family, 12)
            assert counts["model ostep"] == counts["model lab"] == 12, (family, counts)
            if family in ("fcfs", "per-cpu"):   # the configurations where the two meet: every aligned set agrees
                assert counts["aligned"] == counts["of"] > 0, (family, counts)

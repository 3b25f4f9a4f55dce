"""OSTEP-style homework from the command line (issue 20, item 4): the seeded generator and its sizes, --problem,
--trace, and the steps' details."""
import json
import random
import subprocess
import sys

from schedulers import MODES, simulate
from schedulers.cpu.exercise import exercise
from tests.cpu_support import ARTICLE, ROOT, scenario


def cli(*argv, stdin=None):
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, input=stdin)
    return done.returncode, done.stdout, done.stderr


def test_the_generator_lives_in_the_cpu_package_and_keeps_every_old_seed():
    assert MODES["cpu"].exercise is exercise
    assert [f.name for f in MODES["cpu"].exercise_sizes] == ["jobs", "max_length", "max_arrival", "io"]
    # io 0 draws nothing more: the default exercise is the one with every size given at its default.
    for seed in range(20):
        assert exercise(seed) == exercise(seed, jobs=4, max_length=8, max_arrival=8, io=0)
    # The first task of seed 5 as random.Random(5) draws it: arrival, burst, deadline slack, priority, tickets.
    draw = random.Random(5)
    arrival, burst = draw.randint(0, 8), draw.randint(1, 8)
    first = {"arrival": arrival, "burst": burst, "deadline": arrival + burst + draw.randint(0, 16),
             "priority": draw.randint(1, 5), "tickets": 50 * draw.randint(1, 4)}
    assert first in [{k: v for k, v in task.items() if k != "name"} for task in exercise(5, jobs=1)["tasks"]]


def test_io_splits_a_task_into_bursts():
    shaped = exercise(3, jobs=30, max_length=9, io=100)
    blocking = [task for task in shaped["tasks"] if "bursts" in task]
    assert blocking and all(len(task["bursts"]) % 2 == 1 for task in blocking)
    # Every task whose CPU time is over 1 blocks at io=100.
    assert all("bursts" in task or task["burst"] == 1 for task in shaped["tasks"])
    assert exercise(3, jobs=30, max_length=9, io=100) == shaped
    assert simulate("cpu", {**shaped, "algorithm": "mlfq"})["tasks"][0]["io"] >= 0


def test_io_is_a_share_of_the_tasks_added_to_the_same_jobs():
    # The example, --seed 3 --jobs 5 --io 50: 50% of 5 is 2.5, rounded half up, 3 tasks block (a chance per
    # task gave none on this seed). The jobs are those of io 0: the same arrivals, CPU totals and other fields.
    plain = exercise(3, jobs=5)["tasks"]
    shaped = exercise(3, jobs=5, io=50)["tasks"]
    assert [task["name"] for task in shaped if "bursts" in task] == ["B", "D", "E"]
    cpu_total = [task.get("burst") or sum(task["bursts"][::2]) for task in shaped]
    assert cpu_total == [task["burst"] for task in plain]
    assert [{k: v for k, v in task.items() if k not in ("burst", "bursts")} for task in shaped] == \
        [{k: v for k, v in task.items() if k != "burst"} for task in plain]
    for seed in range(30):
        for jobs, io in ((5, 50), (4, 25), (10, 30), (3, 1)):
            tasks = exercise(seed, jobs=jobs, io=io)["tasks"]
            can_block = sum(1 for task in exercise(seed, jobs=jobs)["tasks"] if task["burst"] > 1)
            assert sum("bursts" in task for task in tasks) == min(can_block, (jobs * io + 50) // 100)


def test_problem_prints_the_jobs_and_the_question_without_the_answers():
    status, problem, _ = cli("--seed", "7", "--jobs", "3", "--algorithm", "srtf", "--problem")
    assert status == 0
    jobs = exercise(7, jobs=3)["tasks"]
    for task in jobs:
        assert f"Job {task['name']} ( arrival = {task['arrival']}, length = {task['burst']} )" in problem
    assert "Compute the response time, turnaround time and wait time of each job under srtf." in problem
    assert "completion" not in problem and "average" not in problem
    status, answers, _ = cli("--seed", "7", "--jobs", "3", "--algorithm", "srtf")
    assert status == 0 and "turnaround" in answers and "average" in answers
    status, ja, _ = cli("--seed", "7", "--jobs", "3", "--problem", "--lang", "ja")
    assert "各ジョブの到着時刻と実行時間は次のとおりです:" in ja


def test_problem_with_io_says_each_burst_and_as_json_gives_the_exercise_not_its_answers():
    # Seed 4, 5 jobs, io 50: E is 5 units of CPU in bursts [3, 1, 2] (CPU 3, I/O 1, CPU 2).
    status, problem, _ = cli("--seed", "4", "--jobs", "5", "--io", "50", "--problem")
    assert status == 0 and exercise(4, jobs=5, io=50)["tasks"][4]["bursts"] == [3, 1, 2]
    assert "Job E ( arrival = 8, length = 5: CPU 3, I/O 1, CPU 2 )" in problem
    status, ja, _ = cli("--seed", "4", "--jobs", "5", "--io", "50", "--problem", "--lang", "ja")
    assert "ジョブ E（到着 = 8、長さ = 5: CPU 3、I/O 1、CPU 2）" in ja
    # --json with --problem: the exercise as a scenario file (the algorithm and parameters given), no answers.
    status, out, _ = cli("--seed", "4", "--jobs", "5", "--io", "50", "--algorithm", "mlfq", "--boost", "5",
                         "--problem", "--json")
    assert status == 0
    assert json.loads(out) == {**exercise(4, jobs=5, io=50), "algorithm": "mlfq", "boost": 5}
    status, answers, _ = cli("--scenario", "-", stdin=out)
    assert status == 0 and "average" in answers


def test_problem_and_answers_name_everything_the_answers_depend_on():
    # A switch cost and the conventions change the answers: the question names them, the booleans as the command
    # line writes them (true/false).
    argv = ("--seed", "3", "--jobs", "5", "--io", "50", "--algorithm", "mlfq", "--io-resets-allotment", "true",
            "--switch-cost", "1", "--conventions", "ostep")
    status, problem, _ = cli(*argv, "--problem")
    assert status == 0 and "under mlfq (levels=3, quanta=[1, 2, 4], allotment=[1, 1, 1], io_resets_allotment=true, " \
        "io_to_front=false, switch_cost=1, conventions=ostep)." in problem
    status, answers, _ = cli(*argv)
    assert answers.splitlines()[0] == "algorithm: mlfq (levels=3, quanta=[1, 2, 4], allotment=[1, 1, 1], " \
        "io_resets_allotment=true, io_to_front=false, conventions=ostep)"
    mapping = json.dumps({"algorithm": "rr", "conventions": {"arrival_before_requeue": False},
                          "tasks": [{"name": "A", "arrival": 0, "burst": 3}]})
    status, problem, _ = cli("--scenario", "-", "--problem", stdin=mapping)
    assert "under rr (quantum=2, conventions=(arrival_before_requeue=false, boost_after_arrivals=true, " \
        "boost_order=top-first))." in problem


def test_trace_prints_a_line_per_event():
    path = ROOT / "test-output" / "homework-rr.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(scenario("rr", ARTICLE, quantum=2)))
    status, out, _ = cli("--scenario", str(path), "--trace")
    # RR q=2 on the article: A [0,2), B arrives at 1; at 2 C arrives before A rejoins; B [2,4).
    assert status == 0 and out.splitlines()[:8] == [
        "[ time 0 ] Arrive A", "[ time 0 ] Run A, 1 left of its quantum", "[ time 1 ] Arrive B",
        "[ time 1 ] Run A, 0 left of its quantum", "[ time 2 ] A's quantum ends", "[ time 2 ] Arrive C",
        "[ time 2 ] Run B, 1 left of its quantum", "[ time 3 ] Run B, 0 left of its quantum"]


def test_mlfq_trace_says_the_level_and_the_quantum_left():
    # quanta 2, 2: A [0,2) at level 0, B arrives at 1... A's quantum (2) ends at 2: it moves down; B [2,4) at level 0;
    # A [4,5) at level 1 with 1 left of its quantum.
    result = simulate("cpu", scenario("mlfq", [("A", 0, 3), ("B", 1, 2)], levels=2, quanta=[2, 2],
                                      step_details=True))
    lines = MODES["cpu"].render_trace(result, "en").splitlines()
    assert "[ time 1 ] Run A at level 0, 0 left of its quantum" in lines
    assert "[ time 2 ] A moves down to level 1" in lines
    assert "[ time 4 ] Run A at level 1, 1 left of its quantum" in lines
    step = result["steps"][5]
    assert (step["running"], step["level"], step["quantum_left"], step["allotment_left"]) == ("A", 1, 1, 1)


def test_mlfq_trace_says_which_quantum_of_the_allotment_it_is():
    # Two levels, quanta 1, allotment 2 (OSTEP's ALLOT): A alone, 3 units. [0,1) is the first of its 2 quanta at level
    # 0, [1,2) the second: it moves down at 2; [2,3) is the first of 2 at level 1. With allotment 1, nothing is added.
    result = simulate("cpu", scenario("mlfq", [("A", 0, 3)], levels=2, quanta=[1, 1], allotment=[2, 2],
                                      step_details=True))
    assert MODES["cpu"].render_trace(result, "en").splitlines() == [
        "[ time 0 ] Arrive A", "[ time 0 ] Run A at level 0, 0 left of its quantum, quantum 1 of 2 at this level",
        "[ time 1 ] A's quantum ends",
        "[ time 1 ] Run A at level 0, 0 left of its quantum, quantum 2 of 2 at this level",
        "[ time 2 ] A's quantum ends", "[ time 2 ] A moves down to level 1",
        "[ time 2 ] Run A at level 1, 0 left of its quantum, quantum 1 of 2 at this level", "[ time 3 ] Finished A"]
    assert "[ time 1 ] Aを実行（レベル0）、クォンタム残り0、このレベルの2回中2回目のクォンタム" in \
        MODES["cpu"].render_trace(result, "ja").splitlines()


def test_lottery_trace_names_the_winning_ticket():
    # tickets 300 and 100 along the queue A, B: seed 0 draws randrange(400) = 197 first: A holds tickets 0-299.
    first = random.Random(0).randrange(400)
    result = simulate("cpu", {"algorithm": "lottery", "step_details": True,
                              "tasks": [{"name": "A", "arrival": 0, "burst": 2, "tickets": 300},
                                        {"name": "B", "arrival": 0, "burst": 2}]})
    assert result["steps"][1]["draw"] == {"ticket": first, "tickets": 400}
    assert MODES["cpu"].render_trace(result, "en").splitlines()[2] == \
        f"[ time 0 ] Winning ticket {first} of 400: Run {'A' if first < 300 else 'B'}, 0 left of its quantum"


def test_step_details_left_out_keep_the_steps():
    plain = simulate("cpu", scenario("mlfq", ARTICLE))
    assert not any("quantum_left" in step or "draw" in step for step in plain["steps"])


def test_sizes_need_a_seed_and_are_checked():
    status, _, err = cli("--jobs", "3")
    assert status == 2 and err.startswith("error: --jobs shapes the exercise of --seed N")
    status, _, err = cli("--seed", "1", "--io", "101")
    assert status == 2 and err.startswith("error: io: must be <= 100") and "Traceback" not in err


def test_problem_and_answers_write_mlq_s_classes_in_their_compact_text():
    # The merged shown_parameters: a list of records (MLQ's classes) in the compact text of records, as --classes
    # takes it; "rr:2" (the quantum by position) is written back with its name, fcfs's record as its rule alone.
    argv = ("--seed", "3", "--jobs", "3", "--algorithm", "mlq", "--classes", "rr:2;fcfs", "--switch-cost", "1")
    status, problem, _ = cli(*argv, "--problem")
    assert status == 0 and "under mlq (classes=rr:quantum=2;fcfs, switch_cost=1)." in problem
    status, answers, _ = cli(*argv)
    assert answers.splitlines()[0] == "algorithm: mlq (classes=rr:quantum=2;fcfs)"

"""ESP workloads and scores on hand-worked schedules."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from wla.archive.kernel.errors import InputError, UsageError, WlaError
from wla.sim.esp import (
    EXAMPLE_MIX,
    PUBLISHED_MIX,
    esp_efficiency,
    esp_workload,
    idle_at_end,
    largest_first_no_reuse,
    mix_path,
    mwf_schedule,
    processor_last_use,
    read_mix,
)

# --- Most Work First -------------------------------------------------------

# P = 4; (run, procs) and work p*t:
#   j0: t=4, p=3, work 12
#   j1: t=5, p=2, work 10
#   j2: t=6, p=1, work 6
#   j3: t=2, p=1, work 2
# Rank: j0, j1, j2, j3.
# t=0: j0 takes cpus 0,1,2 (ends 4); 1 free: j1 (2) does not fit, yet j2 (1),
#      ranked after it, starts on cpu 3 (ends 6); j3 finds nothing free.
# t=4: j0 ends, cpus 0,1,2 free: j1 on 0,1 (ends 9), j3 on 2 (ends 6).
# t=6: j2 and j3 end. t=9: j1 ends.
# Starts [0, 4, 0, 4]; last busy cpu0..3 = [9, 9, 6, 6]; T_MWF = 9;
# IAE = 0 + 0 + 3 + 3 = 6.
SKIP_RUN, SKIP_PROCS = [4, 5, 6, 2], [3, 2, 1, 1]


def test_mwf_starts_a_smaller_later_job_while_a_larger_one_waits():
    start, last = mwf_schedule(SKIP_RUN, SKIP_PROCS, 4)
    assert start.tolist() == [0, 4, 0, 4]
    assert last.tolist() == [9, 9, 6, 6]
    assert idle_at_end(SKIP_RUN, SKIP_PROCS, 4) == 6


def test_mwf_allocates_the_lowest_numbered_free_processors():
    # P = 4:
    #   j0: t=6, p=2, work 12 -> cpus 0,1 over [0, 6)
    #   j1: t=8, p=1, work 8  -> cpu 2 over [0, 8)
    #   j2: t=3, p=1, work 3  -> cpu 3 over [0, 3)
    #   j3: t=1, p=2, work 2  -> nothing free at 0; at 3 only cpu 3 is free;
    #       at 6 cpus 0, 1, 3 are free and it takes 0,1 over [6, 7).
    # Last busy [7, 7, 8, 3] (cpu 3 stays at 3: taking 0,3 or 1,3 would have
    # moved it to 7); T_MWF = 8; IAE = 1 + 1 + 0 + 5 = 7.
    run, procs = [6, 8, 3, 1], [2, 1, 1, 2]
    start, last = mwf_schedule(run, procs, 4)
    assert start.tolist() == [0, 0, 0, 6]
    assert last.tolist() == [7, 7, 8, 3]
    assert idle_at_end(run, procs, 4) == 7


def test_mwf_ties_go_to_the_lower_index_and_unused_processors_count_from_zero():
    # P = 2. Both jobs have work 2, so the lower index goes first:
    #   (t=1, p=2) first on cpus 0,1 over [0, 1); then (t=2, p=1) on cpu 0
    #   over [1, 3). Last busy [3, 1].
    start, last = mwf_schedule([1, 2], [2, 1], 2)
    assert start.tolist() == [0, 1]
    assert last.tolist() == [3, 1]
    # The same two jobs in the other index order:
    #   (t=2, p=1) first on cpu 0 over [0, 2); (t=1, p=2) waits until 2, then
    #   runs on 0,1 over [2, 3). Last busy [3, 3].
    start, last = mwf_schedule([2, 1], [1, 2], 2)
    assert start.tolist() == [0, 2]
    assert last.tolist() == [3, 3]
    # One job of 1 processor on 3: cpus 1 and 2 never used, last busy 0.
    start, last = mwf_schedule([5], [1], 3)
    assert last.tolist() == [5, 0, 0]
    assert idle_at_end([5], [1], 3) == 10


def test_mwf_rejects_a_job_wider_than_the_machine():
    with pytest.raises(UsageError, match="5 processors"):
        mwf_schedule([1, 1], [2, 5], 4)


# --- ESP efficiency --------------------------------------------------------

def test_esp_efficiency_on_a_hand_worked_schedule():
    # The SKIP jobs, work 12 + 10 + 6 + 2 = 30, P = 4, submitted at 2..5 and
    # started at [2, 7, 4, 12]: ends [6, 12, 10, 14]; T = 14 - 2 = 12.
    # efficiency = 30 / (4 * 12) = 5/8; IAE of their MWF schedule is 6 (above):
    # corrected = 30 / (48 - 6) = 5/7.
    score = esp_efficiency([2, 3, 4, 5], [2, 7, 4, 12], SKIP_RUN, SKIP_PROCS, 4)
    assert score.work == 30
    assert score.elapsed == 12
    assert score.efficiency == float(Fraction(5, 8))
    assert score.idle_at_end == 6
    assert score.mwf_makespan == 9
    assert score.corrected == float(Fraction(5, 7))
    # Processors placed lowest-free-first: j0 at 2 on 0,1,2 (to 6); j2 at 4 on 3
    # (to 10); j1 at 7 on 0,1 (to 12); j3 at 12 on 0 (to 14). T_pi from the
    # test's start at 2: 12 + 10 + 4 + 8 = 34; by processor 30 / 34 = 15/17.
    assert score.to_dict() == {"work": 30, "elapsed": 12, "efficiency": 0.625, "idle_at_end": 6,
                               "corrected": float(Fraction(5, 7)), "mwf_makespan": 9, "busy_span": 34,
                               "by_processor": float(Fraction(15, 17)), "boot": 0.0, "official": 0.625,
                               "between_boots": None, "amortized": None, "second_full_end": None,
                               "second_full_limit": None, "second_full_in_time": None}


def test_the_boot_in_the_score_whole_and_amortized():
    # The hand schedule above: work 30, P = 4, T = 12. A boot of 4 s:
    # ESP's score 30 / (4 x (12 + 4)) = 15/32. Boots 48 s apart charge the
    # test 4 x 12 / 48 = 1 s: 30 / (4 x 13) = 15/26. The other scores keep
    # the boot out.
    score = esp_efficiency([2, 3, 4, 5], [2, 7, 4, 12], SKIP_RUN, SKIP_PROCS, 4, boot=4, between_boots=48)
    assert (score.boot, score.between_boots) == (4, 48)
    assert score.official == float(Fraction(15, 32))
    assert score.amortized == float(Fraction(15, 26))
    assert score.efficiency == 0.625
    plain = esp_efficiency([2, 3, 4, 5], [2, 7, 4, 12], SKIP_RUN, SKIP_PROCS, 4)
    assert plain.official == plain.efficiency and plain.amortized is None
    with pytest.raises(WlaError, match="boot"):
        esp_efficiency([0], [0], [1], [1], 1, boot=-1)
    with pytest.raises(WlaError, match="between_boots"):
        esp_efficiency([0], [0], [1], [1], 1, between_boots=0)


def test_the_second_full_job_must_end_within_90_percent_of_the_test():
    # The hand schedule: submits [2, 3, 4, 5], ends [6, 12, 10, 14]; the test
    # starts at 2 and lasts T = 12, so the limit is 10.8 s after the start.
    # Full jobs j0 and j3: the second, j3, ends at 14 - 2 = 12 > 10.8.
    late = esp_efficiency([2, 3, 4, 5], [2, 7, 4, 12], SKIP_RUN, SKIP_PROCS, 4, full=[1, 0, 0, 1])
    assert (late.second_full_end, late.second_full_in_time) == (12, False)
    assert math.isclose(late.second_full_limit, 10.8)
    # Full jobs j0 and j1: j1 ends at 12 - 2 = 10 <= 10.8.
    ok = esp_efficiency([2, 3, 4, 5], [2, 7, 4, 12], SKIP_RUN, SKIP_PROCS, 4, full=[1, 1, 0, 0])
    assert (ok.second_full_end, ok.second_full_in_time) == (10, True)
    # One full job: no rule to check.
    one = esp_efficiency([2, 3, 4, 5], [2, 7, 4, 12], SKIP_RUN, SKIP_PROCS, 4, full=[1, 0, 0, 0])
    assert one.second_full_end is one.second_full_in_time is None


def test_processors_are_placed_lowest_free_first_and_ends_free_them_first():
    last = processor_last_use([2, 7, 4, 12], SKIP_RUN, SKIP_PROCS, 4)
    assert last.tolist() == [14, 12, 6, 10]
    # One processor never used: nan, and 0 in the sum of T_pi.
    assert np.isnan(processor_last_use([0], [5], [1], 2)[1])
    with pytest.raises(UsageError, match="more than 4 processors at 1"):
        processor_last_use([0, 1], [5, 5], [3, 2], 4)


def test_largest_first_without_reuse_scores_a_perfect_1_by_processor():
    # The critique's section 3.4 pathology on the SKIP jobs: widths 3, 2, 1, 1,
    # run one after another: starts [0, 4, 9, 15], end 17. Processor 0 runs
    # all four (to 17), 1 the first two (to 9), 2 the first (to 4), 3 none:
    # sum T_pi = 17 + 9 + 4 + 0 = 30 = the work, so 1; yet P x T = 68:
    # efficiency 30/68 = 15/34, and 30 / (68 - 6) = 15/31 without MWF's IAE.
    start = largest_first_no_reuse(SKIP_RUN, SKIP_PROCS, 4)
    assert start.tolist() == [0, 4, 9, 15]
    bad = esp_efficiency([0] * 4, start, SKIP_RUN, SKIP_PROCS, 4)
    assert (bad.busy_span, bad.by_processor) == (30, 1)
    assert bad.efficiency == float(Fraction(15, 34)) and bad.corrected == float(Fraction(15, 31))
    # The dense MWF schedule (T = 9) scores no better by processor: 1 too, and
    # the hand schedule above (T = 12) scores 15/17 < 1, though it ends at
    # 14 against the serial schedule's 17.
    good = esp_efficiency([0] * 4, [0, 4, 0, 4], SKIP_RUN, SKIP_PROCS, 4)
    assert (good.busy_span, good.by_processor, good.efficiency) == (30, 1, float(Fraction(5, 6)))


def test_the_mwf_schedule_itself_scores_5_6_and_1():
    # MWF of the SKIP jobs: T = 9, efficiency 30 / 36 = 5/6; the processors
    # have no hole before their last busy time (9 + 9 + 6 + 6 = 30 = work), so
    # corrected = 30 / (36 - 6) = 1.
    start, _ = mwf_schedule(SKIP_RUN, SKIP_PROCS, 4)
    score = esp_efficiency([0, 0, 0, 0], start, SKIP_RUN, SKIP_PROCS, 4)
    assert score.efficiency == float(Fraction(5, 6))
    assert score.corrected == 1


def test_a_perfect_packing_has_no_idle_at_end():
    # P = 4: j0 (t=4, p=3, work 12), j1 (t=4, p=1, work 4), j2 (t=2, p=4,
    # work 8). Rank j0, j2, j1. At 0 j0 takes 0,1,2, j2 does not fit, j1 takes
    # 3; at 4 j2 takes all four until 6. Every processor is last busy at 6.
    run, procs = [4, 4, 2], [3, 1, 4]
    start, last = mwf_schedule(run, procs, 4)
    assert start.tolist() == [0, 0, 4]
    assert last.tolist() == [6, 6, 6, 6]
    assert idle_at_end(run, procs, 4) == 0
    # Some other schedule of them, ending at 10: 24 / 40 both ways.
    score = esp_efficiency([0, 0, 0], [0, 6, 4], run, procs, 4)
    assert score.efficiency == score.corrected == 0.6


# --- Workloads ---------------------------------------------------------------

def test_read_mix_of_the_shipped_example():
    mix = read_mix(EXAMPLE_MIX)
    assert list(mix.columns) == ["type", "fraction", "run", "count"]
    assert mix["count"][mix["fraction"] < 1].sum() == 80
    assert mix["count"][mix["fraction"] == 1].sum() == 2
    assert mix["type"].tolist()[-1] == "Z"
    assert mix["count"].dtype.kind == "i" and mix["run"].dtype.kind == "f"


# The published table, typed again from its source (Georgiou and Hautreux 2012,
# Table 1, "Normal-ESP"): type, fraction, count, run.
PUBLISHED = [("A", 0.03125, 75, 267), ("B", 0.0625, 9, 322), ("C", 0.5, 3, 534), ("D", 0.25, 3, 616),
             ("E", 0.5, 3, 315), ("F", 0.0625, 9, 1846), ("G", 0.125, 6, 1334), ("H", 0.1582, 6, 1067),
             ("I", 0.03125, 24, 1432), ("J", 0.0625, 24, 725), ("K", 0.0957, 15, 487), ("L", 0.125, 36, 366),
             ("M", 0.25, 15, 187), ("Z", 1.0, 2, 100)]


def test_the_published_mix_is_the_table_of_its_source():
    mix = read_mix(PUBLISHED_MIX)
    assert list(zip(mix["type"], mix["fraction"], mix["count"], mix["run"])) == PUBLISHED
    assert mix["count"].sum() == 230 and mix["count"][mix["fraction"] == 1].sum() == 2
    # Work / P, by hand: 625.78 + 181.13 + 801 + 462 + 472.5 + 1038.38 + 1000.5 + 1012.79
    # + 1074 + 1087.5 + 699.08 + 1647 + 701.25 + 200 = 11,002.92 s (the source says 10,773 s).
    assert round(float((mix["fraction"] * mix["count"] * mix["run"]).sum()), 2) == 11002.92
    # The comment lines cite the source and say what the table is not.
    head = PUBLISHED_MIX.read_text().split("type,fraction")[0]
    assert "Georgiou" in head and "Wong" in head and "NOT the 82-job table" in head


def test_mixes_by_name_or_path(tmp_path):
    assert mix_path(None) == EXAMPLE_MIX == mix_path("example")
    assert mix_path("published") == PUBLISHED_MIX
    assert mix_path(tmp_path / "m.csv") == tmp_path / "m.csv"


def test_comment_lines_are_skipped_but_counted(tmp_path):
    path = tmp_path / "mix.csv"
    path.write_text("# a source\ntype,fraction,run,count\n  # another\nA,0.5,100,2\nB,0.5,-1,1\n")
    with pytest.raises(InputError) as caught:
        read_mix(path)
    assert caught.value.line == 5
    path.write_text("# a source\ntype,fraction,run,count\nA,0.5,100,2\n")
    assert read_mix(path)["count"].tolist() == [2]


def test_esp_workload_batches_and_full_machine_jobs():
    w = esp_workload(read_mix(EXAMPLE_MIX), 128, seed=1, full_arrivals=[300, 1200])
    ordinary = w[w["type"] != "Z"]
    # 80 ordinary jobs in 3 batches: 27, 27, 26 at 0, 600, 1200.
    assert ordinary.groupby("submit").size().to_dict() == {0.0: 27, 600.0: 27, 1200.0: 26}
    full = w[w["type"] == "Z"]
    assert full["submit"].tolist() == [300.0, 1200.0]
    assert full["procs"].tolist() == [128, 128]
    assert full["user"].tolist() == [13, 13]  # Z is the 13th row of the mix
    # Rows by submit; a full-machine job after the batch of the same instant.
    assert w["job"].tolist() == list(range(1, 83))
    assert w["submit"].is_monotonic_increasing
    assert full.index.tolist() == [27, 81]
    assert (w["req_time"] == w["run"]).all()


def test_esp_workload_is_determined_by_its_seed():
    mix = read_mix(EXAMPLE_MIX)
    a = esp_workload(mix, 128, seed=7, full_arrivals=[300, 900])
    pd.testing.assert_frame_equal(a, esp_workload(mix, 128, seed=7, full_arrivals=[300, 900]))
    b = esp_workload(mix, 128, seed=8, full_arrivals=[300, 900])
    assert a["type"].tolist() != b["type"].tolist()
    # The same jobs, only in another order.
    key = ["type", "run", "procs"]
    assert sorted(map(tuple, a[key].to_numpy())) == sorted(map(tuple, b[key].to_numpy()))


def test_esp_workload_rounds_processors_half_up():
    # On 128: 0.15820 * 128 = 20.2496 -> 20; 0.001 * 128 = 0.128 -> at least 1.
    # On 16: 0.03125 * 16 = 0.5 -> 1 and 0.09375 * 16 = 1.5 -> 2 (half up).
    mix = pd.DataFrame({"type": ["K", "S"], "fraction": [0.15820, 0.001], "run": [10.0, 10.0], "count": [1, 1]})
    w = esp_workload(mix, 128, seed=0, full_arrivals=[], batches=1)
    assert sorted(w["procs"]) == [1, 20]
    mix = pd.DataFrame({"type": ["A", "B"], "fraction": [0.03125, 0.09375], "run": [10.0, 10.0], "count": [1, 1]})
    w = esp_workload(mix, 16, seed=0, full_arrivals=[], batches=1)
    assert dict(zip(w["type"], w["procs"])) == {"A": 1, "B": 2}


def test_esp_workload_needs_one_arrival_per_full_machine_job():
    with pytest.raises(UsageError, match=r"2 full-machine job.*but 1 arrival time.*\(full_arrivals T"):
        esp_workload(read_mix(EXAMPLE_MIX), 128, seed=1, full_arrivals=[300])


HEAD = "type,fraction,run,count\n"


@pytest.mark.parametrize("text, line, problem", [
    ("", 1, "empty file"),
    ("type,fraction,run\nA,0.5,100\n", 1, "missing column(s) count"),
    (HEAD, 1, "empty mix"),
    (HEAD + "A,0.5,100,2\nB,half,100,1\n", 3, "fraction is not a number"),
    (HEAD + "A,0,100,2\n", 2, "fraction must be in (0, 1]"),
    (HEAD + "A,1.5,100,2\n", 2, "fraction must be in (0, 1]"),
    (HEAD + "A,0.5,0,2\n", 2, "run must be > 0"),
    (HEAD + "A,0.5,abc,2\n", 2, "run is not a number"),
    (HEAD + "A,0.5,100,0\n", 2, "count must be >= 1"),
    (HEAD + "A,0.5,100,2.5\n", 2, "count is not an integer"),
    (HEAD + "A,0.5,100\n", 2, "3 fields"),
    (HEAD + "A,0.5,100,1\n\nB,0.5,-1,1\n", 4, "run must be > 0"),  # a blank line still counts
])
def test_read_mix_names_file_and_line(tmp_path, text, line, problem):
    path = tmp_path / "mix.csv"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_mix(path)
    err = caught.value
    assert (err.file, err.line) == (str(path), line)
    assert problem in err.problem
    assert str(err).startswith(f"{path}:{line}: ")


def test_read_mix_types():
    path = EXAMPLE_MIX
    mix = read_mix(path)
    row = mix[mix["type"] == "K"].iloc[0]
    assert (row["fraction"], row["run"], row["count"]) == (0.15820, 720.0, 6)
    assert np.issubdtype(mix["count"].dtype, np.integer)

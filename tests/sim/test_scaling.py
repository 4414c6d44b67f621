"""Run times and sizes scaled to change the load (sim/scaling.py), beside
the arrivals (load_factor) and the machine (procs): schedules worked out by
hand, the rounding of sizes, refusals, and SDSC-SP2 against pandas."""
import numpy as np
import pandas as pd
import pytest
from cli_run import wla
from wla.archive.kernel.errors import OptionError
from wla.sim import simulate
from wla.sim.evaluate.grid import options_at, parse_grid, points
from wla.sim.scaling import offered_load, scale_runtimes, scale_sizes


def _jobs():
    # three jobs on 4 processors, FCFS
    return pd.DataFrame({"job": [1, 2, 3], "submit": [0.0, 0.0, 10.0], "run": [100.0, 50.0, 20.0],
                         "procs": [3, 2, 1], "req_time": [200.0, 50.0, 40.0]})


def test_the_schedule_as_logged_worked_by_hand():
    r = simulate(_jobs(), procs=4, warmup=0, policy="fcfs")
    # job 1 holds 3 of 4 from 0 to 100; job 2 needs 2, waits until 100; job 3 queues behind it (FCFS)
    assert r.start.tolist() == [0, 100, 100] and r.end.tolist() == [100, 150, 120]
    assert r.metrics["offered_load"] == pytest.approx((300 + 100 + 20) / (4 * 10))


def test_run_times_scaled_with_their_requests():
    r = simulate(_jobs(), procs=4, warmup=0, policy="fcfs", runtime_scale=2)
    # runs 200, 100, 40; the requests 400, 100, 80 scale too, so truncate cuts nothing
    assert r.start.tolist() == [0, 200, 200] and r.end.tolist() == [200, 300, 240]
    assert r.estimate.tolist() == [400, 100, 80]
    assert r.metrics["offered_load"] == pytest.approx(2 * (300 + 100 + 20) / 40)


def test_sizes_scaled_rounded_half_up_and_capped_at_the_machine():
    r = simulate(_jobs(), procs=4, warmup=0, policy="fcfs", size_scale=1.5)
    # 3 x 1.5 = 4.5 -> 5, capped at 4; 2 x 1.5 = 3; 1 x 1.5 = 1.5 -> 2
    assert r.procs.tolist() == [4, 3, 2]
    assert r.counts["sizes_held"] == {"raised to 1": 0, "capped at the machine": 1}
    # job 1 takes the whole machine 0-100; job 2 (3) 100-150; job 3 (2) cannot share with it: 150-170
    assert r.start.tolist() == [0, 100, 150] and r.end.tolist() == [100, 150, 170]


def test_small_jobs_cannot_shrink_below_one_processor():
    s = scale_sizes(np.array([1, 2, 3, 5, 64]), 0.5, 128)
    # 0.5 -> 1 (half up), 1, 1.5 -> 2, 2.5 -> 3, 32
    assert s.procs.tolist() == [1, 1, 2, 3, 32] and (s.raised, s.capped) == (0, 0)
    s = scale_sizes(np.array([1, 2, 4]), 0.2, 128)  # 0.2 -> 0, 0.4 -> 0, 0.8 -> 1
    assert s.procs.tolist() == [1, 1, 1] and (s.raised, s.capped) == (2, 0)


def test_arrivals_and_run_times_offer_the_same_load_yet_schedule_differently():
    jobs = _jobs()
    arrivals = simulate(jobs, procs=4, warmup=0, policy="fcfs", load_factor=2)
    runtimes = simulate(jobs, procs=4, warmup=0, policy="fcfs", runtime_scale=2)
    assert arrivals.metrics["offered_load"] == pytest.approx(runtimes.metrics["offered_load"])
    # arrivals: job 3 at 5 instead of 10, runs as logged: waits 100 - 5; doubled run times: 200 - 10
    assert arrivals.wait.tolist() == [0, 100, 95] and runtimes.wait.tolist() == [0, 200, 190]
    # a machine twice as large offers half the load
    assert simulate(jobs, procs=8, warmup=0).metrics["offered_load"] == pytest.approx(420 / 80)


def test_scale_runtimes_and_offered_load_by_hand():
    run, est = scale_runtimes(np.array([10.0, 30.0]), np.array([20.0, 30.0]), 1.5)
    assert run.tolist() == [15.0, 45.0] and est.tolist() == [30.0, 45.0]
    assert offered_load(np.array([0.0, 100.0]), run, np.array([2, 4]), 8) == (30 + 180) / 800
    assert offered_load(np.array([5.0]), run[:1], np.array([2]), 8) is None


@pytest.mark.parametrize("setting", ["runtime_scale", "size_scale"])
def test_a_factor_of_zero_or_less_is_refused(setting):
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(OptionError, match=setting):
            simulate(_jobs(), procs=4, **{setting: bad})


@pytest.mark.parametrize("option", ["--scale-runtime", "--scale-size"])
def test_the_command_refuses_a_factor_of_zero_in_one_line(option, tmp_path):
    line = wla("simulate", "--query", "SELECT 1", option, "0", archive=tmp_path / "a.duckdb").one_error_line()
    assert option in line and "must be" in line


def test_the_scales_are_sweep_dimensions():
    grids = [parse_grid("runtime_scale=0.5:1:0.25"), parse_grid("size_scale=1,2")]
    assert grids[0] == ("runtime_scale", [0.5, 0.75, 1.0])
    pts = points(grids)
    assert len(pts) == 6 and options_at(pts[1]) == {"runtime_scale": 0.5, "size_scale": 2.0}
    with pytest.raises(OptionError, match="size_scale"):
        parse_grid("size_scale=0,1")


def test_sdsc_sp2_scaled_sizes_capped_as_pandas_counts(sp2_workload):
    import real_logs

    log = real_logs.pandas_log("SDSC-SP2-1998-4.2-cln")
    procs = np.where(log["procs"] > 0, log["procs"], log["req_procs"])
    kept = (log["run"] > 0) & (procs > 0) & (log["submit"] >= 0) & (procs <= 128)
    scaled = np.floor(procs[kept] * 1.1 + 0.5)
    r = simulate(sp2_workload, size_scale=1.1)
    assert r.counts["sizes_held"]["capped at the machine"] == int((scaled > 128).sum())
    arrivals, runtimes = simulate(sp2_workload, load_factor=1.1), simulate(sp2_workload, runtime_scale=1.1)
    # the same work offered over the same machine-time ...
    assert arrivals.metrics["offered_load"] == pytest.approx(runtimes.metrics["offered_load"], rel=1e-12)
    # ... and not the same schedule (the resampling paper, section 6.3)
    assert abs(arrivals.metrics["wait"]["mean"] / runtimes.metrics["wait"]["mean"] - 1) > 0.05


# docs/pages/reproductions/load-manipulations.md: (offered load %, mean wait s, median wait s, mean bsld)
DOCUMENTED = {
    (("load_factor", 1.05),): (86.6, 33_366, 4_326, 134.4),
    (("runtime_scale", 1.05),): (86.6, 35_462, 4_621, 137.1),
    (("size_scale", 1.05),): (86.4, 51_486, 1_825, 152.0),
    (("procs", 122),): (86.0, 45_844, 1_448, 139.7),
    (("load_factor", 0.9),): (74.2, 11_796, 0, 53.1),
    (("runtime_scale", 0.9),): (74.2, 10_616, 0, 53.1),
    (("size_scale", 0.9),): (74.5, 9_367, 0, 35.1),
    (("procs", 142),): (74.3, 9_415, 0, 36.4),
}


@pytest.mark.slow
def test_the_documented_manipulations_of_sdsc_sp2(sp2_archive_file):
    from wla.archive import open as open_archive
    from wla.sim import from_archive
    from wla.sim.evaluate.batch_means import result_batch_means

    got = {}
    for key in DOCUMENTED:
        [(name, value)] = key
        with open_archive(sp2_archive_file) as a:
            w = from_archive(a, "SDSC-SP2-1998-4.2-cln", procs=value if name == "procs" else None)
        r = simulate(w, **({} if name == "procs" else {name: value}))
        m = r.metrics
        assert not m["saturation"]["saturated"]
        got[key] = (round(100 * m["offered_load"], 1), round(m["wait"]["mean"]), round(m["wait"]["median"]),
                     round(m["bounded_slowdown"]["mean"], 1))
    assert got == DOCUMENTED
    with open_archive(sp2_archive_file) as a:
        w = from_archive(a, "SDSC-SP2-1998-4.2-cln")
    # scaled run times are scaled arrivals on a clock F times slower: exact when F is exact in binary
    for f in (0.75, 1.25):
        arrivals, runtimes = simulate(w, load_factor=f), simulate(w, runtime_scale=f)
        np.testing.assert_allclose(runtimes.wait, f * arrivals.wait, rtol=1e-9, atol=1e-6)
    r, sized = simulate(w), simulate(w, size_scale=1.05)
    for lo, hi, log_wait, sized_wait in ((1, 9, 8_137, 8_197), (33, 64, 81_289, 329_883)):
        jobs = (w.procs >= lo) & (w.procs <= hi)
        assert (round(r.wait[jobs & r.measured].mean()), round(sized.wait[jobs & sized.measured].mean())) == \
            (log_wait, sized_wait)
    rows = {b.metric: b for b in result_batch_means(r, 10)}
    wait = rows["wait"]
    assert (round(wait.mean), round(wait.ci_low), round(wait.ci_high), round(wait.lag1, 2)) == \
        (20_746, 11_193, 30_299, 0.68)
    assert [round(x) for x in wait.means][:2] == [4_659, 8_272] and round(max(wait.means)) == 41_132
    by_time = result_batch_means(r, 10, "time", ("wait",))[0]
    assert (round(by_time.mean), round(by_time.ci_low), round(by_time.ci_high)) == (23_752, 13_485, 34_018)
    assert by_time.sizes.tolist() == [6_423, 6_746, 5_734, 7_063, 7_790, 5_009, 4_480, 4_527, 3_038, 2_680]

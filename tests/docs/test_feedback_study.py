"""The feedback page's tables are what the saved study (bench/figures/
feedback-study.json, written by bench/feedback_study.py) says, and its
measure of how users offset each other's weekly work is `wla stats`'s."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import feedback_study  # noqa: E402


def test_the_page_holds_the_saved_studys_tables():
    page = (ROOT / "docs" / "pages" / "feedback.md").read_text(encoding="utf-8")
    shown = page[page.index(feedback_study.BEGIN):page.index(feedback_study.END) + len(feedback_study.END)]
    saved = json.loads((ROOT / "bench" / "figures" / "feedback-study.json").read_text(encoding="utf-8"))
    rerun = "python bench/feedback_study.py --docs-from bench/figures/feedback-study.json"
    assert shown == feedback_study.markdown(saved), f"docs/pages/feedback.md is stale: run {rerun}"
    for log in feedback_study.LOGS:
        assert (ROOT / "bench" / "figures" / f"feedback-{log}.png").is_file()
        assert f"figures/feedback-{log}.png" in page


def test_the_study_measures_the_offset_as_wla_stats_does():
    from real_logs import pandas_log
    from wla.archive.analysis.stats.offset import weekly_offset

    jobs = pandas_log("KTH-SP2-1996-2.1-cln").rename(columns={"user": "user_id"})
    procs = np.where(jobs["procs"] > 0, jobs["procs"], jobs["req_procs"]).astype(float)
    want = weekly_offset(jobs["submit"].to_numpy(float), jobs["run"].to_numpy(float), procs,
                         jobs["user_id"].to_numpy())
    assert feedback_study.balance(jobs) == want
    saved = json.loads((ROOT / "bench" / "figures" / "feedback-study.json").read_text(encoding="utf-8"))
    kept = saved["logs"]["KTH-SP2-1996-2.1-cln"]["balance"]
    assert kept["variance_ratio"] == pytest.approx(want["variance_ratio"], rel=1e-12)

"""The feedback page's tables are what the saved study (bench/figures/
feedback-study.json, written by bench/feedback_study.py) says; and the
study's measure of how users offset each other's weekly work, by hand."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import feedback_study  # noqa: E402

WEEK = 7 * 86400


def test_the_page_holds_the_saved_studys_tables():
    page = (ROOT / "docs" / "pages" / "feedback.md").read_text(encoding="utf-8")
    shown = page[page.index(feedback_study.BEGIN):page.index(feedback_study.END) + len(feedback_study.END)]
    saved = json.loads((ROOT / "bench" / "figures" / "feedback-study.json").read_text(encoding="utf-8"))
    rerun = "python bench/feedback_study.py --docs-from bench/figures/feedback-study.json"
    assert shown == feedback_study.markdown(saved), f"docs/pages/feedback.md is stale: run {rerun}"
    for log in feedback_study.LOGS:
        assert (ROOT / "bench" / "figures" / f"feedback-{log}.png").is_file()
        assert f"figures/feedback-{log}.png" in page


def test_users_who_take_turns_offset_each_other_entirely():
    # user 1 works in weeks 0 and 2, user 2 in weeks 1 and 3, 2 processor-seconds
    # each week: the total is flat (variance 0) while each user's variance is 1
    jobs = pd.DataFrame({"submit": [0.0, WEEK, 2 * WEEK, 3 * WEEK], "run": [1.0] * 4, "procs": [2] * 4,
                         "req_procs": [-1] * 4, "user_id": [1, 2, 1, 2]})
    b = feedback_study.balance(jobs)
    assert b["variance_ratio"] == 0
    assert (b["top_user"], b["top_share"]) == (1, 0.5)
    assert b["top_correlation"] == pytest.approx(-1)


def test_independent_users_give_a_ratio_near_one():
    rng = np.random.default_rng(2)
    weeks, users = 400, 5
    submit = np.repeat(np.arange(weeks) * WEEK, users) + 1.0
    user = np.tile(np.arange(users), weeks)
    run = rng.exponential(100.0, weeks * users)
    jobs = pd.DataFrame({"submit": submit, "run": run, "procs": 1, "req_procs": 1, "user_id": user})
    b = feedback_study.balance(jobs)
    by_hand = np.add.reduceat(run, np.arange(0, weeks * users, users)).var() / run.reshape(weeks, users).var(0).sum()
    assert b["variance_ratio"] == pytest.approx(by_hand)
    assert 0.8 < b["variance_ratio"] < 1.2

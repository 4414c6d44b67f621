"""Units in the pages' text (cli/site/captions.py, values.py): the figures'
captions and the quality facts of a real log, against numbers worked out
here with pandas from the file, independently of wla's SQL."""
from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest
from real_logs import pandas_log
from site_example import CLEANED, example


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return example(tmp_path_factory)


def page_text(made, name: str) -> str:
    return html.unescape((made.site / "logs" / f"{name}.html").read_text(encoding="utf-8"))


def peak(jobs: pd.DataFrame) -> tuple[int, float]:
    """The most processors in use at once and the first instant it is reached:
    a job holds its processors over [start, end), allocated else requested."""
    jobs = jobs[(jobs.submit != -1) & (jobs.wait != -1) & (jobs.run > 0)]
    procs = np.where(jobs.procs > 0, jobs.procs, np.where(jobs.req_procs > 0, jobs.req_procs, np.nan))
    start = jobs.submit + jobs.wait
    events = pd.concat([pd.DataFrame({"t": start, "d": procs}), pd.DataFrame({"t": start + jobs.run, "d": -procs})])
    level = events.dropna().groupby("t").d.sum().sort_index().cumsum()
    return int(level.max()), float(level.idxmax())


def test_the_peak_is_in_seconds_and_days(made):
    jobs = pandas_log(CLEANED)
    ceiling, at = peak(jobs)
    assert (ceiling, at) == (224, 4_586_526)
    days = at / 86400  # 53.08...
    text = page_text(made, CLEANED)
    assert f"{at:,.0f} s ({days:.1f} d)" == "4,586,526 s (53.1 d)"
    assert re.search(r'<th scope="row">peak at</th><td class="num">4,586,526 s \(53.1 d\) after the log\'s start</td>',
                     text)
    assert (f"the highest use, {ceiling} processors ({ceiling / 240:.1%}), is first reached 4,586,526 s (53.1 d) "
            "after the log's start.") in text
    assert '<th scope="row">ceiling</th><td class="num">224 processors</td>' in text
    assert '<th scope="row">machine size</th><td class="num">240 processors</td>' in text


def test_the_distributions_caption_gives_the_medians_with_units(made):
    jobs = pandas_log(CLEANED)
    run = jobs.run[jobs.run >= 0].median()
    size = pd.Series(np.where(jobs.procs > 0, jobs.procs, np.where(jobs.req_procs > 0, jobs.req_procs, np.nan)))
    assert (run, size.median()) == (943, 16)
    assert "median size 16 processors, median run time 943 s." in page_text(made, CLEANED)


def test_the_flurry_table_gives_run_times_in_a_readable_unit_and_shares_in_percent(made):
    jobs = pandas_log(CLEANED)
    week = jobs[(jobs.user == 8) & jobs.job.between(2467, 4008)]  # the week candidate's predicate
    assert len(week) == 413 and week.run.median() == 736  # 12.27 minutes
    share = len(week) / ((jobs.submit // 604800) == 4).sum()
    text = page_text(made, CLEANED)
    row = re.search(r"<tr><td[^>]*>week 4</td>(.*?)</tr>", text).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[:9] == ["2002-08-25", "8", "413", "1.17×", f"{share:.1%}", "no", "16", "12.3 min", "1.8%"]
    assert 'title="736 s"' in row

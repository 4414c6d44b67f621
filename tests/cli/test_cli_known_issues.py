"""A log's known issues on the command line: `wla info` lists them after the
figures, `wla quality` in a section after the header audit, and both give
them in --json; a version shows its original's, the user's notes last."""
from __future__ import annotations

import json
import tomllib

import pytest
from cli_run import wla
from real_logs import ROOT, data_dir

KTH, LUBLIN = "KTH-SP2-1996-2.1-cln", "lublin_256"


def _kth() -> list[dict]:
    raw = tomllib.loads((ROOT / "archive" / "analysis" / "caveats.toml").read_text())["caveat"]  # apart
    kth = [e for e in raw if "KTH-SP2-1996" in e["logs"]]
    return sorted(kth, key=lambda e: [int(p) for p in e["section"].split(".")])  # the paper's order


def _unwrapped(lines: list[str]) -> list[str]:
    """Lines as written before wrapping: a line indented by four continues the one before."""
    out: list[str] = []
    for line in lines:
        if line.startswith("    ") and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("issues") / "a.duckdb"
    assert wla("ingest", data_dir() / f"{KTH}.swf.gz", data_dir() / f"{LUBLIN}.swf.gz", archive=path).status == 0
    recipe = path.parent / "r.toml"
    recipe.write_text(f'log = "{KTH}"\nversion = "v1"\n\n[[step]]\nrule = "normalize"\n')
    assert wla("clean", recipe, archive=path).status == 0
    assert wla("note", KTH, "requests over 4 h cluster after 4 PM", "--date", "2024-02-29", archive=path).status == 0
    return path


def test_info_lists_the_known_issues_of_the_log_and_of_its_version(archive):
    for name in (KTH, f"{KTH}@v1"):
        out = _unwrapped(wla("info", name, archive=archive).out.splitlines())
        at = out.index("known issues (4):")
        assert out[at + 1:] == [f"  paper §{e['section']}, {e['topic']}: {e['text']}" for e in _kth()] + [
            "  your note of 2024-02-29: requests over 4 h cluster after 4 PM"]
    shown = json.loads(wla("info", KTH, "--json", archive=archive).out)["known_issues"]
    assert [(i["source"], i["section"], i["topic"]) for i in shown] == [
        *(("paper", e["section"], e["topic"]) for e in _kth()), ("user", None, "")]
    assert shown[-1]["noted_on"] == "2024-02-29"
    lublin = wla("info", LUBLIN, archive=archive).out.splitlines()
    assert lublin[-1] == 'known issues: none that wla knows of (`wla note LOG "..."` keeps yours)'


def test_quality_has_a_known_issues_section_after_the_header_audit(archive):
    out = wla("quality", KTH, LUBLIN, archive=archive).out
    assert out.index("header audit:") < out.index("known issues:")
    section = _unwrapped(out[out.index("known issues:"):].splitlines())
    assert section[:2] == ["known issues:", f"{KTH}: 4 known issues"]
    assert section[2:5] == [f"  paper §{e['section']}, {e['topic']}: {e['text']}" for e in _kth()]
    assert section[5:] == ["  your note of 2024-02-29: requests over 4 h cluster after 4 PM", f"{LUBLIN}: none known"]
    rows = json.loads(wla("quality", KTH, LUBLIN, "--json", archive=archive).out)
    assert {r["name"]: len(r["known_issues"]) for r in rows} == {KTH: 4, LUBLIN: 0}
    assert rows[0]["known_issues"][0] == {"source": "paper", "section": _kth()[0]["section"], "noted_on": None,
                                          "topic": _kth()[0]["topic"], "text": _kth()[0]["text"]}

"""A sweep's journal damaged every way a file can be: `--resume` either ends
with the table of the sweep never interrupted, to the bit, or refuses in one
line naming the journal, the line and what is wrong, leaving the journal as
it was and writing no table. Files that are not regular (a FIFO) are refused
without waiting on them, and a sweep killed with kill -9 leaves no worker
process behind."""
from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from cli_run import wla

LOG = "SDSC-SP2-1998-4.2-cln"
POINTS, RUNS = 2, 3  # load=0.9,1.0; runs 0..3: 8 runs in all
ARGS = ["sweep", LOG, "--grid", "load=0.9,1.0", "--runs", str(RUNS), "--seed", "4", "--workers", "1"]
FINISHED = 5  # runs in the journal of the interrupted sweep
DEADLINE = 60  # seconds: only turns a hang into a failure


def _interrupted(archive_file, save: Path, patch: str, after: int) -> None:
    """Run the sweep in this process and stop it as Ctrl-C would, at the
    call of `patch` numbered after + 1: its journal stays, no table."""
    import wla.sim.evaluate.sweep as sweep_module

    real, calls = getattr(sweep_module, patch), [0]

    def stopping(*args, **kwargs):
        calls[0] += 1
        if calls[0] > after:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    mp = pytest.MonkeyPatch()
    mp.setattr(sweep_module, patch, stopping)
    try:
        r = wla(*ARGS, "--save", save, archive=archive_file)
    finally:
        mp.undo()
    assert r.status == 130, r.err
    assert not save.exists()


@pytest.fixture(scope="module")
def made(sp2_archive_file, tmp_path_factory):
    """The uninterrupted table; the journal of the same sweep stopped after
    FINISHED runs; and a journal holding every run (stopped while making the table)."""
    folder = tmp_path_factory.mktemp("journal")
    whole = folder / "whole.parquet"
    r = wla(*ARGS, "--save", whole, archive=sp2_archive_file)
    assert r.status == 0, r.err
    part = folder / "part.parquet"
    _interrupted(sp2_archive_file, part, "sweep_run", FINISHED)
    full = folder / "full.parquet"
    _interrupted(sp2_archive_file, full, "_table", 0)
    partial = Path(f"{part}.journal").read_bytes()
    complete = Path(f"{full}.journal").read_bytes()
    assert partial.count(b"\n") == 1 + FINISHED
    assert complete.count(b"\n") == 1 + POINTS * (RUNS + 1)
    return {"archive": sp2_archive_file, "table": pd.read_parquet(whole), "partial": partial, "complete": complete}


def _hash(journal: bytes) -> str:
    return json.loads(journal.split(b"\n")[0])["hash"]


def _lines(journal: bytes) -> list[bytes]:
    return journal.split(b"\n")[:-1]


def sign(sweep_hash: str, point, run, values: list) -> str:
    """A journal line as the format defines it: the row, then the first 16
    hex digits of sha256(the sweep's hash + the row's compact JSON)."""
    row = [point, run, *values]
    body = json.dumps(row, separators=(",", ":"))
    check = hashlib.sha256((sweep_hash + body).encode()).hexdigest()[:16]
    return json.dumps([*row, check])


def resume(made, tmp_path, journal: bytes):
    """`wla sweep ... --resume` on this journal: the result and the paths."""
    out = tmp_path / "s.parquet"
    path = tmp_path / "s.parquet.journal"
    path.write_bytes(journal)
    return wla(*ARGS, "--save", out, "--resume", archive=made["archive"]), out, path


def refused(made, tmp_path, journal: bytes, line: int) -> str:
    """Resuming is refused in one line naming the journal and `line`; the
    journal is left as it was and no table is written."""
    r, out, path = resume(made, tmp_path, journal)
    message = r.one_error_line()
    assert str(path) in message and f"line {line}" in message, message
    assert "remove" in message, message
    assert path.read_bytes() == journal
    assert not out.exists()
    return message


def resumed(made, tmp_path, journal: bytes) -> None:
    r, out, path = resume(made, tmp_path, journal)
    assert r.status == 0, r.err
    pd.testing.assert_frame_equal(pd.read_parquet(out), made["table"], check_exact=True)
    assert not path.exists()


def test_the_journal_resumes_to_the_uninterrupted_table(made, tmp_path):
    resumed(made, tmp_path, made["partial"])


def test_a_complete_journal_resumes_to_the_uninterrupted_table(made, tmp_path):
    resumed(made, tmp_path, made["complete"])


@pytest.mark.parametrize("cut", [1, 7, 20])
def test_a_last_line_cut_short_is_redone(made, tmp_path, cut):
    """A kill in the middle of writing a line leaves it without its newline:
    that run is done again and the table is the same."""
    resumed(made, tmp_path, made["partial"][:-cut])


def test_every_line_carries_its_check(made):
    """Each line is [point, run, values..., check], the check over the
    sweep's hash and the row: computed here by hand."""
    h = _hash(made["complete"])
    keys = set()
    for line in _lines(made["complete"])[1:]:
        point, run, *values, check = json.loads(line)
        assert json.loads(sign(h, point, run, values))[-1] == check
        keys.add((point, run))
    assert keys == {(p, r) for p in range(POINTS) for r in range(RUNS + 1)}
    head = json.loads(_lines(made["complete"])[0])
    assert head["format"] == "wla sweep journal 2"


def _row(journal: bytes, k: int) -> list:
    return json.loads(_lines(journal)[k])


def _replace(journal: bytes, k: int, new: bytes | list[bytes]) -> bytes:
    lines = _lines(journal)
    lines[k:k + 1] = new if isinstance(new, list) else [new]
    return b"".join(x + b"\n" for x in lines)


def _edited_value(j: bytes) -> bytes:
    row = _row(j, 2)
    text = json.dumps(row)
    k = 2 if row[2] is not None else 3
    edited = row[:k] + [row[k] * 1.5 + 1.0] + row[k + 1:]
    assert json.dumps(edited) != text
    return _replace(j, 2, json.dumps(edited).encode())


def _signed(j: bytes, k: int, point=None, run=None, values=None, sweep_hash=None) -> bytes:
    p, r, *v, _ = _row(j, k)
    line = sign(sweep_hash or _hash(j), p if point is None else point, r if run is None else run,
                v if values is None else values)
    return _replace(j, k, line.encode())


def _literal(j: bytes, literal: str) -> bytes:
    """A value written as a JSON extension literal, the check made over that very text."""
    p, r, *v, _ = _row(j, 3)
    body = "[" + ",".join([str(p), str(r), literal, *(json.dumps(x) for x in v[1:])]) + "]"
    check = hashlib.sha256((_hash(j) + body).encode()).hexdigest()[:16]
    return _replace(j, 3, (body[:-1] + f',"{check}"]').encode())


def _old_format(j: bytes) -> bytes:
    head = json.loads(_lines(j)[0])
    head["format"] = "wla sweep journal 1"
    old = [json.dumps(head).encode()] + [json.dumps(json.loads(x)[:-1]).encode() for x in _lines(j)[1:]]
    return b"".join(x + b"\n" for x in old)


# damage -> (the line named, words of the refusal)
DAMAGES = {
    "edited-value": (lambda j: _edited_value(j), 3, "check"),
    "duplicated-line": (lambda j: _replace(j, 2, [_lines(j)[2], _lines(j)[2]]), 4, "twice"),
    "duplicated-line-apart": (lambda j: j + _lines(j)[1] + b"\n", FINISHED + 2, "twice"),
    "point-minus-1": (lambda j: _signed(j, 1, point=-1), 2, "point -1"),
    "point-999": (lambda j: _signed(j, 1, point=999), 2, "point 999"),
    "run-runs+1": (lambda j: _signed(j, 2, run=RUNS + 1), 3, f"run {RUNS + 1}"),
    "run-as-float": (lambda j: _signed(j, 2, run=1.0), 3, "run"),
    "point-as-bool": (lambda j: _signed(j, 2, point=True), 3, "point"),
    "infinity": (lambda j: _literal(j, "Infinity"), 4, "Infinity"),
    "minus-infinity-point": (lambda j: _replace(j, 2, b"[-Infinity" + _lines(j)[2][_lines(j)[2].index(b","):]), 3,
                             "point -Infinity"),
    "nan-literal": (lambda j: _literal(j, "NaN"), 4, "NaN"),
    "overflowing-value": (lambda j: _literal(j, "1e400"), 4, "finite"),
    "string-value": (lambda j: _signed(j, 1, values=["1"] + _row(j, 1)[3:-1]), 2, "value"),
    "blank-line": (lambda j: _replace(j, 2, [b"", _lines(j)[2]]), 3, "blank"),
    "garbage": (lambda j: _replace(j, 2, b"\x07garbage{]"), 3, "not a journal line"),
    "json-object": (lambda j: _replace(j, 2, b'{"point": 0, "run": 1}'), 3, "not a journal line"),
    "too-few-values": (lambda j: _signed(j, 1, values=_row(j, 1)[2:-2]), 2, "values"),
    "too-many-values": (lambda j: _signed(j, 1, values=_row(j, 1)[2:-1] + [1.0]), 2, "values"),
    "no-check": (lambda j: _replace(j, 2, json.dumps(_row(j, 2)[:-1]).encode()), 3, "check"),
    "bad-check": (lambda j: _replace(j, 2, json.dumps(_row(j, 2)[:-1] + ["0" * 16]).encode()), 3, "check"),
    "another-sweeps-line": (lambda j: _signed(j, 2, sweep_hash="0" * 64), 3, "check"),
    "utf-16": (lambda j: j.decode().encode("utf-16"), 1, "UTF-8"),
    "binary-line": (lambda j: _replace(j, 3, b"\xff\xfe\x00\x01[0,1]"), 4, "UTF-8"),
    "nul-bytes": (lambda j: _replace(j, 3, b"\x00" * 40), 4, "not a journal line"),
    "overlong-line": (lambda j: _replace(j, 2, b"[" + b"1," * 50_000 + b"1]"), 3, "longer"),
    "old-format": (_old_format, 1, "format"),
    "another-sweep": (lambda j: j.replace(_hash(j).encode(), b"0" * 64, 1), 1, "another sweep"),
    "not-a-journal": (lambda j: b"hello\n" + j, 1, "not a wla sweep journal"),
    "empty": (lambda j: b"", 1, "empty"),
    "head-cut-short": (lambda j: j[:40], 1, "not a wla sweep journal"),
    "garbage-tail": (lambda j: j + b"\xff\xfe garbage", FINISHED + 2, "cut short"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_journal_is_refused_in_one_line(made, tmp_path, damage):
    make, line, words = DAMAGES[damage]
    journal = make(made["partial"])
    assert journal != made["partial"]
    message = refused(made, tmp_path, journal, line)
    assert words in message, message


@pytest.mark.parametrize("damage", ["infinity", "utf-16", "duplicated-line"])
def test_in_a_process_of_its_own_the_refusal_is_the_only_line(made, tmp_path, damage):
    """No warning of numpy or Python before the refusal, no traceback: one
    line, in a real process."""
    make, line, words = DAMAGES[damage]
    out, journal = tmp_path / "s.parquet", tmp_path / "s.parquet.journal"
    journal.write_bytes(make(made["partial"]))
    p = subprocess.run([sys.executable, "-m", "wla.cli.main", "-a", str(made["archive"]), *ARGS, "--save", str(out),
                        "--resume"], capture_output=True, text=True, timeout=DEADLINE,
                       env={**os.environ, "WLA_PROGRESS": "0"})
    assert p.returncode == 1 and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("wla: "), p.stderr
    assert f"{journal}, line {line}:" in p.stderr and words in p.stderr, p.stderr
    assert journal.read_bytes() == make(made["partial"]) and not out.exists()


def test_the_damages_are_refused_in_a_complete_journal_too(made, tmp_path):
    """Nothing left to run is no reason to accept a damaged line."""
    for damage in ("edited-value", "duplicated-line", "run-runs+1", "bad-check"):
        make, line, words = DAMAGES[damage]
        folder = tmp_path / damage
        folder.mkdir()
        assert words in refused(made, folder, make(made["complete"]), line)


def test_a_fifo_journal_is_refused_without_waiting(made, tmp_path):
    """A FIFO where the journal goes would hold the sweep for a writer that never
    comes: refused at once, with --resume and without."""
    out = tmp_path / "s.parquet"
    journal = tmp_path / "s.parquet.journal"
    os.mkfifo(journal)
    env = {**os.environ, "WLA_PROGRESS": "0"}
    for extra in (["--resume"], []):
        p = subprocess.run([sys.executable, "-m", "wla.cli.main", "-a", str(made["archive"]), *ARGS,
                            "--save", str(out), *extra], capture_output=True, text=True, timeout=DEADLINE, env=env)
        assert p.returncode == 1, p.stderr
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("wla: ") and "Traceback" not in p.stderr
        assert str(journal) in p.stderr and "FIFO" in p.stderr, p.stderr
        assert not out.exists()


def test_a_journal_that_is_a_folder_or_a_device_is_refused(made, tmp_path):
    journal = tmp_path / "s.parquet.journal"
    journal.mkdir()
    r = wla(*ARGS, "--save", tmp_path / "s.parquet", "--resume", archive=made["archive"])
    assert "folder" in r.one_error_line()
    journal.rmdir()
    journal.symlink_to("/dev/zero")
    r = wla(*ARGS, "--save", tmp_path / "s.parquet", "--resume", archive=made["archive"])
    assert "character device" in r.one_error_line()


def test_a_fifo_config_is_refused_without_waiting(made, tmp_path):
    config = tmp_path / "sweep.toml"
    os.mkfifo(config)
    p = subprocess.run([sys.executable, "-m", "wla.cli.main", "-a", str(made["archive"]), "sweep", "--config",
                        str(config)], capture_output=True, text=True, timeout=DEADLINE,
                       env={**os.environ, "WLA_PROGRESS": "0"})
    assert p.returncode == 1, p.stderr
    assert p.stderr.count("\n") == 1 and str(config) in p.stderr and "FIFO" in p.stderr, p.stderr


# -- the workers of a killed sweep -----------------------------------------------------------------

def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` is still a running process (a zombie waiting for its
    reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_a_killed_sweep_leaves_no_worker_behind(made, tmp_path):
    out = tmp_path / "k.parquet"
    journal = tmp_path / "k.parquet.journal"
    args = ["sweep", LOG, "--grid", "load=0.9,1.0", "--runs", "400", "--seed", "4", "--workers", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "wla.cli.main", "-a", str(made["archive"]), *args, "--save",
                             str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "WLA_PROGRESS": "0"})
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 300  # only turns a hang into a failure
        while proc.poll() is None and time.monotonic() < deadline:
            if journal.exists() and journal.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read()
        workers = _children(proc.pid)
        assert len(workers) == 2, workers
        assert all(_alive(w) for w in workers)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=DEADLINE)
        deadline = time.monotonic() + 30
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [w for w in workers if _alive(w)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for w in workers:  # left by a failing wla: not left running after the test
            if _alive(w):
                os.kill(w, signal.SIGKILL)
        proc.stderr.close()


# -- random damage ------------------------------------------------------------------------------------

def _damage(rng: random.Random, j: bytes) -> bytes:
    """One random byte-level damage: a byte changed, inserted or deleted, a
    range repeated or moved, a cut."""
    data = bytearray(j)
    k = rng.randrange(len(data))
    kind = rng.choice(["flip", "set", "insert", "delete", "repeat", "swap", "cut"])
    if kind == "flip":
        data[k] ^= 1 << rng.randrange(8)
    elif kind == "set":
        data[k] = rng.choice(b"0123456789-.,[]{}\"eE+ \n\x00\xff")
    elif kind == "insert":
        data[k:k] = bytes([rng.randrange(256)])
    elif kind == "delete":
        del data[k]
    elif kind == "repeat":
        end = min(len(data), k + rng.randrange(1, 200))
        data[end:end] = data[k:end]
    elif kind == "swap":
        end = min(len(data), k + rng.randrange(1, 60))
        piece = bytes(data[k:end])
        del data[k:end]
        at = rng.randrange(len(data) + 1)
        data[at:at] = piece
    else:
        del data[k:]
    return bytes(data)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["complete", "partial"])
def test_random_damage_resumes_the_same_or_is_refused(made, tmp_path, which):
    rng = random.Random(2024)
    outcomes = {"resumed": 0, "refused": 0}
    for i in range(150):
        journal = _damage(rng, made[which])
        folder = tmp_path / str(i)
        folder.mkdir()
        r, out, path = resume(made, folder, journal)
        if r.status == 0:
            pd.testing.assert_frame_equal(pd.read_parquet(out), made["table"], check_exact=True)
            outcomes["resumed"] += 1
        else:
            message = r.one_error_line()
            assert str(path) in message and "line " in message, message
            assert path.read_bytes() == journal and not out.exists()
            outcomes["refused"] += 1
    assert outcomes["refused"] > 0 and outcomes["resumed"] > 0, outcomes

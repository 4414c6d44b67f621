"""The README's examples, read out of it and run as a user would, in order.

Every line `$ wla ...` of a shell block is a command; the lines after it, up
to the next `$` line or the end of the block, are what it prints. A command
that shows nothing is still run and must succeed. `$ zcat ...` lines run in
a shell; any other `$` line (sacct, on the user's cluster) is shown only.
Python blocks run too, in the same folder, at their place in the README.

What is shown must be what the command prints, except that:
- a line `...` stands for any number of lines, and `...` inside a line for
  any text (the README shows excerpts of long outputs);
- a duration (`in 1.45 s`) is any duration: it depends on the machine.

The examples run in a folder of their own, beside a `shared/data/swf` that
is the real logs, so `../shared/data/swf` means what it means in the
project; `schema` and `tests` there are the project's.

Run as a script, this prints what each example prints now, to update the
README with: `python tests/readme_examples.py [FIRST_LINE]`.
"""
from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# Examples that need minutes, left out of the default test (the README says
# so); tests/test_readme.py runs them in the slow step, on the logs they name.
SLOW: dict[str, tuple[str, ...]] = {
    "wla sweep CTC-SP2-1996-3.1-cln --grid load=0.5:0.95:0.01 --runs 100 --save ctc_load.parquet "
    "--plot bounded_slowdown_mean -o ctc_load.png": ("CTC-SP2-1996-3.1-cln",),
    "wla sweep SDSC-SP2-1998-4.2-cln --grid load=0.5:0.95:0.01 --runs 100 --save sp2_load.parquet "
    "--plot bounded_slowdown_mean -o sp2_load.png": ("SDSC-SP2-1998-4.2-cln",),
    "wla sweep SDSC-SP2-1998-4.2-cln --grid estimate=last:1..30 --runs 100 --save sp2_last.parquet "
    "--plot bounded_slowdown_mean -o sp2_last.png": ("SDSC-SP2-1998-4.2-cln",),
    "wla compare SDSC-SP2-1998-4.2-cln --a policy=easy --b policy=conservative --runs 100":
        ("SDSC-SP2-1998-4.2-cln",),
    "wla sweep SDSC-SP2-1998-4.2-cln --resample --phase cycle --grid load=0.7:1.5:0.1 --runs 30 "
    "--save sp2_users.parquet --plot bounded_slowdown_mean -o sp2_users.png": ("SDSC-SP2-1998-4.2-cln",),
    "wla sweep SDSC-SP2-1998-4.2-cln --resample --phase cycle --rb-from-flurries --grid rb_npw=0,0.125,0.25,0.5 "
    "--runs 30 --save sp2_rb.parquet --plot bounded_slowdown_mean -o sp2_rb.png": ("SDSC-SP2-1998-4.2-cln",),
    "wla validate SDSC-SP2-1998-4.2-cln --phase cycle --plot sp2_validate --save sp2_validate.parquet":
        ("SDSC-SP2-1998-4.2-cln",),
}
_DURATION = re.compile(r"\bin \d+(?:\.\d+)? s\b")


@dataclass
class Example:
    line: int  # where it starts in README.md
    kind: str  # "wla", "shell", "shown" (not run) or "python"
    text: str  # the command (without "$ "), or the Python code
    expected: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"README.md:{self.line}: {self.text.splitlines()[0]}"


def examples(readme: Path = README) -> list[Example]:
    """Every example of the README, in order."""
    found: list[Example] = []
    lines = readme.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        if not fence.startswith("```") or fence == "```":
            i += 1
            continue
        lang = fence[3:].strip()
        start = i + 1
        end = start
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = lines[start:end]
        if lang == "python":
            found.append(Example(start + 1, "python", "\n".join(body)))
        elif lang == "sh":
            found.extend(_shell(body, start + 1))
        i = end + 1
    return found


def _shell(body: list[str], first: int) -> list[Example]:
    out: list[Example] = []
    j = 0
    while j < len(body):
        line = body[j]
        if not line.startswith("$ "):
            if out:
                out[-1].expected.append(line.rstrip())
            j += 1
            continue
        command, at = line[2:], first + j
        while command.endswith("\\") and j + 1 < len(body):
            j += 1
            command = command[:-1] + " " + body[j].strip()
        word = command.split()[0]
        kind = "wla" if word == "wla" else "shell" if word == "zcat" else "shown"
        out.append(Example(at, kind, command))
        j += 1
    for e in out:
        while e.expected and not e.expected[-1].strip():
            e.expected.pop()
    return out


def run(example: Example, cwd: Path) -> str:
    """What the example prints; raises AssertionError when it fails."""
    if example.kind == "wla":
        from cli_run import wla

        args = shlex.split(example.text, comments=True)[1:]
        with _inside(cwd):
            r = wla(*args)
        assert r.status == 0, f"{example}: status {r.status}: {r.err.strip()}"
        return r.out
    if example.kind == "shell":
        done = subprocess.run(["bash", "-o", "pipefail", "-c", example.text], cwd=cwd,
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{example}: status {done.returncode}: {done.stderr.strip()}"
        return done.stdout
    if example.kind == "python":
        with _inside(cwd):
            exec(compile(example.text, str(example), "exec"), {"__name__": "readme"})
    return ""


def mismatch(example: Example, printed: str) -> str | None:
    """None when `printed` is what the README shows, else a report."""
    if not example.expected:
        return None
    actual = [_DURATION.sub("in ‹t› s", ln.rstrip()) for ln in printed.splitlines()]
    while actual and not actual[-1].strip():
        actual.pop()
    wanted = [_DURATION.sub("in ‹t› s", ln) for ln in example.expected]
    if _matches(wanted, actual):
        return None
    return (f"{example}\n--- the README shows\n" + "\n".join(example.expected)
            + "\n--- it prints\n" + "\n".join(actual))


def _matches(wanted: list[str], actual: list[str]) -> bool:
    patterns = [None if w.strip() == "..." else
                re.compile(".*".join(re.escape(p) for p in w.split("...")) + r"\Z") for w in wanted]
    # reach[j]: the first i patterns match the first j lines.
    reach = [True] + [False] * len(actual)
    for p in patterns:
        nxt = [False] * (len(actual) + 1)
        for j, ok in enumerate(reach):
            if not ok:
                continue
            if p is None:
                for k in range(j, len(actual) + 1):
                    nxt[k] = True
                break
            if j < len(actual) and p.match(actual[j]):
                nxt[j + 1] = True
        reach = nxt
    return reach[len(actual)]


def workspace(base: Path, data: Path) -> Path:
    """A folder to run the examples in: `../shared/data/swf` is `data`,
    `schema` and `tests` are the project's."""
    shared = base / "shared" / "data"
    shared.mkdir(parents=True)
    (shared / "swf").symlink_to(data)
    cwd = base / "main"
    cwd.mkdir()
    for name in ("schema", "tests"):
        (cwd / name).symlink_to(ROOT / name)
    return cwd


@contextlib.contextmanager
def mirror(data: Path):
    """`wla pull` reads the logs from a local server of `data`, through
    $WLA_PULL_URL, as a user's pull reads them from the archive's site."""
    from pull_server import serve

    saved = os.environ.get("WLA_PULL_URL")
    with serve(data) as url:
        os.environ["WLA_PULL_URL"] = url
        try:
            yield url
        finally:
            if saved is None:
                os.environ.pop("WLA_PULL_URL", None)
            else:
                os.environ["WLA_PULL_URL"] = saved


@contextlib.contextmanager
def _inside(cwd: Path):
    before = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)


if __name__ == "__main__":
    import tempfile

    from real_logs import data_dir

    os.environ.pop("WLA_ARCHIVE", None)
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    with tempfile.TemporaryDirectory() as tmp, mirror(data_dir()):
        cwd = workspace(Path(tmp), data_dir())
        for ex in examples():
            if ex.kind == "shown" or ex.text in SLOW:
                continue
            printed = run(ex, cwd)
            if ex.line >= first:
                bad = mismatch(ex, printed)
                print(f"== {ex} {'ok' if bad is None else 'DIFFERS'}")
                print(printed.rstrip())

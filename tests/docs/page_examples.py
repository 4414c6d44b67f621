"""The examples of a documentation page (docs/pages/*.md, or the README),
read out of it and run as a reader would, in order.

Every line `$ wla ...` of a `console` (or `sh`) block is a command; the lines after it, up
to the next `$` line or the end of the block, are what it prints. A command
that shows nothing is still run and must succeed. `$ zcat ...` lines run in
a shell; any other `$` line (sacct, on the user's cluster) is shown only.
`python` blocks run too, in the same folder, at their place on the page.

What is shown must be what the command prints, except that:
- a line `...` stands for any number of lines, and `...` inside a line for
  any text (a page shows excerpts of long outputs);
- a duration (`in 1.45 s`) is any duration: it depends on the machine.

Each page runs alone, in a folder of its own beside a `shared/data/swf`
that is the real logs (so `../shared/data/swf` means what it means in the
project; `schema` and `tests` there are the project's), starting from:
- `logs` (the default): an archive `archive.duckdb` holding every log of
  ../shared/data/swf, as `wla ingest ../shared/data/swf` leaves it;
- `empty`: no archive at all.
A page names its start in a comment the site does not show,
`<!-- examples start from: empty -->`, and says it in words too. What else
a page needs (a version an earlier page built) it shows: a `console` block of
commands without output near its top, run like any other example.

A block preceded by `<!-- slow: LOG, LOG -->` holds studies of minutes: its
examples are left out of the page's default run and run in the slow step,
on an archive of the logs the comment names.

Run as a script, this prints what each example of a page prints now, to
update the page with: `python tests/docs/page_examples.py docs/pages/X.md`;
with `--update` it also writes each whole output that changed into the page
(excerpts it names, for a person to edit), after a deliberate change.
"""
from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs" / "pages"
README = ROOT / "README.md"
STARTS = ("logs", "empty")
SHELL = ("console", "sh")  # a session (prompt and output), or commands alone
_START = re.compile(r"<!-- examples start from: (\w+) -->")
_SLOW = re.compile(r"<!-- slow: ([^>]*?) -->")
_DURATION = re.compile(r"\bin \d+(?:\.\d+)? s\b")


@dataclass
class Example:
    page: str  # the page's name, e.g. "simulation", "reference/tables", "README"
    line: int  # where it starts on the page
    kind: str  # "wla", "shell", "shown" (not run) or "python"
    text: str  # the command (without "$ "), or the Python code
    expected: list[str] = field(default_factory=list)
    slow: tuple[str, ...] = ()  # the logs a slow example needs; () when it is not slow

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text.splitlines()[0]}"


def name(page: Path) -> str:
    """A page's name: its path below docs/pages without `.md` (the README's is `README`)."""
    if page == README:
        return "README"
    if page.is_relative_to(PAGES):
        return page.relative_to(PAGES).with_suffix("").as_posix()
    return page.stem


def pages() -> list[Path]:
    """Every page that holds an example, the README first."""
    found = [README, *sorted(PAGES.rglob("*.md"))]
    return [p for p in found if examples(p)]


def start(page: Path) -> str:
    """What the page's examples start from (`logs` unless it says otherwise)."""
    m = _START.search(page.read_text(encoding="utf-8"))
    wanted = m.group(1) if m else "logs"
    if wanted not in STARTS:
        raise ValueError(f"{page}: examples start from {wanted!r}, not one of {STARTS}")
    return wanted


def examples(page: Path) -> list[Example]:
    """Every example of the page, in order."""
    found: list[Example] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    label, slow, i = name(page), (), 0
    while i < len(lines):
        fence = lines[i].strip()
        if m := _SLOW.fullmatch(fence):
            slow = tuple(s.strip() for s in m.group(1).split(","))
        if not fence.startswith("```") or fence == "```":
            i += 1
            continue
        lang = fence[3:].strip()
        begin = i + 1
        end = begin
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = lines[begin:end]
        made = ([Example(label, begin + 1, "python", "\n".join(body))] if lang == "python"
                else _shell(label, body, begin + 1) if lang in SHELL else [])
        for e in made:
            e.slow = slow
        found.extend(made)
        slow = ()
        i = end + 1
    return found


def _shell(page: str, body: list[str], first: int) -> list[Example]:
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
        out.append(Example(page, at, kind, command))
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
            exec(compile(example.text, str(example), "exec"), {"__name__": "docs"})
    return ""


def mismatch(example: Example, printed: str) -> str | None:
    """None when `printed` is what the page shows, else a report."""
    if not example.expected:
        return None
    actual = [_DURATION.sub("in ‹t› s", ln.rstrip()) for ln in printed.splitlines()]
    while actual and not actual[-1].strip():
        actual.pop()
    wanted = [_DURATION.sub("in ‹t› s", ln) for ln in example.expected]
    if _matches(wanted, actual):
        return None
    return (f"{example}\n--- the page shows\n" + "\n".join(example.expected)
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
    """A folder to run a page in: `../shared/data/swf` is `data`, `schema`
    and `tests` are the project's."""
    shared = base / "shared" / "data"
    shared.mkdir(parents=True)
    (shared / "swf").symlink_to(data)
    cwd = base / "main"
    cwd.mkdir()
    for folder in ("schema", "tests"):
        (cwd / folder).symlink_to(ROOT / folder)
    return cwd


def ingest_every_log(cwd: Path) -> Path:
    """The `logs` start: `wla ingest ../shared/data/swf` in `cwd`."""
    from cli_run import wla

    with _inside(cwd):
        r = wla("ingest", "../shared/data/swf")
    assert r.status == 0, r.err
    return cwd / "archive.duckdb"


def begin(page: Path, cwd: Path, logs_archive: Path | None) -> None:
    """Put the page's start into `cwd`: a copy of the archive of every log, or nothing."""
    if start(page) == "logs":
        assert logs_archive is not None, f"{page}: starts from the archive of every log"
        shutil.copyfile(logs_archive, cwd / "archive.duckdb")


def run_page(page: Path, cwd: Path, data: Path, slow: bool = False) -> tuple[int, list[str]]:
    """Run the page's examples (the slow ones alone when `slow`) in `cwd`,
    `wla pull` reading from a mirror of `data`: how many ran, and a report
    for each that printed something else."""
    ran, differ = 0, []
    with mirror(data):
        for example in examples(page):
            if example.kind == "shown" or bool(example.slow) != slow:
                continue
            printed = run(example, cwd)
            ran += 1
            bad = mismatch(example, printed)
            if bad is not None:
                differ.append(bad)
    return ran, differ


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


def update(page: Path, printed: dict[int, str]) -> list[str]:
    """Write what each example printed (by its line) below it on the page,
    where the page shows the whole output (no `...` excerpt): the page's own
    record after a deliberate change of output. The examples it could not
    rewrite, excerpts, are returned for a person to edit."""
    lines = page.read_text(encoding="utf-8").splitlines()
    by_line = {e.line: e for e in examples(page)}
    left = []
    for at in sorted(printed, reverse=True):
        e = by_line[at]
        if mismatch(e, printed[at]) is None:
            continue
        if any("..." in w for w in e.expected):
            left.append(str(e))
            continue
        first = at  # the line after the command (and its continuation lines)
        while lines[first - 1].endswith("\\"):
            first += 1
        actual = [ln.rstrip() for ln in printed[at].rstrip().splitlines()]
        lines[first:first + len(e.expected)] = actual
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return left


if __name__ == "__main__":
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    from real_logs import data_dir

    os.environ.pop("WLA_ARCHIVE", None)
    rewrite = "--update" in sys.argv[1:]
    wanted = [Path(p).resolve() for p in sys.argv[1:] if p != "--update"] or pages()
    for page in wanted:
        outputs: dict[int, str] = {}
        with tempfile.TemporaryDirectory() as tmp:
            cwd = workspace(Path(tmp), data_dir())
            if start(page) == "logs":
                ingest_every_log(cwd)
            with mirror(data_dir()):
                for ex in examples(page):
                    if ex.kind == "shown" or ex.slow:
                        continue
                    printed = outputs[ex.line] = run(ex, cwd)
                    bad = mismatch(ex, printed)
                    print(f"== {ex} {'ok' if bad is None else 'DIFFERS'}")
                    print(printed.rstrip())
        if rewrite:
            for left in update(page, outputs):
                print(f"!! an excerpt, to edit by hand: {left}")

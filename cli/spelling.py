"""Library parameters as the command line spells them: an error of the
library names the parameter (`runs`), the command line says its option
(`--runs`); see WlaError.naming in archive/kernel/errors.py."""
from __future__ import annotations

from wla.archive.kernel.errors import WlaError

from .app import RUN, command

# A library parameter that a command feeds from an option of another name:
# (command, parameter) -> the command's parameter; command None: every command.
FED_BY = {
    ("sweep", "shown_metric"): "metric",  # --metric: the metric the text shows and --plot draws
    ("sweep", "path"): "plot",  # plot_sweep(result, metric, path): --plot FILE
    ("stats", "directory"): "plot_dir",  # write_plots(stats, directory, name): --plot-dir DIR
    ("validate", "directory"): "plot_dir",  # plot_validation(result, directory): --plot-dir DIR
    ("sweep", "journal"): "save",  # the sweep's journal lies beside what --save names
    ("shake", "path"): "save_workload",  # write_workload(workload, path, notes)
    (None, "target"): "save",  # save(result, target, ...): every command's --save
    ("simulate", "batches"): "batch_means",  # result_batch_means(result, batches, by): --batch-means K
    ("simulate", "by"): "batch_by",
}
# A parameter one command gives and others' messages name: always with that command.
ELSEWHERE = {"read_files": "wla sql --read-files"}  # any query may want files; only `wla sql` lets it


def told(error: WlaError) -> str:
    """The error's message as the command line says it."""
    return error.spelled(spelled)


def spelled(name: str) -> str:
    """A parameter as the command line spells it: the running command's option
    (--load-factor for load_factor; JOB for an argument), else the option of
    that name of the commands that have one (ingest's --replace, named during
    a pull), else the name itself; outside a command, the name itself."""
    running = RUN.get("command")
    if not running:
        return name
    if name in ELSEWHERE:
        return ELSEWHERE[name]
    name = FED_BY.get((running, name), FED_BY.get((None, name), name))
    commands = command().commands
    found = commands.get(running)
    for param in found.params if found is not None else []:
        if param.name == name:
            return max(param.opts, key=len) if param.param_type_name == "option" else name.upper()
    for other in commands.values():
        for param in other.params:
            if param.name == name and param.param_type_name == "option":
                return max(param.opts, key=len)
    return name

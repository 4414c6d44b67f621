/* The catalog's behaviour in the browser, with nothing fetched: tables sort
   by the column whose header is clicked (numbers as numbers, unknown values
   last), a filter box hides the rows that do not hold its text, and a
   version's decisions are paged and looked up by job number from the data
   its page loads as a script (a page opened from file:// may not fetch data):
   the lookup says whether the job is kept, dropped by which step, or not a
   job of the log at all. */
(function () {
  "use strict";

  function key(cell) {
    var given = cell.getAttribute("data-sort");
    return (given === null ? cell.textContent : given).trim();
  }

  function compare(a, b) {
    var x = Number(a), y = Number(b);
    if (!isNaN(x) && !isNaN(y)) { return x - y; }
    return a.localeCompare(b, undefined, {numeric: true});
  }

  function sortBy(table, header, column) {
    var body = table.tBodies[0];
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r, s) {
      var a = key(r.cells[column]), b = key(s.cells[column]);
      if (a === "" || b === "") { return (a === "") - (b === ""); }
      return ascending ? compare(a, b) : compare(b, a);
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function sortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.addEventListener("click", function () { sortBy(table, header, column); });
    });
  }

  function filterable(input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    var shown = document.getElementById(input.getAttribute("data-shown"));
    var rows = table.tBodies[0].rows;
    input.addEventListener("input", function () {
      var wanted = input.value.trim().toLowerCase(), count = 0;
      Array.prototype.forEach.call(rows, function (row) {
        row.hidden = wanted !== "" && row.textContent.toLowerCase().indexOf(wanted) < 0;
        if (!row.hidden) { count += 1; }
      });
      if (shown) { shown.textContent = count + " of " + rows.length; }
    });
  }

  var PAGE = 50;

  function decisions(data) {
    var table = document.getElementById("decisions-table");
    var lookup = document.getElementById("job-lookup");
    var status = document.getElementById("decisions-status");
    var answer = document.getElementById("lookup-answer");
    var previous = document.getElementById("decisions-previous");
    var next = document.getElementById("decisions-next");
    var columns = data.columns, reason = columns.indexOf("reason"), job = columns.indexOf("job");
    var rows = data.rows.map(function (row) {
      var out = row.slice();
      out[reason] = data.reasons[row[reason]];
      return out;
    });
    var chosen = rows, first = 0;

    function text(value) { return value === null ? "-" : String(value); }

    function within(runs, number) {  // runs: [first, last, first, last, ...], in order
      var low = 0, high = runs.length / 2 - 1;
      while (low <= high) {
        var middle = (low + high) >> 1;
        if (number < runs[2 * middle]) { high = middle - 1; }
        else if (number > runs[2 * middle + 1]) { low = middle + 1; }
        else { return true; }
      }
      return false;
    }

    // The unit of a job's field, as SWF defines it.
    var UNITS = {submit: "s", wait: "s", run: "s", req_time: "s", think: "s", cpu: "s",
                 procs: "processors", req_procs: "processors", mem: "KB", req_mem: "KB"};

    function valued(field, value) {  // 240379 -> "240,379 s"; SWF's -1 is unknown
      if (value === -1) { return "-1 (unknown)"; }
      if (typeof value !== "number" || !UNITS[field]) { return text(value); }
      return value.toLocaleString("en") + " " + UNITS[field];
    }

    function by(row) {  // "step 2 (filter)", with the version when it is an earlier one
      var version = row[columns.indexOf("version")];
      return "step " + row[columns.indexOf("step")] + " (" + row[columns.indexOf("rule")] + ")" +
        (version === data.version ? "" : " of " + version) + ": " + row[reason];
    }

    function fate(number, found) {
      // What happened to job `number`: kept (changed or not), dropped by a step, or never in the log.
      var drops = found.filter(function (row) { return row[columns.indexOf("action")] === "drop"; });
      var changes = found.filter(function (row) { return row[columns.indexOf("action")] !== "drop"; });
      var changed = changes.map(function (row) {
        var field = row[columns.indexOf("field")];
        return field + " from " + valued(field, row[columns.indexOf("old_value")]) + " to " +
          valued(field, row[columns.indexOf("new_value")]) + " by " + by(row);
      }).join("; ");
      if (within(data.kept, number)) {
        return "Kept: job " + number + " is in this version, " +
          (changes.length ? "changed: " + changed : "as " + data.log + " wrote it") + "." +
          (drops.length ? " Another line with this number was dropped by " + drops.map(by).join("; ") + "." : "");
      }
      if (drops.length) {
        return "Dropped: job " + number + " is not in this version, dropped by " + drops.map(by).join("; ") + ".";
      }
      if (!within(data.log_jobs, number)) {
        return "No such job: " + data.log + " has no job " + number + ".";
      }
      return "Not kept: job " + number + " of " + data.log + " is not in this version, and no decision names it.";
    }

    function show() {
      var body = table.tBodies[0];
      while (body.firstChild) { body.removeChild(body.firstChild); }
      chosen.slice(first, first + PAGE).forEach(function (row) {
        var tr = body.insertRow();
        row.forEach(function (value) { tr.insertCell().textContent = text(value); });
      });
      var last = Math.min(first + PAGE, chosen.length);
      status.textContent = chosen.length === 0 ? "no decisions" :
        "decisions " + (first + 1).toLocaleString("en") + " to " + last.toLocaleString("en") + " of " +
        chosen.length.toLocaleString("en");
      previous.disabled = first === 0;
      next.disabled = last >= chosen.length;
    }

    function find() {
      var wanted = lookup.value.trim();
      first = 0;
      if (wanted === "") {
        chosen = rows;
        answer.textContent = "";
      } else if (/^-?\d+$/.test(wanted)) {
        var number = Number(wanted);
        chosen = rows.filter(function (row) { return row[job] === number; });
        answer.textContent = fate(number, chosen);
      } else {
        var lower = wanted.toLowerCase();
        chosen = rows.filter(function (row) { return row.join(" ").toLowerCase().indexOf(lower) >= 0; });
        answer.textContent = chosen.length + " decisions mention \u201c" + wanted + "\u201d.";
      }
      show();
    }

    lookup.addEventListener("input", find);
    previous.addEventListener("click", function () { first = Math.max(0, first - PAGE); show(); });
    next.addEventListener("click", function () { first += PAGE; show(); });
    show();
  }

  document.querySelectorAll("table.sortable").forEach(sortable);
  document.querySelectorAll("input[data-filter]").forEach(filterable);
  if (window.wlaDecisions && document.getElementById("decisions-table")) { decisions(window.wlaDecisions); }
}());

// Filters and mutant cards for the bugsmith report. Everything is rendered server-side; this
// only shows and hides it. Filters come from, and go back to, the URL: ?status=survived or
// #status=survived,timeout&family=leakage (an empty set means "all").
(function () {
  "use strict";
  var filters = { status: new Set(), family: new Set() };
  var chips = Array.prototype.slice.call(document.querySelectorAll(".chip[data-filter]"));
  var marked = Array.prototype.slice.call(document.querySelectorAll("[data-mutant]"));
  var pills = marked.filter(function (el) { return el.classList.contains("pill"); });
  var touched = Array.prototype.slice.call(document.querySelectorAll("tr[data-touched]"));
  var open = new Set();

  function matches(el) {
    return (filters.status.size === 0 || filters.status.has(el.dataset.status)) &&
      (filters.family.size === 0 || filters.family.has(el.dataset.family));
  }

  function apply() {
    chips.forEach(function (chip) {
      chip.setAttribute("aria-pressed", String(filters[chip.dataset.filter].has(chip.dataset.value)));
    });
    marked.forEach(function (el) {
      var shown = matches(el);
      if (el.classList.contains("mcard")) {
        shown = shown && open.has(el.dataset.mutant);
      }
      el.hidden = !shown;
      if (el.classList.contains("pill")) {
        el.setAttribute("aria-expanded", String(shown && open.has(el.dataset.mutant)));
      }
    });
    document.querySelectorAll("tr.cards").forEach(function (row) {
      row.hidden = !row.querySelector(".mcard:not([hidden])");
    });
    var survivors = document.querySelector(".survivors");
    if (survivors) {
      var none = document.querySelector("#survivors .none");
      none.hidden = !!survivors.querySelector("li:not([hidden])");
    }
    var visible = pills.filter(function (pill) { return !pill.hidden; }).length;
    var filtering = filters.status.size + filters.family.size > 0;
    // Quiet the marks of lines whose mutants are all filtered out.
    var shownIds = new Set(pills.filter(function (pill) { return !pill.hidden; })
      .map(function (pill) { return pill.dataset.mutant; }));
    touched.forEach(function (row) {
      row.classList.toggle("quiet", filtering && !row.dataset.touched.split(" ").some(function (id) {
        return shownIds.has(id);
      }));
    });
    document.getElementById("shown").textContent = filtering
      ? visible + " of " + pills.length + " mutants shown"
      : pills.length + " mutants";
    document.getElementById("clear").hidden = !filtering;
  }

  function readUrl() {
    var params = new URLSearchParams(location.search);
    var hash = location.hash.slice(1);
    if (hash.indexOf("=") >= 0) {
      new URLSearchParams(hash).forEach(function (value, key) { params.set(key, value); });
    }
    var statuses = params.get("status") || params.get("filter") || "";
    var families = params.get("family") || "";
    filters.status = new Set(statuses.split(",").filter(Boolean).map(function (s) { return s.replace(/ /g, "-"); }));
    filters.family = new Set(families.split(",").filter(Boolean));
  }

  function writeUrl() {
    var parts = [];
    if (filters.status.size) { parts.push("status=" + Array.from(filters.status).join(",")); }
    if (filters.family.size) { parts.push("family=" + Array.from(filters.family).join(",")); }
    try {
      history.replaceState(null, "", location.pathname + (parts.length ? "#" + parts.join("&") : ""));
    } catch (err) {
      // Some browsers refuse history changes for file:// pages; the filter still applies.
    }
  }

  function toggle(set, value) {
    if (set.has(value)) { set.delete(value); } else { set.add(value); }
  }

  function reveal(id) {
    var card = document.getElementById("m-" + id);
    if (!card) { return; }
    var file = card.closest("details");
    if (file) { file.open = true; }
    open.add(id);
  }

  function copy(button) {
    var text = button.dataset.copy;
    var done = function () {
      button.textContent = "Copied";
      button.classList.add("done");
      setTimeout(function () { button.textContent = "Copy"; button.classList.remove("done"); }, 1400);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { select(button); });
    } else {
      select(button);
    }
  }

  function select(button) {
    // Without clipboard access, select the command so that Ctrl+C copies it.
    var range = document.createRange();
    range.selectNodeContents(button.previousElementSibling);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest("button, a[data-open]");
    if (!target) { return; }
    if (target.matches(".chip[data-filter]")) {
      toggle(filters[target.dataset.filter], target.dataset.value);
      writeUrl();
    } else if (target.matches(".fam-link")) {
      filters.family = new Set([target.dataset.familyLink]);
      writeUrl();
      document.getElementById("survivors").scrollIntoView({ behavior: "smooth" });
    } else if (target.id === "clear") {
      filters.status.clear();
      filters.family.clear();
      writeUrl();
    } else if (target.matches(".pill")) {
      toggle(open, target.dataset.mutant);
    } else if (target.matches(".copy")) {
      copy(target);
      return;
    } else if (target.matches("a[data-open]")) {
      reveal(target.dataset.open);
    } else {
      return;
    }
    apply();
  });

  window.addEventListener("hashchange", function () {
    if (location.hash.indexOf("=") >= 0) { readUrl(); apply(); }
  });

  readUrl();
  apply();
})();

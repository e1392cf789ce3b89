// combatlog's game-master screen: keyboard shortcuts and the history scrubber (htmx does the rest).
(function () {
  "use strict";
  function click(id) {
    var button = document.getElementById(id);
    if (button) { button.click(); return true; }
    return false;
  }
  document.addEventListener("keydown", function (e) {
    var typing = e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.target.tagName === "TEXTAREA");
    if (typing || !(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== "z") { return; }
    if (click(e.shiftKey ? "redo-button" : "undo-button")) { e.preventDefault(); }
  });
  function scrubber() { return document.getElementById("scrubber"); }
  function showAt(seq) {
    var s = scrubber();
    if (!s || !window.htmx) { return; }
    htmx.ajax("GET", "/gm/" + s.dataset.token + "/at/" + seq, { target: "#history", swap: "innerHTML" });
  }
  var timer = null;
  document.addEventListener("input", function (e) {
    if (e.target !== scrubber()) { return; }
    clearTimeout(timer);
    timer = setTimeout(function () { showAt(e.target.value); }, 120);
  });
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("a.to-seq");
    if (!link) { return; }
    e.preventDefault();
    var s = scrubber();
    if (s) { s.value = link.dataset.seq; showAt(link.dataset.seq); }
  });
  function newestInView() {
    document.querySelectorAll(".transcript").forEach(function (t) { t.scrollTop = t.scrollHeight; });
  }
  document.addEventListener("DOMContentLoaded", newestInView);
  // after every new board: the newest line in view, the scrubber at the newest seq, the audit again
  document.addEventListener("htmx:afterSwap", function (e) {
    if (!e.detail || !e.detail.target || e.detail.target.id !== "board") { return; }
    newestInView();
    var status = e.detail.target.querySelector(".status[data-seq]");
    var s = scrubber();
    if (status && s) {
      var atEnd = Number(s.value) === Number(s.max);
      s.max = status.dataset.seq;
      if (atEnd) { s.value = s.max; }
    }
    document.body.dispatchEvent(new Event("audit"));
  });
  document.addEventListener("htmx:sseMessage", function () {
    var board = document.getElementById("board");
    if (board) { htmx.trigger(document.body, "htmx:afterSwap", { target: board }); }
  });
})();

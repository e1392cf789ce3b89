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
  // an action form shows the parameters the chosen action takes (each input names its actions);
  // the others are hidden and not sent
  function showParams(form) {
    var chosen = form.querySelector("input[name=action]:checked");
    if (!chosen) { return; }
    form.querySelectorAll(".param[data-actions]").forEach(function (label) {
      var takes = label.dataset.actions.split(" ").indexOf(chosen.value) >= 0;
      label.hidden = !takes;
      label.querySelectorAll("input, select").forEach(function (el) { el.disabled = !takes; });
    });
  }
  function allParams(root) { root.querySelectorAll("form.turn").forEach(showParams); }
  document.addEventListener("change", function (e) {
    if (e.target.name === "action" && e.target.form) { showParams(e.target.form); }
  });
  document.addEventListener("DOMContentLoaded", function () { allParams(document); });
  // after every new board: the newest line in view, the scrubber at the newest seq, the audit again
  document.addEventListener("htmx:afterSwap", function (e) {
    if (!e.detail || !e.detail.target || e.detail.target.id !== "board") { return; }
    newestInView();
    allParams(e.detail.target);
    var status = e.detail.target.querySelector(".status[data-seq]");
    var s = scrubber();
    if (status && s) {
      var atEnd = Number(s.value) === Number(s.max);
      s.max = status.dataset.seq;
      if (atEnd) { s.value = s.max; }
    }
    document.body.dispatchEvent(new Event("audit"));
  });
  // the map: drag a token onto a section or square (the game master's screen); the move is
  // the engine's to check, and a refused one leaves the token where it stood
  var dragging = null;
  function placeAt(x, y) {
    var el = document.elementFromPoint(x, y);
    var spot = el && el.closest && el.closest("[data-place]");
    return spot ? spot : null;
  }
  function clearDrop() {
    document.querySelectorAll(".drop-here").forEach(function (el) { el.classList.remove("drop-here"); });
  }
  document.addEventListener("pointerdown", function (e) {
    var token = e.target.closest && e.target.closest("svg.map [data-drag]");
    if (!token) { return; }
    var svg = token.ownerSVGElement;
    var wrap = token.closest(".map-wrap");
    if (!svg || !wrap || !(wrap.dataset.token || wrap.dataset.seat)) { return; }
    e.preventDefault();
    var box = svg.getBoundingClientRect();
    var scale = svg.viewBox.baseVal.width / box.width;
    dragging = { token: token, wrap: wrap, x: e.clientX, y: e.clientY, scale: scale };
    token.setPointerCapture && token.setPointerCapture(e.pointerId);
  });
  document.addEventListener("pointermove", function (e) {
    if (!dragging) { return; }
    var dx = (e.clientX - dragging.x) * dragging.scale, dy = (e.clientY - dragging.y) * dragging.scale;
    dragging.token.setAttribute("transform", "translate(" + dx + " " + dy + ")");
    dragging.token.style.pointerEvents = "none";
    clearDrop();
    var spot = placeAt(e.clientX, e.clientY);
    if (spot) { spot.classList.add("drop-here"); }
  });
  document.addEventListener("pointerup", function (e) {
    if (!dragging) { return; }
    var d = dragging;
    dragging = null;
    var spot = placeAt(e.clientX, e.clientY);
    clearDrop();
    d.token.removeAttribute("transform");  // back where it stood until the new board says otherwise
    d.token.style.pointerEvents = "";
    if (!spot || !window.htmx) { return; }
    var url = d.wrap.dataset.seat ? "/seat/" + d.wrap.dataset.seat + "/command" : "/gm/" + d.wrap.dataset.token + "/command";
    htmx.ajax("POST", url, {
      target: "#board", swap: "innerHTML",
      values: { kind: "move", form: "map", combatant: d.token.dataset.id, to: spot.dataset.place, seq: d.wrap.dataset.seq }
    });
  });
  document.addEventListener("htmx:sseMessage", function () {
    var board = document.getElementById("board");
    if (board) { htmx.trigger(document.body, "htmx:afterSwap", { target: board }); }
  });
})();

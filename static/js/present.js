// fencelab: step through a scenario on a projector (views/present.templ).
// Without this script every step shows and the rows link to each other;
// with it the steps after the current one are hidden, Left and Right move
// (as do the buttons, PageUp and PageDown, Home and End), the diagram
// highlights the current band and covers the later ones, the step is kept
// in the URL's fragment (#step-N) so that Back and Forward step too, and
// predict mode asks before each write is revealed. Loaded with defer.
"use strict";

(function () {
  var root = document.querySelector(".present");
  if (!root) {
    return;
  }
  var rows = Array.prototype.slice.call(root.querySelectorAll(".present-table tbody tr"));
  var count = rows.length;
  if (count === 0) {
    return;
  }
  var svg = root.querySelector("svg.diagram");
  var panel = root.querySelector(".predict");
  var state = { step: 0, revealed: {}, results: {}, right: 0, asked: 0 };
  var curtain = svg ? makeCurtain(svg) : null;

  root.classList.add("present-js");
  root.querySelector(".present-nav").hidden = false;

  function clamp(n) {
    return Math.min(Math.max(n, 1), count);
  }

  function stepFromHash() {
    var m = /^#step-(\d+)$/.exec(window.location.hash);
    return m ? clamp(parseInt(m[1], 10)) : 0;
  }

  function row(n) {
    return rows[n - 1];
  }

  // asking reports whether step n waits for the audience's guess.
  function asking(n) {
    return panel !== null && !!row(n).dataset.ask && !state.revealed[n];
  }

  function go(n, push) {
    n = clamp(n);
    state.step = n;
    if (push && window.location.hash !== "#step-" + n) {
      window.history.pushState(null, "", "#step-" + n);
    }
    render();
  }

  function next() {
    if (asking(state.step)) {
      reveal(state.step, "");
      return;
    }
    go(state.step + 1, true);
  }

  function previous() {
    go(state.step - 1, true);
  }

  function render() {
    var n = state.step;
    rows.forEach(function (tr, i) {
      var k = i + 1;
      tr.classList.toggle("is-past", k < n);
      tr.classList.toggle("is-current", k === n);
      tr.classList.toggle("is-later", k > n);
      tr.classList.toggle("is-asking", k === n && asking(k));
    });
    root.querySelector(".present-now").textContent = String(n);
    root.querySelector(".present-prev").disabled = n === 1;
    root.querySelector(".present-next").disabled = n === count && !asking(n);
    drawDiagram(n);
    renderPanel(n);
    keepHash(n);
    scrollIntoView(row(n), root.querySelector(".present-steps"), null);
  }

  // ---------- the diagram ----------

  function makeCurtain(svg) {
    var ns = "http://www.w3.org/2000/svg";
    var g = document.createElementNS(ns, "g");
    g.setAttribute("class", "curtain-group");
    g.setAttribute("aria-hidden", "true");
    var rect = document.createElementNS(ns, "rect");
    rect.setAttribute("class", "curtain");
    var edge = document.createElementNS(ns, "path");
    edge.setAttribute("class", "curtain-edge");
    g.appendChild(rect);
    g.appendChild(edge);
    svg.appendChild(g);
    return { group: g, rect: rect, edge: edge };
  }

  function band(n) {
    return svg.querySelector('.band[data-step="' + n + '"]');
  }

  // drawDiagram highlights band n and covers what comes after it (and
  // band n itself while its outcome is being guessed).
  function drawDiagram(n) {
    if (!svg) {
      return;
    }
    svg.querySelectorAll(".band.is-current").forEach(function (g) { g.classList.remove("is-current"); });
    var b = band(n);
    var hit = b && b.querySelector(".hit");
    if (!hit) {
      return;
    }
    b.classList.add("is-current");
    var box = svg.viewBox.baseVal;
    var y = parseFloat(hit.getAttribute("y"));
    var top = asking(n) ? y : y + parseFloat(hit.getAttribute("height"));
    var finished = n === count && !asking(n);
    svg.classList.toggle("is-finished", finished);
    curtain.group.setAttribute("visibility", finished ? "hidden" : "visible");
    curtain.rect.setAttribute("x", "-4");
    curtain.rect.setAttribute("y", String(top));
    curtain.rect.setAttribute("width", String(box.width + 8));
    curtain.rect.setAttribute("height", String(Math.max(box.height - top, 0)));
    curtain.edge.setAttribute("d", "M0 " + top + "H" + box.width);
    scrollIntoView(hit, root.querySelector(".present-diagram"), panel && !panel.hidden ? panel : null);
  }

  // scrollIntoView scrolls box, a column, just enough to show el, its top
  // first; cover is a sticky element at the bottom of box that hides what
  // is under it.
  function scrollIntoView(el, box, cover) {
    if (!el || !box) {
      return;
    }
    var r = el.getBoundingClientRect();
    var b = box.getBoundingClientRect();
    var bottom = cover ? Math.min(b.bottom, cover.getBoundingClientRect().top) : b.bottom;
    var margin = 12;
    if (r.top < b.top + margin) {
      box.scrollTop -= b.top + margin - r.top;
    } else if (r.bottom > bottom - margin) {
      box.scrollTop += Math.min(r.bottom - bottom + margin, r.top - b.top - margin);
    }
  }

  // ---------- predict mode ----------

  function renderPanel(n) {
    if (!panel) {
      return;
    }
    var tr = row(n);
    var q = tr.dataset.ask || "";
    var result = state.results[n];
    panel.hidden = !q && state.asked === 0;
    var question = panel.querySelector(".predict-question");
    question.hidden = !q;
    question.textContent = q;
    panel.querySelector(".predict-choices").hidden = !asking(n);
    var out = panel.querySelector(".predict-result");
    out.textContent = result ? result.text : "";
    out.className = "predict-result" + (result ? " " + result.kind : "");
    panel.querySelector(".predict-right").textContent = String(state.right);
    panel.querySelector(".predict-asked").textContent = String(state.asked);
  }

  // reveal shows step n's outcome after guess ("accepted", "rejected", or
  // "" when the presenter moved on without one) and keeps the score.
  function reveal(n, guess) {
    if (!asking(n)) {
      return;
    }
    var tr = row(n);
    state.revealed[n] = true;
    var answer = tr.dataset.answer;
    var reason = tr.dataset.reason;
    if (guess === "") {
      state.results[n] = { kind: "shown", text: "Revealed: " + reason + "." };
    } else {
      state.asked += 1;
      if (guess === answer) {
        state.right += 1;
        state.results[n] = { kind: "right", text: "✓ Right — " + reason + "." };
      } else {
        state.results[n] = { kind: "wrong", text: "✕ Not this time — it was " + reason + "." };
      }
    }
    render();
  }

  // ---------- the URL ----------

  // keepHash carries the current step into the settings form, so that
  // switching the diagram or predict mode stays on it, and into the exit
  // link, which leads to the step's row on the page.
  function keepHash(n) {
    var form = root.querySelector(".present-tools");
    form.action = form.action.split("#")[0] + "#step-" + n;
    var exit = root.querySelector(".present-exit");
    exit.href = exit.href.split("#")[0] + "#step-" + n;
  }

  // ---------- wiring ----------

  root.querySelector(".present-prev").addEventListener("click", previous);
  root.querySelector(".present-next").addEventListener("click", next);
  if (panel) {
    panel.querySelectorAll("[data-guess]").forEach(function (button) {
      button.addEventListener("click", function () { reveal(state.step, button.dataset.guess); });
    });
  }

  var form = root.querySelector(".present-tools");
  form.querySelectorAll("select, input").forEach(function (input) {
    input.addEventListener("change", function () { form.submit(); });
  });

  // Links to a step (in the diagram, in the rows) move without a jump.
  root.addEventListener("click", function (event) {
    var a = event.target.closest('a[href^="#step-"]');
    if (!a) {
      return;
    }
    event.preventDefault();
    go(parseInt(a.getAttribute("href").slice(6), 10), true);
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName)) {
      return;
    }
    var keys = {
      ArrowRight: next, PageDown: next, ArrowLeft: previous, PageUp: previous,
      Home: function () { go(1, true); }, End: function () { go(count, true); }
    };
    if (asking(state.step)) {
      keys.a = function () { reveal(state.step, "accepted"); };
      keys.r = function () { reveal(state.step, "rejected"); };
    }
    var f = keys[event.key.length === 1 ? event.key.toLowerCase() : event.key];
    if (f) {
      event.preventDefault();
      f();
    }
  });

  window.addEventListener("popstate", function () { go(stepFromHash() || 1, false); });
  window.addEventListener("hashchange", function () { go(stepFromHash() || 1, false); });

  var first = stepFromHash();
  if (!first) {
    window.history.replaceState(null, "", "#step-1");
  }
  go(first || 1, false);
})();

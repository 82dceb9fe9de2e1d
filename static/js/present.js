// fencelab: step through a scenario in front of a room (views/present.templ).
// Without this script every step shows and the rows link to each other;
// with it the steps after the current one are hidden, Left and Right move
// (as do the buttons, PageUp and PageDown, Home and End), the diagram
// highlights the current band, covers the later ones and keeps its labels
// readable from the back of the room, and the step is kept in the URL's
// fragment (#step-N), replacing the history entry so that Back leaves the
// presentation. Predict mode asks before each write is revealed; in a live
// room the phones answer (server-sent events bring their count) and every
// step is sent to the room. Loaded with defer.
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
  var roomID = root.dataset.room || "";
  var state = { step: 0, revealed: {}, results: {}, right: 0, asked: 0, room: null };
  var curtain = svg ? makeCurtain(svg) : null;
  // The labels' fitting lives in present-fit.js.
  var fitting = svg && window.fencelabDiagramFit ? window.fencelabDiagramFit(svg) : null;

  function fitLabels() {
    if (fitting) {
      fitting.fit();
    }
  }

  root.classList.add("present-js");
  root.querySelector(".present-nav").hidden = false;

  function clamp(n) {
    return Math.min(Math.max(n, 1), count);
  }

  // stepFromHash is the step the URL names, clamped to the run; 0 when it
  // names none.
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

  // go shows step n and sends it to the room, unless quiet (the step
  // came from the room, or the page is opening without one of its own).
  function go(n, quiet) {
    n = clamp(n);
    var moved = n !== state.step;
    state.step = n;
    render();
    if (moved && !quiet) {
      sendStep(n);
    }
  }

  // ---------- the opening slide ----------

  // The title, the question and who takes part, before step 1: shown when
  // the link names no step (not in a live room, whose bar has the code).
  var opening = root.querySelector(".present-opening");
  state.opening = false;

  function showOpening(on) {
    if (!opening) {
      return;
    }
    state.opening = on;
    opening.hidden = !on;
    root.classList.toggle("is-opening", on);
    root.style.setProperty("--bar-h", root.querySelector(".present-bar").offsetHeight + "px");
    render();
    if (on) {
      opening.querySelector(".opening-start").focus({ preventScroll: true });
    }
  }

  if (opening) {
    opening.querySelector(".opening-start").addEventListener("click", function () { showOpening(false); });
  }

  function next() {
    if (state.opening) {
      showOpening(false);
      return;
    }
    if (asking(state.step)) {
      reveal(state.step, "");
      return;
    }
    go(state.step + 1);
  }

  function previous() {
    if (state.step === 1 && opening && !state.opening) {
      showOpening(true);
      return;
    }
    go(state.step - 1);
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
    root.querySelector(".present-prev").disabled = state.opening || (n === 1 && !opening);
    root.querySelector(".present-next").disabled = n === count && !asking(n);
    keepHash(n);
    renderPanel(n);
    drawDiagram(n);
    scrollIntoView(row(n), root.querySelector(".present-table"));
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
    // Over the bands and the final values, which wait for the last step.
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
    if (fitting) {
      fitting.keepInSight(b);
    }
    var box = svg.viewBox.baseVal;
    var y = parseFloat(hit.getAttribute("y"));
    var top = asking(n) ? y : y + parseFloat(hit.getAttribute("height"));
    var last = band(count).querySelector(".hit");
    var bottom = parseFloat(last.getAttribute("y")) + parseFloat(last.getAttribute("height"));
    var finished = n === count && !asking(n);
    svg.classList.toggle("is-finished", finished);
    curtain.group.setAttribute("visibility", finished ? "hidden" : "visible");
    // The final values under the last band stay covered until the end.
    var end = finished ? bottom : Math.max(bottom + 60, box.height);
    curtain.rect.setAttribute("x", "-4");
    curtain.rect.setAttribute("y", String(top));
    curtain.rect.setAttribute("width", String(box.width + 8));
    curtain.rect.setAttribute("height", String(Math.max(Math.min(end, box.height) - top, 0)));
    curtain.edge.setAttribute("d", "M0 " + top + "H" + box.width);
    placeAhead(n, finished);
  }

  // placeAhead shows, over the curtain, how many steps are still to come,
  // the question and who takes part, where the covered part is tall
  // enough to hold them (a projector's first steps), and hides it
  // otherwise: it never pushes the diagram or the cards.
  var ahead = root.querySelector(".present-ahead");
  var aheadAt = null;
  function placeAhead(n, finished) {
    if (!ahead) {
      return;
    }
    aheadAt = [n, finished];
    var left = count - n + (asking(n) ? 1 : 0);
    ahead.querySelector(".ahead-count").textContent = left === 1 ? "1 step" : left + " steps";
    var section = ahead.parentElement;
    var s = section.getBoundingClientRect();
    ahead.hidden = true;
    if (finished || state.opening || window.innerWidth < 700) {
      return;
    }
    // The curtain's top as drawn (the bands may be stretched): below the current step.
    var y = curtain.rect.getBoundingClientRect().top - s.top + 16;
    ahead.style.top = y + "px";
    ahead.style.maxHeight = Math.max(s.height - y - 8, 0) + "px";
    ahead.hidden = false;
    if (ahead.scrollHeight > s.height - y - 8) {
      ahead.hidden = true; // too little room left under the current step
    }
  }

  // scrollIntoView scrolls box, a column, just enough to show el.
  function scrollIntoView(el, box) {
    if (!el || !box || box.scrollHeight <= box.clientHeight) {
      if (el && window.innerWidth < 700) {
        el.scrollIntoView({ block: "nearest" });
      }
      return;
    }
    var r = el.getBoundingClientRect();
    var b = box.getBoundingClientRect();
    var margin = 8;
    if (r.top < b.top + margin || r.height > b.height) {
      box.scrollTop -= b.top + margin - r.top;
    } else if (r.bottom > b.bottom - margin) {
      box.scrollTop += r.bottom - b.bottom + margin;
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
    panel.hidden = !q && (roomID !== "" || state.asked === 0);
    var question = panel.querySelector(".predict-question");
    question.hidden = !q;
    question.textContent = q;
    var out = panel.querySelector(".predict-result");
    out.textContent = result ? result.text : "";
    out.className = "predict-result" + (result ? " " + result.kind : "");
    if (roomID) {
      renderTally(n);
      return;
    }
    panel.querySelector(".predict-choices").hidden = !asking(n);
    panel.querySelector(".predict-right").textContent = String(state.right);
    panel.querySelector(".predict-asked").textContent = String(state.asked);
  }

  // reveal shows step n's outcome after guess ("accepted", "rejected", or
  // "" when the presenter moved on without one, or the room answered) and
  // keeps the score.
  function reveal(n, guess) {
    if (!asking(n)) {
      return;
    }
    var tr = row(n);
    state.revealed[n] = true;
    var sentence = tr.dataset.reveal;
    if (guess === "") {
      state.results[n] = { kind: "shown", text: sentence };
    } else {
      state.asked += 1;
      if (guess === tr.dataset.answer) {
        state.right += 1;
        state.results[n] = { kind: "right", text: "✓ Right. " + sentence };
      } else {
        state.results[n] = { kind: "wrong", text: "✕ Not this time. " + sentence };
      }
    }
    if (roomID) {
      post(root.dataset.roomReveal, "step=" + n);
    }
    render();
  }

  // ---------- the live room ----------

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Requested-With": "fencelab" },
      body: body
    }).catch(function () { /* the next step or the stream's state catches up */ });
  }

  function sendStep(n) {
    if (roomID) {
      post(root.dataset.roomStep, "step=" + n);
    }
  }

  // renderTally shows the room's answers to step n's question: how many
  // of the students so far (and the countdown, if any), then how they
  // split once it is revealed, the right answer marked by a check mark
  // and words, not by weight alone. Every count is a number: 0 when the
  // event has none yet.
  function renderTally(n) {
    var tally = panel.querySelector(".predict-tally");
    var q = state.room && state.room.question;
    var mine = !!(q && q.step === n);
    var answers = mine ? q.answers || 0 : 0;
    var of = mine ? q.of || 0 : (state.room && state.room.students) || 0;
    var revealed = mine && q.revealed;
    panel.querySelector(".predict-answers").textContent = String(answers);
    panel.querySelector(".predict-of").textContent = String(Math.max(of, answers));
    panel.querySelector(".predict-waiting").hidden = !asking(n);
    renderClock(mine && q.open ? q.closesAt || 0 : 0);
    var split = panel.querySelector(".predict-split");
    split.hidden = !revealed;
    tally.hidden = !row(n).dataset.ask;
    if (!revealed) {
      return;
    }
    ["accepted", "rejected"].forEach(function (d) {
      var line = split.querySelector(".split-" + d);
      var k = (q.split && q.split[d]) || 0;
      var pct = (q.split && q.split[d + "Percent"]) || 0;
      line.querySelector(".split-n").textContent = String(k);
      line.querySelector(".split-pct").textContent = "(" + pct + "%)";
      line.querySelector(".split-fill").style.width = pct + "%";
      line.querySelector(".split-mark").textContent = q.answer === d ? "✓ right answer" : "";
      line.classList.toggle("is-right", q.answer === d);
    });
  }

  // renderClock counts down to closesAt (Unix ms; 0: no countdown).
  var clock = { until: 0, timer: 0 };
  function renderClock(until) {
    var out = panel.querySelector(".predict-clock");
    clock.until = until;
    window.clearTimeout(clock.timer);
    if (!until) {
      out.textContent = "";
      return;
    }
    var left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    out.textContent = left > 0 ? ", " + left + " s left" : ", time is up";
    if (left > 0) {
      clock.timer = window.setTimeout(function () { renderClock(clock.until); }, 1000);
    }
  }

  function followRoom() {
    if (!roomID || !window.EventSource) {
      return;
    }
    var source = new EventSource(root.dataset.roomEvents);
    source.addEventListener("room", function (event) {
      var room = JSON.parse(event.data);
      // Opened without a step in the URL (after a hand-over, say): join
      // the room where it is instead of taking the class back to step 1.
      var follow = !state.room && !opened.fromHash && room.step;
      state.room = room;
      if (follow) {
        go(room.step, true);
      }
      (room.revealed || []).forEach(function (k) {
        if (!state.revealed[k] && row(k)) {
          state.revealed[k] = true;
          state.results[k] = { kind: "shown", text: row(k).dataset.reveal };
        }
      });
      var students = room.students || 0;
      root.querySelectorAll(".room-students").forEach(function (el) { el.textContent = String(students); });
      root.querySelectorAll(".room-students-word").forEach(function (el) { el.textContent = students === 1 ? "student" : "students"; });
      render();
    });
    // A browser without the room's secret (another one than the one that
    // started it) is refused: say so instead of retrying.
    source.addEventListener("error", function () {
      var warning = root.querySelector(".room-warning");
      if (source.readyState === EventSource.CLOSED && warning) {
        warning.textContent = "This browser does not drive the room (it did not start it, or the room was handed over): it cannot move the room or see its answers.";
        warning.hidden = false;
      }
    });
    source.addEventListener("gone", function (event) {
      source.close();
      var data = JSON.parse(event.data);
      var warning = root.querySelector(".room-warning");
      if (warning) {
        warning.textContent = "This room has ended: the phones show a final screen. ";
        if (data.summary) {
          var a = document.createElement("a");
          a.href = data.summary;
          a.textContent = "See the class’s answers";
          warning.appendChild(a);
        }
        warning.hidden = false;
      }
    });
  }

  // ---------- the URL ----------

  // keepHash puts the current step in the URL, replacing the history
  // entry, and in the settings form and the exit link, so that switching
  // the diagram or predict mode stays on it and leaving leads to its row.
  function keepHash(n) {
    var hash = "#step-" + n;
    if (window.location.hash !== hash) {
      window.history.replaceState(window.history.state, "", hash);
    }
    root.querySelectorAll(".present-tools, .room-options").forEach(function (form) {
      form.action = form.action.split("#")[0] + hash;
    });
    var exit = root.querySelector(".present-exit");
    exit.href = exit.href.split("#")[0] + hash;
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
  // The room's options are kept on the server as soon as they change.
  root.querySelectorAll(".room-options").forEach(function (options) {
    options.querySelectorAll("select, input").forEach(function (input) {
      input.addEventListener("change", function () { options.submit(); });
    });
  });

  // Links to a step (in the diagram, in the rows) move without a jump.
  root.addEventListener("click", function (event) {
    var a = event.target.closest('a[href^="#step-"]');
    if (!a) {
      return;
    }
    event.preventDefault();
    go(parseInt(a.getAttribute("href").slice(6), 10));
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName)) {
      return;
    }
    var keys = {
      ArrowRight: next, PageDown: next, ArrowLeft: previous, PageUp: previous,
      Home: function () { go(1); }, End: function () { go(count); }
    };
    if (asking(state.step) && !roomID) {
      keys.a = function () { reveal(state.step, "accepted"); };
      keys.r = function () { reveal(state.step, "rejected"); };
    }
    var f = keys[event.key.length === 1 ? event.key.toLowerCase() : event.key];
    if (f) {
      event.preventDefault();
      f();
    }
  });

  // A fragment typed in the address bar moves too, corrected if out of range.
  window.addEventListener("hashchange", function () {
    if (state.opening && stepFromHash()) {
      showOpening(false);
    }
    go(stepFromHash() || state.step || 1);
  });

  var resizing = 0;
  window.addEventListener("resize", function () {
    window.clearTimeout(resizing);
    resizing = window.setTimeout(function () { fitLabels(); render(); }, 100);
  });

  if (svg) {
    // Top-aligned when the box is taller than the picture, and cropped
    // under the final values: the legend stays on the page, and the room
    // gets larger words instead.
    svg.setAttribute("preserveAspectRatio", "xMidYMin meet");
    var lastHit = band(count) && band(count).querySelector(".hit");
    if (lastHit) {
      var vb = svg.viewBox.baseVal;
      var foot = parseFloat(lastHit.getAttribute("y")) + parseFloat(lastHit.getAttribute("height")) + 50;
      svg.setAttribute("viewBox", "0 0 " + vb.width + " " + Math.min(vb.height, foot));
      svg.querySelectorAll(".footer > *").forEach(function (el) {
        if (el.getBBox().y > foot - 8) {
          el.setAttribute("visibility", "hidden");
        }
      });
    }
  }
  fitLabels();
  if (svg && window.ResizeObserver) {
    var lastSize = "";
    new ResizeObserver(function () {
      var r = svg.parentElement.getBoundingClientRect();
      var size = Math.round(r.width) + "x" + Math.round(r.height);
      if (size !== lastSize) {
        lastSize = size;
        fitLabels();
        if (aheadAt) { // the bands moved: so does the curtain's top
          placeAhead(aheadAt[0], aheadAt[1]);
        }
      }
    }).observe(svg.parentElement);
  }
  var opened = { fromHash: stepFromHash() !== 0 };
  go(stepFromHash() || 1, roomID !== "" && !opened.fromHash);
  if (!opened.fromHash && !roomID) {
    showOpening(true);
  }
  followRoom();
})();

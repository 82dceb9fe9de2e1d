// fencelab: a live room on a student's phone (views/room.templ). Without
// this script the page shows the room as it was when loaded, with a form
// per question; with it the page follows the presenter through
// server-sent events (a phone that reconnects gets the room's state at
// once), answers without leaving the page, says at the reveal whether
// the answer was right and how the class split, closes a question the
// class moved on from or whose countdown ran out, and shows a final
// screen when the presenter ends the room. The optional name is kept in
// localStorage.
"use strict";

(function () {
  var root = document.querySelector(".student");
  if (!root) {
    return;
  }
  var items = Array.prototype.slice.call(root.querySelectorAll(".student-step"));
  var status = root.querySelector(".student-status");
  var nameInput = root.querySelector(".student-name-input");
  var nameKey = "fencelab-name";
  var mine = {};
  items.forEach(function (li) {
    if (li.dataset.mine) {
      mine[li.dataset.step] = li.dataset.mine;
    }
  });

  try {
    if (nameInput && !nameInput.value && window.localStorage.getItem(nameKey)) {
      nameInput.value = window.localStorage.getItem(nameKey);
    }
  } catch (e) { /* storage may be off: the name is optional */ }
  if (nameInput) {
    nameInput.addEventListener("change", function () {
      try { window.localStorage.setItem(nameKey, nameInput.value); } catch (e) { /* optional */ }
    });
  }

  function say(text) {
    status.textContent = text;
    status.hidden = text === "";
  }

  function item(n) {
    return items[n - 1];
  }

  // render shows the steps up to the presenter's, and the state of the
  // current step's question.
  function render(room) {
    root.dataset.step = String(room.step);
    root.querySelector(".student-now").textContent = String(room.step);
    items.forEach(function (li, i) {
      var k = i + 1;
      li.hidden = k > room.step;
      li.classList.toggle("is-current", k === room.step);
      li.classList.toggle("is-later", k > room.step);
      var q = li.querySelector(".student-question");
      if (q) {
        q.hidden = k > room.step;
      }
    });
    var q = room.question;
    var li = item(room.step);
    if (li && li.dataset.ask) {
      var here = !!(q && q.step === room.step);
      var open = here && q.open && !(q.closesAt && q.closesAt <= Date.now());
      renderQuestion(li, room.step, open, here && q.revealed ? q : null);
      countdown(li, room.step, here && q.open ? q.closesAt || 0 : 0);
      li.scrollIntoView({ block: "nearest" });
    }
    // Every earlier question not revealed is closed: skipped after it was
    // asked (room.skipped), or never asked because the presenter went past.
    var shown = {};
    (room.revealed || []).forEach(function (k) { shown[k] = true; });
    items.forEach(function (el, i) {
      var k = i + 1;
      if (k < room.step && el.dataset.ask && !shown[k]) {
        movedOn(el, k);
      }
    });
  }

  // movedOn closes step n's question: the presenter went on without
  // revealing it.
  function movedOn(li, n) {
    li.querySelector(".student-choices").hidden = true;
    var drawn = li.querySelector(".student-moved"); // the server's words; the verdict says it now
    if (drawn) {
      drawn.hidden = true;
    }
    var verdict = li.querySelector(".student-verdict");
    if (verdict.dataset.answer) {
      return;
    }
    verdict.textContent = "The class moved on: this question is closed.";
    verdict.classList.remove("right", "wrong");
    verdict.hidden = false;
  }

  // countdown shows the seconds left to answer step n, and closes the
  // question when they are up (the server refuses later answers anyway).
  var clock = { step: 0, until: 0, timer: 0 };
  function countdown(li, n, until) {
    window.clearTimeout(clock.timer);
    var out = li.querySelector(".student-clock");
    if (!out) {
      out = document.createElement("p");
      out.className = "student-clock";
      li.querySelector(".student-question").appendChild(out);
    }
    clock.step = n;
    clock.until = until;
    if (!until || mine[n]) {
      out.hidden = true;
      return;
    }
    var left = Math.ceil((until - Date.now()) / 1000);
    out.hidden = false;
    if (left <= 0) {
      out.textContent = "Time is up: this question is closed.";
      li.querySelector(".student-choices").hidden = true;
      return;
    }
    out.textContent = left + " s left to answer";
    clock.timer = window.setTimeout(function () { countdown(li, n, clock.until); }, 1000);
  }

  function renderQuestion(li, n, open, revealed) {
    var moved = li.querySelector(".student-moved"); // drawn by the server; the presenter came back
    if (moved) {
      moved.hidden = true;
    }
    var choices = li.querySelector(".student-choices");
    var guess = mine[n] || "";
    choices.hidden = !open || guess !== "";
    var said = li.querySelector(".student-mine");
    said.hidden = guess === "";
    said.querySelector(".student-guess").textContent = guess;
    var verdict = li.querySelector(".student-verdict");
    if (!revealed) {
      verdict.hidden = true;
      return;
    }
    var text = guess === "" ? "You did not answer." : guess === revealed.answer ? "✓ You were right." : "✕ Not this time.";
    verdict.textContent = text + " " + revealed.reveal + splitText(revealed);
    verdict.dataset.answer = revealed.answer;
    verdict.classList.toggle("right", guess !== "" && guess === revealed.answer);
    verdict.classList.toggle("wrong", guess !== "" && guess !== revealed.answer);
    verdict.hidden = false;
  }

  // splitText is how the class answered, the right answer named.
  function splitText(q) {
    var s = q.split;
    if (!s || s.accepted + s.rejected === 0) {
      return "";
    }
    return " The class: " + s.acceptedPercent + "% accepted, " + s.rejectedPercent + "% rejected (" + q.answer + " was right).";
  }

  // ended replaces the room with its final screen.
  function ended(message) {
    window.clearTimeout(clock.timer);
    var done = document.createElement("div");
    done.className = "student-ended";
    done.setAttribute("role", "status");
    var h = document.createElement("h2");
    h.textContent = "The room has ended";
    var p = document.createElement("p");
    p.textContent = message;
    done.appendChild(h);
    done.appendChild(p);
    Array.prototype.forEach.call(root.children, function (el) {
      if (!el.classList.contains("student-head")) {
        el.hidden = true;
      }
    });
    root.querySelector(".student-where").hidden = true;
    root.appendChild(done);
  }

  // Answers are sent without leaving the page.
  root.addEventListener("submit", function (event) {
    var form = event.target.closest(".student-choices");
    if (!form) {
      return;
    }
    event.preventDefault();
    var guess = event.submitter ? event.submitter.value : "";
    var step = form.querySelector('[name="step"]').value;
    var body = new URLSearchParams();
    body.set("step", step);
    body.set("guess", guess);
    body.set("name", nameInput ? nameInput.value : "");
    form.hidden = true;
    fetch(root.dataset.answer, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-Requested-With": "fencelab" },
      body: body
    }).then(function (res) {
      return res.json().then(function (data) {
        if (res.ok) {
          mine[step] = data.guess;
          say("");
        } else if (data.problem === "answered") {
          say("You have already answered this question.");
        } else if (data.problem === "closed") {
          say("This question no longer takes answers.");
        } else if (data.problem === "moved") {
          say("The class moved on: this question no longer takes answers.");
        } else {
          form.hidden = false;
          say(data.error || "The answer was not counted: try again.");
        }
        var li = item(parseInt(step, 10));
        renderQuestion(li, parseInt(step, 10), !res.ok && data.problem === "", null);
      });
    }).catch(function () {
      form.hidden = false;
      say("The answer was not sent: check the connection and try again.");
    });
  });

  if (!window.EventSource) {
    return;
  }
  var source = new EventSource(root.dataset.events);
  source.addEventListener("room", function (event) {
    say("");
    render(JSON.parse(event.data));
  });
  source.addEventListener("full", function (event) {
    source.close();
    say(JSON.parse(event.data).message);
  });
  source.addEventListener("gone", function (event) {
    source.close();
    say("");
    ended(JSON.parse(event.data).message);
  });
  source.addEventListener("error", function () {
    if (source.readyState !== EventSource.CLOSED) {
      say("Reconnecting…");
    }
  });
  root.classList.add("student-js");
})();

// fencelab: a live room on a student's phone (views/room.templ). Without
// this script the page shows the room as it was when loaded, with a form
// per question; with it the page follows the presenter through
// server-sent events (a phone that reconnects gets the room's state at
// once), answers without leaving the page and says at the reveal whether
// the answer was right. The optional name is kept in localStorage.
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
      var open = !!(q && q.step === room.step && q.open);
      renderQuestion(li, room.step, open, q && q.step === room.step && q.revealed ? q : null);
      li.scrollIntoView({ block: "nearest" });
    }
  }

  function renderQuestion(li, n, open, revealed) {
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
    verdict.textContent = text + " " + revealed.reveal;
    verdict.dataset.answer = revealed.answer;
    verdict.classList.toggle("right", guess !== "" && guess === revealed.answer);
    verdict.classList.toggle("wrong", guess !== "" && guess !== revealed.answer);
    verdict.hidden = false;
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
  ["full", "gone"].forEach(function (name) {
    source.addEventListener(name, function (event) {
      source.close();
      say(JSON.parse(event.data).message);
    });
  });
  source.addEventListener("error", function () {
    if (source.readyState !== EventSource.CLOSED) {
      say("Reconnecting…");
    }
  });
  root.classList.add("student-js");
})();

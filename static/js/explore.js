// fencelab: the page of every ordering. Without this script the bounds form
// reloads the page, which explores synchronously within its deadline. With
// it, the form starts POST /api/explore?stream=1, shows a progress bar fed
// by the server-sent "progress" events, and swaps in the rendered result of
// the final "result" event. Cancel aborts the request; the server sees its
// context cancelled and stops exploring. Loaded with defer, no inline
// handlers, so the Content-Security-Policy holds.
"use strict";

(function () {
  var form = document.querySelector("form[data-explore]");
  var result = document.getElementById("explore-result");
  if (!form || !result || !window.fetch || !window.AbortController || !window.TextDecoder) {
    return;
  }
  var panel = document.querySelector(".x-progress");
  var bar = panel.querySelector("progress");
  var cancel = panel.querySelector("[data-explore-cancel]");
  var status = document.querySelector(".x-progress-text");
  var submit = form.querySelector("button[type=submit]");
  var running = null; // the AbortController of the exploration under way
  var finished = false; // whether its result arrived

  function say(text) {
    status.textContent = text;
  }

  function number(n) {
    return Number(n).toLocaleString("en");
  }

  function seconds(ms) {
    return (ms / 1000).toFixed(1) + " s";
  }

  function busy(on) {
    panel.hidden = !on;
    submit.disabled = on;
    if (on) {
      bar.value = 0;
      cancel.focus();
    }
  }

  // progress shows whichever bound is nearer: states or time.
  function progress(p) {
    bar.value = Math.min(1, Math.max(p.states / p.budget, p.elapsed_ms / p.deadline_ms));
    say("Exploring: " + number(p.states) + " of " + number(p.budget) + " states, " +
      seconds(p.elapsed_ms) + " of " + seconds(p.deadline_ms) + ".");
  }

  function done(r) {
    finished = true;
    result.innerHTML = r.html;
    say(r.exploration.complete ? "Done: every ordering explored." :
      "Done, but stopped at the bound again: the counts cover only part of the orderings.");
    var data = new FormData(form);
    if (data.get("from")) {
      // The page's own address for these bounds, so that it can be shared;
      // the slash of r/ID stays readable.
      var q = new URLSearchParams({ from: data.get("from"), budget: data.get("budget"), deadline: data.get("deadline") });
      switches(data, q);
      history.replaceState(null, "", form.dataset.page + "?" + q.toString().replace(/%2F/g, "/"));
    }
  }

  // switches copies the model's two switches (writes, expiry) from the form.
  function switches(data, q) {
    ["writes", "expiry"].forEach(function (name) {
      if (data.get(name)) {
        q.set(name, data.get(name));
      }
    });
  }

  // handle acts on one server-sent event: "event: NAME" and "data: JSON".
  function handle(block) {
    var name = "message";
    var data = "";
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event:") === 0) {
        name = line.slice(6).trim();
      } else if (line.indexOf("data:") === 0) {
        data += line.slice(5).trim();
      }
    });
    if (!data) {
      return;
    }
    var value = JSON.parse(data);
    if (name === "progress") {
      progress(value);
    } else if (name === "result") {
      done(value);
    } else if (name === "error") {
      throw new Error(value.error);
    }
  }

  // read consumes the event stream until it ends.
  function read(reader) {
    var decoder = new TextDecoder();
    var buffered = "";
    function next() {
      return reader.read().then(function (chunk) {
        if (chunk.done) {
          return;
        }
        buffered += decoder.decode(chunk.value, { stream: true });
        var end;
        while ((end = buffered.indexOf("\n\n")) >= 0) {
          handle(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
        }
        return next();
      });
    }
    return next();
  }

  function failed(res) {
    return res.json().then(function (e) {
      throw new Error(e.error || res.statusText);
    }, function () {
      throw new Error(res.status + " " + res.statusText);
    });
  }

  function start() {
    var data = new FormData(form);
    var q = new URLSearchParams({ stream: "1", budget: data.get("budget"), deadline: data.get("deadline") });
    switches(data, q);
    var body = null;
    if (data.get("from")) {
      q.set("from", data.get("from"));
    } else {
      body = data.get("scenario");
    }
    running = new AbortController();
    finished = false;
    busy(true);
    say("Starting…");
    fetch(form.dataset.api + "?" + q.toString(), {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
      body: body,
      signal: running.signal
    }).then(function (res) {
      return res.ok ? read(res.body.getReader()) : failed(res);
    }).then(function () {
      if (!finished) {
        say("The exploration ended without a result. Please try again.");
      }
    }).catch(function (err) {
      if (err.name === "AbortError") {
        say("Cancelled. The results shown are from before.");
      } else {
        say("The exploration failed: " + err.message);
      }
    }).then(function () {
      running = null;
      busy(false);
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!running && form.reportValidity()) {
      start();
    }
  });

  cancel.addEventListener("click", function () {
    if (running) {
      running.abort();
    }
  });
})();

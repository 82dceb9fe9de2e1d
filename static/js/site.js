// fencelab: small enhancements. Every page works without this script; it
// is loaded with defer from /static/, so the Content-Security-Policy needs
// no inline script.
"use strict";

// Copying: the link buttons, the step links and "Copy as Markdown" share
// one way to reach the clipboard and one fallback for browsers (or
// plain-HTTP pages) without the Clipboard API.
(function () {
  function status(button, text) {
    var box = button.closest(".share");
    var out = box && box.querySelector(".copy-status");
    if (out) {
      out.textContent = text;
    }
  }

  // execCopy selects all of a field's text and copies it with the old
  // command: the fallback.
  function execCopy(field) {
    field.select();
    field.setSelectionRange(0, field.value.length);
    try {
      return document.execCommand("copy");
    } catch (e) {
      return false;
    }
  }

  // copyText puts text on the clipboard, or through a hidden text area
  // copied with execCopy.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    var ok = execCopy(area);
    document.body.removeChild(area);
    return ok ? Promise.resolve() : Promise.reject(new Error("copy failed"));
  }

  // Copy-link buttons: <button data-copy="ID" hidden> copies the value of
  // the input with that id. The button stays hidden without JavaScript;
  // the input itself can still be selected and copied by hand.
  function copyLink(button) {
    var input = document.getElementById(button.dataset.copy);
    if (!input) {
      return;
    }
    var done = function () { status(button, "Link copied."); };
    var failed = function () {
      input.focus();
      if (execCopy(input)) {
        done();
      } else {
        input.select();
        status(button, "Press Ctrl+C (⌘C) to copy the selected link.");
      }
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, failed);
    } else {
      failed();
    }
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { copyLink(button); });
  });

  // Clicking into the read-only link selects all of it.
  document.querySelectorAll(".share input[readonly]").forEach(function (input) {
    input.addEventListener("focus", function () { input.select(); });
  });

  // Links to a step of a saved run: the run page gets a small button
  // beside each step number that copies /r/{id}#step-N. Without
  // JavaScript the step number itself is that link.
  function say(button, text) {
    button.textContent = text;
    window.setTimeout(function () { button.textContent = "Copy link"; }, 2000);
  }

  var runLink = document.getElementById("run-link");
  if (runLink) {
    document.querySelectorAll("table.steps tbody tr[id^='step-'] > .col-step").forEach(function (cell) {
      var id = cell.parentElement.id;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-step";
      button.textContent = "Copy link";
      // The accessible name starts with the visible words, so that a voice
      // user who says "Copy link" reaches it (WCAG 2.5.3, label in name).
      button.setAttribute("aria-label", "Copy link to " + id.replace("-", " "));
      button.dataset.link = runLink.value.split("#")[0] + "#" + id;
      button.addEventListener("click", function () {
        copyText(button.dataset.link).then(
          function () { say(button, "Copied"); },
          function () { say(button, "Copy failed"); }
        );
      });
      cell.appendChild(button);
    });
  }

  // "Copy as Markdown": <button data-copy-markdown="{RunMarkdownPath(id)}?..." hidden>
  // fetches the run's Markdown export and puts it on the clipboard, for a
  // postmortem document. Without JavaScript the button stays hidden and
  // the Markdown link beside it opens the same text.
  function fetchText(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (res) {
      if (!res.ok) {
        throw new Error("HTTP " + res.status);
      }
      return res.text();
    });
  }

  // copyMarkdown hands the clipboard a promise of the text where the
  // browser takes one (so the click still counts when the text arrives),
  // else copies the text once fetched.
  function copyMarkdown(url) {
    if (navigator.clipboard && window.isSecureContext && window.ClipboardItem && navigator.clipboard.write) {
      var blob = fetchText(url).then(function (text) { return new Blob([text], { type: "text/plain" }); });
      return navigator.clipboard.write([new window.ClipboardItem({ "text/plain": blob })]).catch(function () {
        return fetchText(url).then(function (text) { return navigator.clipboard.writeText(text); });
      });
    }
    return fetchText(url).then(copyText);
  }

  document.querySelectorAll("button[data-copy-markdown]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      status(button, "Copying the Markdown…");
      copyMarkdown(button.dataset.copyMarkdown).then(
        function () { status(button, "Markdown copied: paste it into your postmortem."); },
        function () { status(button, "Could not copy; open the Markdown link and copy it from there."); }
      );
    });
  });
})();

// The gallery's filter: the cards whose title, name or lesson hold every
// word typed stay, and a thread with none folds away. Without this script
// the field stays hidden and every scenario is listed.
(function () {
  var box = document.querySelector(".gallery-filter");
  if (!box) {
    return;
  }
  var input = box.querySelector("input");
  var count = box.querySelector(".gallery-count");
  var cards = Array.prototype.slice.call(document.querySelectorAll("#gallery .card"));
  box.hidden = false;
  input.addEventListener("input", function () {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    cards.forEach(function (card) {
      var text = card.textContent.toLowerCase();
      var on = words.every(function (w) { return text.indexOf(w) >= 0; });
      card.hidden = !on;
      shown += on ? 1 : 0;
    });
    document.querySelectorAll("#gallery .thread").forEach(function (t) {
      t.hidden = !t.querySelector(".card:not([hidden])");
    });
    count.textContent = words.length ? shown + " of " + cards.length + " scenarios match." : "";
  });
})();

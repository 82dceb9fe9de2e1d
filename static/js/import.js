// fencelab: the import page. The page is a plain form that works without
// this script (Import posts it and the server answers the whole page).
// This script looks at the logs as soon as they are chosen or pasted
// (the first step, which the "Look at the logs" button posts without it),
// and previews the result as the reviewer edits the logs or the mapping: it posts the form, without the files chosen for upload, to the
// address in the form's data-preview and puts the answer (the result
// section alone) in place. Loaded with defer from /static/, so the
// Content-Security-Policy needs no inline script.
"use strict";

(function () {
  var form = document.querySelector("form[data-preview]");
  var result = document.getElementById("import-result");
  if (!form || !result || !window.fetch || !window.FormData) {
    return;
  }
  var timer = 0;
  var inflight = null;

  function preview() {
    var data = new FormData(form);
    data.delete("upload"); // uploads are read when Import is pressed
    data.delete("mapfile");
    if (inflight) {
      inflight.abort();
    }
    inflight = new AbortController();
    result.setAttribute("aria-busy", "true");
    fetch(form.dataset.preview, { method: "POST", body: data, signal: inflight.signal, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        result.replaceChildren.apply(result, Array.prototype.slice.call(doc.body.childNodes));
      })
      .catch(function () { /* the Import button still works */ })
      .finally(function () { result.removeAttribute("aria-busy"); });
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(preview, 400);
  }

  // The first step: as soon as files are chosen or logs pasted, the look
  // at the logs (formats, candidate fields, message texts) replaces the
  // section the "Look at the logs" button would post for.
  var suggest = document.getElementById("import-suggest");
  var suggestTimer = 0;
  var suggesting = null;

  function lookAtLogs() {
    if (!suggest) {
      return;
    }
    var data = new FormData(form);
    data.delete("mapfile");
    data.set("op", "suggest");
    if (suggesting) {
      suggesting.abort();
    }
    suggesting = new AbortController();
    suggest.setAttribute("aria-busy", "true");
    fetch(form.dataset.preview, { method: "POST", body: data, signal: suggesting.signal, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        suggest.replaceChildren.apply(suggest, Array.prototype.slice.call(doc.body.childNodes));
      })
      .catch(function () { /* the Look at the logs button still works */ })
      .finally(function () { suggest.removeAttribute("aria-busy"); });
  }

  form.addEventListener("input", function (e) {
    if (e.target.type !== "file") {
      later();
    }
    if (e.target.name === "log") {
      clearTimeout(suggestTimer);
      suggestTimer = setTimeout(lookAtLogs, 400);
    }
  });
  form.addEventListener("change", function (e) {
    if (e.target.type === "file" && e.target.name === "upload") {
      lookAtLogs();
    }
  });
  form.addEventListener("change", function (e) {
    if (e.target.tagName === "SELECT") {
      later();
    }
  });
  // Submitting ends the looks and previews still on their way: the server
  // gives a client one import at a time, and the page's own look at the
  // logs, still uploading them, would otherwise hold the turn the Import
  // it answers waits for (a 429 after ten seconds).
  form.addEventListener("submit", function () {
    clearTimeout(timer);
    clearTimeout(suggestTimer);
    if (inflight) {
      inflight.abort();
    }
    if (suggesting) {
      suggesting.abort();
    }
  });
})();

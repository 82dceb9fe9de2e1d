// fencelab: the import page. The page is a plain form that works without
// this script (Import posts it and the server answers the whole page).
// This script previews the result as the reviewer edits the logs or the
// mapping: it posts the form, without the files chosen for upload, to the
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

  form.addEventListener("input", function (e) {
    if (e.target.type !== "file") {
      later();
    }
  });
  form.addEventListener("change", function (e) {
    if (e.target.tagName === "SELECT") {
      later();
    }
  });
})();

// fencelab: the timeline editor. The editor is an HTML form that works
// without this script (every button posts it; the server answers the
// edited page). This script adds: dragging cards (SortableJS in its
// pointer-event fallback mode, the same path for mouse and touch),
// keyboard moves (Alt+Up, Alt+Down) announced to screen readers, a replay
// on every change (POST /lab/preview answers the result alone), redraws
// for changes that add or remove cards (POST /lab), and an unsaved draft
// per source kept in localStorage. Loaded with defer from /static/, so
// the Content-Security-Policy needs no inline script.
"use strict";

(function () {
  var form = document.getElementById("editor");
  if (!form || !window.fetch || !window.FormData) {
    return;
  }
  document.documentElement.classList.add("js");

  var draftKey = "fencelab.draft:" + (form.dataset.from || "blank");
  var sortables = [];
  var inflight = null; // the AbortController of the replay under way
  var typing = 0;

  function $(id) { return document.getElementById(id); }
  function timeline() { return $("timeline"); }
  function cards() { return Array.prototype.slice.call(timeline().children); }

  // ---------- what is sent, and the draft kept in this browser ----------

  function body(submitter) {
    return new URLSearchParams(submitter ? new FormData(form, submitter) : new FormData(form));
  }

  // draftText is the form without the palette, which says nothing about
  // the scenario.
  function draftText() {
    var keep = new URLSearchParams();
    body().forEach(function (v, k) {
      var el = form.elements.namedItem(k);
      if (window.RadioNodeList && el instanceof RadioNodeList) {
        el = el[0];
      }
      if (!el || !inPalette(el)) {
        keep.append(k, v);
      }
    });
    return keep.toString();
  }

  function storage(fn) {
    try {
      return fn(window.localStorage);
    } catch (e) {
      return null; // storage off or full: the editor still works
    }
  }
  function keepDraft() { storage(function (s) { s.setItem(draftKey, draftText()); }); }
  function dropDraft() {
    storage(function (s) { s.removeItem(draftKey); s.removeItem(historyKey); });
  }

  // ---------- undo and redo ----------

  // The drafts before and after this one, kept beside the draft in
  // localStorage so that they survive a reload: each replay and each
  // redraw remembers the form (typing is remembered once it pauses, as the
  // replay waits for it). Undo and redo redraw the editor from a draft.
  var historyKey = draftKey + ":history";
  var historyMax = 100;
  var history = storage(function (s) { return JSON.parse(s.getItem(historyKey) || "null"); }) || { past: [], future: [] };
  var restoring = false;

  function keepHistory() {
    storage(function (s) { s.setItem(historyKey, JSON.stringify(history)); });
    var u = $("undo"), r = $("redo");
    if (u) {
      u.disabled = history.past.length < 2;
    }
    if (r) {
      r.disabled = history.future.length === 0;
    }
  }

  function remember() {
    if (restoring) {
      return;
    }
    var now = draftText();
    if (history.past[history.past.length - 1] === now) {
      return;
    }
    history.past.push(now);
    history.past = history.past.slice(-historyMax);
    history.future = [];
    keepHistory();
  }

  function travel(from, to, word) {
    if ((from === history.past && from.length < 2) || (from === history.future && from.length === 0)) {
      announce("Nothing to " + word + ".");
      return;
    }
    if (from === history.past) {
      history.future.push(history.past.pop());
    } else {
      history.past.push(history.future.pop());
    }
    keepHistory();
    restoring = true;
    redraw(null, new URLSearchParams(history.past[history.past.length - 1])).then(function () {
      restoring = false;
      keepHistory();
      announce(word === "undo" ? "Undone." : "Redone.");
      policiesChanged();
    });
  }
  function undo() { travel(history.past, history.future, "undo"); }
  function redo() { travel(history.future, history.past, "redo"); }

  // ---------- announcements ----------

  function announce(text) {
    var live = $("ev-announce");
    live.textContent = "";
    window.setTimeout(function () { live.textContent = text; }, 30);
  }

  function cardName(card) {
    var actor = card.querySelector(".actor-select");
    var kind = card.querySelector(".ev-title .kind");
    return (actor && actor.value ? actor.value + " " : "") + (kind ? kind.textContent : "event");
  }

  // ---------- moving cards ----------

  // The server names a card's controls and ids after its step; the form
  // carries the templates ({n} the step, {field} the field), and the text
  // before {field} is what all of one card's names and ids start with.
  var renamed = ["id", "name", "for", "aria-labelledby", "aria-describedby"];

  function prefix(template, n) { return template.split("{field}")[0].replace("{n}", n); }
  function cardID(n) { return form.dataset.cardId.replace("{n}", n); }

  // opOf is the op value of a card's button for verb at step n; addOp
  // asks for an event of kind at place n. The page gives the templates.
  function opOf(verb, n) { return form.dataset.opTemplate.replace("{verb}", verb).replace("{n}", n); }
  function addOp(kind, n) { return form.dataset.addOpTemplate.replace("{kind}", kind).replace("{n}", n); }

  // renumbered is one name or id of card old after it moved to step n.
  function renumbered(v, old, n) {
    if (v === cardID(old)) {
      return cardID(n);
    }
    var templates = [form.dataset.eventName, form.dataset.eventId];
    for (var i = 0; i < templates.length; i++) {
      var from = prefix(templates[i], old);
      if (v.indexOf(from) === 0) {
        return prefix(templates[i], n) + v.slice(from.length);
      }
    }
    return v;
  }

  // renumber gives every card's names and ids its new step number, so the
  // form says the new order.
  function renumber() {
    cards().forEach(function (card, k) {
      var n = String(k + 1), old = card.dataset.step;
      var all = [card].concat(Array.prototype.slice.call(card.querySelectorAll("*")));
      all.forEach(function (el) {
        renamed.forEach(function (a) {
          var v = el.getAttribute(a);
          if (v) {
            el.setAttribute(a, v.split(" ").map(function (w) { return renumbered(w, old, n); }).join(" "));
          }
        });
        if (el.dataset.op) {
          el.value = opOf(el.dataset.op, n);
          el.setAttribute("aria-label", el.getAttribute("aria-label").replace(/event \d+/, "event " + n));
        }
      });
      card.dataset.step = n;
      card.querySelectorAll(".ev-no, .ev-no-text").forEach(function (el) { el.textContent = n; });
    });
  }

  function moved(card, focus) {
    renumber();
    var list = cards();
    announce(cardName(card) + " moved to position " + (list.indexOf(card) + 1) + " of " + list.length + ".");
    card.classList.remove("ev-moved");
    void card.offsetWidth; // restart the highlight
    card.classList.add("ev-moved");
    if (focus && document.activeElement !== focus) {
      focus.focus();
    }
    changed(true);
  }

  function move(card, delta, focus) {
    var list = cards();
    var to = list.indexOf(card) + delta;
    if (to < 0 || to >= list.length) {
      announce(cardName(card) + " is already " + (to < 0 ? "first." : "last."));
      return;
    }
    timeline().insertBefore(card, delta < 0 ? list[to] : list[to].nextSibling);
    moved(card, focus);
  }

  // setupSortable makes the cards sortable by their handles, and the
  // palette's kinds draggable into the timeline (a copy stays behind).
  function setupSortable() {
    sortables.forEach(function (s) { s.destroy(); });
    sortables = [];
    if (!window.Sortable || !timeline()) {
      return;
    }
    var common = {
      forceFallback: true, // pointer events: the same path for mouse and touch
      fallbackTolerance: 3,
      animation: 120,
      ghostClass: "ev-ghost",
      chosenClass: "ev-chosen"
    };
    sortables.push(window.Sortable.create(timeline(), Object.assign({}, common, {
      group: { name: "events", pull: false, put: true },
      handle: ".ev-handle",
      onAdd: function (evt) {
        // A kind from the palette: the server makes its card at that place.
        var kind = evt.item.dataset.kind;
        evt.item.remove();
        redraw(null, withOp(addOp(kind, evt.newIndex + 1)));
      },
      onEnd: function (evt) {
        if (evt.oldIndex !== evt.newIndex) {
          moved(evt.item, evt.item.querySelector(".ev-handle"));
        }
      }
    })));
    var kinds = $("palette-kinds");
    if (kinds) {
      sortables.push(window.Sortable.create(kinds, Object.assign({}, common, {
        group: { name: "events", pull: "clone", put: false },
        sort: false
      })));
    }
  }

  function withOp(op) {
    var b = body();
    b.set("op", op);
    return b;
  }

  // ---------- replaying ----------

  function changed(now) {
    keepDraft();
    window.clearTimeout(typing);
    if (now) {
      replay();
    } else {
      typing = window.setTimeout(replay, 250);
    }
  }

  function status(text) {
    var el = $("result-status");
    if (el && text) {
      el.textContent = text;
    }
  }

  function replay() {
    if (inflight) {
      inflight.abort();
    }
    var ctl = inflight = new AbortController();
    var start = performance.now();
    remember();
    form.setAttribute("aria-busy", "true");
    fetch(form.dataset.preview, { method: "POST", body: body(), signal: ctl.signal })
      .then(function (res) {
        if (!res.ok) {
          throw new Error("the server answered " + res.status);
        }
        return res.text();
      })
      .then(function (html) {
        if (ctl !== inflight) {
          return;
        }
        var out = $("result-body");
        out.innerHTML = html;
        keepLastGood(out);
        mark();
        // How long from the change to the new table: the browser tests log it.
        out.dataset.ms = String(Math.round(performance.now() - start));
        out.dataset.updates = String((Number(out.dataset.updates) || 0) + 1);
        var root = out.firstElementChild;
        status(root && root.dataset.summary);
        form.removeAttribute("aria-busy");
      })
      .catch(function (err) {
        if (err.name !== "AbortError") {
          form.removeAttribute("aria-busy");
          status("Could not replay: " + err.message + ". Your changes are kept; try again.");
        }
      });
  }

  // keepLastGood keeps the last table that replayed in view, dimmed under
  // the errors, while a card has a mistake: the reader sees what the
  // timeline did before it and where they were, and it comes back
  // undimmed once the draft replays again.
  var lastGood = null;
  function keepLastGood(out) {
    if (out.querySelector("table.steps")) {
      lastGood = out.firstElementChild ? out.firstElementChild.cloneNode(true) : null;
      return;
    }
    if (!lastGood || !out.querySelector(".editor-errors")) {
      return;
    }
    var box = document.createElement("div");
    box.className = "last-good";
    var note = document.createElement("p");
    note.className = "last-good-note";
    note.textContent = "The last timeline that replayed, before this mistake:";
    var old = lastGood.cloneNode(true);
    old.setAttribute("inert", "");
    old.querySelectorAll(".editor-warnings").forEach(function (el) { el.remove(); }); // mark() reads the new ones only
    old.querySelectorAll("[id]").forEach(function (el) { el.removeAttribute("id"); });
    old.querySelectorAll("[aria-labelledby]").forEach(function (el) { el.removeAttribute("aria-labelledby"); });
    box.appendChild(note);
    box.appendChild(old);
    out.firstElementChild.appendChild(box);
  }

  // ---------- errors and warnings on the cards ----------

  function clearMarks() {
    form.querySelectorAll(".editor-pane .field-error").forEach(function (el) { el.remove(); });
    form.querySelectorAll(".editor-pane [aria-invalid]").forEach(function (el) {
      el.removeAttribute("aria-invalid");
      if (/-err$/.test(el.getAttribute("aria-describedby") || "")) {
        el.removeAttribute("aria-describedby");
      }
    });
    cards().forEach(function (card) {
      card.classList.remove("has-error", "ev-skipped");
      var w = card.querySelector(".ev-warning");
      if (w) {
        w.hidden = true;
      }
    });
  }

  function errorNote(text, id) {
    var p = document.createElement("p");
    p.className = "field-error";
    if (id) {
      p.id = id;
    }
    p.textContent = "⚠ " + text;
    return p;
  }

  // mark puts the errors and warnings the result lists on their cards and
  // fields, as the server does on a whole page.
  function mark() {
    clearMarks();
    var out = $("result-body");
    out.querySelectorAll(".editor-errors li").forEach(function (li) {
      var msg = li.querySelector(".message").textContent;
      var card = li.dataset.cardId ? $(li.dataset.cardId) : null;
      var control = li.dataset.control ? form.elements.namedItem(li.dataset.control) : null;
      if (card) {
        card.classList.add("has-error");
      }
      if (control && control.closest) {
        var id = (control.id || li.dataset.control) + "-err";
        control.setAttribute("aria-invalid", "true");
        control.setAttribute("aria-describedby", id);
        var head = control.closest(".ev-head");
        if (head) { // the actor: below the card's head
          head.parentNode.insertBefore(errorNote(msg, id), head.nextSibling);
        } else {
          (control.closest(".ev-field") || control.parentNode).appendChild(errorNote(msg, id));
        }
        var more = control.closest("details");
        if (more) {
          more.open = true;
        }
      } else if (card) {
        var note = errorNote(li.querySelector("a").textContent.replace(/^Event \d+ · /, "") + ": " + msg);
        note.classList.add("card-error");
        card.insertBefore(note, card.querySelector(".ev-warning"));
      }
    });
    out.querySelectorAll(".editor-warnings li").forEach(function (li) {
      var card = $(li.dataset.cardId);
      var w = card && card.querySelector(".ev-warning");
      if (w) {
        card.classList.add("ev-skipped");
        w.textContent = "↷ " + li.textContent;
        w.hidden = false;
      }
    });
  }

  // ---------- redrawing the editor ----------

  // swap puts the editor of a whole page (from POST /lab or /lab/save) in
  // place of this one, keeping focus and the open folds.
  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("editor");
    if (!fresh) {
      throw new Error("the answer had no editor");
    }
    var focusID = document.activeElement && document.activeElement.id;
    var open = {};
    form.querySelectorAll("details.chooser, details.advanced, details.about").forEach(function (d) {
      open[d.className] = d.open;
    });
    form.replaceChildren.apply(form, Array.prototype.slice.call(fresh.childNodes));
    form.querySelectorAll("details.chooser, details.advanced, details.about").forEach(function (d) {
      if (open[d.className]) {
        d.open = true;
      }
    });
    setup();
    var target = form.querySelector("[autofocus]") || (focusID && $(focusID));
    if (target) {
      target.removeAttribute("autofocus");
      target.focus();
    }
  }

  function redraw(submitter, sent) {
    window.clearTimeout(typing);
    if (inflight) {
      inflight.abort();
    }
    form.setAttribute("aria-busy", "true");
    return fetch(form.dataset.page, { method: "POST", body: sent || body(submitter) })
      .then(function (res) {
        if (!res.ok) {
          throw new Error("the server answered " + res.status);
        }
        return res.text();
      })
      .then(function (html) {
        swap(html);
        form.removeAttribute("aria-busy");
        keepLastGood($("result-body"));
        keepDraft();
        remember();
        var root = $("result-body").firstElementChild;
        status(root && root.dataset.summary);
      })
      .catch(function (err) {
        form.removeAttribute("aria-busy");
        status("Could not update the editor: " + err.message + ". Your changes are kept; try again.");
      });
  }

  function save() {
    form.setAttribute("aria-busy", "true");
    fetch(form.dataset.saveUrl, { method: "POST", body: body() })
      .then(function (res) {
        if (res.redirected && new URL(res.url).pathname.indexOf(form.dataset.runPrefix) === 0) {
          dropDraft();
          window.location.assign(res.url);
          return null;
        }
        if (res.status !== 422) {
          throw new Error("the server answered " + res.status);
        }
        return res.text().then(function (html) {
          swap(html);
          form.removeAttribute("aria-busy");
          announce("Not saved: the timeline has problems, marked on the cards.");
          status("Not saved: fix the marked fields first.");
        });
      })
      .catch(function (err) {
        form.removeAttribute("aria-busy");
        status("Could not save: " + err.message + ". Your changes are kept; try again.");
      });
  }

  // ---------- policies, the palette, actors ----------

  function chosenPolicies() {
    return Array.prototype.slice.call(form.querySelectorAll('input[name="p"]:checked')).map(function (b) { return b.value; });
  }

  function policiesChanged() {
    var chosen = chosenPolicies();
    var defaults = form.dataset.defaultPolicies.split(" ");
    var names = $("chosen-names");
    if (names) {
      names.textContent = (chosen.length ? chosen : defaults).join(", ");
    }
    var q = new URLSearchParams();
    if (form.dataset.from) {
      q.set("from", form.dataset.from);
    }
    if (chosen.join(" ") !== defaults.join(" ")) {
      chosen.forEach(function (p) { q.append("p", p); });
    }
    var s = q.toString();
    window.history.replaceState(null, "", form.dataset.page + (s ? "?" + s : ""));
  }

  // showPaletteFields shows only the fields the chosen kind takes, and
  // what the kind does.
  function showPaletteFields() {
    var kind = form.querySelector("#palette-kinds input:checked");
    if (!kind) {
      return;
    }
    form.querySelectorAll(".palette [data-kinds]").forEach(function (el) {
      var kinds = el.dataset.kinds;
      el.hidden = kinds !== "all" && kinds.split(" ").indexOf(kind.value) < 0;
    });
    var text = $("kind-text");
    if (text) {
      text.textContent = kind.closest("label").title;
    }
  }

  // recolour paints a card's actor pill and edge in its new actor's colour.
  function recolour(select) {
    var card = select.closest(".ev-card");
    var tone = "none";
    form.querySelectorAll("input.actor-name").forEach(function (input, i) {
      if (input.value === select.value && tone === "none") {
        tone = String(i % 8);
      }
    });
    select.className = select.className.replace(/\bactor-(\d+|none)\b/, "actor-" + tone);
    card.className = card.className.replace(/\btone-\S+/, "tone-" + tone);
    var text = card.querySelector(".ev-actor-text");
    if (text) {
      text.textContent = select.value;
    }
  }

  function inPalette(el) { return el.closest && el.closest(".palette"); }

  // ---------- wiring ----------

  form.addEventListener("submit", function (ev) {
    var b = ev.submitter;
    ev.preventDefault();
    if (b && b.hasAttribute("data-save")) {
      save();
      return;
    }
    if (b && b.hasAttribute("data-explore")) {
      // A plain submission: the server saves the draft and opens the
      // explorer; the draft stays in this browser for coming back.
      form.action = b.getAttribute("formaction");
      form.submit();
      return;
    }
    var run = form.dataset.runOp;
    var op = b && b.name === "op" ? b.value : run;
    if (b && b.dataset.move && b.closest(".ev-card")) {
      move(b.closest(".ev-card"), Number(b.dataset.move), b);
    } else if (op === run) {
      changed(true);
    } else {
      redraw(b);
    }
  });

  form.addEventListener("input", function (ev) {
    var t = ev.target;
    if (inPalette(t) || t.tagName === "SELECT" || t.type === "checkbox" || t.hasAttribute("data-rerender")) {
      return; // these wait for their change event
    }
    changed(false);
  });

  form.addEventListener("change", function (ev) {
    var t = ev.target;
    if (inPalette(t)) {
      showPaletteFields();
      return;
    }
    if (t.hasAttribute("data-rerender")) {
      redraw(null); // a rename or a new name: every card's choices change
      return;
    }
    if (t.name === "p") {
      policiesChanged();
    }
    if (t.classList.contains("actor-select")) {
      recolour(t);
    }
    if (t.tagName === "SELECT" || t.type === "checkbox") {
      changed(true);
    }
  });

  form.addEventListener("keydown", function (ev) {
    var up = ev.key === "ArrowUp", down = ev.key === "ArrowDown";
    if (!up && !down) {
      return;
    }
    var t = ev.target;
    var card = t.closest && t.closest(".ev-card");
    var onHandle = t.classList && t.classList.contains("ev-handle");
    if (!card || !(ev.altKey || onHandle) || ev.ctrlKey || ev.metaKey) {
      return;
    }
    ev.preventDefault();
    move(card, up ? -1 : 1, t);
  });

  form.addEventListener("click", function (ev) {
    if (ev.target.closest && ev.target.closest("[data-discard]")) {
      dropDraft();
      window.location.reload();
    }
    if (ev.target.closest && ev.target.closest("#undo")) {
      undo();
    }
    if (ev.target.closest && ev.target.closest("#redo")) {
      redo();
    }
  });

  // Ctrl+Z undoes and Ctrl+Shift+Z (or Ctrl+Y) redoes, as in any editor;
  // inside a text field that has its own undo, the browser's comes first
  // until the field is left.
  document.addEventListener("keydown", function (ev) {
    if (!(ev.ctrlKey || ev.metaKey) || ev.altKey) {
      return;
    }
    var key = ev.key.toLowerCase();
    var t = ev.target;
    var typing = t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && /^(text|search|number|)$/.test(t.type)));
    if (typing && t.value !== t.defaultValue) {
      return;
    }
    if (key === "z" && !ev.shiftKey) {
      ev.preventDefault();
      undo();
    } else if ((key === "z" && ev.shiftKey) || key === "y") {
      ev.preventDefault();
      redo();
    }
  });

  function setup() {
    setupSortable();
    showPaletteFields();
  }

  // restoreDraft brings back unsaved changes made to the same source in
  // this browser: the server draws the editor from them.
  function restoreDraft() {
    var saved = storage(function (s) { return s.getItem(draftKey); });
    if (!saved || saved === draftText()) {
      return;
    }
    redraw(null, new URLSearchParams(saved)).then(function () {
      var note = $("draft-note");
      if (note) {
        note.hidden = false;
      }
      policiesChanged();
    });
  }

  setup();
  // The page as it opened is the first draft undo comes back to, unless
  // the history already ends with it (a reload).
  if (history.past.length === 0) {
    history.past.push(draftText());
  }
  keepHistory();
  keepLastGood($("result-body"));
  restoreDraft();
})();

// fencelab: the presentation's diagram made readable on the screen it is
// shown on (views/present.templ, used by present.js, loaded before it
// with defer): its labels grow toward a size a room can read, move aside
// rather than run into each other, the bands stretch to a tall column,
// and on a phone the drawing's own box scrolls sideways to the current
// step. Kept apart from present.js, which steps and asks; this file only
// measures and moves the SVG's marks.
"use strict";

window.fencelabDiagramFit = function (svg) {
  // fitLabels keeps the diagram's words readable where it is drawn small:
  // toward 18.5 px on a projector and 11.5 px on a phone, growing each
  // label from its own size (and each token's box with it), by at most
  // 2×; then labels that would run into a token's box or into the next
  // label move aside (spread). The SVG keeps its geometry; only text
  // grows. It runs again whenever the drawing's box changes size (the
  // panel under it appears, the card beside it grows).
  function fitLabels() {
    if (!svg) {
      return;
    }
    var box = svg.viewBox.baseVal;
    stretch(box);
    var r = svg.getBoundingClientRect();
    if (!box || !box.width || !r.width) {
      return;
    }
    var scale = Math.min(r.width / box.width, r.height / box.height);
    var least = window.innerWidth >= 700 ? 18.5 : 11.5;
    var smallest = 99;
    svg.querySelectorAll("text").forEach(function (t) {
      smallest = Math.min(smallest, parseFloat(t.getAttribute("font-size") || "13"));
    });
    var grow = Math.min(2, Math.max(1, least / (smallest * scale)));
    svg.querySelectorAll("text").forEach(function (t) {
      if (t.dataset.text !== undefined) {
        t.textContent = t.dataset.text;
      } else if (t.children.length === 0) {
        t.dataset.text = t.textContent;
      }
      var size = parseFloat(t.getAttribute("font-size") || "13");
      t.style.fontSize = grow > 1 ? (size * grow).toFixed(1) + "px" : "";
      var chip = t.previousElementSibling;
      if (chip && chip.tagName === "rect" && t.getAttribute("text-anchor") === "middle") {
        growChip(chip, t, grow);
      }
      // A label grown past the left edge (the step numbers, "final") moves in.
      if (!t.dataset.x) {
        t.dataset.x = t.getAttribute("x") || "0";
      }
      t.setAttribute("x", t.dataset.x);
      if (t.dataset.y === undefined) {
        t.dataset.y = t.getAttribute("y") || "0";
      }
      if (!(chip && chip.tagName === "rect")) {
        t.setAttribute("y", t.dataset.y);
      }
      var left = t.getBBox().x;
      if (left < 2) {
        t.setAttribute("x", String(parseFloat(t.dataset.x) + 2 - left));
      }
    });
    spread(least);
  }

  // stretch lets the drawing use the height it has on a wide projector:
  // when its width bounds it and the column has height to spare, the
  // bands grow taller (by up to 1.4×) while the words, the dots and the
  // tokens' boxes keep their shape (present.css scales them back) and
  // lines keep their width.
  function stretch(box) {
    var wrap = svg.parentElement;
    svg.classList.remove("is-stretched");
    svg.style.height = "";
    svg.setAttribute("preserveAspectRatio", "xMidYMin meet");
    if (!box || !box.width || window.innerWidth < 700 || window.innerHeight > window.innerWidth) {
      return;
    }
    var w = wrap.clientWidth, h = wrap.clientHeight;
    var natural = box.height * w / box.width;
    var k = Math.min(1.4, h / natural);
    if (k < 1.05) {
      return;
    }
    svg.querySelectorAll("text").forEach(function (t) {
      var chip = t.previousElementSibling;
      if (chip && chip.tagName === "rect" && t.getAttribute("text-anchor") === "middle") {
        chip.classList.add("chip");
      }
    });
    svg.setAttribute("preserveAspectRatio", "none");
    svg.style.setProperty("--unstretch", String(1 / k));
    svg.style.height = Math.floor(natural * k) + "px";
    svg.classList.add("is-stretched");
  }

  // spread moves each label that starts inside a token's box or the
  // label before it to the right of them, row by row. Labels are read
  // left to right, so pushing right keeps their order.
  function spread(least) {
    var items = [];
    svg.querySelectorAll("text").forEach(function (t) {
      if (t.getAttribute("visibility") === "hidden" || !t.textContent.trim()) {
        return;
      }
      var chip = t.previousElementSibling;
      var isChip = chip && chip.tagName === "rect" && t.getAttribute("text-anchor") === "middle";
      var b = isChip ? chip.getBBox() : t.getBBox();
      items.push({ t: t, box: { x: b.x, y: b.y, width: b.width, height: b.height }, movable: !isChip && t.getAttribute("text-anchor") !== "middle" && t.getAttribute("text-anchor") !== "end" });
    });
    items.sort(function (a, b) { return a.box.x - b.box.x; });
    for (var i = 0; i < items.length; i++) {
      var a = items[i];
      if (!a.movable) {
        continue;
      }
      for (var j = 0; j < items.length; j++) {
        var o = items[j];
        if (o === a || o.box.x > a.box.x) {
          continue;
        }
        var h = Math.min(a.box.y + a.box.height, o.box.y + o.box.height) - Math.max(a.box.y, o.box.y);
        var over = o.box.x + o.box.width + 5 - a.box.x; // a space between words
        if (h > 3 && over > 0) {
          a.t.setAttribute("x", String(parseFloat(a.t.getAttribute("x")) + over));
          a.box.x += over;
        }
      }
    }
    stackLines(items);
    fitBefore(items, least / scaleOf());
  }

  function scaleOf() {
    var box = svg.viewBox.baseVal;
    var r = svg.getBoundingClientRect();
    return Math.min(r.width / box.width, r.height / box.height);
  }

  // fitBefore keeps each label short of the next mark to its right on its
  // row (a decision's dot, the next label) and of the drawing's right
  // edge (the names of the invariants broken, grown, would run off it):
  // it shrinks, down to least (in the drawing's units), then loses its
  // last letters to an ellipsis; the whole word stays in the card and the
  // final values.
  function fitBefore(items, least) {
    var view = svg.viewBox.baseVal;
    var edge = view.x + view.width - 2;
    var marks = items.map(function (it) { return it.box; });
    svg.querySelectorAll("circle").forEach(function (c) {
      var b = c.getBBox();
      marks.push({ x: b.x, y: b.y, width: b.width, height: b.height });
    });
    items.forEach(function (a) {
      if (!a.movable) {
        return;
      }
      var limit = edge;
      marks.forEach(function (m) {
        var h = Math.min(a.box.y + a.box.height, m.y + m.height) - Math.max(a.box.y, m.y);
        if (m !== a.box && h > 3 && m.x > a.box.x + 1) {
          limit = Math.min(limit, m.x - 2);
        }
      });
      var b = a.t.getBBox();
      if (b.x + b.width <= limit) {
        return;
      }
      var size = parseFloat(getComputedStyle(a.t).fontSize);
      a.t.style.fontSize = Math.max(least, size * (limit - b.x) / b.width).toFixed(1) + "px";
      var text = a.t.textContent;
      while (a.t.dataset.text !== undefined && text.length > 2 && a.t.getBBox().x + a.t.getBBox().width > limit) {
        text = text.slice(0, -1);
        a.t.textContent = text + "…";
      }
    });
  }

  // stackLines moves a centred label down below the centred label above
  // it when grown text makes the two lines touch (a final value and its
  // token, under the last band).
  function stackLines(items) {
    var centred = items.filter(function (it) {
      var prev = it.t.previousElementSibling;
      return it.t.getAttribute("text-anchor") === "middle" && !(prev && prev.tagName === "rect");
    });
    centred.sort(function (a, b) { return a.box.y - b.box.y; });
    centred.forEach(function (a, i) {
      centred.slice(0, i).forEach(function (o) {
        var w = Math.min(a.box.x + a.box.width, o.box.x + o.box.width) - Math.max(a.box.x, o.box.x);
        var over = o.box.y + o.box.height + 1 - a.box.y;
        if (w > 1 && over > 0 && o.box.y < a.box.y) {
          a.t.setAttribute("y", String(parseFloat(a.t.getAttribute("y")) + over));
          a.box.y += over;
        }
      });
    });
  }

  // keepInSight scrolls the diagram's box sideways (on a phone, where the
  // drawing is wider than the screen) to show band b's marks.
  function keepInSight(b) {
    var wrap = svg.parentElement;
    if (!wrap || wrap.scrollWidth <= wrap.clientWidth) {
      return;
    }
    var left = Infinity, right = -Infinity;
    Array.prototype.forEach.call(b.children, function (el) {
      if (el.classList.contains("hit") || !el.getBoundingClientRect) {
        return;
      }
      var r = el.getBoundingClientRect();
      if (r.width > 0) {
        left = Math.min(left, r.left);
        right = Math.max(right, r.right);
      }
    });
    if (left === Infinity) {
      return;
    }
    var w = wrap.getBoundingClientRect();
    var centre = (left + right) / 2 - w.left + wrap.scrollLeft;
    wrap.scrollLeft = Math.max(0, centre - wrap.clientWidth / 2);
  }

  // growChip grows a token's box around its centre, with its text.
  function growChip(rect, text, grow) {
    if (!rect.dataset.box) {
      rect.dataset.box = [rect.getAttribute("x"), rect.getAttribute("y"), rect.getAttribute("width"), rect.getAttribute("height"), text.getAttribute("y")].join(" ");
    }
    var b = rect.dataset.box.split(" ").map(parseFloat);
    var cx = b[0] + b[2] / 2, cy = b[1] + b[3] / 2;
    rect.setAttribute("x", String(cx - b[2] * grow / 2));
    rect.setAttribute("y", String(cy - b[3] * grow / 2));
    rect.setAttribute("width", String(b[2] * grow));
    rect.setAttribute("height", String(b[3] * grow));
    text.setAttribute("y", String(cy + (b[4] - cy) * grow));
  }

  return { fit: fitLabels, keepInSight: keepInSight };
};

// The board of the play page, drawn in SVG. It only draws and reports clicks: the server
// judges every move. One drawing per game: Gomoku (stones on the intersections of a grid) and
// Connect Four (discs in the cells of an upright grid, played by column).
//
// Squares are (x, y) with y = 0 at the top, as the API and the Gomocup protocol have them.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

// Column letters: A..Z, then AA, AB, ... (boards go up to 32 wide).
function columnName(x) {
  const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return x < 26 ? a[x] : a[Math.floor(x / 26) - 1] + a[x % 26];
}

// The usual letter-number name of a square: the column's letter and the row counted from the
// bottom (H8 is the centre of a 15x15 board).
function squareName(x, y, height) {
  return columnName(x) + String(height - y);
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) {
    node.setAttribute(k, String(v));
  }
  if (parent) {
    parent.appendChild(node);
  }
  return node;
}

// Star points of a Gomoku board: the centre and four points three or four lines in.
function starPoints(w, h) {
  if (w < 9 || h < 9) {
    return w % 2 && h % 2 ? [[(w - 1) / 2, (h - 1) / 2]] : [];
  }
  const d = w >= 13 ? 3 : 2;
  const pts = [
    [d, d],
    [w - 1 - d, d],
    [d, h - 1 - d],
    [w - 1 - d, h - 1 - d],
  ];
  if (w % 2 && h % 2) {
    pts.push([(w - 1) / 2, (h - 1) / 2]);
  }
  return pts;
}

class BoardView {
  // `svg`: the element to draw into; `onSquare(x, y)`: a click on a square (Gomoku) or in a
  // column (Connect Four: y is 0; the server drops the disc); `onHover(x, y)`:
  // the square under the pointer, or null.
  constructor(svg, onSquare, onHover) {
    this.svg = svg;
    this.onSquare = onSquare;
    this.onHover = onHover || (() => {});
    this.shape = "";
  }

  // Draws `m`: { game, width, height, stones: [{x, y, colour, n}], last: [x, y] | null,
  // line: [[x, y]...], forbidden: [[x, y]...], pv: [[x, y]...], pvFirst: "black"|"white",
  // hint: [x, y] | null, numbers: bool, toMove: "black"|"white"|null, clickable: bool }.
  render(m) {
    const shape = `${m.game}:${m.width}x${m.height}`;
    if (shape !== this.shape) {
      this.build(m.game, m.width, m.height);
      this.shape = shape;
    }
    this.svg.classList.toggle("clickable", !!m.clickable);
    this.svg.dataset.toMove = m.toMove || "";
    const layer = this.layer;
    while (layer.firstChild) {
      layer.removeChild(layer.firstChild);
    }
    if (m.game === "connect4") {
      this.drawDiscs(m);
    } else {
      this.drawStones(m);
    }
  }

  // The grid, labels and click targets, which change only with the board's shape.
  build(game, w, h) {
    const svg = this.svg;
    while (svg.firstChild) {
      svg.removeChild(svg.firstChild);
    }
    this.width = w;
    this.height = h;
    this.game = game;
    const defs = el("defs", {}, svg);
    const grad = (id, inner, outer) => {
      const g = el("radialGradient", { id, cx: "35%", cy: "30%", r: "70%" }, defs);
      el("stop", { offset: "0%", "stop-color": inner }, g);
      el("stop", { offset: "100%", "stop-color": outer }, g);
    };
    grad("stone-black", "#6b6b6b", "#0b0b0b");
    grad("stone-white", "#ffffff", "#c9c9c9");
    grad("disc-black", "#ff7a6b", "#c0231a");
    grad("disc-white", "#ffe98a", "#d8a800");
    if (game === "connect4") {
      this.buildConnect4(w, h);
    } else {
      this.buildGomoku(w, h);
    }
    this.layer = el("g", { class: "marks" }, svg);
    this.hits = el("g", { class: "hits" }, svg);
    if (game === "connect4") {
      // One target per column, the whole column tall: the disc falls wherever it is clicked.
      for (let x = 0; x < w; x++) {
        const hit = el("rect", { class: "hit column", x, y: 0, width: 1, height: h, "data-x": x, "data-y": 0, "data-name": `column ${x + 1}` }, this.hits);
        hit.addEventListener("click", () => this.onSquare(x, 0));
        hit.addEventListener("mouseenter", () => this.onHover(x, 0));
      }
      this.hits.addEventListener("mouseleave", () => this.onHover(null, null));
      return;
    }
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const [cx, cy] = this.centre(x, y);
        const hit = el(
          "rect",
          {
            class: "hit",
            x: cx - 0.5,
            y: cy - 0.5,
            width: 1,
            height: 1,
            "data-x": x,
            "data-y": y,
            "data-name": squareName(x, y, h),
          },
          this.hits
        );
        hit.addEventListener("click", () => this.onSquare(x, y));
        hit.addEventListener("mouseenter", () => this.onHover(x, y));
      }
    }
    this.hits.addEventListener("mouseleave", () => this.onHover(null, null));
  }

  centre(x, y) {
    return this.game === "connect4" ? [x + 0.5, y + 0.5] : [x + 1.2, y + 1.2];
  }

  buildGomoku(w, h) {
    const m = 1.2;
    this.svg.setAttribute("viewBox", `0 0 ${w - 1 + 2 * m} ${h - 1 + 2 * m}`);
    el("rect", { class: "wood", x: 0, y: 0, width: w - 1 + 2 * m, height: h - 1 + 2 * m, rx: 0.3 }, this.svg);
    const grid = el("g", { class: "grid" }, this.svg);
    for (let i = 0; i < w; i++) {
      el("line", { x1: m + i, y1: m, x2: m + i, y2: m + h - 1 }, grid);
    }
    for (let j = 0; j < h; j++) {
      el("line", { x1: m, y1: m + j, x2: m + w - 1, y2: m + j }, grid);
    }
    for (const [x, y] of starPoints(w, h)) {
      el("circle", { class: "star", cx: m + x, cy: m + y, r: 0.1 }, grid);
    }
    const labels = el("g", { class: "labels" }, this.svg);
    for (let i = 0; i < w; i++) {
      for (const y of [0.55, m + h - 1 + 0.75]) {
        const t = el("text", { x: m + i, y, "text-anchor": "middle", "dominant-baseline": "middle" }, labels);
        t.textContent = columnName(i);
      }
    }
    for (let j = 0; j < h; j++) {
      for (const x of [0.5, m + w - 1 + 0.75]) {
        const t = el("text", { x, y: m + j, "text-anchor": "middle", "dominant-baseline": "middle" }, labels);
        t.textContent = String(h - j);
      }
    }
  }

  buildConnect4(w, h) {
    // Below the holes: the column numbers, then room for the hint's verdict of each column.
    this.svg.setAttribute("viewBox", `-0.1 -0.1 ${w + 0.2} ${h + 1.45}`);
    el("rect", { class: "frame", x: -0.05, y: -0.05, width: w + 0.1, height: h + 0.1, rx: 0.2 }, this.svg);
    const holes = el("g", { class: "holes" }, this.svg);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        el("circle", { class: "hole", cx: x + 0.5, cy: y + 0.5, r: 0.4 }, holes);
      }
    }
    const labels = el("g", { class: "labels" }, this.svg);
    for (let i = 0; i < w; i++) {
      const t = el("text", { x: i + 0.5, y: h + 0.45, "text-anchor": "middle", "dominant-baseline": "middle" }, labels);
      t.textContent = String(i + 1);
    }
  }

  drawStones(m) {
    const layer = this.layer;
    const at = (x, y) => this.centre(x, y);
    for (const [x, y] of m.forbidden || []) {
      const [cx, cy] = at(x, y);
      const g = el("g", { class: "forbidden", "data-x": x, "data-y": y }, layer);
      el("line", { x1: cx - 0.2, y1: cy - 0.2, x2: cx + 0.2, y2: cy + 0.2 }, g);
      el("line", { x1: cx - 0.2, y1: cy + 0.2, x2: cx + 0.2, y2: cy - 0.2 }, g);
    }
    if (m.line && m.line.length > 1) {
      // Under the stones: it shows between them and leaves their numbers readable.
      const [x1, y1] = at(m.line[0][0], m.line[0][1]);
      const [x2, y2] = at(m.line[m.line.length - 1][0], m.line[m.line.length - 1][1]);
      el("line", { class: "win-line", x1, y1, x2, y2 }, layer);
    }
    const winning = new Set((m.line || []).map(([x, y]) => `${x},${y}`));
    for (const s of m.stones) {
      const [cx, cy] = at(s.x, s.y);
      const c = el(
        "circle",
        {
          class: `stone ${s.colour}` + (winning.has(`${s.x},${s.y}`) ? " winning" : ""),
          cx,
          cy,
          r: 0.46,
          fill: `url(#stone-${s.colour})`,
          "data-x": s.x,
          "data-y": s.y,
        },
        layer
      );
      c.dataset.colour = s.colour;
      if (m.numbers && s.n > 0) {
        const t = el("text", { class: `number ${s.colour}`, x: cx, y: cy + 0.02, "text-anchor": "middle", "dominant-baseline": "middle" }, layer);
        t.textContent = String(s.n);
        if (s.n >= 100) {
          t.classList.add("small");
        }
      }
    }
    if (m.last) {
      const [cx, cy] = at(m.last[0], m.last[1]);
      if (m.numbers) {
        el("circle", { class: "last ring", cx, cy, r: 0.5 }, layer);
      } else {
        el("circle", { class: "last", cx, cy, r: 0.13 }, layer);
      }
    }
    this.drawPv(m, 0.4);
    if (m.hint) {
      const [cx, cy] = at(m.hint[0], m.hint[1]);
      el("circle", { class: "hint", cx, cy, r: 0.42, "data-x": m.hint[0], "data-y": m.hint[1] }, layer);
    }
  }

  // The principal variation, drawn faintly and numbered from 1.
  drawPv(m, r) {
    const occupied = new Set(m.stones.map((s) => `${s.x},${s.y}`));
    let colour = m.pvFirst || "black";
    let n = 1;
    for (const [x, y] of m.pv || []) {
      if (occupied.has(`${x},${y}`)) {
        break;
      }
      occupied.add(`${x},${y}`);
      const [cx, cy] = this.centre(x, y);
      const g = el("g", { class: `pv ${colour}` }, this.layer);
      const kind = this.game === "connect4" ? "disc" : "stone";
      el("circle", { cx, cy, r, fill: `url(#${kind}-${colour})` }, g);
      const t = el("text", { x: cx, y: cy + 0.02, "text-anchor": "middle", "dominant-baseline": "middle" }, g);
      t.textContent = String(n);
      colour = colour === "black" ? "white" : "black";
      n += 1;
    }
  }

  drawDiscs(m) {
    const layer = this.layer;
    const winning = new Set((m.line || []).map(([x, y]) => `${x},${y}`));
    for (const s of m.stones) {
      const [cx, cy] = this.centre(s.x, s.y);
      el(
        "circle",
        {
          class: `stone disc ${s.colour}` + (winning.has(`${s.x},${s.y}`) ? " winning" : ""),
          cx,
          cy,
          r: 0.4,
          fill: `url(#disc-${s.colour})`,
          "data-x": s.x,
          "data-y": s.y,
        },
        layer
      );
      if (m.numbers && s.n > 0) {
        const t = el("text", { class: "number disc", x: cx, y: cy + 0.02, "text-anchor": "middle", "dominant-baseline": "middle" }, layer);
        t.textContent = String(s.n);
      }
    }
    if (m.last) {
      const [cx, cy] = this.centre(m.last[0], m.last[1]);
      el("circle", { class: "last disc-last", cx, cy, r: 0.1 }, layer);
    }
    if (m.line && m.line.length > 1) {
      const [x1, y1] = this.centre(m.line[0][0], m.line[0][1]);
      const [x2, y2] = this.centre(m.line[m.line.length - 1][0], m.line[m.line.length - 1][1]);
      el("line", { class: "win-line", x1, y1, x2, y2 }, layer);
    }
    this.drawPv(m, 0.3);
    // "wins in 5" on two lines, "wins" over "in 5", so that long verdicts fit their column.
    for (const [x, label] of m.columnLabels || []) {
      const g = el("g", { class: `column-verdict ${label.split(" ")[0]}`, "data-x": x }, layer);
      const words = label.split(" ");
      const lines = words.length > 1 ? [words[0], words.slice(1).join(" ")] : [label];
      lines.forEach((line, i) => {
        const t = el("text", { x: x + 0.5, y: this.height + 0.82 + 0.3 * i, "text-anchor": "middle", "dominant-baseline": "middle" }, g);
        t.textContent = line;
      });
      const title = el("title", {}, g);
      title.textContent = `column ${x + 1}: ${label}`;
    }
  }
}

window.WuziBoard = { BoardView, squareName, columnName };

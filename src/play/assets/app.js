// The play page: talks to the server's JSON API (see the README), keeps nothing the server
// does not know, and redraws from the game's state after every answer and every long poll.
//
// The address's fragment holds the game and this screen's seats: #game=ID&seat=SECRET (twice
// when both players sit at this screen), so a reload or a reconnect gets the seats back and an
// invitation link is just such an address with the other seat's secret.
"use strict";

(function () {
  const { BoardView, squareName } = window.WuziBoard;
  const $ = (id) => document.getElementById(id);

  const LEVEL_NAMES = ["", "beginner", "easy", "medium", "strong", "full strength"];
  const REQUEST_TEXT = {
    takeback: "to take back a move",
    draw: "a draw",
    new_game: "a new game",
    new_game_swapped: "a new game with the colours swapped",
  };

  const state = {
    info: null,
    id: null,
    tokens: [], // this screen's seats
    invite: null, // the other seat's secret, for the host of a network game
    view: null,
    receivedAt: 0,
    pollGeneration: 0,
    setup: null, // { request, stones: [[x, y]...] } while a position is set up by hand
    hover: null,
    firstIsBlack: true, // at one screen: whether the first seat plays black
    errorTimer: null,
  };
  window.wuzi = state; // for the browser test and the curious

  // ---- the API ---------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, "the server cannot be reached");
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (e) {
      data = null;
    }
    if (!response.ok) {
      const message = data && data.error ? data.error : `${response.status} ${response.statusText}`;
      throw new ApiError(response.status, message);
    }
    return data;
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message;
    box.hidden = false;
    clearTimeout(state.errorTimer);
    state.errorTimer = setTimeout(() => {
      box.hidden = true;
    }, 6000);
  }

  // The seat secret to act with: for a move at one screen, the secret of the side to move.
  function tokenFor(colour) {
    const v = state.view;
    if (!v || state.tokens.length === 0) {
      return null;
    }
    if (state.tokens.length === 1 || !colour) {
      return state.tokens[0];
    }
    return (colour === "black") === state.firstIsBlack ? state.tokens[0] : state.tokens[1];
  }

  async function act(action, extra, colour) {
    const seat = tokenFor(colour);
    if (!state.id || !seat) {
      return;
    }
    try {
      const view = await api("POST", `/api/games/${state.id}/${action}`, Object.assign({ seat }, extra || {}));
      applyView(view, seat);
    } catch (e) {
      showError(e.message);
    }
  }

  // ---- the game in the address -----------------------------------------------------------

  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    return { id: params.get("game"), tokens: params.getAll("seat") };
  }

  function writeHash() {
    const params = new URLSearchParams();
    params.set("game", state.id);
    for (const t of state.tokens) {
      params.append("seat", t);
    }
    const hash = "#" + params.toString();
    if (location.hash !== hash) {
      history.replaceState(null, "", hash);
    }
  }

  function openGame(id, tokens) {
    state.id = id;
    state.tokens = tokens;
    state.view = null;
    state.invite = localStorage.getItem(`wuzi-invite-${id}`);
    state.pollGeneration += 1;
    writeHash();
    poll(state.pollGeneration);
  }

  async function poll(generation) {
    let failures = 0;
    while (generation === state.pollGeneration) {
      const seat = state.tokens[0];
      let path = `/api/games/${state.id}?`;
      if (seat) {
        path += `seat=${encodeURIComponent(seat)}&`;
      }
      if (state.view) {
        path += `since=${state.view.version}`;
      }
      try {
        const view = await api("GET", path);
        if (generation !== state.pollGeneration) {
          return;
        }
        failures = 0;
        applyView(view, seat);
      } catch (e) {
        if (generation !== state.pollGeneration) {
          return;
        }
        if (e.status === 404) {
          state.view = null;
          render();
          $("status").textContent = "This game no longer exists (it may have expired). Start a new one.";
          return;
        }
        failures += 1;
        $("status").textContent = `Connection lost; retrying… (${e.message})`;
        await new Promise((r) => setTimeout(r, Math.min(5000, 500 * failures)));
      }
    }
  }

  // `seat`: the secret the view was asked with; its `yours` flags say which colour that seat
  // plays now (colours change with "swap colours").
  function applyView(view, seat) {
    if (!view || view.id !== state.id) {
      return;
    }
    if (state.view && view.version < state.view.version) {
      return;
    }
    if (seat && state.tokens.length > 1) {
      const seatIsBlack = !!view.black.yours;
      state.firstIsBlack = seat === state.tokens[0] ? seatIsBlack : !seatIsBlack;
    }
    state.view = view;
    state.receivedAt = performance.now();
    render();
  }

  // ---- drawing ---------------------------------------------------------------------------

  const board = new BoardView($("board"), onSquare, onHover);

  function colourAt(i) {
    return i % 2 === 0 ? "black" : "white";
  }

  function myColours() {
    const v = state.view;
    if (!v || !v.you) {
      return [];
    }
    return v.you === "both" ? ["black", "white"] : [v.you];
  }

  function isPlayer() {
    return myColours().length > 0;
  }

  // A player, or the host of a game between two computers.
  function isHost() {
    return !!(state.view && state.view.host);
  }

  function canMove() {
    const v = state.view;
    return !!(v && v.to_move && myColours().includes(v.to_move) && v[v.to_move].kind !== "wuzi" && v[v.to_move].kind !== "engine");
  }

  function shownLine() {
    const v = state.view;
    if (v.analysing && v.analysis) {
      return v.analysis;
    }
    if (v.thinking) {
      return v.thinking;
    }
    return null;
  }

  function render() {
    const v = state.view;
    document.body.classList.toggle("no-coords", !$("show-coords").checked);
    if (state.setup) {
      renderSetup();
      return;
    }
    $("setup-bar").hidden = true;
    if (!v) {
      board.render({ game: "gomoku", width: 15, height: 15, stones: [], clickable: false });
      for (const id of ["controls", "help", "records"]) {
        $(id).hidden = true;
      }
      for (const id of ["thinking", "invite", "chat", "request", "paused", "players", "moves-pane", "log-pane"]) {
        $(id).hidden = true;
      }
      return;
    }
    for (const id of ["controls", "help", "records", "players", "moves-pane", "log-pane"]) {
      $(id).hidden = false;
    }
    document.body.classList.toggle("connect4", v.game === "connect4");
    const stones = [];
    for (let i = 0; i < v.cursor; i++) {
      stones.push({ x: v.moves[i][0], y: v.moves[i][1], colour: colourAt(i), n: i + 1 });
    }
    const line = shownLine();
    const hint = v.hint && v.hint.pv.length ? v.hint.pv[0] : null;
    board.render({
      game: v.game,
      width: v.width,
      height: v.height,
      stones,
      last: v.cursor > 0 ? v.moves[v.cursor - 1] : null,
      line: v.result ? v.result.line : [],
      forbidden: v.forbidden,
      pv: line ? line.pv : [],
      pvFirst: v.to_move || "black",
      hint,
      numbers: $("show-numbers").checked,
      toMove: v.to_move,
      clickable: canMove(),
      columnLabels: columnVerdicts(v),
    });
    $("board").dataset.moves = String(v.cursor);
    renderPlayers();
    renderStatus();
    renderButtons();
    renderThinking();
    renderRequest();
    renderMoves();
    renderNetwork();
    $("log").textContent = v.log.join("\n");
    $("save-psq").href = `/api/games/${v.id}/record.psq`;
    $("save-sgf").href = `/api/games/${v.id}/record.sgf`;
    $("records").hidden = v.game !== "gomoku";
  }

  // Connect Four: the verdict of every column from the hint or the analysis, for the side to
  // move ("wins in 5", "draw", "loses in 3"); full columns stay unlabelled.
  function columnVerdicts(v) {
    if (v.game !== "connect4" || v.result) {
      return [];
    }
    const t = (v.analysing && v.analysis) || v.hint;
    if (!t || !t.columns) {
      return [];
    }
    return t.columns.map((text, x) => [x, text]).filter(([, text]) => text !== "full");
  }

  function formatClock(ms) {
    if (ms === null || ms === undefined) {
      return "";
    }
    const s = Math.max(0, ms) / 1000;
    if (s < 10) {
      return s.toFixed(1);
    }
    const m = Math.floor(s / 60);
    const r = Math.floor(s % 60);
    return `${m}:${String(r).padStart(2, "0")}`;
  }

  // Clocks run here between the server's answers; the server keeps the real time.
  function renderClocks() {
    const v = state.view;
    if (!v || state.setup) {
      return;
    }
    const elapsed = performance.now() - state.receivedAt;
    for (const colour of ["black", "white"]) {
      const s = v[colour];
      const running = v.to_move === colour && !v.paused;
      const clock = $(`player-${colour}`).querySelector(".clock");
      let ms = null;
      if (s.clock_ms !== null) {
        ms = running ? s.clock_ms - elapsed : s.clock_ms;
      } else if (s.turn_left_ms !== null && running) {
        ms = s.turn_left_ms - elapsed;
      }
      clock.textContent = formatClock(ms);
      clock.classList.toggle("low", ms !== null && ms < 10000 && running);
    }
  }

  function renderPlayers() {
    const v = state.view;
    for (const colour of ["black", "white"]) {
      const s = v[colour];
      const row = $(`player-${colour}`);
      let name = s.name;
      if (s.yours || (v.you === "both" && s.kind === "local")) {
        name += " (you)";
      }
      row.querySelector(".name").textContent = name;
      row.classList.toggle("to-move", v.to_move === colour);
      row.classList.toggle("away", s.kind === "remote" && !s.present);
    }
    renderClocks();
  }

  function colourName(c) {
    if (state.view && state.view.game === "connect4") {
      return c === "black" ? "Red" : "Yellow";
    }
    return c === "black" ? "Black" : "White";
  }

  function renderStatus() {
    const v = state.view;
    const status = $("status");
    status.classList.toggle("over", !!v.result);
    if (v.result) {
      status.textContent = capitalise(v.result.text);
      status.dataset.result = v.result.winner || "draw";
      status.dataset.reason = v.result.reason;
      return;
    }
    delete status.dataset.result;
    delete status.dataset.reason;
    const side = v[v.to_move];
    let text = `${colourName(v.to_move)} to move`;
    if (v.analysing) {
      text += " · analysis";
    } else if (v.paused) {
      text += ` · ${side.name} waits`;
    } else if (side.kind === "wuzi" || side.kind === "engine") {
      text += ` · ${side.name} is thinking…`;
    } else if (myColours().includes(v.to_move)) {
      text += v.you === "both" ? "" : " · your move";
    } else if (side.kind === "remote" && !side.present) {
      text += " · the other player is away";
    } else {
      text += " · waiting for the other player";
    }
    status.textContent = text;
  }

  function capitalise(s) {
    return s ? s[0].toUpperCase() + s.slice(1) : s;
  }

  function renderButtons() {
    const v = state.view;
    const player = isPlayer();
    const host = isHost();
    const over = !!v.result;
    const thinking = v.black.thinking || v.white.thinking;
    const set = (id, enabled, visible) => {
      $(id).disabled = !enabled;
      if (visible !== undefined) {
        $(id).hidden = !visible;
      }
    };
    set("undo", host && !v.network && v.cursor > v.start, !v.network);
    set("redo", host && !v.network && v.cursor < v.moves.length, !v.network);
    set("takeback", player && v.cursor > v.start && !v.request, v.network);
    set("move-now", host && thinking, true);
    set("resign", player && !over);
    set("draw", player && !over && !v.request);
    set("rematch", host && !v.request);
    set("swap", host && !v.request);
    $("rematch").textContent = v.network ? "Ask for a new round" : "New round";
    $("swap").textContent = v.network ? "Ask to swap colours" : "Swap colours";
    $("draw").textContent = v.network || v.black.kind !== "local" || v.white.kind !== "local" ? "Offer draw" : "Agree draw";
    const assist = host && v.assistance;
    $("help").hidden = !assist;
    set("hint", assist && !over);
    $("analysis").checked = v.analysing;
    $("analysis").disabled = !assist;
    $("paused").hidden = !(host && v.paused && !v.analysing && !over);
  }

  function describeThinking(t) {
    const parts = [];
    if (t.depth > 0) {
      parts.push(`depth ${t.depth}`);
    }
    if (t.score_text) {
      parts.push(t.score_text);
    }
    if (t.nps > 0) {
      parts.push(`${t.nps >= 10000 ? Math.round(t.nps / 1000) + " k" : t.nps + " "}nodes/s`);
    }
    if (t.nodes > 0) {
      parts.push(`${t.nodes} nodes`);
    }
    parts.push(`${(t.ms / 1000).toFixed(1)} s`);
    return parts.join(" · ");
  }

  function pvText(pv) {
    const v = state.view;
    return pv.map(([x, y]) => (v.game === "connect4" ? String(x + 1) : squareName(x, y, v.height))).join(" ");
  }

  function renderThinking() {
    const v = state.view;
    const pane = $("thinking");
    let title = null;
    let t = null;
    if (v.analysing && v.analysis) {
      t = v.analysis;
      title = `Analysis (${colourName(v.to_move || "black").toLowerCase()} to move)`;
    } else if (v.thinking) {
      t = v.thinking;
      title = `${v[t.by] ? v[t.by].name : "computer"} thinks`;
    } else if (v.hint) {
      t = v.hint;
      const best = t.pv.length ? pvText([t.pv[0]]) : "no move";
      title = `Hint: ${best}${t.done ? "" : " (thinking…)"}`;
    } else if (v.analysing) {
      title = "Analysis";
    } else if (v.last_thinking && v.cursor > 0) {
      t = v.last_thinking;
      const who = v[t.by] ? v[t.by].name : "the computer";
      title = `${capitalise(who)} played ${pvText([v.moves[v.cursor - 1]])}`;
    }
    pane.hidden = title === null;
    if (title === null) {
      return;
    }
    $("thinking-title").textContent = title;
    $("thinking-text").textContent = t ? describeThinking(t) : "starting…";
    $("thinking-pv").textContent = t && t.pv.length ? "line: " + pvText(t.pv) : "";
  }

  function renderRequest() {
    const v = state.view;
    const box = $("request");
    if (!v.request || !isPlayer()) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const mine = myColours().includes(v.request.from) && v.you !== "both";
    const what = REQUEST_TEXT[v.request.kind] || v.request.kind;
    $("request-text").textContent = mine
      ? `You asked for ${what}; waiting for the answer.`
      : `${colourName(v.request.from)} asks for ${what}.`;
    $("request-accept").hidden = mine;
    $("request-decline").hidden = mine;
  }

  function renderMoves() {
    const v = state.view;
    const list = $("move-list");
    list.textContent = "";
    v.moves.forEach(([x, y], i) => {
      const li = document.createElement("li");
      li.textContent = v.game === "connect4" ? `column ${x + 1}` : `${squareName(x, y, v.height)}  (${x},${y})`;
      li.dataset.ply = String(i + 1 - v.start);
      if (i < v.start) {
        li.classList.add("setup");
        li.title = "set-up stone";
      }
      if (i === v.cursor - 1) {
        li.classList.add("current");
      } else if (i >= v.cursor) {
        li.classList.add("future");
      }
      li.addEventListener("click", () => {
        if (!v.network && isHost()) {
          act("goto", { ply: Math.max(0, i + 1 - v.start) });
        }
      });
      list.appendChild(li);
    });
    const current = list.querySelector(".current");
    if (current && current.scrollIntoView) {
      current.scrollIntoView({ block: "nearest" });
    }
  }

  function renderNetwork() {
    const v = state.view;
    const invite = $("invite");
    const remoteSeat = ["black", "white"].find((c) => v[c].kind === "remote");
    if (v.network && state.invite && remoteSeat && !v[remoteSeat].yours) {
      invite.hidden = false;
      const base = `${location.protocol}//${location.host}${location.pathname}`;
      $("invite-link").value = `${base}#game=${v.id}&seat=${state.invite}`;
      $("watch-link").value = `${base}#game=${v.id}`;
      const local = ["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
      const info = state.info;
      let note = "";
      if (local && info && info.addresses && info.addresses.length) {
        note = `On another machine, use this machine's address instead of ${location.hostname}: ${info.addresses
          .map((a) => a + ":" + location.port)
          .join(" or ")}.`;
      } else if (local) {
        note = `Another machine needs this machine's address instead of ${location.hostname}.`;
      }
      if (info && info.loopback_only) {
        note += " This server listens on this machine only: start it with --listen 0.0.0.0:PORT for other machines.";
      }
      $("invite-note").textContent = note;
    } else {
      invite.hidden = true;
    }
    const chat = $("chat");
    chat.hidden = !v.network && v.chat.length === 0;
    $("chat-form").hidden = !isPlayer();
    const lines = $("chat-lines");
    lines.textContent = "";
    for (const c of v.chat) {
      const div = document.createElement("div");
      const from = document.createElement("span");
      from.className = "from";
      from.textContent = colourName(c.from) + ":";
      div.appendChild(from);
      div.appendChild(document.createTextNode(c.text));
      lines.appendChild(div);
    }
    lines.scrollTop = lines.scrollHeight;
  }

  // ---- the board's clicks ----------------------------------------------------------------

  function onSquare(x, y) {
    if (state.setup) {
      setupClick(x, y);
      return;
    }
    const v = state.view;
    if (!v) {
      return;
    }
    if (!canMove()) {
      if (v.result) {
        showError("The game is over.");
      } else if (isPlayer() && !v.analysing) {
        showError("It is not your turn.");
      }
      return;
    }
    act("move", { x, y }, v.to_move);
  }

  function onHover(x, y) {
    const box = $("hover");
    const v = state.view;
    const height = state.setup ? state.setup.size : v ? v.height : 15;
    if (x === null) {
      box.innerHTML = "&nbsp;";
      return;
    }
    if (v && v.game === "connect4" && !state.setup) {
      box.textContent = `column ${x + 1}`;
      return;
    }
    box.textContent = `${squareName(x, y, height)} · Gomocup ${x},${y}`;
  }

  // ---- setting a position up by hand -----------------------------------------------------

  function renderSetup() {
    const s = state.setup;
    $("setup-bar").hidden = false;
    for (const id of ["controls", "help", "records", "thinking", "invite", "chat", "request", "paused", "players", "moves-pane", "log-pane"]) {
      $(id).hidden = true;
    }
    const stones = s.stones.map(([x, y], i) => ({ x, y, colour: colourAt(i), n: i + 1 }));
    board.render({
      game: "gomoku",
      width: s.size,
      height: s.size,
      stones,
      last: s.stones.length ? s.stones[s.stones.length - 1] : null,
      numbers: true,
      clickable: true,
    });
    $("status").textContent = `Setting up: ${s.stones.length} stones, ${colourName(colourAt(s.stones.length)).toLowerCase()} places next.`;
  }

  function setupClick(x, y) {
    const s = state.setup;
    const i = s.stones.findIndex(([a, b]) => a === x && b === y);
    if (i === s.stones.length - 1 && i >= 0) {
      s.stones.pop();
    } else if (i >= 0) {
      showError("Only the last stone can be taken off.");
    } else {
      s.stones.push([x, y]);
    }
    render();
  }

  // ---- new game --------------------------------------------------------------------------

  function fillPlayerChoices() {
    const info = state.info;
    for (const select of document.querySelectorAll(".player-kind")) {
      select.textContent = "";
      const add = (value, text) => {
        const o = document.createElement("option");
        o.value = value;
        o.textContent = text;
        select.appendChild(o);
      };
      add("local", "a person at this screen");
      add("remote", "a person on another machine");
      add("wuzi", "wuzi");
      for (const e of info.engines) {
        add(`engine:${e.index}`, `${e.name} (Gomocup brain)`);
      }
      select.addEventListener("change", updateDialog);
    }
    for (const select of document.querySelectorAll("select.level")) {
      select.textContent = "";
      for (let l = 1; l <= info.max_level; l++) {
        const o = document.createElement("option");
        o.value = String(l);
        o.textContent = `level ${l}${LEVEL_NAMES[l] ? " · " + LEVEL_NAMES[l] : ""}`;
        select.appendChild(o);
      }
      select.value = String(info.max_level);
    }
    $("ng-black").value = "local";
    $("ng-white").value = "wuzi";
    const files = $("ng-opening-file");
    files.textContent = "";
    info.openings.forEach((f) => {
      const o = document.createElement("option");
      o.value = String(f.index);
      o.textContent = `${f.name} (${f.count})`;
      files.appendChild(o);
    });
    const game = $("ng-game");
    if (info.games.includes("connect4") && !game.querySelector('option[value="connect4"]')) {
      const o = document.createElement("option");
      o.value = "connect4";
      o.textContent = "Connect Four";
      game.appendChild(o);
    }
  }

  function updateDialog() {
    const gomoku = $("ng-game").value === "gomoku";
    for (const node of document.querySelectorAll(".gomoku-only")) {
      node.hidden = !gomoku;
    }
    for (const node of document.querySelectorAll(".connect4-only")) {
      node.hidden = gomoku;
    }
    if (!gomoku) {
      $("ng-start").value = "empty";
    }
    // Gomocup brains play Gomoku only.
    for (const option of document.querySelectorAll('.player-kind option[value^="engine:"]')) {
      option.hidden = !gomoku;
      option.disabled = !gomoku;
      if (!gomoku && option.selected) {
        option.parentNode.value = "wuzi";
      }
    }
    $("ng-size-other").hidden = $("ng-size").value !== "other";
    for (const row of document.querySelectorAll(".seat-choice")) {
      const kind = row.querySelector(".player-kind").value;
      const box = row.querySelector(".level-box");
      box.hidden = !(kind === "wuzi" || kind.startsWith("engine:"));
      row.querySelector(".level").hidden = kind !== "wuzi";
      if (kind.startsWith("engine:") && !row.dataset.engineTime) {
        const e = state.info.engines[Number(kind.split(":")[1])];
        row.querySelector(".time").value = String((e ? e.time_ms : 1000) / 1000);
        row.dataset.engineTime = "1";
      }
    }
    const clock = $("ng-clock").value;
    $("ng-turn-box").hidden = clock !== "turn";
    $("ng-game-box").hidden = clock !== "game";
    const start = $("ng-start").value;
    $("ng-opening-box").hidden = start !== "opening";
    $("ng-text-box").hidden = start !== "text";
    $("ng-record-box").hidden = start !== "record";
    $("ng-opening-file").disabled = state.info.openings.length === 0;
    const noFiles = start === "opening" && state.info.openings.length === 0;
    $("ng-error").hidden = !noFiles;
    $("ng-error").textContent = noFiles ? "No opening file was given to the server (pbrain-wuzi play --openings FILE)." : "";
  }

  function playerRequest(row) {
    const kind = row.querySelector(".player-kind").value;
    const seconds = Number(row.querySelector(".time").value);
    const timeMs = Math.round((Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000);
    if (kind === "wuzi") {
      return { kind, level: Number(row.querySelector(".level").value), time_ms: timeMs };
    }
    if (kind.startsWith("engine:")) {
      return { kind: "engine", engine: Number(kind.split(":")[1]), time_ms: timeMs };
    }
    return { kind };
  }

  function readFile(input) {
    return new Promise((resolve, reject) => {
      const file = input.files && input.files[0];
      if (!file) {
        reject(new Error("choose a record file"));
        return;
      }
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.onerror = () => reject(new Error("cannot read the file"));
      reader.readAsText(file);
    });
  }

  async function newGameRequest() {
    const rows = document.querySelectorAll(".seat-choice");
    const req = { game: $("ng-game").value, players: [playerRequest(rows[0]), playerRequest(rows[1])], black: 0 };
    if (req.game === "gomoku") {
      req.rule = $("ng-rule").value;
      req.size = $("ng-size").value === "other" ? Number($("ng-size-other").value) : Number($("ng-size").value);
    } else {
      const [w, h] = $("ng-c4-size").value.split("x").map(Number);
      req.width = w;
      req.height = h;
    }
    const clock = $("ng-clock").value;
    if (clock === "turn") {
      req.clock = { turn_ms: Math.round(Number($("ng-turn").value) * 1000) };
    } else if (clock === "game") {
      req.clock = {
        game_ms: Math.round(Number($("ng-game-min").value) * 60000),
        inc_ms: Math.round(Number($("ng-inc").value) * 1000),
      };
    }
    const start = $("ng-start").value;
    if (start === "opening") {
      const index = $("ng-opening-index").value;
      req.opening = { file: Number($("ng-opening-file").value) };
      if (index) {
        req.opening.index = Number(index);
      }
    } else if (start === "text") {
      req.opening_text = $("ng-opening-text").value;
    } else if (start === "record") {
      req.record = await readFile($("ng-record-file"));
      req.replay = $("ng-replay").checked;
      delete req.size;
      if (!document.querySelector("#ng-rule").dataset.touched) {
        delete req.rule; // the record's own rule, when it names one
      }
    }
    return { req, setup: start === "setup" };
  }

  async function createGame(req) {
    const created = await api("POST", "/api/games", req);
    const local = [];
    let invite = null;
    req.players.forEach((p, i) => {
      const token = created.seats[i].token;
      if (p.kind === "local" && token) {
        local.push(token);
      } else if (p.kind === "remote" && token) {
        invite = token;
      }
    });
    if (invite) {
      localStorage.setItem(`wuzi-invite-${created.id}`, invite);
    }
    if (local.length === 0 && !invite) {
      // Two computers: their secrets make this screen the game's host.
      for (const seat of created.seats) {
        if (seat.token) {
          local.push(seat.token);
        }
      }
    }
    state.setup = null;
    openGame(created.id, local);
  }

  async function submitNewGame(event) {
    event.preventDefault();
    $("ng-error").hidden = true;
    let built;
    try {
      built = await newGameRequest();
    } catch (e) {
      $("ng-error").textContent = e.message;
      $("ng-error").hidden = false;
      return;
    }
    if (built.setup) {
      $("new-dialog").close();
      state.setup = { request: built.req, stones: [], size: built.req.size };
      render();
      return;
    }
    try {
      await createGame(built.req);
      $("new-dialog").close();
    } catch (e) {
      $("ng-error").textContent = e.message;
      $("ng-error").hidden = false;
    }
  }

  async function startSetup() {
    const s = state.setup;
    const req = Object.assign({}, s.request, { start: s.stones });
    try {
      await createGame(req);
    } catch (e) {
      showError(e.message);
    }
  }

  // ---- wiring ----------------------------------------------------------------------------

  function wire() {
    $("new-game").addEventListener("click", () => {
      updateDialog();
      $("new-dialog").showModal();
    });
    $("new-form").addEventListener("submit", submitNewGame);
    $("ng-cancel").addEventListener("click", () => $("new-dialog").close());
    for (const id of ["ng-game", "ng-size", "ng-clock", "ng-start"]) {
      $(id).addEventListener("change", updateDialog);
    }
    $("ng-rule").addEventListener("change", () => {
      $("ng-rule").dataset.touched = "1";
    });
    $("show-numbers").addEventListener("change", render);
    $("show-coords").addEventListener("change", render);
    $("undo").addEventListener("click", () => act("undo"));
    $("redo").addEventListener("click", () => act("redo"));
    $("takeback").addEventListener("click", () => act("request", { kind: "takeback" }));
    $("move-now").addEventListener("click", () => act("stop"));
    $("resign").addEventListener("click", () => {
      if (confirm("Resign this game?")) {
        act("resign");
      }
    });
    $("draw").addEventListener("click", () => act("request", { kind: "draw" }));
    $("rematch").addEventListener("click", () => act("request", { kind: "new_game" }));
    $("swap").addEventListener("click", () => act("request", { kind: "new_game_swapped" }));
    $("request-accept").addEventListener("click", () => act("respond", { accept: true }));
    $("request-decline").addEventListener("click", () => act("respond", { accept: false }));
    $("resume").addEventListener("click", () => act("resume"));
    $("hint").addEventListener("click", () => act("hint", { ms: Number($("hint-time").value) }));
    $("analysis").addEventListener("change", () => act("analysis", { on: $("analysis").checked }));
    $("chat-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const input = $("chat-input");
      const text = input.value.trim();
      if (text) {
        act("chat", { text });
        input.value = "";
      }
    });
    for (const id of ["invite-link", "watch-link"]) {
      $(id).addEventListener("focus", (e) => e.target.select());
    }
    $("setup-start").addEventListener("click", startSetup);
    $("setup-cancel").addEventListener("click", () => {
      state.setup = null;
      render();
    });
    window.addEventListener("hashchange", () => {
      const h = readHash();
      if (h.id && (h.id !== state.id || h.tokens.join() !== state.tokens.join())) {
        state.setup = null;
        openGame(h.id, h.tokens);
      }
    });
    document.addEventListener("keydown", (e) => {
      if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || $("new-dialog").open) {
        return;
      }
      if (e.key === "ArrowLeft" && !$("undo").disabled && !$("undo").hidden) {
        act("undo");
      } else if (e.key === "ArrowRight" && !$("redo").disabled && !$("redo").hidden) {
        act("redo");
      }
    });
    setInterval(renderClocks, 200);
  }

  async function start() {
    wire();
    render();
    try {
      state.info = await api("GET", "/api/info");
    } catch (e) {
      $("status").textContent = `The server cannot be reached: ${e.message}`;
      return;
    }
    fillPlayerChoices();
    updateDialog();
    const h = readHash();
    if (h.id) {
      openGame(h.id, h.tokens);
    } else {
      $("new-dialog").showModal();
    }
  }

  start();
})();

// The browser client of reversid. It knows no game: it draws the squares and
// pieces the server's DRAW messages describe (spec/TEXT-PROTOCOL.md §2) and
// sends the squares the person picks, as the terminal client does. Every
// server message arrives as one WebSocket message holding one protocol line
// (§15); each action (list, play, watch) opens its own connection.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const CELL = 100; // one square in SVG units
const MARGIN = 44; // room for the coordinates

/** The games this server plays: {name, type, teams, title}, from /games. */
let games = [];
/** The game shown (or null in the lobby). */
let game = null;
let lobbyTimer = null;

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

function gameOfType(type) {
  const t = (type || "").toLowerCase();
  return games.find((g) => g.type.toLowerCase() === t || g.name === t);
}

// ---------------------------------------------------------------- the lobby

async function loadGames() {
  const response = await fetch("/games");
  const text = await response.text();
  games = text.split("\n").filter((l) => l).map((line) => {
    const [name, type, teams, title] = line.split("\t");
    return { name, type, teams: teams.split(","), title };
  });
  const list = $("games");
  list.replaceChildren(...games.map((g) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.game = g.name;
    b.innerHTML = `<span class="name"></span><span class="teams"></span>`;
    b.querySelector(".name").textContent = g.title;
    b.querySelector(".teams").textContent = g.teams.join(" vs ");
    b.addEventListener("click", () => play(g));
    li.append(b);
    return li;
  }));
}

/** GAME LIST on a connection of its own: GAME SESSION lines, then GAME SESSIONS n. */
function listRunning() {
  const ws = new WebSocket(socketUrl());
  const sessions = [];
  ws.onopen = () => ws.send("GAME LIST");
  ws.onmessage = (m) => {
    const w = m.data.trim().split(/\s+/);
    if (w[0] === "GAME" && w[1] === "SESSION") {
      sessions.push({ id: w[2], type: w[3], seconds: Number(w[4]), players: w.slice(5) });
    } else if (w[0] === "GAME" && w[1] === "SESSIONS") {
      ws.send("GAME QUIT");
      ws.close();
      showRunning(sessions);
    }
  };
  ws.onerror = () => {
    $("lobby-error").hidden = false;
    $("lobby-error").textContent = "Cannot reach the server; trying again…";
  };
}

function showRunning(sessions) {
  $("lobby-error").hidden = true;
  $("running-none").hidden = sessions.length > 0;
  $("running").replaceChildren(...sessions.map((s) => {
    const li = document.createElement("li");
    li.dataset.id = s.id;
    const info = gameOfType(s.type);
    const minutes = Math.floor(s.seconds / 60);
    const age = minutes > 0 ? `${minutes} min` : `${s.seconds} s`;
    li.innerHTML = `<div><div class="what"></div><div class="who"></div></div>`;
    li.querySelector(".what").textContent = `${info ? info.title : s.type} · game ${s.id} · ${age}`;
    li.querySelector(".who").textContent = s.players.join(" vs ");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "Watch";
    b.dataset.watch = s.id;
    b.addEventListener("click", () => watch(s.id, info));
    li.append(b);
    return li;
  }));
}

function showLobby() {
  game = null;
  document.body.dataset.view = "lobby";
  document.body.dataset.yourMove = "no";
  $("lobby").hidden = false;
  $("game").hidden = true;
  listRunning();
  clearInterval(lobbyTimer);
  lobbyTimer = setInterval(listRunning, 3000);
}

// ------------------------------------------------------------ a game's state

class Game {
  constructor(info, request) {
    this.info = info; // from /games, or undefined until GAME TYPE names it
    this.board = null; // {w, h, columns, rows}: the names are null until given
    this.teams = null; // every team's name (GAME TEAMS), else the lobby's
    this.cells = new Map(); // "x,y" -> {kind, piece: {name, team} | null}
    this.pen = null; // the square drawn last
    this.changed = new Set(); // squares the last move changed
    this.inMove = false; // DRAW lines after GAME MOVED belong to that move
    this.team = null; // {number, name} when playing
    this.watching = null; // game id when watching
    this.turn = null;
    this.ready = false;
    this.readies = 0; // READY messages so far
    this.sent = 0; // moves sent so far
    this.picked = [];
    this.waiting = null;
    this.over = null; // {winner: number | null, why}
    this.result = null; // {standing, text}
    this.aborted = null;
    this.closed = false;
    this.ws = new WebSocket(socketUrl());
    this.ws.onopen = () => this.ws.send(request);
    this.ws.onmessage = (m) => { this.line(m.data); schedule(); };
    this.ws.onclose = () => {
      this.closed = true;
      if (!this.over && !this.aborted) log("The connection closed.", "error");
      schedule();
    };
  }

  teamName(k) {
    const names = this.teams || (this.info ? this.info.teams : []);
    return names[k - 1] || `team ${k}`;
  }

  send(line) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(line);
  }

  /** One server message. */
  line(text) {
    const w = text.trim().split(/\s+/);
    const rest = (n) => text.trim().split(/\s+/).slice(n).join(" ");
    const head = w[0] === "GAME" ? `GAME ${w[1]}` : w[0];
    if (head !== "DRAW") this.inMove = false;
    switch (head) {
      case "GAME WAITING":
        this.waiting = Number(w[2]);
        break;
      case "GAME TYPE": // a game starts (again, in a rematch)
        this.info = gameOfType(w[2]) || this.info || { title: w[2], teams: [], type: w[2] };
        this.cells.clear();
        this.changed.clear();
        Object.assign(this, { waiting: null, over: null, result: null, turn: null, ready: false, picked: [] });
        break;
      case "GAME BOARD":
        this.board = { w: Number(w[3]), h: Number(w[4]), columns: null, rows: null };
        break;
      case "GAME COLUMNS": // the names the game's notation gives columns and rows
        if (this.board && w.length - 2 === this.board.w) this.board.columns = w.slice(2);
        break;
      case "GAME ROWS":
        if (this.board && w.length - 2 === this.board.h) this.board.rows = w.slice(2);
        break;
      case "GAME TEAMS":
        this.teams = w.slice(2);
        break;
      case "GAME TEAM":
        this.team = { number: Number(w[2]), name: rest(3) };
        log(`You play ${this.team.name}.`);
        break;
      case "GAME WATCHING":
        this.watching = w[2];
        break;
      case "DRAW":
        if (w[1] === "SQUARE") {
          const at = `${w[3]},${w[4]}`;
          this.cells.set(at, { kind: w[2], piece: null });
          this.pen = at;
          if (this.inMove) this.changed.add(at);
        } else if (w[1] === "PIECE" && this.pen) {
          this.cells.get(this.pen).piece = { name: w[2], team: Number(w[3]) };
        }
        break;
      case "GAME TURN":
        this.turn = Number(w[2]);
        break;
      case "READY":
        this.ready = true;
        this.readies += 1;
        break;
      case "GAME MOVED":
        this.changed.clear();
        this.inMove = true;
        this.picked = [];
        log(`${cap(this.teamName(Number(w[2])))} played ${rest(3)}.`);
        break;
      case "GAME NEWS":
        log(rest(2), "news");
        break;
      case "ERROR":
        log(`Refused: ${rest(1)}`, "error");
        this.picked = [];
        break;
      case "GAME OVER":
        this.over = { winner: w[2] === "DRAW" ? null : Number(w[2]), why: rest(3) };
        this.ready = false;
        this.turn = null;
        log(`Game over: ${this.overText()}.`);
        break;
      case "RESULT":
        this.result = { standing: w[1].toLowerCase(), text: rest(2) };
        break;
      case "GAME ABORTED":
        this.aborted = rest(2);
        this.ready = false;
        log(`The game was stopped: ${this.aborted}.`, "error");
        break;
      default:
        break; // a client ignores what it does not understand (§1)
    }
  }

  overText() {
    if (!this.over) return "";
    const who = this.over.winner === null ? "a draw" : `${this.teamName(this.over.winner)} wins`;
    return `${who} (${this.over.why})`;
  }

  canPick() {
    return this.ready && !this.over && !this.aborted && !this.closed;
  }

  pick(x, y) {
    if (!this.canPick()) return;
    const last = this.picked[this.picked.length - 1];
    if (last && last[0] === x && last[1] === y) {
      this.sendPicked();
    } else {
      this.picked.push([x, y]);
    }
    schedule();
  }

  sendPicked() {
    if (!this.picked.length || !this.canPick()) return;
    const squares = this.picked.map(([x, y]) => `${x} ${y}`).join(" ");
    this.sendMove(`MOVE ${this.picked.length} ${squares}`);
    schedule();
  }

  sendMove(line) {
    this.send(line);
    this.sent += 1;
    this.ready = false;
  }

  /** What the status line says. */
  status() {
    if (this.aborted) return `The game was stopped: ${this.aborted}`;
    if (this.over) return `Game over: ${this.overText()}`;
    if (this.closed) return "The connection closed.";
    if (this.waiting !== null) return `Waiting for an opponent (${this.waiting} more player${this.waiting === 1 ? "" : "s"} needed)…`;
    if (!this.board) return "Connecting…";
    if (this.watching) return this.turn ? `Watching: ${this.teamName(this.turn)} to move` : "Watching";
    if (this.ready) return `Your move, ${this.team ? this.team.name : ""}`;
    if (this.turn) return `${cap(this.teamName(this.turn))} to move — waiting for the opponent`;
    return "Waiting for the server…";
  }
}

function cap(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

function log(text, kind) {
  const li = document.createElement("li");
  li.textContent = text;
  if (kind) li.className = kind;
  const list = $("log");
  list.append(li);
  list.scrollTop = list.scrollHeight;
}

// ----------------------------------------------------------- starting games

function enterGame(title) {
  clearInterval(lobbyTimer);
  $("lobby").hidden = true;
  $("game").hidden = false;
  $("log").replaceChildren();
  $("title").textContent = title;
  document.body.dataset.view = "game";
}

function play(info) {
  enterGame(info.title);
  game = new Game(info, `GAME TYPE ${info.name}`);
  schedule();
}

function watch(id, info) {
  enterGame(info ? info.title : `Game ${id}`);
  game = new Game(info, `GAME WATCH ${id}`);
  schedule();
}

function leave() {
  if (game && !game.closed) {
    const playing = game.team && game.board && !game.over && !game.aborted;
    if (playing && !confirm("Leaving now resigns the game. Leave?")) return;
    game.send("GAME QUIT");
    game.ws.close();
  }
  showLobby();
}

// ------------------------------------------------------------------ drawing

let drawPending = false;
function schedule() {
  if (!drawPending) {
    drawPending = true;
    requestAnimationFrame(() => { drawPending = false; render(); });
  }
}

const SQUARE_FILLS = {
  empty: "#fbfaf7", green: "#3a7d44", water: "#4a7fb5", blue: "#4a7fb5", land: "#9bab6b",
  dark: "#8b6b4a", black: "#8b6b4a", light: "#efe3c8", white: "#efe3c8",
  key: "#d4b13f", gold: "#d4b13f", yellow: "#d4b13f", red: "#c0504d",
};
const OTHER_FILLS = ["#7e9bb8", "#b49a7a", "#8fae9a", "#c49a9a", "#9a94c4", "#b8b07e"];
const TEAM_COLOURS = ["#b03a2e", "#2463a6", "#2e8b57", "#a0522d"];
const NAMED_COLOURS = { black: "#1d1d1d", white: "#fafafa", red: "#b03a2e", blue: "#2463a6" };

function squareFill(kind, kinds) {
  if (SQUARE_FILLS[kind]) return SQUARE_FILLS[kind];
  if (!kinds.includes(kind)) kinds.push(kind);
  return OTHER_FILLS[kinds.indexOf(kind) % OTHER_FILLS.length];
}

/** A piece's colour: its name's if it is a colour, else its team's name's, else the team's. */
function pieceColour(piece) {
  const team = game.teamName(piece.team).toLowerCase();
  return NAMED_COLOURS[piece.name] || NAMED_COLOURS[team] || TEAM_COLOURS[(piece.team - 1) % TEAM_COLOURS.length];
}

/** The terminal client's label: the first letter, and the first digit after it (a die). */
function pieceLabel(name) {
  const first = (name.match(/[A-Za-z0-9]/) || ["?"])[0].toUpperCase();
  const digit = name.slice(1).match(/[0-9]/);
  return digit ? first + digit[0] : first;
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

function drawPiece(g, piece, cx, cy) {
  const colour = pieceColour(piece);
  const r = CELL * 0.38;
  if (piece.name === "x") {
    const d = CELL * 0.27;
    el("path", { d: `M${cx - d} ${cy - d}L${cx + d} ${cy + d}M${cx + d} ${cy - d}L${cx - d} ${cy + d}`,
      stroke: colour, "stroke-width": 11, "stroke-linecap": "round", fill: "none" }, g);
  } else if (piece.name === "o") {
    el("circle", { cx, cy, r: CELL * 0.28, stroke: colour, "stroke-width": 10, fill: "none" }, g);
  } else {
    const light = colour === NAMED_COLOURS.white;
    el("circle", { cx, cy: cy + 3, r, fill: "#00000030" }, g);
    el("circle", { cx, cy, r, fill: colour, stroke: light ? "#555" : "#00000066", "stroke-width": 2 }, g);
    if (!["black", "white"].includes(piece.name)) {
      const t = el("text", { x: cx, y: cy + 14, "text-anchor": "middle", class: "label", fill: light ? "#222" : "#fff" }, g);
      t.textContent = pieceLabel(piece.name);
    }
  }
}

/** The squares' SVG groups, made once a board: re-drawing only their contents
 * keeps a click whole even when a message arrives between press and release. */
let squares = null;

function buildBoard(svg, board) {
  const { w, h } = board;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${MARGIN + w * CELL} ${h * CELL + MARGIN}`);
  squares = { key: boardKey(board), at: new Map() };
  for (let y = 1; y <= h; y++) {
    for (let x = 1; x <= w; x++) {
      // (1, 1) is the lower left: row h is drawn at the top.
      const left = MARGIN + (x - 1) * CELL;
      const top = (h - y) * CELL;
      const g = el("g", { class: "sq", "data-x": x, "data-y": y }, svg);
      const tile = el("rect", { class: "tile", x: left, y: top, width: CELL, height: CELL }, g);
      const content = el("g", { class: "content" }, g);
      g.addEventListener("click", () => game && game.pick(x, y));
      squares.at.set(`${x},${y}`, { g, tile, content, left, top });
    }
  }
  for (let x = 1; x <= w; x++) {
    const t = el("text", { class: "coord", x: MARGIN + (x - 0.5) * CELL, y: h * CELL + 34, "text-anchor": "middle" }, svg);
    t.textContent = board.columns ? board.columns[x - 1] : x;
  }
  for (let y = 1; y <= h; y++) {
    const t = el("text", { class: "coord", x: MARGIN / 2, y: (h - y + 0.5) * CELL + 10, "text-anchor": "middle" }, svg);
    t.textContent = board.rows ? board.rows[y - 1] : y;
  }
}

/** What the board's picture is built from: its size and its edges' names. */
function boardKey(board) {
  return JSON.stringify([board.w, board.h, board.columns, board.rows]);
}

function renderBoard() {
  const svg = $("board");
  if (!game.board) {
    svg.replaceChildren();
    squares = null;
    return;
  }
  if (!squares || squares.key !== boardKey(game.board) || !svg.contains(squares.at.get("1,1").g)) {
    buildBoard(svg, game.board);
  }
  const kinds = [];
  const pickable = game.canPick();
  const pickOrder = new Map(game.picked.map(([x, y], i) => [`${x},${y}`, i + 1]));
  for (const [at, { g, tile, content, left, top }] of squares.at) {
    const cell = game.cells.get(at);
    g.setAttribute("class", pickable ? "sq can-pick" : "sq");
    tile.setAttribute("fill", cell ? squareFill(cell.kind, kinds) : "#ddd");
    content.replaceChildren();
    for (const key of ["kind", "piece", "team"]) delete g.dataset[key];
    if (cell && cell.kind) g.dataset.kind = cell.kind;
    if (cell && cell.piece) {
      g.dataset.piece = cell.piece.name;
      g.dataset.team = cell.piece.team;
      drawPiece(content, cell.piece, left + CELL / 2, top + CELL / 2);
    }
    if (game.changed.has(at)) {
      el("rect", { class: "changed", x: left + 4, y: top + 4, width: CELL - 8, height: CELL - 8, rx: 8 }, content);
    }
    if (pickOrder.has(at)) {
      el("rect", { class: "pick", x: left + 6, y: top + 6, width: CELL - 12, height: CELL - 12, rx: 10 }, content);
      const t = el("text", { class: "order", x: left + 14, y: top + 30 }, content);
      t.textContent = pickOrder.get(at);
    }
  }
}

function teamBadge(k) {
  return k ? cap(game.teamName(k)) : "—";
}

function render() {
  if (!game) return;
  document.body.dataset.state = game.aborted ? "aborted" : game.over ? "over" : game.waiting !== null ? "waiting" : game.board ? "playing" : "connecting";
  document.body.dataset.yourMove = game.canPick() ? "yes" : "no";
  document.body.dataset.readies = game.readies;
  document.body.dataset.sent = game.sent;
  $("status").textContent = game.status();
  // Once the game has ended the result says it all.
  $("status").hidden = Boolean(game.over || game.aborted);
  $("you").textContent = game.team ? cap(game.team.name) : game.watching ? `Watching game ${game.watching}` : "—";
  $("turn").textContent = game.over || game.aborted ? "—" : teamBadge(game.turn) + (game.ready ? " (you)" : "");
  $("tools").hidden = Boolean(game.watching) || Boolean(game.over) || Boolean(game.aborted);
  $("picked").textContent = game.picked.length ? game.picked.map(([x, y]) => `(${x}, ${y})`).join(" → ") : "—";
  $("send").disabled = !game.canPick() || !game.picked.length;
  $("clear").disabled = !game.picked.length;
  $("leave").textContent = game.over || game.aborted || game.closed ? "Back to the games" : game.watching ? "Stop watching" : "Leave";
  const result = $("result");
  const ended = game.over || game.aborted;
  result.hidden = !ended;
  if (ended) {
    const standing = game.result ? game.result.standing : "";
    result.className = `result ${standing}`;
    result.dataset.standing = standing || "none";
    const headline = game.result
      ? { win: "You won!", lose: "You lost.", draw: "A draw." }[standing] || game.result.text
      : game.aborted ? "The game was stopped." : `Game over: ${game.overText()}.`;
    const detail = game.over ? ` ${cap(game.overText())}.` : ` ${game.aborted}.`;
    result.textContent = game.result ? headline + detail : headline;
    result.dataset.why = game.over ? game.over.why : "";
  }
  renderBoard();
}

// ------------------------------------------------------------------- wiring

$("leave").addEventListener("click", leave);
$("send").addEventListener("click", () => game && game.sendPicked());
$("clear").addEventListener("click", () => { if (game) { game.picked = []; schedule(); } });
$("typed").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("typed-move");
  const text = input.value.trim();
  if (!text || !game) return;
  // A whole protocol line goes as it is; anything else is a move in the game's notation.
  game.sendMove(/^(MOVE|GAME)\b/i.test(text) ? text : `MOVE ${text}`);
  input.value = "";
  schedule();
});

loadGames()
  .then(showLobby)
  .catch(() => {
    $("lobby-error").hidden = false;
    $("lobby-error").textContent = "Cannot reach the server.";
  });

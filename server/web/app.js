// The browser client of reversid. It draws the squares and pieces the
// server's DRAW messages describe (spec/TEXT-PROTOCOL.md §2) and sends the
// squares the person picks, as the terminal client does. Every server message
// arrives as one WebSocket message holding one protocol line (§15); each
// action (list, play, watch) opens its own connection. For the games of §10
// it also knows pictures, square names, a short rules text and (in Reversi)
// where a move is legal: GUIDES below; any other game is drawn generically.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const CELL = 100; // one square in SVG units

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
  $("boards").replaceChildren(...games.flatMap((g, i) => [i ? " · " : "", link(`/leaderboard/${encodeURIComponent(g.name)}`, g.title)]));
}

/** GAME LOBBY and GAME LIST on a connection of their own: GAME CHALLENGE lines, then
 * GAME CHALLENGES n (an ERROR from a server without challenges ends that list too);
 * GAME SESSION lines, then GAME SESSIONS n. */
function listRunning() {
  const ws = new WebSocket(socketUrl());
  const sessions = [];
  const challenges = [];
  let lobbyDone = false;
  ws.onopen = () => { ws.send("GAME LOBBY"); ws.send("GAME LIST"); };
  ws.onmessage = (m) => {
    const w = m.data.trim().split(/\s+/);
    if (w[0] === "GAME" && w[1] === "CHALLENGE") {
      challenges.push({ code: w[2], seconds: Number(w[3]), game: w[4], options: w.slice(5) });
    } else if ((w[0] === "GAME" && w[1] === "CHALLENGES") || (w[0] === "ERROR" && !lobbyDone)) {
      lobbyDone = true;
      showChallenges(challenges);
    } else if (w[0] === "GAME" && w[1] === "SESSIONS") {
      ws.send("GAME QUIT");
      ws.close();
      showRunning(sessions);
    } else if (w[0] === "GAME" && w[1] === "SESSION") {
      sessions.push({ id: w[2], type: w[3], seconds: Number(w[4]), players: w.slice(5) });
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

/** The public challenges, each with its Accept button. */
function showChallenges(challenges) {
  $("challenges-none").hidden = challenges.length > 0;
  $("challenges").replaceChildren(...challenges.map((c) => {
    const li = document.createElement("li");
    li.dataset.code = c.code;
    const info = gameOfType(c.game);
    li.innerHTML = `<div><div class="what"></div><div class="who"></div></div>`;
    li.querySelector(".what").textContent = `${info ? info.title : c.game} · ${optionsText(c.options)}`;
    li.querySelector(".who").textContent = `code ${c.code} · open ${secondsText(c.seconds * 1000)} more`;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "Accept";
    b.dataset.accept = c.code;
    b.addEventListener("click", () => joinCode(c.code, info));
    li.append(b);
    return li;
  }));
}

/** A challenge's options in words: "5+3, creator plays black". */
function optionsText(options) {
  const parts = [];
  for (const o of options) {
    const [key, value] = o.split("=");
    if (key === "time") parts.push(value.startsWith("move:") ? `${value.slice(5)} s a move` : value);
    else if (key === "side" && value !== "random") parts.push(`creator plays ${value}`);
    else if (key === "rated") parts.push("rated");
  }
  return parts.join(", ") || "the server's clock";
}

function showLobby() {
  game = null;
  document.body.dataset.view = "lobby";
  document.body.dataset.yourMove = "no";
  $("lobby").hidden = false;
  $("game").hidden = true;
  $("mine").hidden = true;
  listRunning();
  clearInterval(lobbyTimer);
  lobbyTimer = setInterval(listRunning, 3000);
}


// -------------------------------------------------------------- the account

/** Who this page plays as (spec/TEXT-PROTOCOL.md §15.3): an account, by the API token
 * labelled `browser` it made at sign-in (kept in memory, and in localStorage when
 * "remember me" is ticked), a guest name, or nobody. No cookies: each connection that
 * plays, invites, joins or asks for a history says who it is first. */
const TOKEN_KEY = "reversid.token";
const me = { name: null, ratings: [], token: null, guest: null };

/** One exchange on a connection of its own: sends `lines`, resolves with the lines
 * answered up to the one `done` accepts; rejects with the first ERROR's text. */
function ask(lines, done) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(socketUrl());
    const got = [];
    ws.onopen = () => lines.forEach((l) => ws.send(l));
    ws.onmessage = (m) => {
      const line = m.data.trim();
      if (line.startsWith("ERROR")) {
        ws.close();
        reject(new Error(line.slice(6)));
        return;
      }
      got.push(line);
      if (done(line)) {
        ws.close();
        resolve(got);
      }
    };
    ws.onclose = () => reject(new Error("the connection closed"));
  });
}

/** The lines a connection that plays sends first: who it is. */
function whoLines() {
  if (me.token) return [`GAME SIGNIN ${me.token.secret}`];
  if (me.guest) return [`GAME NAME ${me.guest}`];
  return [];
}

/** GAME SIGNEDIN name rating…: signed in, with `token` ({id, secret}) to say so again. */
function signedIn(line, token, remember) {
  const w = line.split(/\s+/);
  Object.assign(me, { name: w[2], ratings: w.slice(3), token, guest: null });
  if (remember) localStorage.setItem(TOKEN_KEY, JSON.stringify(token));
  renderAccount();
}

/** The id of the page token (`browser`) used longest ago among `GAME APITOKEN id - label
 * created last-used` lines (`-`: never used), or null. */
function stalestBrowserToken(lines) {
  const tokens = lines
    .map((l) => l.split(/\s+/))
    .filter((w) => w[0] === "GAME" && w[1] === "APITOKEN" && w[3] === "-" && w.slice(4, -2).join(" ") === "browser")
    .map((w) => ({ id: w[2], used: Number(w[w.length - 1] === "-" ? w[w.length - 2] : w[w.length - 1]) }));
  tokens.sort((a, b) => a.used - b.used);
  return tokens.length ? tokens[0].id : null;
}

/** Signs in (or up) with the form's name and password, then makes the page's token; an
 * account that holds every token it may gives up its page token used longest ago (a page
 * closed without signing out leaves its token behind). */
async function signIn(register) {
  const name = $("account-name").value.trim();
  const password = $("account-password").value;
  if (!name || !password) return accountError("Type a name and a password.");
  const first = `GAME ${register ? "REGISTER" : "SIGNIN"} ${name} ${password}`;
  const made = (l) => l.startsWith("GAME APITOKEN ");
  try {
    let got;
    try {
      got = await ask([first, "GAME APITOKEN NEW browser"], made);
    } catch (e) {
      if (register || !e.message.includes("API tokens; revoke one first")) throw e;
      const listed = await ask([first, "GAME APITOKENS"], (l) => l.startsWith("GAME APITOKENS "));
      const stalest = stalestBrowserToken(listed);
      if (!stalest) throw e;
      got = await ask([first, `GAME APITOKEN REVOKE ${stalest}`, "GAME APITOKEN NEW browser"], made);
    }
    const [, , id, secret] = got[got.length - 1].split(/\s+/);
    $("account-password").value = "";
    signedIn(got.find((l) => l.startsWith("GAME SIGNEDIN")), { id, secret }, $("remember").checked);
  } catch (e) {
    accountError(e.message);
  }
}

/** A kept token signs the page in on load; a token the server refuses is forgotten. */
async function restoreAccount() {
  let token = null;
  try {
    token = JSON.parse(localStorage.getItem(TOKEN_KEY));
  } catch (_) {
    token = null;
  }
  if (!token || !token.secret) return;
  try {
    const got = await ask([`GAME SIGNIN ${token.secret}`], (l) => l.startsWith("GAME SIGNEDIN"));
    signedIn(got[got.length - 1], token, false);
  } catch (e) {
    if (e.message !== "the connection closed") localStorage.removeItem(TOKEN_KEY);
  }
}

/** A guest name for this page's connections, checked by the server first. */
async function asGuest() {
  const name = $("account-name").value.trim();
  if (!name) return accountError("Type the name to play under.");
  try {
    const got = await ask([`GAME NAME ${name}`], (l) => l.startsWith("GAME GUEST"));
    me.guest = got[got.length - 1].split(/\s+/)[2];
    renderAccount();
  } catch (e) {
    accountError(e.message);
  }
}

/** Signing out revokes the page's token and forgets it. */
function signOut() {
  const token = me.token;
  Object.assign(me, { name: null, ratings: [], token: null, guest: null });
  localStorage.removeItem(TOKEN_KEY);
  if (token) {
    ask([`GAME SIGNIN ${token.secret}`, `GAME APITOKEN REVOKE ${token.id}`], (l) => l.startsWith("GAME NEWS")).catch(() => {});
  }
  renderAccount();
}

function accountError(text) {
  $("account-error").hidden = !text;
  $("account-error").textContent = text || "";
}

/** "rating…" words (reversi=1532, tictactoe=1500?) in words. */
function ratingsText(words) {
  return words.map((w) => w.replace("=", " ")).join(", ");
}

function renderAccount() {
  accountError("");
  const known = Boolean(me.name || me.guest);
  document.body.dataset.account = me.name ? "signed-in" : me.guest ? "guest" : "anonymous";
  $("signed-in").hidden = !known;
  $("sign-in").hidden = known;
  $("http-warning").hidden = known || location.protocol !== "http:";
  $("whoami").textContent = me.name
    ? `Signed in as ${me.name}${me.ratings.length ? ` · ${ratingsText(me.ratings)}` : ""}`
    : me.guest ? `Playing as ${me.guest} (guest)` : "";
  $("my-profile").hidden = !me.name;
  $("my-profile").href = me.name ? `/players/${encodeURIComponent(me.name)}` : "/";
  $("my-games").hidden = !me.name;
  $("sign-out").textContent = me.name ? "Sign out" : "Drop the name";
  $("invite-rated-label").hidden = !me.token;
  if (!me.token) $("invite-rated").checked = false;
}

// ----------------------------------------------------------------- my games

/** The record's file name ending: each game's own format (the store serves it whatever the ending). */
const RECORD_EXT = { reversi: "ggf", draughts: "pdn" };

/** GAME HISTORY of the signed-in account: a table with the replay and the files. */
async function showMine() {
  if (!me.token) return;
  clearInterval(lobbyTimer);
  $("lobby").hidden = true;
  $("game").hidden = true;
  $("mine").hidden = false;
  document.body.dataset.view = "mine";
  $("mine").dataset.state = "loading";
  try {
    const got = await ask([`GAME SIGNIN ${me.token.secret}`, "GAME HISTORY"], (l) => /^GAME HISTORY \d+$/.test(l));
    const rows = got.filter((l) => l.startsWith("GAME ARCHIVED")).map(archivedRow);
    $("mine-none").hidden = rows.length > 0;
    $("mine-list").tBodies[0].replaceChildren(...rows);
  } catch (e) {
    $("mine-none").hidden = false;
    $("mine-none").textContent = `Cannot list your games: ${e.message}`;
  }
  $("mine").dataset.state = "listed";
}

function link(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

/** GAME ARCHIVED id game ended result mode player…: one row. */
function archivedRow(line) {
  const [, , id, kindName, ended, result, mode, ...players] = line.split(/\s+/);
  const tr = document.createElement("tr");
  tr.dataset.id = id;
  const cells = [0, 1, 2, 3, 4, 5].map(() => document.createElement("td"));
  cells[0].textContent = new Date(Number(ended)).toLocaleString();
  const info = gameOfType(kindName);
  cells[1].append(link(`/games/${encodeURIComponent(id)}`, info ? info.title : kindName));
  players.forEach((p, i) => {
    if (i) cells[2].append(" vs ");
    if (p === "-") cells[2].append("anonymous");
    else if (p.endsWith("~")) cells[2].append(p);
    else cells[2].append(link(`/players/${encodeURIComponent(p)}`, p));
  });
  cells[3].textContent = result;
  cells[4].textContent = mode;
  const base = `/games/${encodeURIComponent(id)}`;
  cells[5].append(link(base, "replay"), " ", link(`${base}.json`, "json"), " ", link(`${base}.${RECORD_EXT[kindName] || "txt"}`, RECORD_EXT[kindName] || "txt"));
  tr.append(...cells);
  return tr;
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
    this.clocks = new Map(); // team -> {ms, at}: ms on the clock at `at` (performance.now())
    this.running = null; // the team whose clock runs down, if any
    this.timers = new Map(); // the game's countdowns: name -> {ms, at, text}; ms 0 is stopped
    this.over = null; // {winner: number | null, why}
    this.result = null; // {standing, text}
    this.aborted = null;
    this.closed = false;
    this.code = null; // {code, seconds, at}: this page's challenge, waiting for a friend
    this.link = null;
    this.token = null; // the seat's resume token (GAME TOKEN)
    this.grace = 0; // how long the server holds the seat after a drop (ms)
    this.away = new Map(); // team -> {ms, at}: its player dropped; ms 0: the grace is over
    this.waitingOn = new Set(); // teams whose claim the person chose to wait out
    this.rematchOffer = null; // the team whose rematch offer stands
    this.rematchSent = false;
    this.players = new Map(); // team -> [{kind, name, rating}] (GAME PLAYER), one a seat
    this.lost = null; // {since, attempts} while the connection is being taken back
    this.left = false; // the person left: no reconnecting
    this.connect(request);
  }

  /** Opens a connection that sends `request` first. */
  connect(request) {
    this.ws = new WebSocket(socketUrl());
    // Who plays says so first; a resumed seat is its token's, a viewer need not say.
    const who = /^GAME (TYPE|INVITE|JOIN) /.test(request) ? whoLines() : [];
    this.ws.onopen = () => [...who, request].forEach((l) => this.ws.send(l));
    this.ws.onmessage = (m) => { this.line(m.data); schedule(); };
    this.ws.onclose = () => {
      if (this.reconnect()) return;
      this.closed = true;
      if (!this.over && !this.aborted) log("The connection closed.", "error");
      if (this.over || this.aborted) forgetResume();
      schedule();
    };
  }

  /** A connection lost mid-game is opened again with the token, backing off
   * 0.5, 1, 2, 4 s while the grace lasts; false when it cannot be. */
  reconnect() {
    const playing = this.token && this.team && this.board && !this.over && !this.aborted;
    if (this.left || !playing) return false;
    if (!this.lost) {
      this.lost = { since: performance.now(), attempts: 0 };
      log("Connection lost; reconnecting…", "error");
    }
    const wait = 500 * 2 ** Math.min(this.lost.attempts, 3);
    if (performance.now() - this.lost.since + wait > this.grace) return false;
    this.lost.attempts += 1;
    setTimeout(() => this.connect(`GAME RESUME ${this.token}`), wait);
    schedule();
    return true;
  }

  teamName(k) {
    const names = this.teams || (this.info ? this.info.teams : []);
    return names[k - 1] || `team ${k}`;
  }

  send(line) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(line);
  }

  /** The lines of playing together (challenges, tokens, away seats, rematches);
   * false for any other line. */
  togetherLine(head, w, rest) {
    switch (head) {
      case "GAME CODE":
        this.code = { code: w[2], seconds: Number(w[3]), at: performance.now() };
        log(`Your challenge's code is ${w[2]}.`);
        break;
      case "GAME LINK":
        this.link = rest(2);
        break;
      case "GAME EXPIRED":
        this.code = null;
        this.aborted = `nobody accepted challenge ${w[2]} in time`;
        break;
      case "GAME TOKEN": // kept across a reload of this tab (sessionStorage)
        this.token = w[2];
        this.grace = Number(w[3]);
        this.code = null;
        if (this.info) sessionStorage.setItem(RESUME_KEY, JSON.stringify({ token: this.token, game: this.info.name }));
        break;
      case "GAME RESUMED":
        this.lost = null;
        log(`Back in game ${w[2]}.`);
        break;
      case "GAME TIME":
        this.control = w.slice(2);
        break;
      case "GAME PING": // the server times the answer (a WebSocket pong does it too)
        this.send(`GAME PONG ${w[2]}`);
        break;
      case "GAME AWAY":
        this.away.set(Number(w[2]), { ms: Number(w[3]), at: performance.now() });
        break;
      case "GAME BACK":
        this.away.delete(Number(w[2]));
        this.waitingOn.delete(Number(w[2]));
        break;
      case "GAME PLAYER": // k kind name rating: who sits for team k
        if (!this.playersFresh) this.players.clear();
        this.playersFresh = true;
        if (!this.players.has(Number(w[2]))) this.players.set(Number(w[2]), []);
        this.players.get(Number(w[2])).push({ kind: w[3], name: w[4], rating: w[5] });
        break;
      case "GAME SIGNEDIN": // this connection's own sign-in: the ratings may have moved
        me.ratings = w.slice(3);
        renderAccount();
        break;
      case "GAME OFFERED":
        if (w[2] === "REMATCH") this.rematchOffer = Number(w[3]);
        else log(`${cap(this.teamName(Number(w[3])))} offers a draw.`, "news");
        break;
      default:
        return false;
    }
    return true;
  }

  /** One server message. */
  line(text) {
    const w = text.trim().split(/\s+/);
    const rest = (n) => text.trim().split(/\s+/).slice(n).join(" ");
    const head = w[0] === "GAME" ? `GAME ${w[1]}` : w[0];
    if (head !== "DRAW") this.inMove = false;
    if (head !== "GAME PLAYER") this.playersFresh = false;
    if (this.togetherLine(head, w, rest)) return;
    if (head === "ERROR" && this.lost) {
      // The token is no good: the game ended while this page was away.
      forgetResume();
      this.lost = null;
      this.left = true;
      this.aborted = `could not come back to the game: ${rest(1)}`;
      return;
    }
    switch (head) {
      case "GAME WAITING":
        this.waiting = Number(w[2]);
        break;
      case "GAME TYPE": // a game starts (again, in a rematch)
        this.info = gameOfType(w[2]) || this.info || { name: w[2].toLowerCase(), title: w[2], teams: [], type: w[2] };
        this.cells.clear();
        this.changed.clear();
        Object.assign(this, { waiting: null, over: null, result: null, turn: null, ready: false, picked: [], rematchOffer: null, rematchSent: false });
        this.players.clear();
        this.away.clear();
        this.clocks.clear();
        this.timers.clear();
        this.running = null;
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
        log(`You play ${cap(this.team.name)}.`);
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
        // Until its GAME CLOCK comes, no clock runs (none comes for a move without a limit).
        this.stopClocks();
        break;
      case "GAME CLOCK": // team k's clock shows ms now; it runs if k is to move (§8)
        this.clocks.set(Number(w[2]), { ms: Number(w[3]), at: performance.now() });
        if (Number(w[2]) === this.turn) this.running = this.turn;
        break;
      case "GAME TIMER": // the game's own countdown: name ms text
        this.timers.set(w[2], { ms: Number(w[3]), at: performance.now(), text: rest(4) });
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
        this.stopClocks();
        this.timers.clear();
        log(`Game over: ${this.overText()}.`);
        break;
      case "RESULT":
        this.result = { standing: w[1].toLowerCase(), text: rest(2) };
        break;
      case "GAME ABORTED":
        this.aborted = rest(2);
        this.ready = false;
        this.stopClocks();
        this.timers.clear();
        log(`The game was stopped: ${this.aborted}.`, "error");
        break;
      default:
        break; // a client ignores what it does not understand (§1)
    }
  }

  /** Milliseconds on team k's clock now (it runs down only if it is the running one). */
  clockLeft(k) {
    const clock = this.clocks.get(k);
    if (!clock) return null;
    if (this.running !== k) return clock.ms;
    return Math.max(0, clock.ms - (performance.now() - clock.at));
  }

  /** Every clock stops where it is. */
  stopClocks() {
    if (this.running !== null) {
      this.clocks.set(this.running, { ms: this.clockLeft(this.running), at: performance.now() });
    }
    this.running = null;
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
    // A capture entered jump by jump goes on from where it landed: the next READY starts afresh.
    this.picked = [];
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
    if (this.lost) return "Connection lost; reconnecting…";
    if (this.code) return `Waiting for your friend to join with code ${this.code.code}…`;
    if (this.waiting !== null) return `Waiting for an opponent (${this.waiting} more player${this.waiting === 1 ? "" : "s"} needed)…`;
    if (!this.board) return "Connecting…";
    if (this.watching) return this.turn ? `Watching: ${this.teamName(this.turn)} to move` : "Watching";
    if (this.ready) return this.team ? `Your move — you play ${cap(this.team.name)}` : "Your move";
    if (this.turn) return `${cap(this.teamName(this.turn))} to move — waiting for the opponent`;
    if (this.team && this.readies > 0) return "Wait: you may move again in a moment";
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
  $("mine").hidden = true;
  $("game").hidden = false;
  $("log").replaceChildren();
  $("title").textContent = title;
  rulesShown = null;
  document.body.dataset.view = "game";
}

function play(info) {
  enterGame(info.title);
  game = new Game(info, `GAME TYPE ${info.name}`);
  schedule();
}

/** Joins the challenge of `code` (from a link, the form or the lobby). */
function joinCode(code, info) {
  enterGame(info ? info.title : "Joining a challenge");
  game = new Game(info, `GAME JOIN ${code}`);
  schedule();
}

/** Creates a challenge: GAME INVITE game time=… side=… public|private [rated]. */
function invite(info, time, side, isPublic, rated) {
  enterGame(info.title);
  const options = [time ? `time=${time}` : "", `side=${side}`, isPublic ? "public" : "private", rated ? "rated" : ""];
  game = new Game(info, `GAME INVITE ${info.name} ${options.filter((o) => o).join(" ")}`);
  schedule();
}

/** Takes back the seat of this tab's token after a reload. */
function resume(saved) {
  const info = games.find((g) => g.name === saved.game);
  enterGame(info ? info.title : "Coming back to your game");
  game = new Game(info, `GAME RESUME ${saved.token}`);
  game.token = saved.token;
  game.lost = { since: performance.now(), attempts: 0 };
  schedule();
}

/** Where this tab keeps its seat's token: a reload resumes, two tabs play two games. */
const RESUME_KEY = "reversid.resume";

function forgetResume() {
  sessionStorage.removeItem(RESUME_KEY);
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
    game.left = true;
    game.send("GAME QUIT");
    game.ws.close();
    forgetResume();
  }
  showLobby();
}

// ------------------------------------------------------- what the page knows

/** A kind of piece for the legend: the name drawn as its sample, the words for
 * one and for many, and which DRAW PIECE names it covers (by default its own). */
function kind(sample, one, many, match) {
  return { sample, one, many, match: match || ((name) => name === sample) };
}

/** The time limits of the turn-based games (spec/TEXT-PROTOCOL.md §8). */
const TURN_CLOCK = "Time: 600 s for each move and 30 s for your first one (the server's defaults). "
  + "Running out of time loses; a first move not made in time stops the game without a result.";

/** What the page knows of each game of spec/TEXT-PROTOCOL.md §10, by its name in /games:
 * its pieces (for the legend, team 1's first), the squares worth a word, an example of
 * its notation, its rules in brief, and where it names squares or finds legal moves. */
const GUIDES = {
  tictactoe: {
    pieces: [[kind("x", "mark", "marks")], [kind("o", "mark", "marks")]],
    example: "b2",
    rules: [
      "X moves first. A move puts your mark on an empty square: click it twice, or click it and press Play, or type its name (b2).",
      "Three of your marks in a row, a column or a diagonal win; a full board without one is a draw.",
      "An illegal move (a square already taken) loses the game.",
      TURN_CLOCK,
    ],
  },
  reversi: {
    pieces: [[kind("black", "disc", "discs")], [kind("white", "disc", "discs")]],
    example: "d3",
    rules: [
      "Black moves first. Place a disc so that one or more straight lines (row, column or diagonal) of your opponent's discs lie between it and another disc of yours: all those discs turn to your side. A move must turn at least one.",
      "The small dots show where you can play. A side that cannot move passes; the game ends when neither can, and the side with more discs wins.",
      "An illegal move is refused: play again.",
      TURN_CLOCK,
    ],
    hints: reversiMoves,
  },
  draughts: {
    pieces: [
      [kind("man", "man", "men"), kind("king", "king", "kings")],
      [kind("man", "man", "men"), kind("king", "king", "kings")],
    ],
    example: "11-15",
    rules: [
      "English draughts. Black moves first. A man moves one square diagonally forward to an empty dark square; a king (crowned) moves one square diagonally either way.",
      "Capture by jumping a diagonally neighbouring enemy piece onto the empty square beyond it. Capturing is compulsory, and a piece jumps on while it can. Click the piece, then each square it lands on.",
      "A man that reaches the far row becomes a king. A side with no move (no pieces, or all blocked) loses. Draws: by agreement, the same position three times, or 40 moves each without a capture or a man moving.",
      "The dark squares are numbered 1 to 32, as moves are written: 11-15 is a step, 15x24 a capture.",
      "After a game the same two players get a new one, colours swapped.",
      TURN_CLOCK,
    ],
    squareName: draughtsNumber,
    moveText: (names, picked) => names.join(picked.some(([, y], i) => i > 0 && Math.abs(y - picked[i - 1][1]) === 2) ? "x" : "-"),
  },
  duell: {
    pieces: [
      [kind("die536", "die", "dice", (n) => n.startsWith("die")), kind("key111", "key", "keys", (n) => n.startsWith("key"))],
      [kind("die536", "die", "dice", (n) => n.startsWith("die")), kind("key111", "key", "keys", (n) => n.startsWith("key"))],
    ],
    squares: [["key", "a key square: a key that reaches the enemy's wins"]],
    example: "a1-a6",
    rules: [
      "South moves first. Each side has eight dice and a key. A die rolls exactly as many squares as the pips on its top, along rows and columns, turning at most once and never through a piece; each square rolled tips it over. The key moves one square.",
      "Land on an enemy piece to capture it. Click the piece, the corner if it turns, then where it ends; or type a1-a6.",
      "Win by capturing the enemy key, or by moving your key onto the enemy's key square. A side with no legal move loses; 50 moves each without a capture is a draw.",
      "Point at a die to read all its faces.",
      TURN_CLOCK,
    ],
  },
  foxes: {
    pieces: [[kind("fox", "fox", "foxes")], [kind("dolphin", "dolphin", "dolphins")]],
    squares: [["land", "land"], ["water", "water"]],
    example: "4,1-4,2",
    rules: [
      "Real time: no turns. A move steps one of your animals to a neighbouring tile (up, down, left or right): click it, then where it goes. After every attempt you wait 0.5 s.",
      "A dolphin swims from water to water only. A fox moves only within two steps of land. A fox eats a dolphin stranded on land; a dolphin eats a fox swimming in the water.",
      "Every 10 s the tide turns some coast to water, or some water to land.",
      "Eating the other side's last animal wins. When nothing has been eaten for 120 s the side with more animals wins (equal numbers draw).",
      "The times are the server's defaults; it may be set otherwise.",
    ],
  },
};

function guide() {
  return (game && game.info && GUIDES[game.info.name]) || {};
}

/** English draughts' number of the dark square (x, y), spec/games/draughts.md. */
function draughtsNumber(x, y) {
  if (game.board.w !== 8 || game.board.h !== 8 || (x + y) % 2 !== 0) return null;
  const row = 8 - y; // from Black's back row
  const column = row % 2 === 0 ? (x - 2) / 2 : (x - 1) / 2;
  return String(4 * row + column + 1);
}

/** A square's name in the game's notation: as the game numbers it, else its column's
 * and row's names (GAME COLUMNS, GAME ROWS), else its coordinates (Foxes & Dolphins). */
function squareName(x, y) {
  const own = guide().squareName;
  const named = own && own(x, y);
  if (named) return named;
  const b = game.board;
  if (b.columns && b.rows) return b.columns[x - 1] + b.rows[y - 1];
  return `${x},${y}`;
}

/** The picked squares as the game writes a move. */
function moveText(picked) {
  const names = picked.map(([x, y]) => squareName(x, y));
  const own = guide().moveText;
  return own ? own(names, picked) : names.join("-");
}

/** Reversi's legal squares for `team`: empty, and closing at least one line of the
 * opponent's discs with one of the team's (spec/PROTOCOL.md §7). */
function reversiMoves(cells, team, board) {
  const at = (x, y) => cells.get(`${x},${y}`);
  const flips = (x, y, dx, dy) => {
    let n = 0;
    for (let cx = x + dx, cy = y + dy; cx >= 1 && cy >= 1 && cx <= board.w && cy <= board.h; cx += dx, cy += dy) {
      const cell = at(cx, cy);
      if (!cell || !cell.piece) return false;
      if (cell.piece.team === team) return n > 0;
      n += 1;
    }
    return false;
  };
  const legal = new Set();
  for (const [key, cell] of cells) {
    if (cell.piece) continue;
    const [x, y] = key.split(",").map(Number);
    const any = [-1, 0, 1].some((dx) => [-1, 0, 1].some((dy) => (dx || dy) && flips(x, y, dx, dy)));
    if (any) legal.add(key);
  }
  return legal;
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
  empty: "#fbfaf7", green: "#3a7d44", water: "#4a7fb5", blue: "#4a7fb5", land: "#a9b873",
  dark: "#8b6b4a", black: "#8b6b4a", light: "#efe3c8", white: "#efe3c8",
  key: "#d4b13f", gold: "#d4b13f", yellow: "#d4b13f", red: "#c0504d",
};
const OTHER_FILLS = ["#7e9bb8", "#b49a7a", "#8fae9a", "#c49a9a", "#9a94c4", "#b8b07e"];
/** Marks (x, o) keep a hue each; their shapes already tell them apart. */
const MARK_COLOURS = ["#b03a2e", "#2463a6", "#2e8b57", "#a0522d"];

function squareFill(kind, kinds) {
  if (SQUARE_FILLS[kind]) return SQUARE_FILLS[kind];
  if (!kinds.includes(kind)) kinds.push(kind);
  return OTHER_FILLS[kinds.indexOf(kind) % OTHER_FILLS.length];
}

/** How a team's pieces look, told apart without colour: a dark body with a light
 * outline, or a light body with a dark outline (then dashed, dotted for teams 3 and 4).
 * A piece or team named black or white is that. */
const DARK = { fill: "#262626", ink: "#f4f1ea", edge: "#f4f1ea", dash: "" };
const LIGHT = { fill: "#f7f3ea", ink: "#262626", edge: "#262626", dash: "" };
const TEAM_LOOKS = [DARK, LIGHT, { ...LIGHT, fill: "#c9c3b8", dash: "10 6" }, { ...DARK, fill: "#5b5b5b", dash: "3 6" }];

function pieceLook(piece) {
  const team = game.teamName(piece.team).toLowerCase();
  if (piece.name === "black" || team === "black") return DARK;
  if (piece.name === "white" || team === "white") return LIGHT;
  return TEAM_LOOKS[(piece.team - 1) % TEAM_LOOKS.length];
}

/** The generic label: the first letter, and the first digit after it (a die). */
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

/** A disc of a team's look; every other picture is built on it or beside it. */
function disc(g, look, cx, cy, r) {
  el("circle", { cx, cy: cy + 4, r, fill: "#00000040" }, g);
  el("circle", { cx, cy, r, fill: look.fill, stroke: look.edge, "stroke-width": 4, "stroke-dasharray": look.dash }, g);
}

/** The pips of a die's face `n`, on a square of half-side `h` around (cx, cy). */
function pips(g, n, cx, cy, h, ink) {
  const o = h * 0.55;
  const spots = {
    1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]], 4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
    5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]], 6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
  }[n] || [];
  for (const [dx, dy] of spots) el("circle", { cx: cx + dx * o, cy: cy + dy * o, r: h * 0.16, fill: ink }, g);
}

const PICTURES = [
  [(n) => n === "x", (g, p, cx, cy) => {
    const d = CELL * 0.27;
    el("path", { d: `M${cx - d} ${cy - d}L${cx + d} ${cy + d}M${cx + d} ${cy - d}L${cx - d} ${cy + d}`,
      stroke: MARK_COLOURS[(p.team - 1) % 4], "stroke-width": 12, "stroke-linecap": "round", fill: "none" }, g);
  }],
  [(n) => n === "o", (g, p, cx, cy) => {
    el("circle", { cx, cy, r: CELL * 0.27, stroke: MARK_COLOURS[(p.team - 1) % 4], "stroke-width": 11, fill: "none" }, g);
  }],
  [(n) => n === "black" || n === "white", (g, p, cx, cy) => disc(g, pieceLook(p), cx, cy, CELL * 0.38)],
  [(n) => n === "man", (g, p, cx, cy) => {
    const look = pieceLook(p);
    disc(g, look, cx, cy, CELL * 0.38);
    el("circle", { cx, cy, r: CELL * 0.24, fill: "none", stroke: look.ink, "stroke-width": 3, opacity: 0.6 }, g);
  }],
  [(n) => n === "king", (g, p, cx, cy) => {
    // Two men stacked, as on a real board, and a crown.
    const look = pieceLook(p);
    disc(g, look, cx, cy + 6, CELL * 0.38);
    disc(g, look, cx, cy - 4, CELL * 0.38);
    el("path", { d: `M${cx - 20} ${cy + 10}v-22l10 10l10-16l10 16l10-10v22z`, fill: look.ink }, g);
  }],
  [(n) => /^die[1-6]/.test(n), (g, p, cx, cy) => {
    const look = pieceLook(p);
    const h = CELL * 0.34;
    el("rect", { x: cx - h, y: cy - h + 4, width: 2 * h, height: 2 * h, rx: 12, fill: "#00000040" }, g);
    el("rect", { x: cx - h, y: cy - h, width: 2 * h, height: 2 * h, rx: 12, fill: look.fill, stroke: look.edge,
      "stroke-width": 4, "stroke-dasharray": look.dash }, g);
    pips(g, Number(p.name[3]), cx, cy, h, look.ink);
  }],
  [(n) => n.startsWith("key"), (g, p, cx, cy) => {
    // A round piece with a keyhole: no die is round.
    const look = pieceLook(p);
    disc(g, look, cx, cy, CELL * 0.38);
    el("circle", { cx, cy: cy - 8, r: 10, fill: look.ink }, g);
    el("path", { d: `M${cx - 6} ${cy - 4}L${cx - 11} ${cy + 20}h22L${cx + 6} ${cy - 4}z`, fill: look.ink }, g);
  }],
  [(n) => n === "fox", (g, p, cx, cy) => {
    // A fox's head: pointed ears, pointed chin.
    el("path", { d: `M${cx - 36} ${cy - 32}L${cx - 16} ${cy - 14}H${cx + 16}L${cx + 36} ${cy - 32}L${cx + 32} ${cy + 4}`
      + `L${cx} ${cy + 36}L${cx - 32} ${cy + 4}Z`, fill: "#c8621f", stroke: "#2a1406", "stroke-width": 6,
      "stroke-linejoin": "round" }, g);
    for (const dx of [-12, 12]) el("circle", { cx: cx + dx, cy: cy + 2, r: 5, fill: "#2a1406" }, g);
    el("circle", { cx, cy: cy + 26, r: 5, fill: "#2a1406" }, g);
  }],
  [(n) => n === "dolphin", (g, p, cx, cy) => {
    // A dolphin from the side: a long light body, a fin, a tail.
    const body = `M${cx - 42} ${cy + 4}C${cx - 26} ${cy - 18} ${cx + 16} ${cy - 18} ${cx + 30} ${cy - 2}`
      + `L${cx + 44} ${cy - 14}L${cx + 40} ${cy + 6}L${cx + 46} ${cy + 22}L${cx + 28} ${cy + 10}`
      + `C${cx + 12} ${cy + 22} ${cx - 22} ${cy + 20} ${cx - 42} ${cy + 4}Z`;
    const fin = `M${cx - 6} ${cy - 12}L${cx + 6} ${cy - 32}L${cx + 14} ${cy - 9}Z`;
    for (const d of [fin, body]) {
      el("path", { d, fill: "#eef3f6", stroke: "#10303d", "stroke-width": 6, "stroke-linejoin": "round" }, g);
    }
    el("circle", { cx: cx - 26, cy: cy + 1, r: 4, fill: "#10303d" }, g);
  }],
];

function drawPiece(g, piece, cx, cy) {
  const picture = PICTURES.find(([matches]) => matches(piece.name));
  if (picture) {
    picture[1](g, piece, cx, cy);
    return;
  }
  const look = pieceLook(piece);
  disc(g, look, cx, cy, CELL * 0.38);
  const t = el("text", { x: cx, y: cy + 14, "text-anchor": "middle", class: "label", fill: look.ink }, g);
  t.textContent = pieceLabel(piece.name);
}

/** Marks on a square that say its kind without colour. */
function drawTexture(g, kind, left, top) {
  if (kind === "water" || kind === "blue") {
    for (const dy of [35, 70]) {
      el("path", { d: `M${left + 12} ${top + dy}q13 -10 25 0t25 0t25 0`, class: "wave" }, g);
    }
  } else if (kind === "key" || kind === "gold") {
    el("rect", { x: left + 10, y: top + 10, width: CELL - 20, height: CELL - 20, rx: 6, class: "key-square" }, g);
  }
}

/** A piece in words, for the legend and for pointing at a square. */
function pieceWords(piece) {
  const team = game.teamName(piece.team);
  const die = piece.name.match(/^die([1-6])([1-6])([1-6])$/);
  if (die) return `${team} die: ${die[1]} on top, ${die[2]} toward its owner, ${die[3]} on its owner's left`;
  const known = (guide().pieces || [])[piece.team - 1];
  const k = known && known.find((kd) => kd.match(piece.name));
  if (k) return `${team} ${k.one}`;
  return piece.name === team.toLowerCase() ? team : `${team} ${piece.name}`;
}

/** The squares' SVG groups, made once a board: re-drawing only their contents
 * keeps a click whole even when a message arrives between press and release. */
let squares = null;

function buildBoard(svg, board) {
  const { w, h } = board;
  // The edges' names keep about the same size on screen whatever the board's size;
  // a game that numbers its squares on them (draughts) has no edge names at all.
  const scale = Math.max(0.5, Math.max(w, h) / 8);
  const edges = !guide().squareName;
  const margin = edges ? Math.round(44 * scale) : 0;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${margin + w * CELL} ${h * CELL + margin}`);
  squares = { key: boardKey(board), at: new Map() };
  for (let y = 1; y <= h; y++) {
    for (let x = 1; x <= w; x++) {
      // (1, 1) is the lower left: row h is drawn at the top.
      const left = margin + (x - 1) * CELL;
      const top = (h - y) * CELL;
      const g = el("g", { class: "sq", "data-x": x, "data-y": y }, svg);
      const tile = el("rect", { class: "tile", x: left, y: top, width: CELL, height: CELL }, g);
      const content = el("g", { class: "content" }, g);
      const title = el("title", {}, g);
      g.addEventListener("click", () => game && game.pick(x, y));
      g.addEventListener("mouseenter", () => { pointedAt = [x, y]; showPointed(); });
      g.addEventListener("mouseleave", () => { pointedAt = null; showPointed(); });
      squares.at.set(`${x},${y}`, { g, tile, content, title, left, top, x, y });
    }
  }
  if (!edges) return;
  const font = { class: "coord", "font-size": Math.round(28 * scale), "text-anchor": "middle", "dominant-baseline": "central" };
  for (let x = 1; x <= w; x++) {
    const t = el("text", { ...font, x: margin + (x - 0.5) * CELL, y: h * CELL + margin / 2 }, svg);
    t.textContent = board.columns ? board.columns[x - 1] : x;
  }
  for (let y = 1; y <= h; y++) {
    const t = el("text", { ...font, x: margin / 2, y: (h - y + 0.5) * CELL }, svg);
    t.textContent = board.rows ? board.rows[y - 1] : y;
  }
}

/** What the board's picture is built from: its size, its edges' names, its game. */
function boardKey(board) {
  return JSON.stringify([board.w, board.h, board.columns, board.rows, game.info && game.info.name]);
}

/** The square the pointer is on, named under the board. */
let pointedAt = null;

function squareWords(x, y) {
  const cell = game.cells.get(`${x},${y}`);
  const own = guide().squareName;
  const number = own && own(x, y);
  const name = !own ? squareName(x, y) : number ? `square ${number}` : `(${x}, ${y})`;
  const what = cell && cell.piece ? pieceWords(cell.piece) : "empty";
  const told = cell && (guide().squares || []).some(([k]) => k === cell.kind);
  return `${name}: ${what}${told ? ` (${cell.kind})` : ""}`;
}

function showPointed() {
  const where = $("where");
  if (!game || !game.board) {
    where.textContent = "";
  } else if (pointedAt) {
    where.textContent = squareWords(...pointedAt);
  } else {
    where.textContent = "Point at (or tap) a square to read its name and what stands on it.";
  }
}

/** Where the player may move now, when the page can tell (Reversi). */
function legalHints() {
  const hints = guide().hints;
  if (!hints || !game.canPick() || !game.team) return new Set();
  return hints(game.cells, game.team.number, game.board);
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
  const hints = legalHints();
  const number = guide().squareName;
  for (const [at, { g, tile, content, title, left, top, x, y }] of squares.at) {
    const cell = game.cells.get(at);
    g.setAttribute("class", pickable ? "sq can-pick" : "sq");
    tile.setAttribute("fill", cell ? squareFill(cell.kind, kinds) : "#ddd");
    content.replaceChildren();
    for (const key of ["kind", "piece", "team", "hint"]) delete g.dataset[key];
    if (cell && cell.kind) {
      g.dataset.kind = cell.kind;
      drawTexture(content, cell.kind, left, top);
    }
    if (cell && cell.piece) {
      g.dataset.piece = cell.piece.name;
      g.dataset.team = cell.piece.team;
      drawPiece(content, cell.piece, left + CELL / 2, top + CELL / 2);
    }
    const n = number && number(x, y);
    if (n) el("text", { class: "number", x: left + 5, y: top + 21 }, content).textContent = n;
    if (hints.has(at)) {
      g.dataset.hint = "yes";
      const look = pieceLook({ name: "", team: game.team.number });
      el("circle", { class: "hint", cx: left + CELL / 2, cy: top + CELL / 2, r: 15, fill: look.fill, stroke: look.edge }, content);
    }
    if (game.changed.has(at)) {
      el("rect", { class: "changed", x: left + 4, y: top + 4, width: CELL - 8, height: CELL - 8, rx: 8 }, content);
    }
    if (pickOrder.has(at)) {
      el("rect", { class: "pick", x: left + 6, y: top + 6, width: CELL - 12, height: CELL - 12, rx: 10 }, content);
      el("text", { class: "order", x: left + CELL - 26, y: top + 30 }, content).textContent = pickOrder.get(at);
    }
    title.textContent = cell ? squareWords(x, y) : "";
  }
  showPointed();
}

// ------------------------------------------------------ clocks and timers

/** Under this many milliseconds a clock warns, in colour and in words. */
const LOW_TIME = 10000;

/** 0:07, 9:58, 1:00:00: whole seconds, rounded up so 0:00 means the time is up. */
function clockText(ms) {
  const s = Math.ceil(ms / 1000);
  const mm = Math.floor(s / 60);
  const ss = String(s % 60).padStart(2, "0");
  return mm >= 60 ? `${Math.floor(mm / 60)}:${String(mm % 60).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/** 7 s, 1 min 5 s. */
function secondsText(ms) {
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
}

/** One line a team with a clock: its name, the time, the running one marked, a warning under 10 s. */
function clockItem(team) {
  const left = game.clockLeft(team);
  const running = game.running === team;
  const low = running && left < LOW_TIME;
  const li = document.createElement("li");
  li.className = `clock${running ? " running" : ""}${low ? " low" : ""}`;
  li.dataset.team = team;
  const name = document.createElement("span");
  name.className = "team";
  const yours = game.team && game.team.number === team ? " (you)" : "";
  name.textContent = `${running ? "▶ " : ""}${cap(game.teamName(team))}${yours}`;
  const time = document.createElement("span");
  time.className = "left";
  time.textContent = clockText(left);
  li.append(name, time);
  const note = document.createElement("span");
  note.className = "note";
  note.textContent = low ? (yours ? "hurry: move now!" : "low on time") : running ? "to move" : "";
  li.append(note);
  return li;
}

/** "Tide in 7 s: the tide turns", counting down; a stopped timer is not shown. */
function timerItem(name, timer) {
  const left = Math.max(0, timer.ms - (performance.now() - timer.at));
  const li = document.createElement("li");
  li.className = "timer";
  li.dataset.timer = name;
  li.textContent = `${cap(name)} in ${secondsText(left)}: ${timer.text}`;
  return li;
}

/** The clocks and the game's timers; called on every message and a few times a second. */
function renderTime() {
  if (!game) return;
  const teams = [...game.clocks.keys()].sort((a, b) => a - b);
  const timers = [...game.timers].filter(([, t]) => t.ms > 0);
  $("time").hidden = !teams.length && !timers.length;
  $("clocks").replaceChildren(...teams.map(clockItem));
  $("timers").replaceChildren(...timers.map(([name, t]) => timerItem(name, t)));
  if (game.away.size) renderTogether();
}
setInterval(renderTime, 250);

// --------------------------------------------------------- legend and rules

/** A piece drawn small, for the legend. */
function glyph(name, team) {
  const svg = el("svg", { viewBox: "0 0 100 100", class: "glyph", "aria-hidden": "true" });
  drawPiece(svg, { name, team }, 50, 50);
  return svg;
}

/** Each team's kinds of piece: the game's own, else the names drawn for it so far. */
function teamKinds(team) {
  const known = (guide().pieces || [])[team - 1];
  if (known) return known;
  const names = new Set();
  for (const cell of game.cells.values()) {
    if (cell.piece && cell.piece.team === team) names.add(cell.piece.name);
  }
  return [...names].map((n) => kind(n, n, n));
}

function teamCount() {
  if (game.teams) return game.teams.length;
  if (game.info && game.info.teams && game.info.teams.length) return game.info.teams.length;
  return Math.max(0, ...[...game.cells.values()].map((c) => (c.piece ? c.piece.team : 0)));
}

/** One line a team: its name, then each kind of its pieces as drawn, with how many stand on the board. */
function renderLegend() {
  const rows = [];
  for (let team = 1; team <= teamCount(); team++) {
    const li = document.createElement("li");
    li.dataset.team = team;
    const name = document.createElement("span");
    name.className = "team";
    name.textContent = cap(game.teamName(team)) + (game.team && game.team.number === team ? " (you)" : "");
    li.append(name);
    for (const k of teamKinds(team)) {
      let n = 0;
      for (const cell of game.cells.values()) if (cell.piece && cell.piece.team === team && k.match(cell.piece.name)) n += 1;
      const part = document.createElement("span");
      part.className = "count";
      part.dataset.kind = k.sample;
      part.append(glyph(k.sample, team), `${n} ${n === 1 ? k.one : k.many}`);
      li.append(part);
    }
    rows.push(li);
  }
  for (const [kindName, words] of guide().squares || []) {
    const li = document.createElement("li");
    const swatch = el("svg", { viewBox: `0 0 ${CELL} ${CELL}`, class: "glyph", "aria-hidden": "true" });
    el("rect", { x: 0, y: 0, width: CELL, height: CELL, fill: squareFill(kindName, []) }, swatch);
    drawTexture(swatch, kindName, 0, 0);
    const text = document.createElement("span");
    text.textContent = words;
    li.append(swatch, text);
    rows.push(li);
  }
  $("legend").replaceChildren(...rows);
}

let rulesShown = null;
function renderRules() {
  const g = guide();
  const name = game.info ? game.info.name : "";
  if (rulesShown === name) return;
  rulesShown = name;
  $("rules").hidden = !g.rules;
  $("rules-title").textContent = `How to play ${game.info ? game.info.title : ""}`;
  $("rules-list").replaceChildren(...(g.rules || []).map((text) => {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }));
  $("typed-move").placeholder = `or type a move, e.g. ${g.example || "d3"}`;
}

/** Whose move it is; in a game without turns (real time), whether you may move. */
function turnText() {
  if (game.over || game.aborted) return "—";
  if (game.turn) return cap(game.teamName(game.turn)) + (game.ready ? " (you)" : "");
  if (game.readies > 0 || game.ready) return game.ready ? "You may move" : "Wait a moment";
  return "—";
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
  $("turn").textContent = turnText();
  $("tools").hidden = Boolean(game.watching) || Boolean(game.over) || Boolean(game.aborted) || Boolean(game.code);
  $("picked").textContent = game.picked.length ? moveText(game.picked) : "—";
  if (game.info) $("title").textContent = game.info.title;
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
  renderTogether();
  renderPlayers();
  renderBoard();
  renderLegend();
  renderRules();
  renderTime();
}

/** A seat's player: an account's name (a link to its profile) and rating (`?` when
 * provisional), a guest's name, or "anonymous". */
function seatItem(seat) {
  const span = document.createElement("span");
  span.className = "player";
  span.dataset.kind = seat.kind;
  if (seat.kind === "account") {
    span.append(link(`/players/${encodeURIComponent(seat.name)}`, seat.name));
    // "-": no rated game of this kind yet.
    const rating = seat.rating === "-" ? "unrated" : seat.rating;
    span.append(" ", Object.assign(document.createElement("span"), { className: "rating", textContent: rating }));
  } else {
    span.textContent = seat.kind === "guest" ? `${seat.name} (guest)` : "anonymous";
  }
  return span;
}

/** Both teams' players (GAME PLAYER), for those who play and those who watch. */
function renderPlayers() {
  const teams = [...game.players.keys()].sort((a, b) => a - b);
  // Nobody named: nothing worth a line.
  const named = [...game.players.values()].some((seats) => seats.some((s) => s.kind !== "anonymous"));
  $("players").hidden = !named;
  $("players").replaceChildren(...teams.map((team) => {
    const li = document.createElement("li");
    li.dataset.team = team;
    const you = game.team && game.team.number === team ? " (you)" : "";
    li.append(`${cap(game.teamName(team))}${you}: `);
    game.players.get(team).forEach((seat, i) => {
      if (i) li.append(", ");
      li.append(seatItem(seat));
    });
    return li;
  }));
}

/** The code to read aloud, an opponent away (claims at the grace's end), a rematch. */
function renderTogether() {
  $("code-box").hidden = !game.code;
  if (game.code) {
    $("code").textContent = game.code.code;
    $("link").value = game.link || "";
  }
  const away = [...game.away].filter(([team]) => !game.team || team !== game.team.number);
  $("away").hidden = !away.length || Boolean(game.over || game.aborted);
  if (away.length) {
    const [team, a] = away[0];
    const left = Math.max(0, a.ms - (performance.now() - a.at));
    const name = cap(game.teamName(team));
    const held = a.ms === 0;
    $("away-text").textContent = held
      ? `${name} has not come back. Claim the game, take a draw, or wait.`
      : `${name}'s connection dropped — ${secondsText(left)}`;
    $("claims").hidden = !held || game.waitingOn.has(team) || !game.team;
  }
  const rematchTimer = game.timers.get("rematch");
  const open = game.over && game.team && rematchTimer && rematchTimer.ms > 0;
  $("rematch").hidden = !open;
  if (open) {
    const offered = game.rematchOffer !== null && game.rematchOffer !== game.team.number;
    $("rematch-text").textContent = offered
      ? `${cap(game.teamName(game.rematchOffer))} offers a rematch, sides swapped.`
      : game.rematchSent ? "You offered a rematch; waiting for the answer…" : "Play again, sides swapped?";
    $("rematch-yes").textContent = offered ? "Accept rematch" : "Rematch";
    $("rematch-yes").disabled = game.rematchSent && !offered;
  }
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

$("invite").addEventListener("submit", (e) => {
  e.preventDefault();
  const info = games.find((g) => g.name === $("invite-game").value);
  if (info) invite(info, $("invite-time").value, $("invite-side").value, $("invite-public").checked, $("invite-rated").checked && Boolean(me.token));
});
$("invite-game").addEventListener("change", fillSides);
$("sign-in").addEventListener("submit", (e) => {
  e.preventDefault();
  signIn(false);
});
$("sign-up").addEventListener("click", () => signIn(true));
$("as-guest").addEventListener("click", asGuest);
$("sign-out").addEventListener("click", signOut);
$("my-games").addEventListener("click", showMine);
$("mine-back").addEventListener("click", showLobby);
$("join").addEventListener("submit", (e) => {
  e.preventDefault();
  const code = $("join-code").value.trim();
  if (code) joinCode(code, null);
});
$("copy-link").addEventListener("click", () => {
  const link = $("link");
  link.select();
  if (navigator.clipboard) navigator.clipboard.writeText(link.value).catch(() => document.execCommand("copy"));
  else document.execCommand("copy");
});
$("claim-win").addEventListener("click", () => game && game.send("GAME CLAIM WIN"));
$("claim-draw").addEventListener("click", () => game && game.send("GAME CLAIM DRAW"));
$("claim-wait").addEventListener("click", () => {
  if (!game) return;
  for (const [team, a] of game.away) if (a.ms === 0) game.waitingOn.add(team);
  schedule();
});
$("rematch-yes").addEventListener("click", () => {
  if (!game) return;
  const offered = game.rematchOffer !== null && game.team && game.rematchOffer !== game.team.number;
  game.send(offered ? "GAME ACCEPT REMATCH" : "GAME OFFER REMATCH");
  game.rematchSent = true;
  schedule();
});
$("rematch-no").addEventListener("click", () => {
  if (!game) return;
  game.send("GAME DECLINE REMATCH");
  game.timers.delete("rematch");
  schedule();
});

/** The invite form's games and, for the game chosen, its sides. */
function fillGames() {
  const select = $("invite-game");
  select.replaceChildren(...games.filter((g) => g.name !== "foxes").map((g) => {
    const o = document.createElement("option");
    o.value = g.name;
    o.textContent = g.title;
    return o;
  }));
  fillSides();
}

function fillSides() {
  const info = games.find((g) => g.name === $("invite-game").value);
  const sides = ["random", ...(info ? info.teams : [])];
  $("invite-side").replaceChildren(...sides.map((side) => {
    const o = document.createElement("option");
    o.value = side;
    o.textContent = side;
    return o;
  }));
}

/** On load: a link's #join=CODE or #watch=ID is followed (then a reload resumes rather
 * than joins again); else a token this tab kept resumes; else the lobby. */
function start() {
  fillGames();
  if (followLink()) return;
  const saved = sessionStorage.getItem(RESUME_KEY);
  if (saved) {
    try {
      resume(JSON.parse(saved));
      return;
    } catch (_) {
      forgetResume();
    }
  }
  showLobby();
}

/** A link's #watch=ID watches that game, #join=CODE joins that challenge; false if the
 * address has neither. The fragment is removed, so a reload does not do it again. */
function followLink() {
  const watching = location.hash.match(/^#watch=([^&]+)$/);
  const join = location.hash.match(/^#join=([0-9.\- ]+)$/);
  if (!watching && !join) return false;
  history.replaceState(null, "", location.pathname + location.search);
  if (watching) watch(decodeURIComponent(watching[1]), null);
  else joinCode(decodeURIComponent(join[1]), null);
  return true;
}

// A link followed while the page shows the lobby (the page does not load again).
window.addEventListener("hashchange", () => {
  if (!game && games.length) followLink();
});

renderAccount();
Promise.all([loadGames(), restoreAccount()])
  .then(start)
  .catch(() => {
    $("lobby-error").hidden = false;
    $("lobby-error").textContent = "Cannot reach the server.";
  });

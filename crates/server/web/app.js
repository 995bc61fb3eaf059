// retro's tablebase page: set up or load a position, see its value and every move's value best first, click a
// move to play it. It asks the server's own API (GET /standard?fen=, GET /GAME?position=, GET /games), as any
// client would. Plain JavaScript, no build step, no external assets.
"use strict";

const GLYPHS = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const START_FEN = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1";
const $ = (id) => document.getElementById(id);

const state = {
  game: "chess",
  games: [],          // from GET /games
  board: [],          // chess: 64 squares, a8 first (FEN order), "" or a piece letter
  turn: "w",
  tool: null,         // the palette's piece (or "x" to remove) while setting up; null while playing
  from: null,         // the square picked to move from, while playing
  answer: null,       // the last answer
};

// ---------- chess board ----------

function squareName(i) { return "abcdefgh"[i % 8] + (8 - Math.floor(i / 8)); }

function parseFen(fen) {
  const fields = fen.trim().split(/\s+/);
  const board = [];
  for (const ch of fields[0] || "") {
    if (ch === "/") continue;
    if (/[1-8]/.test(ch)) { for (let k = 0; k < Number(ch); k++) board.push(""); }
    else board.push(ch);
  }
  if (board.length !== 64) return null;
  return { board, turn: fields[1] === "b" ? "b" : "w" };
}

function boardFen() {
  let rows = [];
  for (let r = 0; r < 8; r++) {
    let row = "", empty = 0;
    for (let f = 0; f < 8; f++) {
      const p = state.board[r * 8 + f];
      if (p) { if (empty) row += empty; empty = 0; row += p; } else empty++;
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return rows.join("/") + " " + state.turn + " - - 0 1";
}

function drawBoard() {
  const el = $("board");
  el.innerHTML = "";
  const targets = new Set();
  if (state.from !== null && state.answer) {
    for (const m of state.answer.moves || []) {
      if (m.uci.startsWith(squareName(state.from))) targets.add(m.uci.slice(2, 4));
    }
  }
  state.board.forEach((p, i) => {
    const sq = document.createElement("div");
    const dark = (Math.floor(i / 8) + (i % 8)) % 2 === 1;
    sq.className = "sq " + (dark ? "dark" : "light");
    if (i === state.from) sq.classList.add("picked");
    if (targets.has(squareName(i))) sq.classList.add("target");
    sq.dataset.square = squareName(i);
    sq.textContent = p ? GLYPHS[p] : "";
    sq.addEventListener("click", () => clickSquare(i));
    el.appendChild(sq);
  });
  $("turn").value = state.turn;
}

function clickSquare(i) {
  if (state.tool) {
    state.board[i] = state.tool === "x" || state.board[i] === state.tool ? "" : state.tool;
    afterSetup();
    return;
  }
  const name = squareName(i);
  if (state.from === null) {
    if (state.board[i]) { state.from = i; drawBoard(); }
    return;
  }
  const from = squareName(state.from);
  state.from = null;
  const moves = (state.answer && state.answer.moves) || [];
  // A promotion plays the best promotion to that square (the list is best first).
  const move = moves.find((m) => m.uci.slice(0, 4) === from + name);
  if (move) play(move.fen);
  else if (state.board[i] && name !== from) { state.from = i; drawBoard(); }
  else drawBoard();
}

function afterSetup() {
  $("position").value = boardFen();
  drawBoard();
  probe();
}

function drawPalette() {
  const el = $("palette");
  for (const p of ["K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", "x"]) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.piece = p;
    b.textContent = p === "x" ? "✕" : GLYPHS[p];
    b.addEventListener("click", () => {
      state.tool = state.tool === p ? null : p;
      state.from = null;
      drawTools();
    });
    el.appendChild(b);
  }
}

function drawTools() {
  for (const b of $("palette").children) b.classList.toggle("on", b.dataset.piece === state.tool);
  $("play-mode").classList.toggle("on", state.tool === null);
}

// ---------- other games: a grid drawn from the position text, when it has rows ----------

function drawGrid(text) {
  const el = $("grid");
  el.innerHTML = "";
  const first = text.trim().split(/\s+/)[0] || "";
  // Rows separated by "/", digits for runs of empty cells; a leading "WxH" (quixo) names the size.
  const rows = first.split("/").filter((r) => r && !/^\d+x\d+$/.test(r));
  if (rows.length < 2) return;
  const cells = rows.map((r) => {
    const out = [];
    for (const ch of r) {
      if (/[1-9]/.test(ch)) { for (let k = 0; k < Number(ch); k++) out.push(""); }
      else out.push(ch === "." ? "" : ch);
    }
    return out;
  });
  const width = Math.max(...cells.map((r) => r.length));
  el.style.gridTemplateColumns = `repeat(${width}, 3em)`;
  for (const row of cells) {
    for (let k = 0; k < width; k++) {
      const c = document.createElement("div");
      c.className = "cell";
      c.textContent = row[k] || "";
      el.appendChild(c);
    }
  }
}

// ---------- the API ----------

function endpoint() {
  const g = state.games.find((g) => g.name === state.game);
  return g ? g.endpoint : state.game === "chess" ? "/standard" : "/" + state.game;
}

function describe(category, dtm) {
  if (category === "draw") return "draw";
  if (dtm === null || dtm === undefined) return category;
  return `${category}, ${Math.abs(dtm)} plies to the end`;
}

// A move's category and dtm are those of the position reached, for the side to move there: flip them for the mover.
function forMover(m) {
  const category = m.category === "win" ? "loss" : m.category === "loss" ? "win" : m.category;
  return { category, dtm: m.dtm === null ? null : -m.dtm };
}

async function probe() {
  const text = $("position").value;
  const key = state.game === "chess" ? "fen" : "position";
  $("error").hidden = true;
  let answer;
  try {
    const response = await fetch(`${endpoint()}?${key}=${encodeURIComponent(text)}`);
    answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
  } catch (e) {
    state.answer = null;
    $("value").textContent = "\u00a0";
    delete $("value").dataset.category;
    $("moves").innerHTML = "";
    $("error").textContent = e.message;
    $("error").hidden = false;
    if (state.game === "chess") drawBoard();
    return;
  }
  state.answer = answer;
  showAnswer(answer);
}

function showAnswer(answer) {
  const value = $("value");
  const mover = state.game === "chess" ? (state.turn === "w" ? "White" : "Black") + " to move: " : "";
  let facts = [];
  for (const flag of ["checkmate", "stalemate", "insufficient_material", "game_over"]) {
    if (answer[flag]) facts.push(flag.replace("_", " "));
  }
  value.textContent = mover + describe(answer.category, answer.dtm) + (facts.length ? ` (${facts.join(", ")})` : "");
  value.className = "value " + answer.category;
  value.dataset.category = answer.category;
  value.dataset.dtm = answer.dtm === null ? "null" : String(answer.dtm);
  const list = $("moves");
  list.innerHTML = "";
  for (const m of answer.moves || []) {
    const li = document.createElement("li");
    const mine = forMover(m);
    const name = state.game === "chess" ? m.san : m.move;
    const next = state.game === "chess" ? m.fen : m.position;
    li.className = mine.category;
    li.dataset.move = state.game === "chess" ? m.uci : m.move;
    li.dataset.category = m.category;
    li.dataset.dtm = m.dtm === null ? "null" : String(m.dtm);
    li.innerHTML = `<span class="name"></span> <span class="what"></span>`;
    li.querySelector(".name").textContent = name;
    li.querySelector(".what").textContent = describe(mine.category, mine.dtm) + (next === null ? " (game over)" : "");
    if (next !== null && next !== undefined) li.addEventListener("click", () => play(next));
    list.appendChild(li);
  }
  if (state.game === "chess") drawBoard();
}

function play(next) {
  $("position").value = next;
  loadText();
}

// Reads the text box: for chess the board follows the FEN.
function loadText() {
  const text = $("position").value;
  if (state.game === "chess") {
    const parsed = parseFen(text);
    if (parsed) { state.board = parsed.board; state.turn = parsed.turn; }
    state.from = null;
    drawBoard();
  } else {
    drawGrid(text);
  }
  probe();
}

function selectGame(name) {
  state.game = name;
  const chess = name === "chess";
  $("chess-view").hidden = !chess;
  $("generic-view").hidden = chess;
  $("position-label").textContent = chess ? "FEN" : "Position";
  const g = state.games.find((g) => g.name === name);
  $("position").value = chess ? START_FEN : g ? g.example_position : "";
  history.replaceState(null, "", "#" + name);
  loadText();
}

async function init() {
  drawPalette();
  drawTools();
  try {
    const response = await fetch("/games");
    state.games = (await response.json()).games;
  } catch (e) {
    state.games = [];
  }
  const select = $("game");
  select.innerHTML = "";
  for (const g of state.games) {
    const o = document.createElement("option");
    o.value = g.name;
    o.textContent = g.tables.length ? `${g.name} (${g.tables.length} tables)` : g.name;
    select.appendChild(o);
  }
  select.addEventListener("change", () => selectGame(select.value));
  $("turn").addEventListener("change", () => { state.turn = $("turn").value; afterSetup(); });
  $("clear").addEventListener("click", () => { state.board = Array(64).fill(""); afterSetup(); });
  $("play-mode").addEventListener("click", () => { state.tool = null; drawTools(); });
  $("position-form").addEventListener("submit", (e) => { e.preventDefault(); loadText(); });
  const wanted = location.hash.slice(1);
  const first = state.games.some((g) => g.name === wanted) ? wanted : "chess";
  select.value = first;
  selectGame(first);
}

init();

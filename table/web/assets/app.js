// The table page: the live table from /api/stream, host controls when the host's token is accepted,
// and the replay viewer over /api/games. No framework and nothing from outside this server.
"use strict";

const TOKEN_KEY = "cardtable-host-token";
const GAME_NAMES = { "chinese-ten": "Chinese Ten", frog: "Frog", garbage: "Garbage" };
const page = { live: null, moves: [], token: null, host: false, replay: null, frame: null, loading: false };

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardChip(card) {
  const suit = card.slice(-1);
  return el("span", { class: "card" + ("HD".includes(suit) ? " red" : ""), "data-card": card }, card);
}

// -- the live stream -----------------------------------------------------------------------------

function connect() {
  const stream = new EventSource("/api/stream");
  stream.addEventListener("hello", (e) => {
    const state = JSON.parse(e.data);
    page.moves = state.moves || [];
    if (!page.live || state.game_id !== page.live.game_id) loadGames().catch(() => {});
    page.live = state;
    setConn("live", true);
    draw();
  });
  stream.addEventListener("event", (e) => {
    const ev = JSON.parse(e.data);
    if (ev.kind === "move") page.moves.push(ev.text);
    else if (ev.kind === "unmove") page.moves.pop();
    if (ev.kind === "over") loadGames().catch(() => {});
  });
  stream.addEventListener("state", (e) => {
    const state = JSON.parse(e.data);
    if (page.live && state.game_id !== page.live.game_id) {
      page.moves = [];
      loadGames().catch(() => {}); // a new game is in the journal
    }
    page.live = state;
    draw();
  });
  stream.addEventListener("frame", (e) => showFrame(JSON.parse(e.data)));
  stream.addEventListener("resync", () => {
    stream.close();
    setTimeout(connect, 200);
  });
  stream.onerror = () => setConn("reconnecting…", false);
}

function setConn(text, ok) {
  const badge = $("conn");
  badge.textContent = text;
  badge.classList.toggle("ok", ok);
}

let drawQueued = false;
function draw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    if (page.replay) return;
    if (page.live) render(page.live, page.moves, true);
  });
}

// -- the camera ----------------------------------------------------------------------------------

function showFrame(notice) {
  page.frame = notice;
  if (page.loading) return; // the newest notice is fetched when this picture has arrived: frames drop
  page.loading = true;
  const img = $("frame");
  const shown = notice;
  img.onload = () => {
    page.loading = false;
    img.hidden = false;
    $("no-frame").hidden = true;
    drawOverlay(shown);
    if (page.frame !== shown) showFrame(page.frame);
  };
  img.onerror = () => {
    page.loading = false;
  };
  img.src = "data:image/jpeg;base64," + shown.jpeg;
}

function drawOverlay(frame) {
  const overlay = $("overlay");
  overlay.setAttribute("viewBox", `0 0 ${frame.width} ${frame.height}`);
  overlay.replaceChildren();
  const font = Math.max(12, Math.round(frame.width / 60));
  for (const zone of frame.zones) {
    const points = zone.polygon.map((p) => p.join(",")).join(" ");
    const g = svg("g", { class: "zone", "data-zone": zone.name });
    g.append(svg("polygon", { points }));
    g.append(svg("text", { x: zone.polygon[0][0] + 4, y: zone.polygon[0][1] + font, "font-size": font * 0.8 }, zone.label));
    overlay.append(g);
  }
  for (const card of frame.cards) {
    const points = card.corners.map((p) => p.join(",")).join(" ");
    const xs = card.corners.map((p) => p[0]);
    const ys = card.corners.map((p) => p[1]);
    const cx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const top = Math.min(...ys);
    const g = svg("g", { class: "seen" + (card.card === "back" || card.card === "unknown" ? " vague" : ""), "data-card": card.card });
    g.append(svg("polygon", { points }));
    g.append(svg("text", { x: cx, y: top - 4, "font-size": font, "text-anchor": "middle" }, card.card));
    overlay.append(g);
  }
}

// -- the state -----------------------------------------------------------------------------------

function render(state, moves, live) {
  const name = GAME_NAMES[state.game] || state.game || "cardtable";
  $("title").textContent = state.game ? `${name} (${state.rules})` : "cardtable";
  document.title = state.game ? `${name}: cardtable` : "cardtable";
  $("phase").textContent = !state.game
    ? live ? "no live table: the journal's games are below" : ""
    : state.over ? "game over" : `${state.phase}${state.to_act !== null ? ` · seat ${state.to_act} to act` : ""}`;
  renderSeats(state);
  renderTable(state);
  renderFlags(state, live);
  renderPrompt(state, live);
  renderResult(state);
  renderHost(state, live);
  $("moves").replaceChildren(...moves.map((m) => el("li", {}, m)));
  $("messages").replaceChildren(...state.messages.slice().reverse().map((m) => el("li", {}, m)));
}

function figures(seat) {
  const out = [];
  for (const key of ["points", "chips", "coins", "tricks"]) {
    if (seat[key] !== null && seat[key] !== undefined) {
      out.push(el("span", { class: "figure " + key }, el("b", {}, String(seat[key])), " " + key));
    }
  }
  return out;
}

function renderSeats(state) {
  const seats = state.seats.map((seat) =>
    el(
      "div",
      { class: `seat led-${seat.led}${seat.to_act ? " to-act" : ""}${seat.active ? "" : " out"}`, "data-seat": seat.seat },
      el("h3", {}, seat.name, el("span", { class: "led", title: "LED: " + seat.led }, seat.led)),
      el("p", { class: "figures" }, figures(seat)),
      Array.isArray(seat.hand)
        ? el("p", {}, "hand ", seat.hand.map(cardChip))
        : seat.hand !== null ? el("p", { class: "quiet" }, `${seat.hand} in hand`) : null,
      seat.cards.length ? el("p", {}, "on the table ", seat.cards.map(cardChip)) : null,
      seat.captured.length
        ? el("details", {}, el("summary", {}, `captured ${seat.captured.length}`), el("p", {}, seat.captured.map(cardChip)))
        : null,
    ),
  );
  $("seats").replaceChildren(...seats);
}

function renderTable(state) {
  $("table").replaceChildren(
    ...state.table.map((row) =>
      el("p", { class: "row", "data-row": row.label }, el("span", { class: "label" }, row.label), row.cards.map(cardChip), row.text ? " " + row.text : null),
    ),
  );
  $("ledger").replaceChildren(
    ...state.ledger.map((line) => el("span", { class: "figure" }, el("b", {}, String(line.amount)), " " + line.account)),
  );
  const d = state.dealer;
  $("dealer").textContent = !state.game
    ? ""
    : d.machine
      ? `dealer machine: ${d.in_flight} command${d.in_flight === 1 ? "" : "s"} in flight${d.last ? `; last: ${d.last}` : ""}${d.errors.length ? `; error: ${d.errors[d.errors.length - 1]}` : ""}`
      : "dealt by hand";
}

function renderFlags(state, live) {
  const flags = state.flags.slice().reverse();
  if (!flags.length) {
    $("flags").replaceChildren(el("li", { class: "none" }, "none"));
    return;
  }
  $("flags").replaceChildren(
    ...flags.map((flag) =>
      el(
        "li",
        { class: "flag " + (flag.state === "open" ? "open" : "ended"), "data-flag": flag.id, "data-rule": flag.rule },
        el("strong", {}, `seat ${flag.seat}: ${flag.rule_text}`),
        " ",
        flag.cards.map(cardChip),
        el("span", { class: "state" }, flag.state),
        el("p", {}, flag.message),
        live && page.host && flag.state === "open"
          ? control("dispute", `dispute this flag`, { seat: flag.seat }, "overrides the referee")
          : null,
      ),
    ),
  );
}

function renderPrompt(state, live) {
  const prompt = state.prompt;
  const panel = $("prompt-panel");
  panel.hidden = !prompt && !state.asking;
  if (panel.hidden) return;
  $("prompt-text").replaceChildren(
    prompt ? el("span", {}, `seat ${prompt.seat}: ${prompt.question}`) : el("span", {}, state.asking),
  );
  const controls = [];
  if (live && page.host && prompt) {
    controls.push(control("confirm", prompt.card ? `yes, it is ${prompt.card}` : "yes", {}));
    controls.push(control("reject", "no", {}));
    const others = prompt.choices.filter((c) => c !== prompt.card).slice(0, 12);
    if (others.length) controls.push(el("p", { class: "quiet" }, "or name it:"));
    for (const card of others) controls.push(control("correct", card, { card }));
    const field = el("input", { id: "correct-card", placeholder: "card, e.g. 7H", size: 10, maxlength: 3, autocomplete: "off" });
    controls.push(el("span", { class: "named" }, field, el("button", { type: "button", onclick: () => send("correct", { card: field.value.trim() }) }, "name it")));
  }
  $("prompt-controls").replaceChildren(...controls);
}

function renderResult(state) {
  const result = state.result;
  $("result-panel").hidden = !result;
  if (!result || !Array.isArray(result.seats)) return;
  const keys = ["points", "margin", "chips", "coins"].filter((k) => result.seats.some((s) => s[k] !== undefined));
  $("result").replaceChildren(
    el("tr", {}, el("th", {}, "seat"), keys.map((k) => el("th", {}, k))),
    ...result.seats.map((s) => el("tr", {}, el("td", {}, state.seats[s.seat] ? state.seats[s.seat].name : `seat ${s.seat}`), keys.map((k) => el("td", {}, s[k] === undefined ? "" : String(s[k]))))),
  );
}

// -- the host ------------------------------------------------------------------------------------

function control(command, label, args, title) {
  return el("button", { type: "button", class: "control", "data-command": command, title, onclick: () => send(command, args) }, label);
}

function renderHost(state, live) {
  const panel = $("host-panel");
  panel.hidden = !(live && page.host && state.live);
  if (panel.hidden) return;
  const rows = [el("p", {}, control("undo", "undo the last move", {}), control("confirm", "confirm (host)", {}), control("dispute", "dispute the open flag", {}))];
  for (const seat of state.seats) {
    rows.push(
      el("p", { class: "seat-controls" }, el("span", { class: "label" }, seat.name), control("confirm", "press", { seat: seat.seat }, "the seat's button"), control("reject", "say no", { seat: seat.seat }), control("undo", "undo", { seat: seat.seat }), control("dispute", "dispute", { seat: seat.seat })),
    );
  }
  $("host-controls").replaceChildren(...rows);
}

async function send(command, args) {
  const body = { command, ...args };
  const answer = $("host-answer");
  try {
    const response = await fetch("/api/input", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + page.token },
      body: JSON.stringify(body),
    });
    const reply = await response.json();
    answer.textContent = response.ok ? `sent: ${command}${args.seat !== undefined ? " seat " + args.seat : ""}${args.card ? " " + args.card : ""}` : `refused: ${reply.error}`;
  } catch (err) {
    answer.textContent = "not sent: " + err;
  }
}

async function checkHost() {
  const params = new URLSearchParams(location.search);
  if (params.has("token")) {
    sessionStorage.setItem(TOKEN_KEY, params.get("token"));
    history.replaceState(null, "", location.pathname); // the token leaves the address bar
  }
  page.token = sessionStorage.getItem(TOKEN_KEY);
  if (!page.token) return;
  const response = await fetch("/api/host", { headers: { Authorization: "Bearer " + page.token } });
  page.host = response.ok;
  $("role").textContent = page.host ? "host" : "watching (the host link was refused)";
  $("role").classList.toggle("host", page.host);
  if (!page.host) sessionStorage.removeItem(TOKEN_KEY);
  draw();
}

// -- the journal's games and the replay viewer ---------------------------------------------------

async function loadGames() {
  const response = await fetch("/api/games");
  const games = response.ok ? (await response.json()).games : [];
  if (!games.length) {
    $("games").replaceChildren(el("li", { class: "none" }, "no journalled games"));
    return;
  }
  $("games").replaceChildren(
    ...games.slice(0, 50).map((g) =>
      el(
        "li",
        { "data-game": g.id },
        el("button", { type: "button", class: "replay", onclick: () => openReplay(g.id) }, "replay"),
        ` game ${g.id}: ${GAME_NAMES[g.game] || g.game} (${g.rules}), ${g.players} players, ${g.status}`,
        g.scores ? el("span", { class: "quiet" }, " · " + g.scores) : null,
      ),
    ),
  );
}

async function openReplay(gameId) {
  const response = await fetch(`/api/games/${gameId}/replay`);
  const data = await response.json();
  if (!response.ok) {
    $("replay-title").textContent = data.error;
    $("replay-bar").hidden = false;
    return;
  }
  page.replay = data;
  const slider = $("replay-step");
  slider.max = String(data.steps.length - 1);
  $("replay-title").textContent = `Replay of game ${data.game.id}${data.agrees ? "" : " (differs from the journalled result)"}`;
  $("replay-bar").hidden = false;
  document.body.classList.add("replaying");
  showStep(0);
}

function showStep(index) {
  const data = page.replay;
  if (!data) return;
  const i = Math.max(0, Math.min(data.steps.length - 1, index));
  const step = data.steps[i];
  $("replay-step").value = String(i);
  $("replay-where").textContent = `step ${i} of ${data.steps.length - 1}`;
  $("replay-input").replaceChildren(el("span", {}, step.input), ...step.events.map((e) => el("span", { class: "event " + e.kind }, e.text)));
  render(step.state, step.moves, false);
}

function closeReplay() {
  page.replay = null;
  $("replay-bar").hidden = true;
  document.body.classList.remove("replaying");
  draw();
}

function wire() {
  const step = () => Number($("replay-step").value);
  $("replay-first").onclick = () => showStep(0);
  $("replay-prev").onclick = () => showStep(step() - 1);
  $("replay-next").onclick = () => showStep(step() + 1);
  $("replay-last").onclick = () => showStep(Infinity);
  $("replay-step").oninput = () => showStep(step());
  $("replay-close").onclick = closeReplay;
}

wire();
checkHost().catch(() => {});
connect();

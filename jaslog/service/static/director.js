/* jaslog: a tournament director's page, `director.html#id=ID[&round=N]`. Plain JavaScript.
 *
 * Buttons over the service's routes, for an admin's token or the tournament's director's
 * (a referee token the tournament issued): draw the next round (POST .../rounds), withdraw
 * a player (POST .../withdrawals), set and run the move clock (POST .../clock-settings,
 * POST .../clock), and hand out table cards (POST .../table-cards): a new scorer token a
 * table, its pad's link and that link as a QR code (SVG drawn by the service), printed with
 * the round's pairings (print media); for an online tournament a card carries a QR code a
 * seat instead (each seat's link to its play page, a new seat token in its fragment). It reads the tournament again every 10 seconds
 * (`&every=S`). The address keeps the tournament and the round shown;
 * a token is never put in it (the scorer links carry theirs in the fragment, which a
 * browser does not send).
 */
(function () {
  "use strict";

  const P = window.jaslogPages;
  const { el, link } = P;
  const $ = (id) => document.getElementById(id);
  const STATUS = { playing: "playing", round_over: "round over: the next round is to be drawn", finished: "finished" };

  let current = null;   // the tournament as last read
  let cards = null;     // the table cards handed out on this page (round, cards)

  function utc(text) {
    return (text || "").replace("T", " ").replace(/\.\d+Z$|Z$/, "") + " UTC";
  }

  function team(players) { return players.join(" & "); }

  function params() { return P.hashParams(); }

  function setParams(changes) {
    const h = params();
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === undefined) h.delete(k); else h.set(k, String(v));
    }
    history.replaceState(null, "", "#" + h.toString());
  }

  function notice(msg) {
    const n = $("notice");
    n.textContent = msg || "";
    n.hidden = !msg;
  }

  async function post(path, body) {
    const t = localStorage.getItem(P.TOKEN_KEY);
    const headers = { "Content-Type": "application/json" };
    if (t) headers.Authorization = "Bearer " + t;
    const r = await fetch(path, { method: "POST", headers: headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let out = null;
    try { out = await r.json(); } catch (_) { out = null; }
    if (!r.ok) {
      const err = new Error(((out && out.message) || ("HTTP " + r.status)) + (out && out.code ? " (" + out.code + ")" : ""));
      err.status = r.status;
      throw err;
    }
    return out;
  }

  function base() { return "/api/tournaments/" + encodeURIComponent(params().get("id")); }

  async function act(button, work) {
    button.disabled = true;
    try {
      P.showError(null);
      await work();
    } catch (e) {
      notice(null);
      P.showError(e.message);
    } finally {
      button.disabled = false;
      if (current) renderButtons(current);
    }
  }

  // read the tournament again every few seconds (`&every=S`, default 10), so the draw
  // button wakes when the round's last game ends
  let timer = null;
  function schedule() {
    clearTimeout(timer);
    const s = Number(params().get("every"));
    timer = setTimeout(async () => {
      try { if (params().get("id")) render(await P.api(base())); } catch (_) { /* said at the next load */ }
      schedule();
    }, s > 0 ? s * 1000 : 10000);
  }

  async function load() {
    schedule();
    const id = params().get("id");
    if (!id) { P.showError("no tournament: open director.html#id=TOURNAMENT"); return; }
    $("public-link").href = P.tournamentHref(id);
    try {
      const w = await P.whoami();
      if (w.role !== "admin" && !(w.role === "referee" && w.tournament === id)) {
        P.showError("this " + w.role + " token does not direct tournament " + id +
          ": sign in with an admin's token or the tournament's director's");
      }
      render(await P.api(base()));
    } catch (e) {
      P.showError(id + ": " + e.message);
      if (e.status === 401) $("login").hidden = false;
    }
  }

  function render(t) {
    current = t;
    $("main").hidden = false;
    document.title = "jaslog · director · " + t.name;
    $("title").textContent = t.name + " (" + t.id + ") · director";
    $("facts").textContent = [t.ruleset, t.players.length + " players",
      t.rounds_planned ? t.rounds_planned + " rounds" : null,
      t.move_limit_s + " s per move" + (t.on_timeout === "autoplay" ? ", then the service plays" : ""),
      "created " + utc(t.created_at)].filter(Boolean).join(" · ");
    // the seed says every draw to come: on screen for the director, never on paper
    $("seed").textContent = t.seed !== null && t.seed !== undefined ? "seed " + t.seed + " (keep it to yourself)" : "";
    let status = "Status: " + (STATUS[t.status] || t.status);
    if (t.champions) status += " · winners " + team(t.champions) + " · second " + team(t.runner_up);
    $("status").textContent = status;
    const rounds = t.rounds.map((r) => r.round);
    let shown = Number(params().get("round"));
    if (!rounds.includes(shown)) shown = rounds.length ? rounds[rounds.length - 1] : null;
    const sel = $("cards-round");
    sel.innerHTML = "";
    for (const r of rounds) {
      const o = el("option", null, "round " + r);
      o.value = String(r);
      sel.appendChild(o);
    }
    if (shown !== null) sel.value = String(shown);
    renderPairings(t, shown);
    renderWithdraw(t);
    if (document.activeElement !== $("clock-limit")) $("clock-limit").value = t.move_limit_s;
    if (document.activeElement !== $("clock-after")) $("clock-after").value = t.on_timeout;
    renderButtons(t);
    if (cards && cards.round !== shown) clearCards();
  }

  function renderButtons(t) {
    const over = t.status === "finished";
    $("draw").disabled = t.status !== "round_over";
    $("draw-note").textContent = t.status === "playing" ? "when every game of the round is over" :
      over ? "the tournament is over" : "";
    $("withdraw").disabled = over || !$("withdraw-player").value;
    $("clock-set").disabled = over;
    $("cards").disabled = over || !t.rounds.length;
    $("cards").textContent = t.online ? "Hand out table cards (seat links)" : "Hand out table cards (scorer links)";
    $("print").disabled = !cards;
  }

  function renderPairings(t, shown) {
    const tb = $("pairings");
    tb.innerHTML = "";
    const rnd = t.rounds.find((r) => r.round === shown);
    $("pairings-title").textContent = rnd ? t.name + " · round " + rnd.round + " · pairings" : "Pairings";
    if (!rnd) { tb.appendChild(el("tr")).appendChild(el("td", "empty", "no round drawn yet")); return; }
    const head = el("tr");
    ["Table", "Team 1", "Team 2", "Score", "Game"].forEach((x) => head.appendChild(el("th", null, x)));
    tb.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    for (const g of rnd.tables) {
      const tr = el("tr", g.finished ? "done" : "");
      tr.dataset.table = String(g.table);
      tr.appendChild(el("td", null, g.table));
      g.teams.forEach((players, k) => {
        const won = g.finished && g.winner === k;
        tr.appendChild(el("td", "team" + (won ? " won" : ""), team(players) + (won ? " ✓" : "")));
      });
      tr.appendChild(el("td", "score", P.pair(g.totals)));
      const cell = el("td");
      cell.appendChild(link(P.gameHref(g.game), g.game, "game-link"));
      tr.appendChild(cell);
      body.appendChild(tr);
    }
    tb.appendChild(body);
  }

  function renderWithdraw(t) {
    const sel = $("withdraw-player");
    if (document.activeElement === sel) return;  // being chosen from: left as it is
    const was = sel.value;
    const gone = new Set((t.withdrawn || []).map((w) => w.player));
    sel.innerHTML = "";
    const none = el("option", null, "a player…");
    none.value = "";
    sel.appendChild(none);
    for (const p of t.players) {
      if (gone.has(p)) continue;
      const o = el("option", null, p);
      o.value = p;
      sel.appendChild(o);
    }
    if ([...sel.options].some((o) => o.value === was)) sel.value = was;
  }

  function clearCards() {
    cards = null;
    $("table-cards").innerHTML = "";
    $("cards-box").hidden = true;
  }

  function renderCards(out) {
    cards = out;
    const box = $("table-cards");
    box.innerHTML = "";
    for (const c of out.cards) {
      const card = el("article", "table-card");
      card.dataset.table = String(c.table);
      card.appendChild(el("h4", null, "Table " + c.table));
      card.appendChild(el("div", "game-id", out.name + " · round " + out.round + " · " + c.game));
      const teams = el("div", "teams");
      c.teams.forEach((players, k) => {
        const line = el("div");
        line.appendChild(el("span", null, "Team " + (k + 1) + ": "));
        line.appendChild(el("span", "team", team(players)));
        teams.appendChild(line);
      });
      card.appendChild(teams);
      if (c.seat_links) {  // an online tournament: each seat plays from its own link
        card.classList.add("online-card");
        for (const s of c.seat_links) {
          const seat = el("div", "seat-link");
          seat.dataset.seat = String(s.seat);
          seat.appendChild(el("div", "hint", "Seat " + (s.seat + 1) + ": " + s.player + " (scan to play)"));
          const qr = el("div", "qr-box");
          qr.innerHTML = s.qr_svg;  // the service's SVG (segno), of the link below
          seat.appendChild(qr);
          seat.appendChild(link(s.link, s.link, "scorer-link"));
          card.appendChild(seat);
        }
        box.appendChild(card);
        continue;
      }
      const qr = el("div", "qr-box");
      qr.innerHTML = c.qr_svg;  // the service's SVG (segno), of the link below
      card.appendChild(qr);
      card.appendChild(el("div", "hint", "Scan to record this table's game (scorer's pad):"));
      card.appendChild(link(c.link, c.link, "scorer-link"));
      box.appendChild(card);
    }
    $("cards-box").hidden = false;
  }

  function wire() {
    $("draw").addEventListener("click", () => act($("draw"), async () => {
      const t = await post(base() + "/rounds");
      const r = t.rounds[t.rounds.length - 1];
      setParams({ round: r.round });
      clearCards();
      render(t);
      notice("Round " + r.round + " drawn: " + r.tables.length + " table" + (r.tables.length === 1 ? "" : "s") + ".");
    }));
    $("withdraw-player").addEventListener("change", () => { if (current) renderButtons(current); });
    $("withdraw-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const player = $("withdraw-player").value;
      if (!player) return;
      if (!window.confirm("Withdraw " + player + " from " + current.name + "? A player who leaves cannot re-enter.")) return;
      act($("withdraw"), async () => {
        const w = await post(base() + "/withdrawals", { player: player, reason: $("withdraw-reason").value });
        $("withdraw-reason").value = "";
        render(await P.api(base()));
        notice(player + " withdrew in round " + w.round + (w.game ? "; " + w.game + " is won by the other team" : "") + ".");
      });
    });
    $("clock-form").addEventListener("submit", (e) => {
      e.preventDefault();
      act($("clock-set"), async () => {
        const s = await post(base() + "/clock-settings", {
          move_limit_s: Number($("clock-limit").value), on_timeout: $("clock-after").value });
        render(await P.api(base()));
        notice("Move clock: " + s.move_limit_s + " s per move, then " +
          (s.on_timeout === "autoplay" ? "the service plays." : "the timeout is recorded."));
      });
    });
    $("clock-run").addEventListener("click", () => act($("clock-run"), async () => {
      const out = await post(base() + "/clock");
      render(await P.api(base()));
      notice("Move clock run: " + out.appended.length + " event" + (out.appended.length === 1 ? "" : "s") + " appended.");
    }));
    $("cards-round").addEventListener("change", () => {
      setParams({ round: $("cards-round").value });
      if (current) render(current);
    });
    $("cards").addEventListener("click", () => act($("cards"), async () => {
      const out = await post(base() + "/table-cards", { round: Number($("cards-round").value) });
      renderCards(out);
      notice(out.cards.length + " table card" + (out.cards.length === 1 ? "" : "s") + " for round " + out.round +
        (out.online ? ": new seat tokens, a link a seat," : ": new scorer tokens,") + " shown only on this page.");
    }));
    $("print").addEventListener("click", () => window.print());
    window.addEventListener("hashchange", load);
  }

  function start() {
    wire();
    P.wireLogin(load);
    if (P.token()) load(); else $("login").hidden = false;
  }

  start();
})();

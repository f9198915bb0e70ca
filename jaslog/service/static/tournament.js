/* jaslog: a tournament's page, `tournament.html#id=ID` (without an id: every tournament).
 * Plain JavaScript.
 *
 * Standings, rounds, tables with their games and scores, links to each game, withdrawals
 * and move clocks, as GET /api/tournaments/{id} gives them for the token's role. It follows
 * the tournament with nothing to tick: it reads it again every few seconds (`&every=S`,
 * default 5). Its "watch live" links open a game in the viewer, which follows it.
 */
(function () {
  "use strict";

  const P = window.jaslogPages;
  const { el, link, pair } = P;
  const $ = (id) => document.getElementById(id);
  const STATUS = { playing: "playing", round_over: "round over: the next round is to be drawn", finished: "finished" };

  let timer = null;

  function every() {
    const s = Number(P.hashParams().get("every"));
    return s > 0 ? s * 1000 : 5000;
  }

  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (P.hashParams().get("id")) timer = setTimeout(load, every());
  }

  let signedIn = false;
  let me = null;

  // an admin's or the tournament's director's token: a link to the director's page
  function directorLink(id) {
    const a = $("director-link");
    if (!a) return;
    const directs = me && id && (me.role === "admin" || (me.role === "referee" && me.tournament === id));
    a.hidden = !directs;
    if (directs) a.href = "/static/director.html#" + new URLSearchParams({ id: id }).toString();
  }

  async function load() {
    const id = P.hashParams().get("id");
    try {
      if (!signedIn) { me = await P.whoami(); signedIn = true; }
      directorLink(id);
      if (id) {
        const t = await P.api("/api/tournaments/" + encodeURIComponent(id));
        P.showError(null);
        renderTournament(t);
      } else {
        const ts = await P.api("/api/tournaments");
        P.showError(null);
        renderList(ts);
      }
      $("updated").textContent = "updated " + new Date().toISOString().slice(11, 19) + " UTC";
    } catch (e) {
      P.showError((id ? id + ": " : "") + e.message);
      if (e.status === 401) { $("login").hidden = false; return; }
    }
    schedule();
  }

  // ---------------------------------------------------------------- every tournament

  function renderList(ts) {
    $("main").hidden = true;
    $("list-main").hidden = false;
    document.title = "jaslog · tournaments";
    const t = $("tournaments");
    t.innerHTML = "";
    const head = el("tr");
    ["Tournament", "Status", "Players", "Rounds", "Created", "Winners"].forEach((x) => head.appendChild(el("th", null, x)));
    t.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    if (!ts.length) body.appendChild(el("tr")).appendChild(el("td", "empty", "no tournaments yet"));
    for (const x of ts) {
      const tr = el("tr");
      tr.dataset.id = x.id;
      tr.appendChild(el("td")).appendChild(link(P.tournamentHref(x.id), x.name + " (" + x.id + ")"));
      tr.appendChild(el("td", null, STATUS[x.status] || x.status));
      tr.appendChild(el("td", null, x.players.length));
      tr.appendChild(el("td", null, x.rounds));
      tr.appendChild(el("td", null, (x.created_at || "").replace("T", " ").replace("Z", " UTC")));
      tr.appendChild(el("td", null, x.champions ? x.champions.join(" & ") : ""));
      body.appendChild(tr);
    }
    t.appendChild(body);
  }

  // ---------------------------------------------------------------- one tournament

  function renderTournament(t) {
    $("list-main").hidden = true;
    $("main").hidden = false;
    document.title = "jaslog · " + t.name;
    $("title").textContent = t.name + " (" + t.id + ")";
    $("facts").textContent = [t.ruleset, t.players.length + " players",
      t.rounds_planned ? t.rounds_planned + " rounds" : null,
      t.move_limit_s + " s per move" + (t.on_timeout === "autoplay" ? ", then the service plays" : ""),
      "created " + (t.created_at || "").replace("T", " ").replace("Z", " UTC")].filter(Boolean).join(" · ");
    let status = "Status: " + (STATUS[t.status] || t.status);
    if (t.champions) status += " · winners " + t.champions.join(" & ");
    if (t.runner_up) status += " · second " + t.runner_up.join(" & ");
    $("status").textContent = status;
    renderStandings(t);
    renderRounds(t);
    renderWithdrawals(t);
    renderClocks(t);
  }

  // every player: how far they came, their games won, where they play now or went out
  function standings(t) {
    const gone = {};
    for (const w of t.withdrawn || []) gone[w.player] = w;
    const rows = t.players.map((p) => ({ player: p, reached: 0, won: 0, points: 0, table: null, game: null, state: "" }));
    const by = {};
    rows.forEach((r) => { by[r.player] = r; });
    for (const rnd of t.rounds) {
      for (const g of rnd.tables) {
        g.seats.forEach((p, i) => {
          const r = by[p];
          if (!r) return;
          const side = i % 2;
          r.reached = rnd.round;
          r.table = g.table;
          r.game = g.game;
          r.points = g.totals ? g.totals[side] : 0;
          if (g.winners.includes(p)) r.won += 1;
          r.state = !g.finished ? "playing round " + rnd.round + " at table " + g.table :
            g.winners.includes(p) ? "won round " + rnd.round : "out in round " + rnd.round;
          r.out = g.finished && !g.winners.includes(p);
        });
      }
    }
    for (const r of rows) {
      if (t.champions && t.champions.includes(r.player)) { r.state = "winner"; r.rank = 0; }
      else if (t.runner_up && t.runner_up.includes(r.player)) { r.state = "second"; r.rank = 1; }
      else r.rank = 2;
      if (gone[r.player]) {
        r.withdrawn = gone[r.player];
        r.state = "withdrew in round " + gone[r.player].round + (gone[r.player].reason ? " (" + gone[r.player].reason + ")" : "");
      }
    }
    rows.sort((a, b) => a.rank - b.rank || (a.withdrawn ? 1 : 0) - (b.withdrawn ? 1 : 0) ||
      b.reached - a.reached || (a.out ? 1 : 0) - (b.out ? 1 : 0) || b.won - a.won ||
      b.points - a.points || a.player.localeCompare(b.player));
    return rows;
  }

  function renderStandings(t) {
    const tb = $("standings");
    tb.innerHTML = "";
    const head = el("tr");
    ["#", "Player", "Round reached", "Games won", "Team's points (last game)", "Where"].forEach((x) => head.appendChild(el("th", null, x)));
    tb.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    standings(t).forEach((r, i) => {
      const tr = el("tr", r.withdrawn ? "withdrawn" : r.out ? "out" : "");
      tr.dataset.player = r.player;
      tr.appendChild(el("td", null, i + 1));
      tr.appendChild(el("td", null, r.player));
      tr.appendChild(el("td", null, r.reached || "–"));
      tr.appendChild(el("td", null, r.won));
      tr.appendChild(el("td", null, r.points));
      const where = el("td", null, r.state + " ");
      if (r.game) where.appendChild(link(P.gameHref(r.game), "game"));
      tr.appendChild(where);
      body.appendChild(tr);
    });
    tb.appendChild(body);
  }

  function renderRounds(t) {
    const box = $("rounds");
    box.innerHTML = "";
    if (!t.rounds.length) { box.appendChild(el("p", "empty", "no round drawn yet")); return; }
    for (const rnd of t.rounds) {
      const div = el("div", "round-block");
      div.dataset.round = String(rnd.round);
      div.appendChild(el("h4", null, "Round " + rnd.round + (rnd.over ? " · over" : " · in play")));
      const tb = el("table", "tables");
      const head = el("tr");
      ["Table", "Team 1", "Team 2", "Score", "Deals", "State", "Game"].forEach((x) => head.appendChild(el("th", null, x)));
      tb.appendChild(el("thead")).appendChild(head);
      const body = el("tbody");
      for (const g of rnd.tables) {
        const tr = el("tr", g.finished ? "done" : "live");
        tr.dataset.game = g.game;
        tr.appendChild(el("td", null, g.table));
        g.teams.forEach((team, k) => {
          const won = g.finished && g.winner === k;
          tr.appendChild(el("td", "team" + (won ? " won" : g.finished && typeof g.winner === "number" ? " out" : ""),
            team.join(" & ") + (won ? " ✓" : "")));
        });
        tr.appendChild(el("td", "score", pair(g.totals)));
        tr.appendChild(el("td", null, g.rounds));
        tr.appendChild(el("td", "state", !g.finished ? "playing" :
          g.forfeit ? "won by forfeit (" + g.forfeit + " withdrew)" :
          g.winner === "draw" ? "a draw" : "finished"));
        const links = el("td");
        links.appendChild(link(P.gameHref(g.game), g.finished ? "replay" : "watch live", "game-link"));
        if (g.rounds) {
          links.appendChild(el("span", null, " · "));
          links.appendChild(link(P.roundHref(g.game, g.rounds), "round " + g.rounds + " page", "round-link"));
        }
        tr.appendChild(links);
        body.appendChild(tr);
      }
      tb.appendChild(body);
      div.appendChild(tb);
      box.appendChild(div);
    }
  }

  function renderWithdrawals(t) {
    const ol = $("withdrawals");
    ol.innerHTML = "";
    const ws = t.withdrawn || [];
    if (!ws.length) { ol.appendChild(el("li", "empty", "none")); return; }
    for (const w of ws) {
      const li = el("li", null, w.player + " withdrew in round " + w.round + " at " +
        w.withdrawn_at.replace("T", " ").replace("Z", " UTC") + (w.reason ? ": " + w.reason : "") + " ");
      if (w.game) li.appendChild(link(P.gameHref(w.game), w.game));
      ol.appendChild(li);
    }
  }

  function renderClocks(t) {
    const box = $("clocks");
    box.innerHTML = "";
    const tl = t.time_limit || { exceeded: [], timeouts: [] };
    box.appendChild(el("div", null, "Limit " + tl.limit + " s per move: " + tl.exceeded.length +
      " moves over, " + tl.timeouts.length + " timeouts recorded"));
    const ul = el("ul");
    for (const x of tl.timeouts) {
      const li = el("li", null, "timeout: " + (x.player || "?") + " at table " + x.table + " (round " +
        x.tournament_round + "), " + x.seconds + " s" + (x.autoplayed ? ", the service played for them" : "") + " ");
      li.appendChild(link(P.gameHref(x.game, x.seq), "seq " + x.seq));
      ul.appendChild(li);
    }
    for (const x of tl.exceeded) {
      const li = el("li", null, (x.player || "?") + " took " + x.seconds + " s at table " + x.table +
        " (round " + x.tournament_round + ") ");
      li.appendChild(link(P.gameHref(x.game, x.seq), "seq " + x.seq));
      ul.appendChild(li);
    }
    box.appendChild(ul);
  }

  function start() {
    P.wireLogin(load);
    window.addEventListener("hashchange", load);
    if (P.token()) load(); else $("login").hidden = false;
  }

  start();
})();

/* The home page: the games in play (followed live through GET /api/stream), today's and
 * recent results with their scores, the tournaments (those running first) and a search box
 * (a game id opens the game, a tournament id its page, anything else the games of that
 * player). The search is kept in the address (#q=...). An old viewer link (/#game=ID&seq=N)
 * is taken to the viewer (/viewer#game=ID&seq=N). */
(function () {
  "use strict";
  const P = window.jaslogPages;
  const $ = (id) => document.getElementById(id);
  const el = P.el;
  const MOST = 12;

  // a link of the viewer from before it had its own address (/#game=ID&seq=N)
  function toViewer() {
    const old = P.hashParams();
    if (!old.get("game")) return false;
    location.replace("/viewer#" + old.toString());
    return true;
  }
  if (toViewer()) return;
  window.addEventListener("hashchange", toViewer);

  function when(t) { return (t || "").replace("T", " ").replace(/(:\d\d)(\.\d+)?Z$/, "$1 UTC"); }

  function today(t) { return (t || "").slice(0, 10) === new Date().toISOString().slice(0, 10); }

  function scoreText(g, d) {
    if (!d || !d.totals) return "";
    return d.totals.join("–");
  }

  function winnerText(g) {
    if (g.winner === null || g.winner === undefined) return "";
    if (g.winner === "draw") return "draw";
    if (g.scoring === "teams") return g.seats.filter((_, i) => i % 2 === g.winner).join(" & ");
    return g.seats[g.winner] || String(g.winner);
  }

  function gameCell(g) {
    const td = el("td", "game");
    td.appendChild(P.link(P.gameHref(g.game, g.open_seq), g.game, "game-link"));
    td.appendChild(el("span", "sub", [g.ruleset, g.tournament ? "tournament " + g.tournament : null,
      g.table ? "table " + g.table : null].filter(Boolean).join(" · ")));
    return td;
  }

  function head(table, cols) {
    table.innerHTML = "";
    const tr = el("tr");
    for (const [text, cls] of cols) {
      const th = el("th", cls || null, text);
      th.scope = "col";
      tr.appendChild(th);
    }
    const thead = el("thead");
    thead.appendChild(tr);
    table.appendChild(thead);
    const body = el("tbody");
    table.appendChild(body);
    return body;
  }

  async function details(games) {
    return Promise.all(games.map((g) => P.api("/api/games/" + encodeURIComponent(g.game)).catch(() => null)));
  }

  async function loadLive() {
    const games = await P.api("/api/games?status=live&sort=started&order=newest&summary=true&limit=" + MOST);
    const ds = await details(games);
    const body = head($("live"), [["Game"], ["Players", "wide"], ["Round"], ["Score"], ["Started", "wide"]]);
    games.forEach((g, i) => {
      const tr = el("tr", "live");
      tr.dataset.game = g.game;
      tr.appendChild(gameCell(g));
      const players = el("td", "wide");
      players.appendChild(P.playerLinks(g.seats));
      tr.appendChild(players);
      tr.appendChild(el("td", "round", g.live_round ? "round " + g.live_round : ""));
      tr.appendChild(el("td", "score", scoreText(g, ds[i])));
      tr.appendChild(el("td", "wide", when(g.created_at)));
      body.appendChild(tr);
    });
    $("live-empty").hidden = games.length > 0;
  }

  async function loadResults() {
    const games = await P.api("/api/games?status=finished&sort=started&order=newest&summary=true&limit=" + MOST);
    const ds = await details(games);
    const body = head($("results"), [["Game"], ["Players", "wide"], ["Score"], ["Winner"], ["Started", "wide"]]);
    games.forEach((g, i) => {
      const tr = el("tr", today(g.created_at) ? "today" : "");
      tr.dataset.game = g.game;
      tr.appendChild(gameCell(g));
      const players = el("td", "wide");
      players.appendChild(P.playerLinks(g.seats));
      tr.appendChild(players);
      tr.appendChild(el("td", "score", scoreText(g, ds[i])));
      tr.appendChild(el("td", "winner", winnerText(g)));
      tr.appendChild(el("td", "wide", (today(g.created_at) ? "today " : "") + when(g.created_at)));
      body.appendChild(tr);
    });
    $("results-empty").hidden = games.length > 0;
  }

  async function loadTournaments() {
    const ts = await P.api("/api/tournaments");
    const running = ts.filter((t) => t.status !== "finished");
    const shown = running.concat(ts.filter((t) => t.status === "finished").reverse()).slice(0, MOST);
    const body = head($("tournaments"), [["Tournament"], ["Status"], ["Rounds", "wide"], ["Players", "wide"]]);
    for (const t of shown) {
      const tr = el("tr", t.status === "finished" ? "" : "running");
      tr.dataset.id = t.id;
      const td = el("td");
      td.appendChild(P.link(P.tournamentHref(t.id), (t.name || t.id) + (t.name && t.name !== t.id ? " (" + t.id + ")" : "")));
      tr.appendChild(td);
      const champs = (t.champions || []).join(" & ");
      tr.appendChild(el("td", "status", t.status + (champs ? ": " + champs : "")));
      tr.appendChild(el("td", "wide", t.rounds));
      tr.appendChild(el("td", "wide", Array.isArray(t.players) ? t.players.length : t.players));
      body.appendChild(tr);
    }
    $("tournaments-empty").hidden = shown.length > 0;
  }

  let busy = null;
  let again = false;
  async function load() {
    if (busy) { again = true; return busy; }
    busy = (async () => {
      try {
        await Promise.all([loadLive(), loadResults(), loadTournaments()]);
        P.showError(null);
      } catch (e) {
        P.showError(e.message);
      } finally {
        busy = null;
        if (again) { again = false; setTimeout(load, 1000); }
      }
    })();
    return busy;
  }

  // a game id opens the game, a tournament id its page, else the games of that player
  async function search(q) {
    P.writeState({ q: q });
    $("search-note").hidden = true;
    if (!q) return;
    const id = encodeURIComponent(q);
    const found = async (path) => P.api(path).then(() => true, () => false);
    if (await found("/api/games/" + id)) { location.href = P.gameHref(q); return; }
    if (await found("/api/tournaments/" + id)) { location.href = P.tournamentHref(q); return; }
    const games = await P.api("/api/games?limit=1&player=" + id).catch(() => []);
    if (games.length) { location.href = "/static/games.html#" + new URLSearchParams({ player: q }).toString(); return; }
    $("search-note").textContent = "no game, tournament or player " + JSON.stringify(q) + " (a game id or a player's id or name)";
    $("search-note").hidden = false;
  }

  function start() {
    $("search").addEventListener("submit", (e) => { e.preventDefault(); search($("q").value.trim()); });
    const q = P.hashParams().get("q");
    if (q) $("q").value = q;
    if (!localStorage.getItem(P.TOKEN_KEY)) {
      P.showError("sign in with your token (above) to see the club's games");
      return;
    }
    load().then(() => {
      $("live-mark").hidden = false;
      P.follow("/api/stream", load);  // every new event of any game: the lists again
    });
    if (q) search(q);
  }

  start();
})();

/* The games page: GET /api/games with the filters of the form, a page at a time (the
 * X-Next-Cursor header leads to the next page), sorted by a click on a column (Started
 * asks the service for the games by their start, oldest or newest first; the other columns sort the page shown).
 * A game opens in the viewer (/viewer#game=ID&seq=N) at the event GET /api/games?summary=true
 * names: a live game's newest event, a finished game's first violation. */
(function () {
  "use strict";
  const TOKEN_KEY = "jaslog.token";
  const P = window.jaslogPages;  // a player's name links to the player's page
  const $ = (id) => document.getElementById(id);
  const st = { token: null, order: "oldest", cursors: [null], page: 0, next: null,
               rows: [], sort: null, desc: false, asked: 0 };

  // a live game this token sees whole (its table's scorer, a referee) opens on the scorer's pad
  function recordButton(game) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "record";
    b.textContent = "record";
    b.title = "record this game on the scorer's pad";
    b.onclick = () => { location.href = "/record/" + encodeURIComponent(game); };
    return b;
  }

  function showError(msg) {
    $("error").hidden = !msg;
    $("error").textContent = msg || "";
  }

  function filters() {
    const p = new URLSearchParams();
    for (const [k, v] of new FormData($("filters"))) if (String(v).trim()) p.set(k, String(v).trim());
    p.set("order", st.order);
    p.set("sort", "started");  // by each game's start, over every page (not as stored)
    p.set("summary", "true");
    return p;
  }

  async function load() {
    const p = filters();
    const cur = st.cursors[st.page];
    if (cur) p.set("cursor", cur);
    showError(null);
    const ask = ++st.asked;  // an answer to an older search that comes late is dropped
    let r;
    try {
      r = await fetch("/api/games?" + p.toString(), { headers: { Authorization: "Bearer " + st.token } });
    } catch (e) { showError(e.message); return; }
    let body = null;
    try { body = await r.json(); } catch (_) { body = null; }
    if (ask !== st.asked) return;
    if (!r.ok) { showError((body && body.message) || ("HTTP " + r.status)); return; }
    st.rows = body;
    st.next = r.headers.get("X-Next-Cursor");
    render();
  }

  function status(g) { return g.finished === null ? "?" : g.finished ? "finished" : "live"; }

  function winnerText(g) {
    if (g.winner === null || g.winner === undefined) return "";
    if (g.winner === "draw") return "draw";
    if (g.scoring === "teams") return g.seats.filter((_, i) => i % 2 === g.winner).join(", ");
    return g.seats[g.winner] || String(g.winner);
  }

  function value(g, key) {
    if (key === "players") return g.seats.join(", ");
    if (key === "status") return status(g);
    if (key === "winner") return winnerText(g);
    return g[key];
  }

  function render() {
    let rows = st.rows.slice();
    if (st.sort) {
      rows.sort((a, b) => {
        const x = value(a, st.sort), y = value(b, st.sort);
        const c = typeof x === "number" && typeof y === "number" ? x - y : String(x ?? "").localeCompare(String(y ?? ""));
        return st.desc ? -c : c;
      });
    }
    for (const th of document.querySelectorAll("#games th")) {
      const k = th.dataset.key;
      const on = st.sort ? k === st.sort : k === "created_at";
      const desc = st.sort ? st.desc : st.order === "newest";
      if (on) th.setAttribute("aria-sort", desc ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    }
    const body = $("rows");
    body.innerHTML = "";
    for (const g of rows) {
      const tr = document.createElement("tr");
      tr.dataset.game = g.game;
      if (g.finished === false) tr.className = "live";
      const a = document.createElement("a");
      const h = new URLSearchParams({ game: g.game });
      if (g.open_seq !== null && g.open_seq !== undefined) h.set("seq", String(g.open_seq));
      a.href = "/viewer#" + h.toString();
      a.textContent = g.game;
      const cells = [a, g.ruleset, P.playerLinks(g.seats), (g.created_at || "").replace("T", " ").replace("Z", ""),
        status(g), winnerText(g), g.violations ?? "", g.table ?? "", g.events];
      cells.forEach((c, i) => {
        const td = document.createElement("td");
        if (c instanceof Node) td.appendChild(c); else td.textContent = String(c);
        if (i === 0) {  // what a phone folds under the game: its ruleset, players and start
          const fold = document.createElement("span");
          fold.className = "fold";
          fold.textContent = [g.ruleset, g.seats.join(", "), cells[3]].filter(Boolean).join(" · ");
          td.appendChild(fold);
        }
        if (i === 0 && g.view === "full" && g.finished !== true) td.appendChild(recordButton(g.game));
        if (i === 6 || i === 8) td.className = "num";
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }
    $("empty").hidden = rows.length > 0;
    $("prev").disabled = st.page === 0;
    $("next").disabled = !st.next;
    $("page-no").textContent = "page " + (st.page + 1);
  }

  // the filters and the order in the address, so that a search can be shared as a link
  function writeHash() {
    const p = new URLSearchParams();
    for (const [k, v] of new FormData($("filters"))) if (String(v).trim()) p.set(k, String(v).trim());
    if (st.order === "newest") p.set("order", "newest");
    if (st.sort) { p.set("col", st.sort); if (st.desc) p.set("desc", "1"); }  // the page's column sort
    const hash = p.toString();
    history.replaceState(null, "", location.pathname + (hash ? "#" + hash : ""));
  }

  function restart() {
    st.cursors = [null];
    st.page = 0;
    writeHash();
    load();
  }

  function wire() {
    $("filters").addEventListener("submit", (e) => { e.preventDefault(); st.sort = null; restart(); });
    $("next").addEventListener("click", () => {
      if (!st.next) return;
      st.cursors[st.page + 1] = st.next;
      st.page += 1;
      load();
    });
    $("prev").addEventListener("click", () => { if (st.page > 0) { st.page -= 1; load(); } });
    for (const th of document.querySelectorAll("#games th")) {
      th.addEventListener("click", () => {
        const k = th.dataset.key;
        if (k === "created_at") {  // the service's order: every page, not just this one
          st.sort = null;
          st.order = st.order === "oldest" ? "newest" : "oldest";
          restart();
          return;
        }
        st.desc = st.sort === k ? !st.desc : false;
        st.sort = k;
        writeHash();
        render();
      });
    }
  }

  function start() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (h.get("token")) {  // kept, then taken out of the address (the filters stay in it)
      localStorage.setItem(TOKEN_KEY, h.get("token"));
      h.delete("token");
      history.replaceState(null, "", location.pathname + (h.toString() ? "#" + h.toString() : ""));
    }
    for (const el of $("filters").elements) {
      if (el.name && h.get(el.name)) el.value = h.get(el.name);
    }
    if (h.get("order") === "newest") st.order = "newest";
    if (h.get("col") && document.querySelector('#games th[data-key="' + CSS.escape(h.get("col")) + '"]')) {
      st.sort = h.get("col");
      st.desc = h.get("desc") === "1";
    }
    st.token = localStorage.getItem(TOKEN_KEY);
    wire();
    if (!st.token) { showError("sign in with your token (above), or open this page with #token=..."); return; }
    load();
  }

  start();
})();

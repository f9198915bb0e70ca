/* jaslog player page (/players/ID): the games played with their results, the results and
 * roles per game family, the rating after each game (drawn as a line), the rules broken most
 * often. Everything comes from GET /api/players/ID, as this token may see it; no figure is
 * computed here. Plain JavaScript.
 */
(function () {
  "use strict";

  const P = window.jaslogPages;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";

  function playerId() {
    return decodeURIComponent(location.pathname.replace(/^\/players\//, "").replace(/\/$/, ""));
  }

  function fmt(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "number" && !Number.isInteger(v)) return v.toFixed(2);
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (Array.isArray(v)) return v.join(", ");
    return String(v);
  }

  // a table of rows (objects): the columns given, each cell a text or a node
  function fill(table, cols, rows, cell) {
    table.innerHTML = "";
    const head = document.createElement("tr");
    for (const c of cols) head.appendChild(P.el("th", null, c.replace(/_/g, " ")));
    table.appendChild(head);
    for (const r of rows) {
      const tr = document.createElement("tr");
      for (const c of cols) {
        const v = cell ? cell(r, c) : null;
        const td = document.createElement("td");
        if (v instanceof Node) td.appendChild(v); else td.textContent = fmt(v === null ? r[c] : v);
        if (typeof r[c] === "number") td.className = "num";
        tr.appendChild(td);
      }
      table.appendChild(tr);
    }
  }

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // the rating after each game, one line per game family
  function drawRatings(rows) {
    const box = $("rating-chart");
    box.innerHTML = "";
    if (!rows.length) return;
    const W = 820, H = 220, L = 40, R = 110, T = 10, B = 24;
    const values = rows.map((r) => r.rating);
    const lo = Math.floor(Math.min(...values) - 1), hi = Math.ceil(Math.max(...values) + 1);
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "rating after each game" });
    const kinds = [...new Set(rows.map((r) => r.kind))];
    const colours = ["#2e7d5b", "#8a4b9a", "#b5651d"];
    const most = Math.max(...rows.map((r) => r.games));
    const x = (n) => L + (W - L - R) * (most > 1 ? (n - 1) / (most - 1) : 0.5);
    const y = (v) => T + (H - T - B) * (hi - v) / (hi - lo || 1);
    svg.appendChild(svgEl("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999" }));
    svg.appendChild(svgEl("text", { x: 2, y: y(hi) + 10, "font-size": 11 }, String(hi)));
    svg.appendChild(svgEl("text", { x: 2, y: y(lo), "font-size": 11 }, String(lo)));
    svg.appendChild(svgEl("text", { x: L, y: H - 4, "font-size": 11 }, "games →"));
    kinds.forEach((k, i) => {
      const mine = rows.filter((r) => r.kind === k);
      const pts = mine.map((r) => `${x(r.games).toFixed(1)},${y(r.rating).toFixed(1)}`).join(" ");
      svg.appendChild(svgEl("polyline", { points: pts, fill: "none", stroke: colours[i % 3], "stroke-width": 2 }));
      const last = mine[mine.length - 1];
      svg.appendChild(svgEl("text", { x: x(last.games) + 6, y: y(last.rating) + 4, "font-size": 12, fill: colours[i % 3] },
        `${k} ${last.rating.toFixed(1)}`));
    });
    box.appendChild(svg);
  }

  function show(p) {
    const name = p.name ? `${p.name} (${p.player})` : p.player;
    $("title").textContent = name;
    document.title = "jaslog · " + name;
    $("view-note").textContent = p.view === "public"
      ? "As the public sees the games: finished games only, without the rounds that ended with cards unplayed."
      : "Every game of the export.";
    fill($("results"), ["kind", "games", "finished", "won", "drawn", "lost", "average_score"], p.results);
    fill($("roles"), ["kind", "rounds", "declarer", "made_declarer", "partner", "made_partner",
      "defending", "made_against", "plays", "tricks_won"], p.roles);
    const last = {};
    for (const r of p.ratings) last[r.kind] = r;
    fill($("ratings"), ["kind", "games", "rating", "uncertainty", "ordinal", "at"], Object.values(last));
    drawRatings(p.ratings);
    fill($("violations"), ["rule", "category", "times", "games"], p.violations);
    $("no-violations").hidden = p.violations.length > 0;
    fill($("games"), ["game", "kind", "ruleset", "started", "event", "seats", "score", "result"], p.games,
      (g, c) => {
        if (c === "game") return P.link(P.gameHref(g.game), g.game);
        if (c === "seats") {
          const span = document.createElement("span");
          g.seats.forEach((s, i) => {
            if (i) span.appendChild(document.createTextNode(", "));
            span.appendChild(s === p.player ? P.el("strong", null, s) : P.link(P.playerHref(s), s));
          });
          return span;
        }
        if (c === "started") return (g.started || "").replace("T", " ").replace(/(:\d\d)?(\.\d+)?Z$/, "");
        if (c === "result") return !g.finished ? "playing" : g.draw ? "draw" : g.won ? "won" : "lost";
        return null;
      });
    $("main").hidden = false;
  }

  async function start() {
    if (!P.token()) {
      $("login").hidden = false;
      return;
    }
    try {
      await P.whoami();
      show(await P.api("/api/players/" + encodeURIComponent(playerId())));
      P.showError("");
    } catch (e) {
      if (e.status === 401) $("login").hidden = false;
      P.showError(e.message);
    }
  }

  P.wireLogin(start);
  start();
})();

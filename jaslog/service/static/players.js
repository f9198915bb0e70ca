/* The players: a name or id opens the player's page (/players/{id}); the ratings of every
 * player per game family (GET /api/ratings, from the service's export), each linked. */
(function () {
  "use strict";
  const P = window.jaslogPages;
  const $ = (id) => document.getElementById(id);
  const el = P.el;

  async function load() {
    let body;
    try {
      body = await P.api("/api/ratings");
    } catch (e) {
      $("ratings-note").textContent = e.message;
      $("ratings-note").hidden = false;
      return;
    }
    const t = $("ratings");
    t.innerHTML = "<thead><tr><th>Family</th><th>#</th><th>Player</th><th class=\"wide\">Rating</th><th>Games</th></tr></thead>";
    const tb = el("tbody");
    for (const r of body.ratings) {
      const tr = el("tr");
      tr.dataset.player = r.player;
      tr.appendChild(el("td", null, r.kind));
      tr.appendChild(el("td", null, r.rank));
      const td = el("td");
      td.appendChild(P.link(P.playerHref(r.player), r.name || r.player, "player"));
      tr.appendChild(td);
      tr.appendChild(el("td", "wide", r.ordinal.toFixed(1)));
      tr.appendChild(el("td", null, r.games));
      tb.appendChild(tr);
    }
    t.appendChild(tb);
  }

  $("find").addEventListener("submit", (e) => {
    e.preventDefault();
    const p = $("player").value.trim();
    if (p) location.href = P.playerHref(p);
  });
  if (localStorage.getItem(P.TOKEN_KEY)) load();
})();

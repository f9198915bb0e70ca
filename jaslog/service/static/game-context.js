/* jaslog viewer: where the game shown belongs. Plain JavaScript, beside viewer.js.
 *
 * Under the viewer's header: the tournament, tournament round and table of a tournament's
 * game (from GET /api/games/{id}: its meta), with a link to the tournament's page, and a
 * link to the referee's round page of the round the viewer stands on. It follows the game
 * the viewer shows (the address at load, the game picker after).
 */
(function () {
  "use strict";

  const TOKEN_KEY = "jaslog.token";
  const box = document.getElementById("game-context");
  const picker = document.getElementById("game-picker");
  const rounds = document.getElementById("round-picker");
  if (!box || !picker) return;
  let shown = null;

  function currentGame() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ""));
    return picker.value || h.get("game");
  }

  function a(href, text, cls) {
    const x = document.createElement("a");
    x.href = href;
    x.className = cls;
    x.textContent = text;
    return x;
  }

  async function show(game) {
    if (!game || game === shown) return;
    shown = game;
    box.innerHTML = "";
    box.hidden = true;
    const t = localStorage.getItem(TOKEN_KEY);
    let g = null;
    try {
      const r = await fetch("/api/games/" + encodeURIComponent(game),
        { headers: t ? { Authorization: "Bearer " + t } : {} });
      if (!r.ok) { shown = null; return; }
      g = await r.json();
    } catch (_) {
      shown = null;
      return;
    }
    if (shown !== game) return;
    const meta = g.meta || {};
    if (meta.tournament) {
      const p = document.createElement("span");
      p.className = "tournament-of";
      p.textContent = "Tournament ";
      p.appendChild(a("/static/tournament.html#" + new URLSearchParams({ id: meta.tournament }).toString(),
        (meta.event ? meta.event + " (" + meta.tournament + ")" : meta.tournament), "tournament-link"));
      p.appendChild(document.createTextNode(
        (meta.round ? " · round " + meta.round : "") + (meta.table ? " · table " + meta.table : "")));
      box.appendChild(p);
      box.appendChild(document.createTextNode(" · "));
    }
    const rp = a("/static/round.html", "round page", "round-page-link");
    const aim = () => {
      rp.href = "/static/round.html#" + new URLSearchParams(
        { game: game, round: (rounds && rounds.value) || "1" }).toString();
    };
    aim();
    ["mouseenter", "focus", "mousedown", "touchstart"].forEach((e) => rp.addEventListener(e, aim));
    rp.title = "everything of the round shown, printable";
    box.appendChild(rp);
    box.hidden = false;
  }

  picker.addEventListener("change", () => show(currentGame()));
  window.addEventListener("hashchange", () => show(currentGame()));
  // the viewer picks the address's game once it has signed in
  const watch = new MutationObserver(() => show(currentGame()));
  const main = document.getElementById("main");
  if (main) watch.observe(main, { attributes: true, attributeFilter: ["hidden"] });
  show(currentGame());
})();

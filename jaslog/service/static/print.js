/* jaslog: a whole game to print, `print.html#game=ID`. Plain JavaScript.
 *
 * It shows the page GET /api/games/{id}/print sends for the token (the one `jaslog print`
 * writes: the score sheet, then every round on a page of its own) and prints it; it computes
 * nothing and decides no visibility: a seat's token gets what its round pages show.
 */
(function () {
  "use strict";

  const P = window.jaslogPages;
  const $ = (id) => document.getElementById(id);

  async function load() {
    P.showError(null);
    const game = P.hashParams().get("game") || new URLSearchParams(location.search).get("game");
    if (!game) { P.showError("no game: open print.html#game=ID"); return; }
    try {
      await P.whoami();
    } catch (e) {
      P.showError(e.status === 401 ? e.message + " — sign in with a token" : e.message);
      if (e.status === 401) $("login").hidden = false;
      return;
    }
    const t = P.token();
    const r = await fetch("/api/games/" + encodeURIComponent(game) + "/print",
      { headers: t ? { Authorization: "Bearer " + t } : {} });
    const text = await r.text();
    if (!r.ok) {
      let msg = "HTTP " + r.status;
      try { msg = JSON.parse(text).message || msg; } catch (_) { /* not JSON */ }
      P.showError(game + ": " + msg);
      return;
    }
    const doc = new DOMParser().parseFromString(text, "text/html");
    let style = $("print-style");
    if (!style) {
      style = document.createElement("style");
      style.id = "print-style";
      document.head.appendChild(style);
    }
    style.textContent = Array.from(doc.querySelectorAll("style")).map((s) => s.textContent).join("\n");
    const main = doc.querySelector("main");
    const box = $("print-page");
    box.innerHTML = "";
    if (main) box.appendChild(document.adoptNode(main));
    document.title = "jaslog · game " + game + " · the whole game";
    $("to-viewer").href = P.gameHref(game, null);
    $("tools").hidden = false;
  }

  function start() {
    $("print").addEventListener("click", () => window.print());
    P.wireLogin(load);
    window.addEventListener("hashchange", load);
    if (P.token()) load(); else $("login").hidden = false;
  }

  start();
})();

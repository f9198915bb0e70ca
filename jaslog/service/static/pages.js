/* jaslog pages: what the round page and the tournament page share. Plain JavaScript.
 *
 * The token is the viewer's: `#token=...` in the address, then kept in localStorage under
 * the same key. Every page shows what the service sends for the token's role; none of them
 * decides what a role may see.
 */
(function () {
  "use strict";

  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const TOKEN_KEY = "jaslog.token";

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function link(href, text, cls) {
    const a = el("a", cls, text);
    a.href = href;
    return a;
  }

  function cardEl(card, extra) {
    const rank = card.slice(0, -1);
    const suit = card.slice(-1);
    const c = el("span", "card" + (suit === "H" || suit === "D" ? " red" : "") + (extra ? " " + extra : ""));
    c.dataset.card = card;
    c.setAttribute("aria-label", rank + " of " + (SUIT_NAMES[suit] || suit));
    c.appendChild(el("span", "rank", rank));
    c.appendChild(el("span", "suit", SUITS[suit] || suit));
    return c;
  }

  function backEl() {
    const c = el("span", "card back");
    c.setAttribute("aria-label", "a hidden card");
    return c;
  }

  function suitSpan(letter, withName) {
    return el("span", letter === "H" || letter === "D" ? "suit-red" : "suit-black",
      (SUITS[letter] || letter) + (withName ? " " + (SUIT_NAMES[letter] || "") : ""));
  }

  function pair(xs) {
    return (xs || []).join("–");
  }

  // a card as the table shows it: rank and suit symbol ("10H": "10♥")
  function cardText(card) {
    const suit = String(card).slice(-1);
    return SUITS[suit] ? String(card).slice(0, -1) + SUITS[suit] : String(card);
  }

  // a rule's sentence (seats by number, cards by letters, as logs write them) in the words
  // of the table everywhere else: "seat 0 played 7C" reads "ilse (0) played 7♣"
  function tableWords(text, seats) {
    return String(text)
      .replace(/\bseat (\d)\b/g, (m, n) => (seats && seats[n] !== undefined ? seats[n] + " (" + n + ")" : m))
      .replace(/\b(10|[2-9JQKA])([CDHS])\b/g, (m) => cardText(m));
  }

  // a bid's call in words: a suit named with its symbol, a card called with its symbol
  function callText(call) {
    if (SUITS[call]) return "names " + SUITS[call] + " " + SUIT_NAMES[call];
    return tableWords(call, null);
  }

  // ---------------------------------------------------------------- the analysis
  // (GET /api/games/{id}/analysis): shared by the viewer and the round page

  // a par or a loss with its sign, as `jaslog analyze` writes it
  function signed(v) { return v > 0 ? "+" + v : String(v); }

  // the round's par beside its result, or why it has none
  function parText(a) {
    if (a.no_par) return "no par: " + a.no_par;
    return "par " + a.par_result + " " + signed(a.par) + " for " + (a.sides ? a.sides[0] : "the playing side");
  }

  // a costly play's class: "blunder" (it changed the result), "mistake", or null
  function costlyClass(x) {
    return x.blunder ? "blunder" : x.mistake ? "mistake" : null;
  }

  // a costly play in words: who played what, its cost, the par before and after, the
  // card(s) that kept the par, and whether it was a mistake or a blunder
  function costlyText(x, seatName) {
    return seatName(x.seat) + " played " + cardText(x.card) + ": cost " + x.loss +
      " (par " + signed(x.before) + " → " + signed(x.after) + ")" +
      (x.best && x.best.length ? ", best " + x.best.map((c) => cardText(c)).join(" or ") : "") +
      (x.legal ? "" : " · revoke") +
      (x.blunder ? " · blunder: " + x.result_before + " → " + x.result_after : x.mistake ? " · mistake" : "");
  }

  // the badge on a costly card: its loss, coloured as a mistake or a blunder
  function lossBadge(x) {
    const b = el("span", "loss-badge" + (x.blunder ? " blunder" : x.mistake ? " mistake" : ""), "−" + x.loss);
    b.title = "cost " + x.loss + (x.blunder ? ": a blunder" : x.mistake ? ": a mistake" : "");
    return b;
  }

  function hashParams() {
    return new URLSearchParams(location.hash.replace(/^#/, ""));
  }

  // the token from `#token=` (taken out of the address at once) or the one kept
  function token() {
    const h = hashParams();
    const t = h.get("token");
    if (t) {
      localStorage.setItem(TOKEN_KEY, t);
      h.delete("token");
      history.replaceState(null, "", h.toString() ? "#" + h.toString() : location.pathname);
    }
    return localStorage.getItem(TOKEN_KEY);
  }

  function showError(msg) {
    const e = document.getElementById("error");
    if (!e) return;
    e.textContent = msg || "";
    e.hidden = !msg;
  }

  async function api(path) {
    const t = localStorage.getItem(TOKEN_KEY);
    const r = await fetch(path, { headers: t ? { Authorization: "Bearer " + t } : {} });
    let body = null;
    try { body = await r.json(); } catch (_) { body = null; }
    if (!r.ok) {
      const err = new Error((body && body.message) || ("HTTP " + r.status));
      err.status = r.status;
      throw err;
    }
    return body;
  }

  // the sign-in form of a page (#login, #token-input): keeps the token and starts `then`
  function wireLogin(then) {
    const form = document.getElementById("login");
    if (!form) return;
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const t = document.getElementById("token-input").value.trim();
      if (!t) return;
      localStorage.setItem(TOKEN_KEY, t);
      form.hidden = true;
      then();
    });
  }

  async function whoami() {
    const w = await api("/api/whoami");
    const box = document.getElementById("who");
    if (box) {
      box.textContent = w.role + (w.table ? " · table " + w.table : "") +
        (w.player ? " · " + w.player : "") + (w.label ? " (" + w.label + ")" : "");
    }
    return w;
  }

  // the viewer's address of a game (and of one of its events)
  function gameHref(game, seq) {
    const p = new URLSearchParams({ game: game });
    if (seq !== undefined && seq !== null) p.set("seq", String(seq));
    return "/#" + p.toString();
  }

  function roundHref(game, round) {
    return "/static/round.html#" + new URLSearchParams({ game: game, round: String(round) }).toString();
  }

  // a player's page
  function playerHref(id) {
    return "/players/" + encodeURIComponent(id);
  }

  // the players of a game, each a link to the player's page
  function playerLinks(ids) {
    const span = el("span", "players");
    ids.forEach((id, i) => {
      if (i) span.appendChild(document.createTextNode(", "));
      span.appendChild(link(playerHref(id), id, "player"));
    });
    return span;
  }

  function tournamentHref(id) {
    return "/static/tournament.html#" + new URLSearchParams({ id: id }).toString();
  }

  window.jaslogPages = {
    el, link, cardEl, backEl, suitSpan, pair, cardText, tableWords, callText, hashParams, token,
    showError, api, wireLogin, whoami, gameHref, roundHref, tournamentHref, TOKEN_KEY,
    playerHref, playerLinks,
    signed, parText, costlyClass, costlyText, lossBadge,
  };
})();

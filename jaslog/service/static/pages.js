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
      box.textContent = roleText(w);
    }
    const form = document.getElementById("login");
    const out = document.getElementById("logout");
    if (form) form.hidden = true;
    if (out) out.hidden = false;
    return w;
  }

  // the viewer's address of a game (and of one of its events)
  function gameHref(game, seq) {
    const p = new URLSearchParams({ game: game });
    if (seq !== undefined && seq !== null) p.set("seq", String(seq));
    return "/viewer#" + p.toString();
  }

  // ---------------------------------------------------------------- the site's header
  // One header on every page: `<header class="bar" id="site-header"></header>` is filled
  // with the site's links (home, games, tournaments, players, statistics), the sign-in
  // form (#login, #token-input) or the token's role (#who) and "sign out" (#logout). A page
  // that wires #login itself (P.wireLogin, the viewer) takes the form; on any other page
  // the form keeps the token and reloads. `data-page` on the header marks its own link;
  // `data-token="page"` (a seat's page, whose link carries a token of its own) keeps the
  // links only.
  const SITE_LINKS = [
    ["home", "/", "home"], ["games", "/static/games.html", "games"],
    ["tournaments", "/static/tournament.html", "tournaments"],
    ["players", "/static/players.html", "players"],
    ["statistics", "/static/stats.html", "statistics"],
  ];

  function roleText(w) {
    return w.role + (w.table ? " · table " + w.table : "") + (w.player ? " · " + w.player : "") +
      (w.tournament ? " · " + w.tournament : "") + (w.label ? " (" + w.label + ")" : "");
  }

  function siteHeader() {
    const h = document.getElementById("site-header");
    if (!h || h.dataset.filled) return h;
    h.dataset.filled = "1";
    h.classList.add("bar", "site-header");
    if (!document.querySelector('link[href="/static/header.css"]')) {
      const css = document.createElement("link");
      css.rel = "stylesheet";
      css.href = "/static/header.css";
      document.head.appendChild(css);
    }
    const brand = link("/", "jaslog", "brand");
    brand.setAttribute("aria-label", "jaslog: home");
    h.appendChild(brand);
    const nav = el("nav", "site-nav");
    nav.setAttribute("aria-label", "site");
    const here = h.dataset.page || "";
    for (const [key, href, text] of SITE_LINKS) {
      const a = link(href, text, "site-link");
      a.dataset.key = key;
      if (key === here) a.setAttribute("aria-current", "page");
      nav.appendChild(a);
    }
    h.appendChild(nav);
    if (h.dataset.token === "page") return h;  // a page with a token of its own (a seat's link)
    const form = el("form", "login");
    form.id = "login";
    form.autocomplete = "off";
    form.hidden = true;
    const label = el("label", null, "Token");
    label.htmlFor = "token-input";
    const input = el("input");
    input.id = "token-input";
    input.type = "password";
    input.placeholder = "jl_...";
    input.spellcheck = false;
    input.setAttribute("autocomplete", "off");
    const go = el("button", null, "Sign in");
    go.type = "submit";
    form.append(label, input, go);
    const who = el("span", "who");
    who.id = "who";
    const out = el("button", "link", "sign out");
    out.id = "logout";
    out.type = "button";
    out.hidden = true;
    h.append(form, who, out);
    out.addEventListener("click", () => {
      localStorage.removeItem(TOKEN_KEY);
      location.reload();
    });
    // after the page's own handlers (scripts run before DOMContentLoaded): a form no page
    // took keeps the token and loads the page again, signed in
    document.addEventListener("DOMContentLoaded", () => {
      form.addEventListener("submit", (e) => {
        if (e.defaultPrevented) return;
        e.preventDefault();
        const t = input.value.trim();
        if (!t) return;
        localStorage.setItem(TOKEN_KEY, t);
        location.reload();
      });
    });
    token();  // a `#token=` in the address is kept (and taken out of it) before any page reads it
    headerSignedIn();
    return h;
  }

  // the header as the token stands: its role and "sign out", or the sign-in form
  async function headerSignedIn() {
    const form = document.getElementById("login");
    const who = document.getElementById("who");
    const out = document.getElementById("logout");
    if (!localStorage.getItem(TOKEN_KEY)) { form.hidden = false; return; }
    try {
      const w = await api("/api/whoami");
      if (!who.textContent) who.textContent = roleText(w);
      out.hidden = false;
      form.hidden = true;
    } catch (e) {
      if (e.status === 401) { form.hidden = false; out.hidden = true; }
    }
  }

  // ---------------------------------------------------------------- following live
  // A Server-Sent Events stream read with fetch, so that the token travels in the
  // Authorization header (an EventSource could only put it in the URL, where server logs
  // keep it): each message ({event, data, id}) to `onMessage` until `ctrl` aborts it;
  // `token`: the page's own (default: the one kept in the browser's storage).
  async function readStream(url, ctrl, onMessage, token) {
    const t = token || localStorage.getItem(TOKEN_KEY);
    const r = await fetch(url, { headers: { Authorization: "Bearer " + t, Accept: "text/event-stream" },
      signal: ctrl.signal });
    if (!r.ok || !r.body) throw new Error("the live stream was refused (HTTP " + r.status + ")");
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    let msg = {};
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, "");
        buf = buf.slice(nl + 1);
        if (!line) {
          if (msg.data !== undefined) onMessage(msg);
          msg = {};
        } else if (!line.startsWith(":")) {
          const i = line.indexOf(":");
          const k = i < 0 ? line : line.slice(0, i);
          const v = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
          msg[k] = msg[k] !== undefined && k === "data" ? msg[k] + "\n" + v : v;
        }
      }
    }
  }

  // Follow `url` (a stream) while the page is open: `onChange` (debounced) on each event; a
  // stream that ends or fails is opened again after a few seconds. Returns a stop function.
  function follow(url, onChange) {
    let ctrl = new AbortController();
    let timer = null;
    let stopped = false;
    const changed = () => { clearTimeout(timer); timer = setTimeout(onChange, 200); };
    const open = () => {
      if (stopped) return;
      ctrl = new AbortController();
      readStream(url, ctrl, (m) => { if (m.event === "event" || m.event === "round_over") changed(); })
        .catch(() => null)
        .then(() => { if (!stopped) setTimeout(open, 3000); });
    };
    open();
    return () => { stopped = true; ctrl.abort(); clearTimeout(timer); };
  }

  // the page's state in its address (after `#`), so that the view can be shared as a link
  function writeState(params) {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v !== undefined && v !== null && String(v) !== "") p.set(k, String(v));
    }
    const h = p.toString();
    history.replaceState(null, "", location.pathname + location.search + (h ? "#" + h : ""));
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

  // a game's log to download (GET /api/games/{id}/log): the token goes in the header, so
  // the page fetches it and hands the browser the file
  function logHref(game, format) {
    return "/api/games/" + encodeURIComponent(game) + "/log?format=" + encodeURIComponent(format);
  }

  async function downloadLog(game, format) {
    const t = localStorage.getItem(TOKEN_KEY);
    const r = await fetch(logHref(game, format), { headers: t ? { Authorization: "Bearer " + t } : {} });
    if (!r.ok) {
      let body = null;
      try { body = await r.json(); } catch (_) { body = null; }
      throw new Error((body && body.message) || ("HTTP " + r.status));
    }
    const name = (/filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "") || [])[1] ||
      game + (format === "text" ? ".txt" : ".jsonl");
    const url = URL.createObjectURL(await r.blob());
    const a = link(url, name);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // the download buttons of a game's log ("jaslog/1", "text") in `box`
  function downloadButtons(box, gameOf) {
    box.innerHTML = "";
    box.appendChild(el("span", "download-label", "Download"));
    for (const [format, text, title] of [["jsonl", "jaslog/1", "the log as JSON Lines (jaslog dump)"],
      ["text", "text", "the log in the text notation (jaslog dump --format text)"]]) {
      const b = el("button", "download", text);
      b.type = "button";
      b.dataset.format = format;
      b.title = title + ", as this token may see it";
      b.addEventListener("click", () => downloadLog(gameOf(), format).catch((e) => showError(e.message)));
      box.appendChild(b);
    }
  }

  function tournamentHref(id) {
    return "/static/tournament.html#" + new URLSearchParams({ id: id }).toString();
  }

  window.jaslogPages = {
    el, link, cardEl, backEl, suitSpan, pair, cardText, tableWords, callText, hashParams, token,
    showError, api, wireLogin, whoami, gameHref, roundHref, tournamentHref, TOKEN_KEY,
    playerHref, playerLinks,
    signed, parText, costlyClass, costlyText, lossBadge,
    siteHeader, roleText, readStream, follow, writeState, logHref, downloadLog, downloadButtons,
  };
  siteHeader();  // the header is in the page before pages.js is loaded: filled at once
  // a page's download buttons (#download): the log of the game in its address (#game=)
  const dl = document.getElementById("download");
  if (dl) downloadButtons(dl, () => hashParams().get("game"));
})();

/* jaslog: the analysis board, `board.html#game=ID&round=N&pos=K&moves=AH,7S`. Plain JavaScript.
 *
 * A recorded round after its first K plays (or, with `seq=S` instead of `pos`, its plays up to
 * event S), then the cards tried from there (`moves`): every
 * hand, the trick, the par (perfect play, every hand known) and, under each legal card of
 * the seat to play, the par once it is played (the best ones marked). Click a card to play
 * it; back and forward step through the cards tried; the address holds it all, so a board is
 * shared as a link. It asks POST /api/analysis/line and shows what the service answers: it
 * computes no rule and decides no visibility (a round the token may not analyse yet: the
 * service's sentence says why).
 */
(function () {
  "use strict";

  const P = window.jaslogPages;
  const { el, cardEl } = P;
  const $ = (id) => document.getElementById(id);

  let B = null;      // the last answer
  let future = [];   // cards taken back, for forward
  let asked = 0;     // the latest request (an older answer is dropped)

  function state() {
    const h = P.hashParams();
    const moves = (h.get("moves") || "").split(",").map((x) => x.trim()).filter(Boolean);
    const seq = h.get("pos") === null && h.get("seq") !== null ? Number(h.get("seq")) : null;
    return { game: h.get("game"), round: Number(h.get("round") || 1), pos: Number(h.get("pos") || 0), seq, moves };
  }

  function go(s) {
    const p = new URLSearchParams({ game: s.game, round: String(s.round), pos: String(s.pos) });
    if (s.moves.length) p.set("moves", s.moves.join(","));
    const next = "#" + p.toString();
    if (location.hash === next) load(); else location.hash = next;
  }

  function seatName(s) {
    if (!B || s === null || s === undefined) return "–";
    return (B.seats[s] || "?") + " (" + s + ")";
  }

  async function line(body) {
    const t = P.token();
    const r = await fetch("/api/analysis/line", {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, t ? { Authorization: "Bearer " + t } : {}),
      body: JSON.stringify(body),
    });
    let out = null;
    try { out = await r.json(); } catch (_) { out = null; }
    if (!r.ok) {
      const err = new Error((out && out.message) || ("HTTP " + r.status));
      err.status = r.status;
      err.code = out && out.code;
      throw err;
    }
    return out;
  }

  async function load() {
    P.showError(null);
    const s = state();
    if (!s.game) { P.showError("no game: open board.html#game=ID&round=N"); return; }
    try {
      await P.whoami();
    } catch (e) {
      P.showError(e.status === 401 ? e.message + " — sign in with a token" : e.message);
      if (e.status === 401) $("login").hidden = false;
      return;
    }
    const mine = ++asked;
    $("status").hidden = false;
    $("status").textContent = "asking the solver…";
    let b = null;
    try {
      const start = s.seq !== null ? { seq: s.seq } : { position: s.pos };
      b = await line(Object.assign({ game: s.game, round: s.round, moves: s.moves }, start));
    } catch (e) {
      if (mine !== asked) return;
      $("status").hidden = true;
      P.showError(s.game + ", round " + s.round + ": " + e.message);
      return;
    }
    if (mine !== asked) return;
    B = b;
    $("status").hidden = true;
    if (s.seq !== null) {  // started at an event: the address says the position it is
      s.pos = b.position;
      s.seq = null;
      const p = new URLSearchParams({ game: s.game, round: String(s.round), pos: String(s.pos) });
      if (s.moves.length) p.set("moves", s.moves.join(","));
      history.replaceState(null, "", "#" + p.toString());
    }
    render(s);
  }

  function parWords(v) {
    return (v > 0 ? "+" : "") + v + " for " + (B.sides ? B.sides[0] : "the playing side");
  }

  function render(s) {
    $("main").hidden = false;
    document.title = "jaslog · board · " + s.game + " · round " + s.round;
    $("title").textContent = "Game " + s.game + " · round " + s.round + " · analysis board";
    $("to-round").href = P.roundHref(s.game, s.round);
    $("to-viewer").href = P.gameHref(s.game, null);
    $("position").value = String(s.pos);
    const pl = $("par-line");
    pl.innerHTML = "";
    pl.appendChild(el("span", null, "Par "));
    pl.appendChild(el("span", "par", parWords(B.par)));
    pl.appendChild(el("span", null, B.over ? " · the round is played out" :
      " · " + (B.par_result || "–") + " at the end of the best line · to play: " + seatName(B.to_move) +
      (B.trick_no ? ", trick " + B.trick_no : "")));
    const ml = $("moves-line");
    const tried = B.moves.map((m) => seatName(m.seat) + " " + P.cardText(m.card)).join(", ");
    ml.textContent = "From the record after " + B.position + " card" + (B.position === 1 ? "" : "s") +
      (tried ? "; tried: " + tried : "; no card tried yet") +
      (B.recorded ? " · the record plays " + P.cardText(B.recorded) + " next" : B.follows_record ? "" : " · off the record");
    $("back").disabled = !s.moves.length && s.pos === 0;
    $("forward").disabled = !future.length && !B.recorded;
    renderTrick();
    renderHands(s);
    renderLine();
  }

  function renderTrick() {
    const t = $("trick");
    t.innerHTML = "";
    if (!B.trick.length) {
      t.appendChild(el("span", "empty", B.over ? "every card is played" : "a new trick: " + seatName(B.to_move) + " leads"));
      return;
    }
    t.appendChild(el("span", null, "On the table:"));
    for (const x of B.trick) {
      const c = el("span", "board-card");
      c.appendChild(cardEl(x.card));
      c.appendChild(el("span", "by", B.seats[x.seat] || "?"));
      t.appendChild(c);
    }
  }

  function renderHands(s) {
    const box = $("hands");
    box.innerHTML = "";
    const values = {};
    for (const x of B.legal) values[x.card] = x;
    B.hands.forEach((cards, seat) => {
      const row = el("div", "board-seat" + (seat === B.to_move ? " to-move" : ""));
      row.dataset.seat = String(seat);
      const who = el("div", "who", seatName(seat) + " ");
      who.appendChild(el("span", "side", B.sides ? "· " + B.sides[B.side[seat]] : ""));
      row.appendChild(who);
      for (const card of cards) {
        const x = seat === B.to_move ? values[card] : null;
        if (x) {
          const b = el("button", "board-card legal" + (x.best ? " best" : " costs") + (card === B.recorded ? " recorded" : ""));
          b.type = "button";
          b.dataset.card = card;
          b.dataset.par = String(x.par);
          b.title = "play " + P.cardText(card) + ": par " + parWords(x.par) + (x.best ? " (keeps the par)" : " (costs " + x.loss + ")");
          b.appendChild(cardEl(card));
          b.appendChild(el("span", "value", (x.par > 0 ? "+" : "") + x.par));
          b.addEventListener("click", () => { future = []; go({ ...s, moves: s.moves.concat([card]) }); });
          row.appendChild(b);
        } else {
          const c = el("span", "board-card" + (seat === B.to_move ? " other" : ""));
          c.dataset.card = card;
          c.appendChild(cardEl(card));
          c.appendChild(el("span", "value", ""));
          row.appendChild(c);
        }
      }
      if (!cards.length) row.appendChild(el("span", "empty", "no cards left"));
      box.appendChild(row);
    });
  }

  function renderLine() {
    const ol = $("line");
    ol.innerHTML = "";
    if (!B.line.length) {
      ol.appendChild(el("li", "empty", "none: every card is played"));
      return;
    }
    for (const x of B.line) {
      const li = el("li", null, (B.seats[x.seat] || "?") + " ");
      li.appendChild(el("strong", null, P.cardText(x.card)));
      ol.appendChild(li);
    }
  }

  function back() {
    const s = state();
    if (s.moves.length) { future.unshift(s.moves.pop()); go(s); return; }
    if (s.pos > 0) { future = []; go({ ...s, pos: s.pos - 1 }); }
  }

  function forward() {
    const s = state();
    if (future.length) { go({ ...s, moves: s.moves.concat([future.shift()]) }); return; }
    if (B && B.recorded) {
      if (!s.moves.length) go({ ...s, pos: s.pos + 1 }); else go({ ...s, moves: s.moves.concat([B.recorded]) });
    }
  }

  function start() {
    $("back").addEventListener("click", back);
    $("forward").addEventListener("click", forward);
    $("restart").addEventListener("click", () => { future = []; go({ ...state(), moves: [] }); });
    $("position").addEventListener("change", (e) => {
      const v = Math.max(0, Math.floor(Number(e.target.value) || 0));
      future = [];
      go({ ...state(), pos: v, moves: [] });
    });
    P.wireLogin(load);
    window.addEventListener("hashchange", load);
    if (P.token()) load(); else $("login").hidden = false;
  }

  start();
})();

/* jaslog replay viewer. Plain JavaScript, no build step.
 *
 * It shows what the service sends for the token's role: the table after every event
 * (GET /api/games/{id}/replay: frames, the audit, the timing). It computes no rule: every
 * number and every violation comes from the server's fold.
 */
(function () {
  "use strict";

  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const POS = ["bottom", "left", "top", "right"];
  const TOKEN_KEY = "jaslog.token";

  const st = { token: null, who: null, replay: null, idx: 0, game: null, es: null, refetch: null, analysis: {} };
  const $ = (id) => document.getElementById(id);
  // the words every page shares (pages.js): cards with their suit symbols, seats by name
  const P = window.jaslogPages;

  // ---------------------------------------------------------------- small helpers

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function cardParts(card) {
    return { rank: card.slice(0, -1), suit: card.slice(-1) };
  }

  function cardEl(card, extra) {
    const { rank, suit } = cardParts(card);
    const c = el("span", "card" + (suit === "H" || suit === "D" ? " red" : "") + (extra ? " " + extra : ""));
    c.dataset.card = card;
    c.setAttribute("aria-label", rank + " of " + SUIT_NAMES[suit]);
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
    const s = el("span", letter === "H" || letter === "D" ? "suit-red" : "suit-black",
      SUITS[letter] + (withName ? " " + SUIT_NAMES[letter] : ""));
    return s;
  }

  function pair(xs) {
    return (xs || []).join("–");
  }

  function isTeams() {
    return st.replay.scoring === "teams";
  }

  function showError(msg) {
    const e = $("error");
    if (!msg) { e.hidden = true; e.textContent = ""; return; }
    e.textContent = msg;
    e.hidden = false;
  }

  async function api(path) {
    const r = await fetch(path, { headers: { Authorization: "Bearer " + st.token } });
    let body = null;
    try { body = await r.json(); } catch (_) { body = null; }
    if (r.status === 401) {
      signOut((body && body.message) || "the token was refused");
      throw new Error("unauthorised");
    }
    if (!r.ok) throw new Error((body && body.message) || ("HTTP " + r.status));
    return body;
  }

  function hashParams() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ""));
    return { token: h.get("token"), game: h.get("game"), seq: h.get("seq") };
  }

  function writeHash() {
    if (!st.game || !st.replay) return;
    const f = st.replay.frames[st.idx];
    const p = new URLSearchParams({ game: st.game });
    if (f) p.set("seq", String(f.seq));
    history.replaceState(null, "", "#" + p.toString());
  }

  // ---------------------------------------------------------------- signing in

  function signOut(reason) {
    localStorage.removeItem(TOKEN_KEY);
    st.token = null;
    stopLive();
    $("main").hidden = true;
    $("login").hidden = false;
    $("logout").hidden = true;
    $("who").textContent = "";
    $("game-picker").innerHTML = "";
    showError(reason || null);
  }

  async function signIn(token) {
    st.token = token;
    try {
      st.who = await api("/api/whoami");
    } catch (e) {
      return;
    }
    localStorage.setItem(TOKEN_KEY, token);
    showError(null);
    $("login").hidden = true;
    $("logout").hidden = false;
    const w = st.who;
    $("who").textContent = w.role + (w.table ? " · table " + w.table : "") +
      (w.player ? " · " + w.player : "") + (w.label ? " (" + w.label + ")" : "");
    await loadGames();
  }

  async function loadGames() {
    // the newest 500 (GET /api/games pages; the games page, /static/games.html, has them all)
    const games = await api("/api/games?order=newest&limit=500");
    const pick = $("game-picker");
    pick.innerHTML = "";
    const none = el("option", null, games.length ? "— pick a game —" : "no games yet");
    none.value = "";
    pick.appendChild(none);
    for (const g of games) {
      const o = el("option", null, g.game + " · " + g.seats.join(", ") + " · " + g.events + " events" +
        (g.view === "seat" ? " · your seat" : g.view === "public" ? " · public" : ""));
      o.value = g.game;
      pick.appendChild(o);
    }
    const want = hashParams();
    const id = want.game || st.game;
    if (id && !games.some((g) => g.game === id)) {  // an older game, opened by its link
      const o = el("option", null, id);
      o.value = id;
      pick.appendChild(o);
      games.push({ game: id });
    }
    if (id && games.some((g) => g.game === id)) {
      pick.value = id;
      await selectGame(id, want.seq !== null ? Number(want.seq) : null);
    }
  }

  // ---------------------------------------------------------------- a game

  async function selectGame(id, seq) {
    stopLive();
    showError(null);
    st.game = id;
    try {
      st.replay = await api("/api/games/" + encodeURIComponent(id) + "/replay");
      st.analysis = {};
    } catch (e) {
      if (e.message !== "unauthorised") {
        st.replay = null;
        $("main").hidden = true;  // never the table of the game shown before
        showError("cannot open the game " + id + ": " + e.message);
      }
      return;
    }
    const frames = st.replay.frames;
    $("main").hidden = false;
    fillRounds();
    // a game still in play opens at its newest event; a finished one at its start
    let idx = frames.length && !frames[frames.length - 1].finished ? frames.length - 1 : 0;
    if (seq !== null && seq !== undefined && !Number.isNaN(seq)) {
      const j = frames.findIndex((f) => f.seq === seq);
      idx = j >= 0 ? j : frames.length - 1;
    }
    go(idx);
    // a game in play is followed as it is recorded, with nothing to tick; a finished one is not
    if (frames.length && !frames[frames.length - 1].finished) startLive(); else stopLive();
  }

  // the slider's range, the round menu and the game menu's event count for st.replay
  function fillRounds() {
    const frames = st.replay.frames;
    $("slider").max = String(Math.max(0, frames.length - 1));
    const rounds = $("round-picker");
    rounds.innerHTML = "";
    const seen = new Set();
    frames.forEach((f) => {
      if (f.round && !seen.has(f.round)) {
        seen.add(f.round);
        const o = el("option", null, String(f.round));
        o.value = String(f.round);
        rounds.appendChild(o);
      }
    });
    const opt = Array.from($("game-picker").options).find((o) => o.value === st.game);
    const last = frames[frames.length - 1];
    if (opt && last) opt.textContent = opt.textContent.replace(/\d+ events/, (last.seq + 1) + " events");
  }

  function go(i) {
    const n = st.replay ? st.replay.frames.length : 0;
    if (!n) return;
    st.idx = Math.max(0, Math.min(n - 1, i));
    if (st.idx === n - 1) showUnseen(0);  // at the newest event: nothing is left unseen
    render();
    writeHash();
  }

  // "N new events": the events recorded while the reader looks at an earlier one
  function showUnseen(n) {
    st.unseen = n;
    const b = $("new-events");
    b.hidden = !n;
    b.textContent = n === 1 ? "1 new event ▶|" : n + " new events ▶|";
  }

  function isTrickEnd(f) { return f.type === "play" && f.trick_complete; }

  function nextTrick() {
    const fr = st.replay.frames;
    for (let j = st.idx + 1; j < fr.length; j++) if (isTrickEnd(fr[j])) return go(j);
    go(fr.length - 1);
  }

  function prevTrick() {
    const fr = st.replay.frames;
    for (let j = st.idx - 1; j >= 0; j--) if (isTrickEnd(fr[j])) return go(j);
    go(0);
  }

  function jumpRound(r) {
    const j = st.replay.frames.findIndex((f) => f.round === r);
    if (j >= 0) go(j);
  }

  // the table scrolled into view (after a click far below it)
  function showTable() {
    const felt = $("felt");
    if (felt && felt.scrollIntoView) felt.scrollIntoView({ block: "nearest" });
  }

  function jumpSeq(seq) {
    const fr = st.replay.frames;
    let j = fr.findIndex((f) => f.seq >= seq);
    if (j < 0) j = fr.length - 1;
    go(j);
  }

  // ---------------------------------------------------------------- drawing

  function seatName(s) {
    const seats = st.replay.seats;
    return (seats[s] || "?") + " (" + s + ")";
  }

  function bottomSeat() {
    return st.replay.seat !== null && st.replay.seat !== undefined ? st.replay.seat : 0;
  }

  function posOf(seat) {
    const n = st.replay.seats.length;
    if (n === 2) return seat === bottomSeat() ? "bottom" : "top";
    return POS[(seat - bottomSeat() + 4) % 4];
  }

  function render() {
    const R = st.replay;
    const f = R.frames[st.idx];
    const n = R.frames.length;

    const note = $("view-note");
    note.textContent = R.view === "full" ? "Referee view: every hand." :
      R.view === "seat" ? "Seat view of " + seatName(R.seat) + ": your hand, the cards played and the record; other hands once the round is over." :
      "Public view: finished rounds only.";

    // seats and hands (a round recorded by its score alone has none: its table is not drawn)
    const shownRound = f.round ? reportRound(f.round) : null;
    $("felt").classList.toggle("no-table", !!shownRound && shownRound.recorded === "score_only");
    const byPos = {};
    document.querySelectorAll("#felt .seat").forEach((d) => { byPos[d.dataset.pos] = d; d.innerHTML = ""; d.className = "seat"; });
    for (let s = 0; s < R.seats.length; s++) {
      const box = byPos[posOf(s)];
      if (!box) continue;
      if (f.turn === s && !f.round_over && f.expects !== "deal" && f.expects !== "over") box.classList.add("turn");
      if (R.seat === s) box.classList.add("me");
      const name = el("div", "name", seatName(s));
      const sides = f.extra && f.extra.sides;
      const side = isTeams() ? " · team " + (s % 2 + 1) :
        sides ? " · " + (sides[s] === "queens" ? "queens' side" : sides[s] === "others" ? "other side" : "side unknown") : "";
      const rebuilt = f.round && f.hands && f.hands[s] && handsRebuilt(f);
      const tag = el("span", "tag", side + (f.dealer === s ? " · dealer" : "") +
        (f.chooser === s ? " · chose trumps" : "") + (rebuilt ? " · hand rebuilt from the plays" : ""));
      name.appendChild(tag);
      box.appendChild(name);
      const hand = el("div", "hand");
      hand.dataset.seat = String(s);
      const cards = f.hands ? f.hands[s] : null;
      if (!f.round) {
        hand.appendChild(el("span", "note", "not dealt yet"));
      } else if (cards) {
        const legal = f.legal && f.turn === s ? new Set(f.legal) : null;
        for (const c of cards) hand.appendChild(cardEl(c, legal ? (legal.has(c) ? "legal" : "illegal-dim") : ""));
        if (!cards.length) hand.appendChild(el("span", "note", "no cards left"));
      } else if (!f.hands_known) {
        hand.appendChild(el("span", "note", "hand not recorded (" + f.counts[s] + " cards)"));
      } else {
        for (let k = 0; k < f.counts[s]; k++) hand.appendChild(backEl());
      }
      box.appendChild(hand);
    }

    // the trick
    document.querySelectorAll("#trick .slot").forEach((d) => { d.innerHTML = ""; });
    const bad = (f.violations || []).filter((v) => v.trick === f.trick && v.card);
    const an = analysisOf(f);
    const costly = [];
    for (const p of f.table || []) {
      let cls = "";
      if (f.trick_complete && f.trick_winner === p.seat) cls += " winner";
      if (bad.some((v) => v.seat === p.seat && v.card === p.card)) cls += " violation";
      const slot = document.querySelector('#trick .slot[data-pos="' + posOf(p.seat) + '"]');
      const c = cardEl(p.card, cls.trim());
      // a costly play: its loss in a badge (cards are unique in a round, so the card names it)
      const x = an && (an.costly || []).find((q) => q.card === p.card && q.seq <= f.seq);
      if (x) {
        costly.push(x);
        c.appendChild(P.lossBadge(x));
      }
      if (slot) slot.appendChild(c);
    }
    renderAnalysisLine(costly);
    const badge = $("trump-badge");
    badge.innerHTML = "";
    if (f.trump_note) {
      badge.appendChild(el("span", null, f.trump_note));
    } else if (f.trump) {
      const sym = suitSpan(f.trump, false);
      sym.classList.add("sym");
      badge.appendChild(sym);
      badge.appendChild(el("span", null, "trump"));
    } else if (f.proposed) {
      badge.appendChild(el("span", null, "turned: "));
      badge.appendChild(suitSpan(f.proposed, true));
    } else if (f.round) {
      badge.appendChild(el("span", null, "choosing trumps"));
    }
    if (f.trick) badge.appendChild(el("span", null, " · trick " + f.trick));

    // violations at this very event
    const now = (f.violations || []).filter((v) => v.seq === f.seq);
    const banner = $("banner");
    banner.innerHTML = "";
    banner.hidden = !now.length;
    for (const v of now) banner.appendChild(el("div", null, "✗ " + v.rule + ": " + said(v.message)));

    // event and round
    $("event-text").textContent = "seq " + f.seq + " · " + f.text + (f.at ? "  (" + f.at.replace("T", " ").replace("Z", " UTC") + ")" : "");
    const info = $("round-info");
    info.innerHTML = "";
    if (f.round) {
      info.appendChild(el("span", null, "Round " + f.round + " · dealer " + seatName(f.dealer)));
      if (f.trump) {
        info.appendChild(el("span", null, " · trump "));
        info.appendChild(suitSpan(f.trump, true));
        if (f.chooser !== null && f.chooser !== undefined) info.appendChild(el("span", null, " chosen by " + seatName(f.chooser)));
      }
      const x = f.extra || {};
      if (x.turn_up) info.appendChild(el("span", null, " · turn-up " + P.cardText(x.turn_up)));
      if (x.bottom) info.appendChild(el("span", null, " · stock bottom " + P.cardText(x.bottom)));
      if (x.declarations && x.declarations.length) {
        info.appendChild(el("span", null, " · declared: " + x.declarations.map((d) =>
          seatName(d.seat) + " " + (d.sequence ? said(d.sequence) : d.length + " cards")).join(", ")));
      }
      if (x.side_points) info.appendChild(el("span", null, " · queens " + x.side_points.queens + ", others " + x.side_points.others));
    } else {
      info.textContent = R.ruleset + " · " + R.seats.join(", ");
    }
    const bids = $("bids");
    bids.textContent = f.bids && f.bids.length ? "Bids: " + f.bids.map((b) => seatName(b.seat) + " " + P.callText(b.call)).join(", ") : "";
    const sc = $("round-score");
    const rr = reportRound(f.round);
    let line = "";
    if (f.round) {
      line = "Tricks " + pair(f.tricks_won) + " · points " + pair(f.points);
      if (f.roem) line += " · roem " + pair(f.roem);
      if (f.roem && f.roem_on_table && pair(f.roem_on_table) !== pair(f.roem)) {
        line += " (on the table " + pair(f.roem_on_table) + ")";
      }
      if (f.ruling) {
        line += " · ruled " + pair(f.ruling.score) + (f.result && f.result !== "unfinished"
          ? ", as played " + pair(f.score) + " (" + f.result + ")" : ", before its last card") + ": " +
          (f.ruling.reason === null ? "(its reason is shown when the game is over)" : f.ruling.reason);
      } else if (f.result) {
        line += " · " + f.result + ": " + pair(f.score) + carried(rr);
      }
      if (f.retracted) line += " · retracted at seq " + f.retracted.by + ": " + whyText(f.retracted.reason);
      if (an) line += " · " + P.parText(an);
    }
    line += (line ? " · " : "") + "game " + pair(f.totals);
    const later = laterRulings(f);
    if (later.length) {
      line += " (before the ruling" + (later.length > 1 ? "s" : "") + " at " + later.map((x) =>
        "seq " + x.seq + " on round " + x.round + ", " + pair(x.score)).join(" and ") +
        "; the score sheet counts " + (later.length > 1 ? "them" : "it") + ")";
    }
    if (f.finished) {
      line += " · game over" + (f.winner === "draw" ? ": a draw" :
        isTeams() ? ": team " + (f.winner + 1) + " wins" : ": " + seatName(f.winner) + " wins");
    }
    sc.textContent = line;

    // controls
    $("position").textContent = "seq " + f.seq + " / " + R.frames[n - 1].seq;
    $("slider").value = String(st.idx);
    $("first").disabled = $("prev").disabled = $("prev-trick").disabled = st.idx === 0;
    $("last").disabled = $("next").disabled = $("next-trick").disabled = st.idx === n - 1;
    if (f.round) $("round-picker").value = String(f.round);

    renderViolations(f);
    renderRecord(f);
    renderEvents();
    renderSheet(f);
    renderTiming();
  }

  // ---------------------------------------------------------------- the analysis

  // whether this token may see round f.round's analysis: it names every hand, so the
  // referee sees it at any time, a seat and the public once the round was played out (the
  // service says so too, with a 403: asking only when allowed keeps the console clean)
  function analysisAllowed(f) {
    const R = st.replay;
    if (!f.round) return false;
    if (R.view === "full") return true;
    const rr = reportRound(f.round);
    return f.round !== R.live_round && !!rr && rr.recorded !== "score_only" &&
      rr.result !== "unfinished" && rr.result !== "annulled";
  }

  // round f.round's analysis (GET /api/games/{game}/analysis), asked once per round and
  // replay; null until it comes, or when it may not be seen
  function analysisOf(f) {
    if (!analysisAllowed(f)) return null;
    const key = String(f.round);
    if (key in st.analysis) return st.analysis[key];
    st.analysis[key] = null;
    const replay = st.replay;
    fetch("/api/games/" + encodeURIComponent(st.game) + "/analysis?round=" + key,
      { headers: { Authorization: "Bearer " + st.token } })
      .then((r) => (r.ok ? r.json() : null))
      .then((a) => {
        if (!a || st.replay !== replay) return;
        st.analysis[key] = a;
        render();
      })
      .catch(() => {});
    return null;
  }

  // under the trick: what each costly card on the table cost, and the card(s) that kept the par
  function renderAnalysisLine(costly) {
    const box = $("analysis-line");
    box.innerHTML = "";
    box.hidden = !costly.length;
    for (const x of costly) {
      box.appendChild(el("div", P.costlyClass(x), P.costlyText(x, seatName)));
    }
  }

  function renderViolations(f) {
    const list = $("violations");
    list.innerHTML = "";
    const vs = st.replay.report.violations || [];
    if (!vs.length) {
      list.appendChild(el("li", "empty", "none" + (st.replay.view === "full" ? "" : " that you may see")));
      return;
    }
    for (const v of vs) {
      const li = el("li", v.seq === f.seq ? "now" : "");
      li.dataset.seq = String(v.seq);
      li.appendChild(el("span", "rule", v.rule));
      li.appendChild(el("span", null, ": " + said(v.message) + " "));
      li.appendChild(el("span", "where", "(round " + v.round + (v.trick ? ", trick " + v.trick : "") + ", seq " + v.seq + ")"));
      li.addEventListener("click", () => { jumpSeq(v.seq); showTable(); });
      list.appendChild(li);
    }
  }

  function renderSheet(f) {
    const t = $("scoresheet");
    t.innerHTML = "";
    const R = st.replay;
    const rounds = R.report.rounds || [];
    const hasRoem = rounds.some((r) => r.roem);
    const head = el("thead");
    const hr = el("tr");
    const cols = ["Round", "Dealer", "Trump", "Playing", "Points"].concat(hasRoem ? ["Roem"] : [], ["Result", "Score", "Total"]);
    cols.forEach((h) => hr.appendChild(el("th", null, h)));
    head.appendChild(hr);
    t.appendChild(head);
    const body = el("tbody");
    let tot = null;
    for (const r of rounds) {
      const final = r.final || (r.ruling ? r.ruling.score : (r.score || []));
      tot = r.totals ? r.totals.slice() : tot ? tot.map((x, i) => x + (final[i] || 0)) : final.slice();
      const scoreOnly = r.recorded === "score_only";
      const tr = el("tr", (r.round === f.round ? "current" : "") + (r.result === "revoke" || r.ruling ? " bad" : "") +
        (scoreOnly ? " score-only" : ""));
      const trump = el("td");
      if (r.trump) trump.appendChild(suitSpan(r.trump, false)); else trump.textContent = "–";
      const who = r.chooser !== undefined ? r.chooser : r.maker;
      const cells = [
        el("td", null, r.round), el("td", null, R.seats[r.dealer]), trump,
        el("td", null, who === null || who === undefined ? "–" : R.seats[who]),
        el("td", null, pair(r.points)),
      ];
      if (hasRoem) cells.push(el("td", null, pair(r.roem)));
      cells.push(el("td", null, r.hidden && r.result === "unfinished" ? "in play" : scoreOnly ? "score only" : r.result),
        scoreCell(r, final), el("td", null, pair(tot)));
      cells.forEach((c) => tr.appendChild(c));
      tr.addEventListener("click", () => jumpRound(r.round));
      body.appendChild(tr);
    }
    t.appendChild(body);
    const rep = R.report;
    let txt;
    if (isTeams()) {
      const teams = [0, 1].map((k) => R.seats.filter((_, i) => i % 2 === k).join(" & "));
      txt = teams[0] + " " + rep.totals[0] + " · " + teams[1] + " " + rep.totals[1];
      if (rep.finished) txt += " · " + (rep.winner === "draw" ? "a draw" : teams[rep.winner] + " win");
    } else {
      txt = R.seats.map((p, i) => p + " " + rep.totals[i]).join(" · ");
      if (rep.finished) txt += " · " + (rep.winner === "draw" ? "a draw" : R.seats[rep.winner] + " wins");
    }
    $("totals").textContent = txt;
  }

  // a round's score as the sheet writes it: the ruling that counts beside the score as
  // played (or recorded by its score alone), each ruling's reason as text, the superseded
  // ones struck through; a Klaberjass tie's points held, and the deal that received them
  function scoreCell(r, final) {
    const td = el("td", "score-cell");
    const rulings = r.rulings || (r.ruling ? [Object.assign({ superseded: false }, r.ruling)] : []);
    if (!rulings.length) {
      td.appendChild(el("span", "played", pair(r.score)));
      if (r.held) td.appendChild(el("div", "held", r.held + " held for the next deal's winner"));
      if (r.received) td.appendChild(el("div", "received", "+ " + r.received + " received → " + pair(final)));
      return td;
    }
    for (const x of rulings.slice().reverse()) {
      const line = el("div", "ruling" + (x.superseded ? " superseded" : " counts"));
      line.appendChild(el(x.superseded ? "s" : "span", "ruled", "ruled " + pair(x.score)));
      if (!x.superseded) {
        line.appendChild(el("span", "played", r.result === "unfinished" || !r.score
          ? ", before its last card" : ", as played " + pair(r.score)));
      }
      if (x.superseded) line.appendChild(el("span", "note", " (superseded)"));
      const why = el("div", "reason", x.reason);
      if (x.after_end) why.appendChild(el("span", "after-end", " (ruled after the game ended)"));
      line.appendChild(why);
      td.appendChild(line);
    }
    return td;
  }

  // the report's entry of round n (its record at the head: rulings, held and received)
  function reportRound(n) {
    return n ? (st.replay.report.rounds || []).find((x) => x.round === n) || null : null;
  }

  // a Klaberjass deal that passes a tie's points on, or takes them
  function carried(rr) {
    if (!rr || rr.ruling) return "";
    if (rr.held) return " · " + rr.held + " held for the next deal's winner";
    if (rr.received) return " · + " + rr.received + " received (held from a tie) → " + pair(rr.final);
    return "";
  }

  // the rulings recorded after this event on a round dealt by then: the game's total at this
  // event is without them, the score sheet (the game now) with them
  function laterRulings(f) {
    const out = [];
    for (const r of st.replay.report.rounds || []) {
      if (!f.round || r.round > f.round) continue;
      for (const x of r.rulings || (r.ruling ? [r.ruling] : [])) {
        if (x.seq > f.seq && !x.superseded) out.push({ round: r.round, seq: x.seq, score: x.score });
      }
    }
    return out;
  }

  // the hands of a round recorded without them, shown once rebuilt from its plays
  function handsRebuilt(f) {
    const rr = reportRound(f.round);
    return !!rr && rr.recorded === "played" && rr.hands_recorded === false;
  }

  // a rule's sentence in the table's words: players by name, cards with their symbols
  function said(text) {
    return P.tableWords(text, st.replay.seats);
  }

  function irregularityText(x) {
    return "irregularity: " + x.kind.replace(/_/g, " ") + " by " + seatName(x.seat) +
      (x.cards && x.cards.length ? " " + x.cards.map(P.cardText).join(" ") : "") + (x.text ? ": " + x.text : "");
  }

  // a correction's reason; a seat reads it once the round is over (it may name cards)
  function whyText(reason) {
    return reason === null || reason === undefined ? "(the reason is shown when the round is over)" : reason;
  }

  // every event the sight may see, the current one marked; what a correction retracted is
  // struck through, with the correction's reason beside it
  function renderEvents() {
    const list = $("events");
    const R = st.replay;
    if (list.dataset.game !== st.game || Number(list.dataset.count) !== R.frames.length) {
      list.innerHTML = "";
      list.dataset.game = st.game;
      list.dataset.count = String(R.frames.length);
      const irr = {};
      for (const x of (R.report && R.report.irregularities) || []) irr[x.seq] = x;
      R.frames.forEach((fr, i) => {
        const li = el("li", "ev" + (fr.retracted ? " retracted" : "") + (fr.type === "irregularity" ? " irregularity" : "") +
          (fr.type === "correction" ? " correction" : ""));
        li.dataset.seq = String(fr.seq);
        li.appendChild(el("span", "seq", "seq " + fr.seq + " "));
        const x = irr[fr.seq];
        li.appendChild(el(fr.retracted ? "s" : "span", "what", x ? irregularityText(x) : fr.text));
        if (fr.retracted) {
          li.appendChild(el("span", "why", " retracted at seq " + fr.retracted.by + ": " + whyText(fr.retracted.reason)));
        }
        li.addEventListener("click", () => go(i));
        list.appendChild(li);
      });
    }
    const seq = R.frames[st.idx].seq;
    list.querySelectorAll("li.now").forEach((li) => li.classList.remove("now"));
    const cur = list.querySelector('li[data-seq="' + seq + '"]');
    if (cur) {
      cur.classList.add("now");
      const box = list.parentElement;
      if (box && (cur.offsetTop < box.scrollTop || cur.offsetTop > box.scrollTop + box.clientHeight - cur.offsetHeight)) {
        box.scrollTop = cur.offsetTop - box.clientHeight / 2;
      }
    }
  }

  // a round recorded by its score alone, in words: its score and what else the sheet says
  function scoreOnlyText(r) {
    const d = el("div", "score-only", "Recorded by its score alone: " + pair(r.score));
    const who = r.chooser !== undefined && r.chooser !== null ? r.chooser : r.maker;
    if (r.trump) {
      d.appendChild(el("span", null, " · trumps "));
      d.appendChild(suitSpan(r.trump, true));
      if (who !== undefined && who !== null) d.appendChild(el("span", null, " chosen by " + seatName(who)));
    } else if (who !== undefined && who !== null) {
      d.appendChild(el("span", null, " · played by " + seatName(who)));
    }
    if (Array.isArray(r.points)) d.appendChild(el("span", null, " · card points " + pair(r.points)));
    if (Array.isArray(r.roem) && r.roem.some((x) => x)) d.appendChild(el("span", null, " · roem " + pair(r.roem)));
    if (r.result && r.result !== "score_only") d.appendChild(el("span", null, " · " + r.result));
    d.appendChild(el("div", "note", "No deal and no tricks were recorded: there is no table to show."));
    return d;
  }

  function renderRecord(f) {
    const box = $("round-record");
    box.innerHTML = "";
    if (!f.round) return;
    const r = (st.replay.report.rounds || []).find((x) => x.round === f.round);
    if (!r) return;
    if (r.recorded === "score_only") box.appendChild(scoreOnlyText(r));
    if (r.recorded === "played" && r.hands_recorded === false) {
      const ruledEarly = r.ruling && r.result === "unfinished";
      box.appendChild(el("div", "no-hands", "Hands not recorded: " + (f.hands_known
        ? "the hands shown are rebuilt from the cards played later in the round; "
        : "each hand is known once the round's cards are all played; ") +
        (ruledEarly ? "the round was ruled before its last card, so the legality of its plays was never judged."
          : "the legality of every play is judged at the round's last card, so no violation shows before it.")));
    }
    for (const x of r.irregularities || []) {
      if (x.seq > f.seq) continue;
      const d = el("div", "irregularity", "seq " + x.seq + " · " + irregularityText(x));
      d.addEventListener("click", () => jumpSeq(x.seq));
      box.appendChild(d);
    }
  }

  function renderTiming() {
    const box = $("timing");
    box.innerHTML = "";
    const t = st.replay.timing;
    if (!t) return;
    const head = t.limit ? "Limit " + t.limit + " s per move: " + t.exceeded.length + " of " + t.moves + " moves over" :
      "No time limit set; longest move " + t.longest + " s";
    box.appendChild(el("div", null, head));
    if (t.clock) {
      box.appendChild(el("div", "clock", t.clock === "recorded_at" ?
        "Timed on the store's own clock (recorded_at)" : "Timed on the table's times (at): an imported record"));
    }
    if (t.exceeded.length) {
      const ul = el("ul");
      for (const x of t.exceeded) {
        const li = el("li", null, "seq " + x.seq + " · round " + x.round + " · " +
          (x.seat !== null && x.seat !== undefined ? seatName(x.seat) : x.player || "?") + " " + x.type + " took " + x.seconds + " s");
        li.addEventListener("click", () => jumpSeq(x.seq));
        ul.appendChild(li);
      }
      box.appendChild(ul);
    }
  }

  // ---------------------------------------------------------------- live

  function stopLive() {
    if (st.es) { st.es.abort(); st.es = null; }
    $("live-state").hidden = true;
    showUnseen(0);
  }

  // The stream is read with fetch, the token in the Authorization header (pages.js).
  function readStream(url, ctrl, onMessage) {
    return P.readStream(url, ctrl, onMessage, st.token);
  }

  function startLive() {
    stopLive();
    if (!st.game) return;
    const url = "/api/games/" + encodeURIComponent(st.game) + "/stream";
    const ctrl = new AbortController();
    const again = () => {
      clearTimeout(st.refetch);
      st.refetch = setTimeout(async () => {
        try {
          const before = st.replay ? st.replay.frames.length : 0;
          const atEnd = !st.replay || st.idx >= before - 1;
          const replay = await api("/api/games/" + encodeURIComponent(st.game) + "/replay");
          if (st.es !== ctrl) return;  // another game was opened meanwhile
          st.replay = replay;
          st.analysis = {};  // the head moved: a round's analysis may have changed, or be shown now
          fillRounds();
          const n = st.replay.frames.length;
          if (atEnd) go(n - 1);  // the reader follows the game
          else { showUnseen((st.unseen || 0) + Math.max(0, n - before)); go(st.idx); }
        } catch (e) { showError(e.message); }
      }, 150);
    };
    st.es = ctrl;
    $("live-state").hidden = false;
    again();  // following starts from the newest event, not from the next one to come
    readStream(url, ctrl, (m) => {
      if (m.event === "event" || m.event === "round_over") again();
      else if (m.event === "revoked") signOut(JSON.parse(m.data).message);
    })
      .catch((e) => { if (e.name !== "AbortError") showError(e.message); });
  }

  // ---------------------------------------------------------------- wiring

  function wire() {
    $("login").addEventListener("submit", (e) => {
      e.preventDefault();
      const t = $("token-input").value.trim();
      if (t) signIn(t);
    });
    $("logout").addEventListener("click", () => signOut(null));
    $("game-picker").addEventListener("change", (e) => { if (e.target.value) selectGame(e.target.value, null); });
    $("first").addEventListener("click", () => go(0));
    $("last").addEventListener("click", () => go(st.replay.frames.length - 1));
    $("prev").addEventListener("click", () => go(st.idx - 1));
    $("next").addEventListener("click", () => go(st.idx + 1));
    $("prev-trick").addEventListener("click", prevTrick);
    $("next-trick").addEventListener("click", nextTrick);
    $("slider").addEventListener("input", (e) => go(Number(e.target.value)));
    $("round-picker").addEventListener("change", (e) => jumpRound(Number(e.target.value)));
    $("new-events").addEventListener("click", () => go(st.replay.frames.length - 1));
    // a link pasted into an open tab: its token signs in, its game (and seq) is opened
    window.addEventListener("hashchange", () => {
      const h = hashParams();
      if (h.token) { start(); return; }
      if (!st.token || !h.game) return;
      const seq = h.seq !== null ? Number(h.seq) : null;
      if (h.game !== st.game || !st.replay) {
        const pick = $("game-picker");
        if (!Array.from(pick.options).some((o) => o.value === h.game)) {
          const o = el("option", null, h.game);
          o.value = h.game;
          pick.appendChild(o);
        }
        pick.value = h.game;
        selectGame(h.game, seq);
      } else if (seq !== null && st.replay.frames[st.idx].seq !== seq) {
        jumpSeq(seq);
      }
    });
    document.addEventListener("keydown", (e) => {
      if (!st.replay || ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
      if (e.key === "ArrowRight") { e.shiftKey ? nextTrick() : go(st.idx + 1); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { e.shiftKey ? prevTrick() : go(st.idx - 1); e.preventDefault(); }
      else if (e.key === "Home") { go(0); e.preventDefault(); }
      else if (e.key === "End") { go(st.replay.frames.length - 1); e.preventDefault(); }
    });
  }

  function start() {
    const h = hashParams();
    if (h.token) {
      localStorage.setItem(TOKEN_KEY, h.token);
      const p = new URLSearchParams(location.hash.replace(/^#/, ""));
      p.delete("token");
      history.replaceState(null, "", p.toString() ? "#" + p.toString() : location.pathname);
    }
    const t = localStorage.getItem(TOKEN_KEY);
    if (t) signIn(t); else $("login").hidden = false;
  }

  wire();
  start();
})();

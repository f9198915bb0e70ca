/* jaslog: a referee's round page, `round.html#game=ID&round=N`. Plain JavaScript.
 *
 * One round of one game, everything at once, for reading on screen or filing on paper: the
 * deal, the plays trick by trick, each violation and irregularity at its card, every ruling
 * with its reason, and the score as played against the score as ruled. It reads
 * GET /api/games/{id}/replay (and /api/games/{id} for the game's table and tournament, and
 * /api/games/{id}/analysis for the round's par and costly plays) and shows what the service
 * sends for the token's role: it computes no rule and decides no visibility (when the
 * analysis may not be seen yet, the service's sentence says why).
 */
(function () {
  "use strict";

  const P = window.jaslogPages;
  const { el, link, cardEl, backEl, suitSpan, pair } = P;
  const $ = (id) => document.getElementById(id);
  //: events that are the round's own moves or decisions, shown in their own sections
  const NOT_NOTES = new Set(["game_started", "dealt", "bid", "play", "ruling"]);

  let R = null; // the replay

  function seatName(s) {
    if (s === null || s === undefined) return "–";
    return (R.seats[s] || "?") + " (" + s + ")";
  }

  function sideName(k) {
    if (R.scoring === "teams") {
      return R.seats.filter((_, i) => i % 2 === k).join(" & ");
    }
    return R.seats[k] || String(k);
  }

  function scoreText(xs) {
    return (xs || []).map((x, k) => sideName(k) + " " + x).join(" · ");
  }

  function irregularityText(x) {
    return x.kind.replace(/_/g, " ") + " by " + seatName(x.seat) +
      (x.cards && x.cards.length ? " " + x.cards.map(P.cardText).join(" ") : "") + (x.text ? ": " + x.text : "");
  }

  function fact(dl, name, value) {
    dl.appendChild(el("dt", null, name));
    const dd = el("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
    dl.appendChild(dd);
  }

  // ---------------------------------------------------------------- loading

  async function load() {
    P.showError(null);
    const h = P.hashParams();
    const game = h.get("game");
    if (!game) { P.showError("no game: open round.html#game=ID&round=N"); return; }
    try {
      await P.whoami();
    } catch (e) {
      P.showError(e.status === 401 ? e.message + " — sign in with a token" : e.message);
      if (e.status === 401) $("login").hidden = false;
      return;
    }
    let detail = null;
    try {
      R = await P.api("/api/games/" + encodeURIComponent(game) + "/replay");
      detail = await P.api("/api/games/" + encodeURIComponent(game));
    } catch (e) {
      P.showError(game + ": " + e.message);
      return;
    }
    const rounds = R.report.rounds || [];
    const want = Number(h.get("round"));
    const r = rounds.find((x) => x.round === want) ||
      (h.get("round") ? null : rounds.find((x) => (x.rulings || []).length) || rounds[0]);
    if (!r) {
      P.showError(game + ": round " + h.get("round") + " is not in the record " +
        (R.view === "full" ? "" : "that this token may see ") + "(" + rounds.length + " rounds)");
      return;
    }
    render(game, r, detail);
    followLive(game, detail);
  }

  // a game in play is followed (its stream): the round drawn again as events come, with
  // nothing to tick; a finished game, or another game opened, is not followed any more
  let following = null;
  function followLive(game, detail) {
    const live = !!detail && detail.finished === false;
    if (following && (following.game !== game || !live)) { following.stop(); following = null; }
    $("live-state").hidden = !live;
    if (live && !following) {
      following = { game: game, stop: P.follow("/api/games/" + encodeURIComponent(game) + "/stream", load) };
    }
  }

  // ---------------------------------------------------------------- drawing

  function render(game, r, detail) {
    const N = r.round;
    const frames = R.frames.filter((f) => f.round === N);
    const meta = (detail && detail.meta) || {};
    $("main").hidden = false;
    document.title = "jaslog · " + game + " · round " + N;
    $("title").textContent = "Game " + game + " · round " + N;
    const bits = [R.ruleset, R.seats.map((p, i) => p + " (" + i + ")").join(", ")];
    if (meta.event) bits.push(meta.event);
    if (meta.place) bits.push(meta.place);
    if (meta.tournament) bits.push("tournament " + meta.tournament + (meta.round ? ", round " + meta.round : ""));
    if (meta.table) bits.push("table " + meta.table);
    $("game-line").textContent = bits.join(" · ");
    $("view-note").textContent = R.view === "full" ? "Referee view: every hand." :
      R.view === "seat" ? "Seat view of " + seatName(R.seat) + ": what this seat may see." :
      "Public view: finished rounds only.";
    renderNav(game, r, frames, meta);
    renderSummary(r, frames);
    renderScore(r);
    renderRulings(r);
    const violations = (R.report.violations || []).filter((v) => v.round === N);
    renderDeal(r, frames);
    renderTricks(r, frames, violations);
    renderViolations(violations);
    renderIrregularities(r);
    loadAnalysis(game, N);
    $("printed").textContent = "jaslog · game " + game + " · round " + N + " · " +
      (R.view === "full" ? "referee view" : R.view + " view") + " · printed " +
      new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function renderNav(game, r, frames, meta) {
    $("to-viewer").href = P.gameHref(game, frames.length ? frames[0].seq : null);
    $("to-print").href = "/static/print.html#" + new URLSearchParams({ game: game }).toString();
    if (meta.tournament) {
      const a = $("to-tournament");
      a.href = P.tournamentHref(meta.tournament);
      a.textContent = "tournament " + meta.tournament;
      a.hidden = false;
    }
    const rounds = (R.report.rounds || []).map((x) => x.round);
    const i = rounds.indexOf(r.round);
    const prev = $("prev-round");
    const next = $("next-round");
    prev.hidden = i <= 0;
    next.hidden = i < 0 || i >= rounds.length - 1;
    if (!prev.hidden) prev.href = P.roundHref(game, rounds[i - 1]);
    if (!next.hidden) next.href = P.roundHref(game, rounds[i + 1]);
  }

  function renderSummary(r, frames) {
    const dl = $("summary");
    dl.innerHTML = "";
    fact(dl, "Dealer", seatName(r.dealer));
    if (r.trump) {
      const t = el("span");
      t.appendChild(suitSpan(r.trump, true));
      const who = r.chooser !== undefined ? r.chooser : r.maker;
      if (who !== null && who !== undefined) t.appendChild(el("span", null, ", chosen by " + seatName(who)));
      fact(dl, "Trump", t);
    }
    const last = frames.length ? frames[frames.length - 1] : null;
    if (last && last.bids && last.bids.length) {
      fact(dl, "Bids", last.bids.map((b) => seatName(b.seat) + " " + b.call).join(", "));
    }
    fact(dl, "Recorded", r.recorded === "score_only" ? "by its score alone" :
      "card by card" + (r.hands_recorded ? ", the hands as dealt" : ", the hands not recorded"));
    if (r.hidden) fact(dl, "In play", "the round is not over: only what this token may see");
    if (r.claim) fact(dl, "Claimed", claimText(r.claim));
    fact(dl, "Result", r.result || "–");
    if (last && last.tricks_won) fact(dl, "Tricks won", pair(last.tricks_won));
    if (r.points) fact(dl, "Card points", pair(r.points));
    if (r.roem) {
      let t = pair(r.roem);
      if (r.roem_on_table && pair(r.roem_on_table) !== pair(r.roem)) t += " (on the table " + pair(r.roem_on_table) + ")";
      fact(dl, "Roem claimed", t);
    }
  }

  // a claim of the rest that ended the play: who, what it gave, the solver's verdict
  function claimText(c) {
    const tricks = c.tricks + (c.tricks === 1 ? " trick" : " tricks");
    const verdict = c.guaranteed === true ? " · sound" : c.guaranteed === false ?
      " · not guaranteed against every defence (claim_not_guaranteed)" : "";
    return seatName(c.seat) + (c.gives === "rest_to_claimer" ? " claimed " : " conceded ") +
      "the rest at seq " + c.seq + ": " + tricks + " from trick " + c.trick + ", " + c.points +
      " card points to " + seatName(c.taker) + (R.seats.length === 2 ? "" : "'s side") + verdict;
  }

  function renderScore(r) {
    const t = $("score");
    t.innerHTML = "";
    const head = el("tr");
    ["", "score", "why"].forEach((x) => head.appendChild(el("th", null, x)));
    t.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    const row = (cls, what, score, why) => {
      const tr = el("tr", cls);
      tr.appendChild(el("th", null, what));
      tr.appendChild(el("td", "score", score));
      tr.appendChild(el("td", "why", why || ""));
      body.appendChild(tr);
      return tr;
    };
    row("played", r.recorded === "score_only" ? "As recorded" : "As played", pair(r.score),
      (r.result || "") + (r.score ? " · " + scoreText(r.score) : ""));
    for (const x of r.rulings || []) {
      const tr = row("ruled" + (x.superseded ? " superseded" : ""), "Ruled at seq " + x.seq, "", rulingWhy(x.reason) +
        (x.after_end ? " · after the game ended" : "") + (x.superseded ? " · superseded by a later ruling" : ""));
      tr.querySelector("td.score").appendChild(el(x.superseded ? "s" : "span", null, pair(x.score)));
    }
    row("final", "Counts", pair(r.final), r.rulings && r.rulings.length ? "the last ruling" : "as played");
    if (r.totals) row("totals", "Game total after the round", pair(r.totals), scoreText(r.totals));
    t.appendChild(body);
  }

  // the public reads a ruling's reason once the game is over (null until then)
  function rulingWhy(reason) {
    return reason === null || reason === undefined ? "(its reason is shown when the game is over)" : reason;
  }

  function renderRulings(r) {
    const ol = $("rulings");
    ol.innerHTML = "";
    const rs = r.rulings || [];
    if (!rs.length) { ol.appendChild(el("li", "empty", "no ruling on this round")); return; }
    for (const x of rs) {
      const li = el("li", "ruling" + (x.superseded ? " superseded" : " counts"));
      li.dataset.seq = String(x.seq);
      li.appendChild(el(x.superseded ? "s" : "strong", "ruled", "ruled " + pair(x.score)));
      li.appendChild(el("span", "reason", " — " + rulingWhy(x.reason)));
      li.appendChild(el("span", "where", " (seq " + x.seq + (x.after_end ? ", after the game ended" : "") +
        (x.superseded ? ", superseded" : ", counts") + ")"));
      ol.appendChild(li);
    }
  }

  function renderDeal(r, frames) {
    const box = $("deal");
    box.innerHTML = "";
    const dealt = frames.find((f) => f.type === "dealt");
    if (!dealt) {
      box.appendChild(el("p", "empty", r.recorded === "score_only" ?
        "recorded by its score alone: no deal and no tricks in the record" : "no deal in the record"));
      return;
    }
    const x = dealt.extra || {};
    const extras = [];
    if (x.turn_up) extras.push("turn-up " + P.cardText(x.turn_up));
    if (x.bottom) extras.push("stock bottom " + P.cardText(x.bottom));
    if (extras.length) box.appendChild(el("p", "meta-line", extras.join(" · ")));
    for (let s = 0; s < R.seats.length; s++) {
      const row = el("div", "deal-seat");
      row.dataset.seat = String(s);
      row.appendChild(el("span", "who", seatName(s) + (R.scoring === "teams" ? " · team " + (s % 2 + 1) : "")));
      const hand = el("span", "hand");
      const cards = dealt.hands ? dealt.hands[s] : null;
      if (cards) {
        for (const c of cards) hand.appendChild(cardEl(c));
      } else if (!dealt.hands_known) {
        hand.appendChild(el("span", "note", "hand not recorded"));
      } else {
        for (let k = 0; k < (dealt.counts ? dealt.counts[s] : 0); k++) hand.appendChild(backEl());
        hand.appendChild(el("span", "note", " not shown to this token"));
      }
      row.appendChild(hand);
      box.appendChild(row);
    }
  }

  // the round's events in tricks: each trick's cards in the order played, and beside them
  // whatever else happened during the trick (violations at their card, irregularities,
  // corrections, claims of roem, notes)
  function renderTricks(r, frames, violations) {
    const t = $("tricks");
    t.innerHTML = "";
    const groups = new Map();
    const group = (k) => {
      if (!groups.has(k)) groups.set(k, { cards: [], notes: [] });
      return groups.get(k);
    };
    const irr = {};
    for (const x of r.irregularities || []) irr[x.seq] = x;
    for (const f of frames) {
      const k = f.trick || 0;
      if (f.type === "play") {
        group(k).cards.push({ seq: f.seq, seat: seatOfPlay(f), card: cardOfPlay(f), retracted: f.retracted });
      } else if (!NOT_NOTES.has(f.type)) {
        const x = irr[f.seq];
        group(k).notes.push({ seq: f.seq, cls: f.type, text: x ? "irregularity: " + irregularityText(x) : f.text });
      }
    }
    for (const v of violations) {
      const g = group(v.trick || 0);
      const c = v.card ? g.cards.find((x) => x.seq === v.seq && x.card === v.card) : null;
      if (c) c.violation = v;
      g.notes.push({ seq: v.seq, cls: "violation", text: "✗ " + v.rule + ": " + P.tableWords(v.message, R.seats) });
    }
    if (!groups.size) {
      t.appendChild(el("caption", "empty", r.recorded === "score_only" ? "no tricks: recorded by its score alone" :
        "no card played yet"));
      return;
    }
    const head = el("tr");
    ["Trick", "Cards, in the order played", "Won by", "Points", "Roem", "During the trick"].forEach((x) => head.appendChild(el("th", null, x)));
    t.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    for (const k of [...groups.keys()].sort((a, b) => a - b)) {
      const g = groups.get(k);
      const done = k > 0 ? (r.tricks || [])[k - 1] : null;
      const tr = el("tr", "trick-row" + (g.notes.some((n) => n.cls === "violation") ? " bad" : ""));
      tr.dataset.trick = String(k);
      tr.appendChild(el("td", "n", k ? String(k) : "before the first card"));
      const td = el("td", "cards");
      const cards = td.appendChild(el("div", "in-order"));
      for (const c of g.cards) {
        const cell = el("span", "played" + (c.retracted ? " retracted" : ""));
        cell.dataset.seq = String(c.seq);
        if (c.card) {
          cell.appendChild(cardEl(c.card, c.violation ? "violation" : done && done.winner === c.seat && !c.retracted ? "winner" : ""));
        }
        cell.appendChild(el(c.retracted ? "s" : "span", "by", (R.seats[c.seat] || "?") + " · seq " + c.seq));
        if (c.retracted) {
          cell.appendChild(el("span", "why", "retracted at seq " + c.retracted.by + ": " +
            (c.retracted.reason === null || c.retracted.reason === undefined ? "(the reason is shown when the round is over)" : c.retracted.reason)));
        }
        cards.appendChild(cell);
      }
      tr.appendChild(td);
      const labelled = (cls, label, text) => { const x = el("td", cls, text); x.dataset.label = label; return x; };
      tr.appendChild(labelled("won", "won by", done ? seatName(done.winner) : ""));
      tr.appendChild(labelled("num", "points", done ? done.points : ""));
      tr.appendChild(labelled("num", "roem", done && done.roem ? done.roem + (done.roem_on_table !== undefined && done.roem_on_table !== done.roem ? " (on the table " + done.roem_on_table + ")" : "") : ""));
      const notes = el("td", "notes");
      for (const n of g.notes.sort((a, b) => a.seq - b.seq)) {
        const d = el("div", "note " + n.cls, "seq " + n.seq + " · " + n.text);
        d.dataset.seq = String(n.seq);
        notes.appendChild(d);
      }
      tr.appendChild(notes);
      body.appendChild(tr);
    }
    t.appendChild(body);
  }

  // a play's seat (the frame's text names it) and card: the frame's table holds the trick
  // so far, the play its last card; a retracted play's card is the one the report's list of
  // retracted events gives (none while the service keeps it back)
  function seatOfPlay(f) {
    const m = /\((\d+)\) plays/.exec(f.text);
    return m ? Number(m[1]) : null;
  }

  function cardOfPlay(f) {
    if (f.retracted) {
      const x = (R.report.retracted || []).find((y) => y.seq === f.seq);
      return x && x.event && x.event.card ? x.event.card : null;
    }
    const table = f.table || [];
    return table.length ? table[table.length - 1].card : null;
  }

  function renderViolations(vs) {
    const ol = $("violations");
    ol.innerHTML = "";
    if (!vs.length) {
      ol.appendChild(el("li", "empty", "none" + (R.view === "full" ? "" : " that this token may see")));
      return;
    }
    for (const v of vs) {
      const li = el("li");
      li.dataset.seq = String(v.seq);
      li.appendChild(el("span", "rule", v.rule));
      li.appendChild(el("span", null, ": " + P.tableWords(v.message, R.seats) + " "));
      li.appendChild(el("span", "where", "(trick " + (v.trick || "–") + ", " + seatName(v.seat) +
        (v.card ? ", " + P.cardText(v.card) : "") + ", seq " + v.seq + ")"));
      ol.appendChild(li);
    }
  }

  function renderIrregularities(r) {
    const ol = $("irregularities");
    ol.innerHTML = "";
    const xs = r.irregularities || [];
    if (!xs.length) { ol.appendChild(el("li", "empty", "none recorded")); return; }
    for (const x of xs) {
      const li = el("li", "irregularity");
      li.dataset.seq = String(x.seq);
      li.appendChild(el("span", null, irregularityText(x) + " "));
      for (const c of x.cards || []) li.appendChild(cardEl(c, "small"));
      li.appendChild(el("span", "where", " (seq " + x.seq + ")"));
      ol.appendChild(li);
    }
  }

  // ---------------------------------------------------------------- the analysis

  // the round's analysis (GET /api/games/{id}/analysis): its par beside the result as
  // played, and each costly play, in the list and as a badge on its card in the tricks; or
  // the service's reason when there is none to show (no hands recorded, a round this token
  // may not see yet)
  async function loadAnalysis(game, N) {
    const note = $("analysis");
    note.className = "empty";
    note.hidden = false;
    note.textContent = "analysis: asking the service…";
    $("par").hidden = true;
    $("costly").hidden = true;
    $("board-link").hidden = true;
    const shown = R;
    let a = null;
    try {
      a = await P.api("/api/games/" + encodeURIComponent(game) + "/analysis?round=" + N);
    } catch (e) {
      if (R !== shown) return;
      note.textContent = "analysis: " + (e.status === 403 ? "not shown: " : "not available: ") +
        P.tableWords(e.message, R.seats);
      return;
    }
    if (R !== shown) return;
    renderAnalysis(a);
    if (!a.no_par) {
      $("to-board").href = "/static/board.html#" + new URLSearchParams({ game: game, round: String(N), pos: "0" }).toString();
      $("board-link").hidden = false;
    }
  }

  function renderAnalysis(a) {
    const note = $("analysis");
    if (a.no_par) {
      note.textContent = P.parText(a);
      return;
    }
    note.hidden = true;
    const t = $("par");
    t.innerHTML = "";
    const head = el("tr");
    ["", "result", "score", "for " + (a.sides ? a.sides[0] : "the playing side")].forEach((x) => head.appendChild(el("th", null, x)));
    t.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    const row = (cls, what, result, score, diff) => {
      const tr = el("tr", cls);
      tr.appendChild(el("th", null, what));
      tr.appendChild(el("td", "result", result || "–"));
      tr.appendChild(el("td", "score", score));
      tr.appendChild(el("td", "num", diff === null || diff === undefined ? "" : P.signed(diff)));
      body.appendChild(tr);
    };
    row("par", "Par (perfect play, every hand known)", a.par_result, "", a.par);
    row("played", "As played", a.result, pair(a.score), a.difference);
    t.appendChild(body);
    t.hidden = false;
    const ol = $("costly");
    ol.innerHTML = "";
    const xs = a.costly || [];
    if (!xs.length) {
      ol.appendChild(el("li", "empty", "no costly play: every card kept the par"));
    }
    for (const x of xs) {
      const li = el("li", "costly-play" + (P.costlyClass(x) ? " " + P.costlyClass(x) : ""));
      li.dataset.seq = String(x.seq);
      li.appendChild(cardEl(x.card, "small"));
      li.appendChild(el("span", null, " " + P.costlyText(x, seatName) + " "));
      li.appendChild(el("span", "where", "(trick " + x.trick + ", seq " + x.seq + ")"));
      ol.appendChild(li);
      const card = document.querySelector('#tricks .played[data-seq="' + x.seq + '"] .card');
      if (card && !card.querySelector(".loss-badge")) card.appendChild(P.lossBadge(x));
    }
    ol.hidden = false;
  }

  function start() {
    $("print").addEventListener("click", () => window.print());
    P.wireLogin(load);
    window.addEventListener("hashchange", load);
    if (P.token()) load(); else $("login").hidden = false;
  }

  start();
})();

/* The scorer's pad (/record/{game}, /record for a new game). Plain JavaScript.
 *
 * The pad knows no rule: whose turn it is and what is legal come from
 * GET /api/games/{id}/turn; what a tap or a word records comes from the game's recorder
 * (POST /api/games/{id}/pad/words, which asks its questions back). Every event gets its
 * id (a UUID) here and waits in a queue kept in localStorage until the service has stored
 * it (POST /api/games/{id}/pad/events, idempotent by id), so nothing is lost on bad wifi:
 * offline the pad keeps recording cards (the seat chosen here), and sends them in order
 * when the connection is back. A conflict (someone else recorded meanwhile) shows both
 * versions and overwrites nothing.
 */
(function () {
  "use strict";

  const TOKEN_KEY = "jaslog.token";
  const LANG_KEY = "jaslog.pad.lang";
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const WORDS = {
    en: {
      games: "games", new_game: "New game", ruleset: "Ruleset", seats: "Seats", dealer: "Dealer",
      options: "Options (KEY=VALUE, one a line)", table: "Table", event: "Event", place: "Place",
      game_id: "Game id (optional)", start: "Start", tap_hands: "Tap the hands in",
      server_deal: "Server deal", unseen: "Hands not seen", fix: "Fix", claim: "Claim",
      concede: "Concede", score: "Score", irregularity: "Irregularity", note: "Note",
      ruling: "Ruling", words: "Words…", queued: "Waiting to be sent",
      conflict: "Someone else recorded meanwhile", theirs: "Stored", mine: "Mine (not stored)",
      mine_after: "Record mine after theirs", drop_mine: "Drop mine", sheet: "Score sheet",
      certificate: "Certificate", print: "Print the sheet", recent: "Last events", yes: "Yes",
      no: "No", ok: "OK", cancel: "Cancel", online: "online", offline: "offline",
      queued_n: (n) => n + " waiting", seat: "seat", trump: "trump", deals: "deals", plays: "plays",
      bids: "bids", due: "due", over: "the game is over", round: "round", totals: "totals",
      breaking: "Against the rules (recorded as the fact it is)",
      roem_claim: (n) => "Roem " + n, offline_note: "offline: cards are kept here and sent when the connection is back; choose the seat",
      may_not: "this token may not record this game", refused: "refused",
      hand_of: "hand of", pick: (n) => "tap " + n + " card" + (n === 1 ? "" : "s"),
      reason: "reason", text: "text", kind: "kind", scores: "scores",
      no_token: "no token: open this page with #token=jl_..."
    },
    nl: {
      games: "spellen", new_game: "Nieuw spel", ruleset: "Spelregels", seats: "Spelers", dealer: "Gever",
      options: "Opties (SLEUTEL=WAARDE, één per regel)", table: "Tafel", event: "Evenement",
      place: "Plaats", game_id: "Spel-id (mag leeg)", start: "Begin", tap_hands: "Handen intikken",
      server_deal: "Server deelt", unseen: "Handen niet gezien", fix: "Herstel", claim: "Claim",
      concede: "Geef op", score: "Score", irregularity: "Onregelmatigheid", note: "Notitie",
      ruling: "Uitspraak", words: "Woorden…", queued: "Wacht op verzenden",
      conflict: "Iemand anders heeft intussen geschreven", theirs: "Opgeslagen",
      mine: "Van mij (niet opgeslagen)", mine_after: "Mijne erna schrijven", drop_mine: "Mijne weggooien",
      sheet: "Scorebriefje", certificate: "Certificaat", print: "Briefje afdrukken",
      recent: "Laatste gebeurtenissen", yes: "Ja", no: "Nee", ok: "OK", cancel: "Annuleer",
      online: "verbonden", offline: "geen verbinding", queued_n: (n) => n + " wachtend",
      seat: "stoel", trump: "troef", deals: "geeft", plays: "speelt", bids: "biedt", due: "aan de beurt",
      over: "het spel is uit", round: "ronde", totals: "totaal",
      breaking: "Tegen de regels (vastgelegd zoals het gebeurde)",
      roem_claim: (n) => "Roem " + n, offline_note: "geen verbinding: kaarten worden hier bewaard en verstuurd zodra er weer verbinding is; kies de stoel",
      may_not: "dit token mag dit spel niet schrijven", refused: "geweigerd",
      hand_of: "hand van", pick: (n) => "tik " + n + " kaart" + (n === 1 ? "" : "en"),
      reason: "reden", text: "tekst", kind: "soort", scores: "scores",
      no_token: "geen token: open deze pagina met #token=jl_..."
    }
  };

  const $ = (id) => document.getElementById(id);
  let lang = localStorage.getItem(LANG_KEY) ||
    ((navigator.language || "en").toLowerCase().startsWith("nl") ? "nl" : "en");
  const t = (key, ...a) => { const w = (WORDS[lang] || WORDS.en)[key]; return typeof w === "function" ? w(...a) : (w || key); };

  function token() {
    const m = location.hash.match(/token=([^&]+)/);
    if (m) { localStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1])); }
    return localStorage.getItem(TOKEN_KEY) || "";
  }

  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  class NetDown extends Error {}

  async function api(path, body) {
    let r;
    try {
      r = await fetch(path, {
        method: body === undefined ? "GET" : "POST",
        headers: Object.assign({ Authorization: "Bearer " + token() },
          body === undefined ? {} : { "Content-Type": "application/json" }),
        body: body === undefined ? undefined : JSON.stringify(body)
      });
    } catch (e) {
      throw new NetDown(String(e));
    }
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) {
      const err = new Error((data && data.message) || ("HTTP " + r.status));
      err.status = r.status; err.data = data || {};
      throw err;
    }
    return data;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function cardLabel(c) { const s = c.slice(-1); return c.slice(0, -1) + (SUITS[s] || s); }
  function showError(msg) { const e = $("error"); e.textContent = msg || ""; e.hidden = !msg; }

  function translate() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-t]").forEach((n) => { n.textContent = t(n.dataset.t); });
    $("lang").textContent = lang === "nl" ? "EN" : "NL";
  }

  // ------------------------------------------------------------------ the pad's state

  const gameId = decodeURIComponent((location.pathname.match(/^\/record\/([^/]+)/) || [])[1] || "");
  const QKEY = "jaslog.pad.queue." + gameId;
  const pad = {
    game: gameId, turn: null, online: navigator.onLine !== false, sending: false,
    conflict: null, offlineSeat: null, offlineCards: 0, clockSkew: 0, hold: false
  };

  function queue() { try { return JSON.parse(localStorage.getItem(QKEY) || "[]"); } catch (e) { return []; } }
  function saveQueue(q) { localStorage.setItem(QKEY, JSON.stringify(q)); renderQueue(); }
  function queuedEvents() { return queue().reduce((n, b) => n + b.events.length, 0); }

  // the next seq as the pad knows it: the service's, and what waits in the queue after it
  function nextSeq() {
    const q = queue();
    if (q.length) { const last = q[q.length - 1]; return last.expected_seq + last.events.length; }
    return pad.turn ? pad.turn.next_seq : 1;
  }

  function nowStamp() {
    return new Date(Date.now() + pad.clockSkew).toISOString();
  }

  // events to record: each gets its id and the time of the tap, then waits in the queue
  function enqueue(events) {
    const q = queue();
    const batch = { expected_seq: nextSeq(), events: events.map((e) => {
      const x = Object.assign({}, e);
      delete x.game; delete x.seq;
      if (!x.id) x.id = uuid();
      if (!x.at) x.at = nowStamp();
      return x;
    }) };
    q.push(batch);
    saveQueue(q);
    flush();
  }

  async function flush() {
    if (pad.sending || pad.conflict) return;
    pad.sending = true;
    try {
      for (;;) {
        const q = queue();
        if (!q.length) break;
        const b = q[0];
        let res;
        try {
          res = await api("/api/games/" + encodeURIComponent(pad.game) + "/pad/events",
            { expected_seq: b.expected_seq, events: b.events });
        } catch (e) {
          if (e instanceof NetDown) { setOnline(false); return; }
          if (e.status === 409 && e.data.code === "conflict") { await showConflict(b, e.data); return; }
          // a refusal by the rules: it is shown, not stored, and what waits after it
          // moves up into its place
          showError(t("refused") + ": " + eventText(b.events[0]) + ": " + e.message);
          q.shift();
          q.forEach((x) => { x.expected_seq -= b.events.length; });
          saveQueue(q);
          continue;
        }
        setOnline(true);
        const rest = queue();
        if (rest.length && rest[0].events[0].id === b.events[0].id) rest.shift();
        saveQueue(rest);
        if (res.violations && res.violations.length) {
          showError(res.violations.map((v) => v.rule + ": " + v.message).join("; "));
        }
      }
      await refresh();
    } finally {
      pad.sending = false;
    }
  }

  function setOnline(on) {
    pad.online = on;
    const n = $("net");
    n.className = "net " + (on ? "online" : "offline");
    const waiting = queuedEvents();
    n.textContent = t(on ? "online" : "offline") + (waiting ? " · " + t("queued_n", waiting) : "");
    if (!on && pad.offlineSeat === null && pad.turn) pad.offlineSeat = pad.turn.turn;
    render();
  }

  function renderQueue() {
    const q = queue();
    $("queue-box").hidden = !q.length;
    const ol = $("queue"); ol.textContent = "";
    q.forEach((b) => b.events.forEach((e) => ol.appendChild(el("li", "", eventText(e)))));
    setNet();
  }

  function setNet() {
    const n = $("net");
    const waiting = queuedEvents();
    n.textContent = t(pad.online ? "online" : "offline") + (waiting ? " · " + t("queued_n", waiting) : "");
  }

  function eventText(e) {
    const who = e.seat !== undefined && pad.turn ? pad.turn.seats[e.seat] + " " : "";
    if (e.type === "play") return who + cardLabel(e.card);
    if (e.type === "bid") return who + "bid " + e.call;
    if (e.type === "dealt") return "deal" + (e.hands ? "" : " (unseen)");
    return who + e.type + (e.call ? " " + e.call : "") + (e.retracts ? " " + e.retracts.join(",") : "");
  }

  async function showConflict(batch, data) {
    // both lists are filled before the panel shows: whoever looks sees it whole
    pad.conflict = { batch, actual: data.actual };
    const theirs = $("theirs"); theirs.textContent = "";
    try {
      const got = await api("/api/games/" + encodeURIComponent(pad.game) + "/events?since=" + batch.expected_seq);
      got.events.forEach((e) => theirs.appendChild(el("li", "", "seq " + e.seq + ": " + eventText(e))));
    } catch (e) { theirs.appendChild(el("li", "", e.message)); }
    const mine = $("mine"); mine.textContent = "";
    queue().forEach((b) => b.events.forEach((e) => mine.appendChild(el("li", "", eventText(e)))));
    $("conflict").hidden = false;
  }

  function resolveConflict(keepMine) {
    const c = pad.conflict;
    if (!c) return;
    let q = queue();
    if (keepMine) {
      let seq = c.actual;
      q = q.map((b) => { const x = Object.assign({}, b, { expected_seq: seq }); seq += b.events.length; return x; });
    } else {
      q = [];
    }
    pad.conflict = null;
    $("conflict").hidden = true;
    saveQueue(q);
    flush();
  }

  // ------------------------------------------------------------------ asking the recorder

  const dialog = $("ask");

  // one question of the recorder: yes/no, cards to tap (a hand of a deal), or text
  function ask(prompt, shown) {
    return new Promise((resolve) => {
      $("ask-text").textContent = prompt;
      $("ask-shown").textContent = (shown || []).join("\n");
      const yn = /\[y\/N\]/.test(prompt);
      const many = prompt.match(/\((\d+) cards/);
      const oneCard = !many && /card\b/i.test(prompt) && !/cards/.test(prompt);
      const need = many ? parseInt(many[1], 10) : (oneCard ? 1 : 0);
      const box = $("ask-cards"); box.textContent = "";
      const picked = [];
      const input = $("ask-input");
      input.value = "";
      input.hidden = yn || need > 0;
      $("ask-yes").hidden = !yn; $("ask-no").hidden = !yn; $("ask-ok").hidden = yn;
      if (/unseen/.test(prompt)) {
        const b = el("button", "", t("unseen")); b.type = "button";
        b.onclick = () => { input.value = "unseen"; dialog.close("ok"); };
        box.appendChild(b);
      }
      if (need) {
        const taken = pad.dealTaken || new Set();
        (pad.turn ? pad.turn.pack : []).forEach((c) => {
          const b = el("button", "card" + ("HD".includes(c.slice(-1)) ? " red" : "") + (taken.has(c) ? " taken" : ""), cardLabel(c));
          b.type = "button"; b.dataset.card = c;
          b.onclick = () => {
            const i = picked.indexOf(c);
            if (i >= 0) { picked.splice(i, 1); b.classList.remove("picked"); }
            else { picked.push(c); b.classList.add("picked"); }
            input.value = picked.join(" ");
            if (picked.length === need) { picked.forEach((x) => taken.add(x)); pad.dealTaken = taken; dialog.close("ok"); }
          };
          box.appendChild(b);
        });
      }
      dialog.onclose = () => {
        const v = dialog.returnValue;
        if (v === "yes") resolve("y");
        else if (v === "no") resolve("n");
        else if (v === "ok") resolve(input.value);
        else resolve(null);
      };
      dialog.showModal();
    });
  }

  // what the recorder makes of a line, its questions asked here; the events are queued
  async function words(text, answers) {
    pad.busy = (pad.busy || 0) + 1;
    try { return await asked(text, answers || []); } finally { pad.busy -= 1; }
  }

  async function asked(text, answers) {
    showError("");
    for (;;) {
      let res;
      try {
        res = await api("/api/games/" + encodeURIComponent(pad.game) + "/pad/words",
          { text, answers, expected_seq: nextSeq() });
      } catch (e) {
        if (e instanceof NetDown) { setOnline(false); showError(t("offline_note")); return null; }
        if (e.status === 409) { await refresh(); showError(e.message); return null; }
        showError(e.message);
        return null;
      }
      if (res.ask) {
        const a = await ask(res.ask, res.shown);
        if (a === null) { pad.dealTaken = null; return null; }
        answers = answers.concat([a]);
        continue;
      }
      pad.dealTaken = null;
      if (res.events && res.events.length) enqueue(res.events);
      return res.events;
    }
  }

  // ------------------------------------------------------------------ drawing the table

  function seatName(s) { return pad.turn ? pad.turn.seats[s] + " (" + s + ")" : String(s); }

  function render() {
    const tu = pad.turn;
    if (!tu) return;
    $("title").textContent = tu.title + " · " + tu.game;
    const offline = !pad.online;
    let due;
    if (!tu.may_record) due = t("may_not");
    else if (offline) due = t("offline_note");
    else if (tu.expects === "over") due = t("over");
    else if (tu.expects === "deal") due = seatName(tu.turn) + " " + t("deals") + " (" + t("round") + " " + (tu.round + 1) + ")";
    else if (tu.expects === "play") due = seatName(tu.turn) + " " + t("plays");
    else due = seatName(tu.turn) + ": " + tu.expects;
    $("due").textContent = due;
    // what the recorder takes now, in its words (a turned card, a sequence: "Words…")
    const acc = $("accepted"); acc.textContent = "";
    if (!offline && tu.expects !== "play") (tu.accepted || []).forEach((x) => acc.appendChild(el("li", "", x)));

    // the seat chooser: offline, a card is recorded for the seat chosen here
    const sp = $("seat-pick"); sp.textContent = ""; sp.hidden = !offline;
    tu.seats.forEach((name, s) => {
      const b = el("button", "", name); b.type = "button"; b.dataset.seat = s;
      b.setAttribute("aria-pressed", String(pad.offlineSeat === s));
      b.onclick = () => { pad.offlineSeat = s; localStorage.setItem(SKEY, String(s)); render(); };
      sp.appendChild(b);
    });

    const tr = $("trick"); tr.textContent = "";
    (tu.table || []).forEach((p) => tr.appendChild(el("span", "", tu.seats[p.seat] + " " + cardLabel(p.card))));
    if (tu.trump) tr.appendChild(el("span", "trump", t("trump") + " " + (SUITS[tu.trump] || tu.trump)));

    // calls, knocks and the like the rules take now (each tried by the service)
    const ac = $("actions"); ac.textContent = "";
    const more = $("actions-breaking"); more.textContent = "";
    $("actions-more").hidden = offline || !(tu.actions || []).some((a) => a.breaks.length);
    if (!offline) {
      (tu.actions || []).forEach((a) => {
        const field = Object.keys(a).find((k) => !["type", "seat", "breaks"].includes(k));
        const label = (a.type === "bid" ? "" : a.type.replace("_", " ") + " ") + (field ? (SUITS[a[field]] || a[field]) : "") +
          (a.type !== "bid" || tu.actions.some((x) => x.seat !== a.seat) ? " · " + tu.seats[a.seat] : "");
        const b = el("button", "action" + (a.breaks.length ? " breaks" : ""), label.trim());
        b.type = "button"; b.dataset.type = a.type; if (field) b.dataset.value = a[field];
        b.onclick = async () => {
          if (a.breaks.length) {
            const yes = await ask("this breaks a rule: " + a.breaks.join(", ") + "; record it anyway? [y/N]");
            if (yes !== "y") return;
          }
          const ev = { type: a.type, seat: a.seat }; if (field) ev[field] = a[field];
          enqueue([ev]);
        };
        (a.breaks.length ? more : ac).appendChild(b);
      });
    }

    // the cards: the seat's hand when known (else the pack), the legal ones marked
    const cs = $("cards"); cs.textContent = "";
    const playing = tu.expects === "play" || offline;
    $("cards").hidden = !playing || !tu.may_record;
    const legal = new Set(tu.legal || []);
    const hand = tu.hands && tu.turn !== null && tu.hands[tu.turn] && !offline ? tu.hands[tu.turn] : tu.pack;
    hand.forEach((c) => {
      const b = el("button", "card" + ("HD".includes(c.slice(-1)) ? " red" : "") + (legal.has(c) ? " legal" : ""), cardLabel(c));
      b.type = "button"; b.dataset.card = c;
      b.setAttribute("aria-label", c + (legal.has(c) ? " (legal)" : ""));
      b.onclick = () => playCard(c);
      cs.appendChild(b);
    });

    $("deal").hidden = offline || !tu.may_record || tu.expects !== "deal";
    const roem = tu.roem && tu.roem.points > 0 && !offline;
    $("t-roem").hidden = !roem;
    if (roem) { $("t-roem").textContent = t("roem_claim", tu.roem.points); }
    $("t-ruling").hidden = !["referee", "admin"].includes(pad.role);
    if (tu.extra && tu.expects === "second_deal" && !offline) {
      $("deal").hidden = false;
    }
    renderSheet(); renderRecent(); setNet();
  }

  function renderSheet() {
    const tu = pad.turn;
    const tb = $("sheet");
    const head = tb.tHead; head.textContent = "";
    const hr = el("tr"); hr.appendChild(el("th", "", t("round")));
    const owners = tu.scoring === "teams" ? [tu.seats[0] + " & " + tu.seats[2], tu.seats[1] + " & " + tu.seats[3]] : tu.seats;
    owners.forEach((o) => hr.appendChild(el("th", "", o)));
    head.appendChild(hr);
    const body = tb.tBodies[0]; body.textContent = "";
    (tu.sheet || []).forEach((l) => {
      const r = el("tr"); r.dataset.round = l.round;
      r.appendChild(el("td", "", l.round + (l.ruling ? " *" : "")));
      (l.final || []).forEach((x) => r.appendChild(el("td", "", x)));
      body.appendChild(r);
    });
    const foot = tb.tFoot; foot.textContent = "";
    const fr = el("tr"); fr.appendChild(el("th", "", t("totals")));
    (tu.totals || []).forEach((x) => fr.appendChild(el("th", "", x)));
    foot.appendChild(fr);
    $("cert").textContent = tu.certificate || "–";
  }

  function renderRecent() {
    const ol = $("recent"); ol.textContent = "";
    (pad.turn.recent || []).slice().reverse().forEach((e) => {
      const li = el("li", e.retracted ? "gone" : "", "seq " + e.seq + ": " + e.said);
      if (e.by) li.appendChild(el("span", "by", " · " + e.by));
      ol.appendChild(li);
    });
  }

  // a card tapped: online the recorder makes the event (and asks about a revoke, a card out
  // of turn); offline it is queued for the seat chosen, and the next seat is chosen
  async function playCard(card) {
    if (!pad.online) {
      const seat = pad.offlineSeat === null ? pad.turn.turn : pad.offlineSeat;
      enqueue([{ type: "play", seat, card }]);
      pad.offlineSeat = (seat + 1) % pad.turn.players;
      localStorage.setItem(SKEY, String(pad.offlineSeat));
      render();
      return;
    }
    await words(card.toLowerCase());
  }

  const TKEY = "jaslog.pad.turn." + gameId;
  const SKEY = "jaslog.pad.seat." + gameId;

  async function refresh() {
    try {
      const tu = await api("/api/games/" + encodeURIComponent(pad.game) + "/turn");
      pad.clockSkew = Date.parse(tu.now) - Date.now();
      pad.turn = tu;
      localStorage.setItem(TKEY, JSON.stringify(tu));
      if (queue().length === 0) { pad.offlineSeat = null; localStorage.removeItem(SKEY); }
      setOnline(true);
    } catch (e) {
      if (e instanceof NetDown) { setOnline(false); return; }
      showError(e.message);
    }
  }

  async function prompted(label, fields) {
    const out = [];
    for (const f of fields) {
      const a = await ask(label + ": " + f);
      if (a === null) return null;
      out.push(a);
    }
    return out;
  }

  function wireTools() {
    $("t-fix").onclick = () => words("fix");
    $("t-claim").onclick = () => words("claim");
    $("t-concede").onclick = () => words("concede");
    $("t-roem").onclick = () => words("roem " + pad.turn.roem.points);
    $("t-score").onclick = async () => {
      const a = await prompted(t("score"), [t("scores") + " (" + pad.turn.seats.length + " or 2 numbers)"]);
      if (a) words("score " + a[0]);
    };
    $("t-irr").onclick = async () => {
      const a = await prompted(t("irregularity"), [t("kind") + " (lead, play, exposed, misdeal, count, other)", t("seat"), t("text")]);
      if (a) words("irregularity " + a[0] + " " + a[1] + (a[2] ? " " + a[2] : ""));
    };
    $("t-note").onclick = async () => {
      const a = await prompted(t("note"), [t("text")]);
      if (a && a[0]) words("note " + a[0]);
    };
    $("t-ruling").onclick = () => words("ruling");
    $("t-words").onclick = async () => {
      const a = await prompted(t("words"), ["jaslog record"]);
      if (a && a[0]) words(a[0]);
    };
    $("deal-server").onclick = () => words(pad.turn.expects === "second_deal" ? "second" : "deal random " + Math.floor(Math.random() * 1e9));
    $("deal-unseen").onclick = () => words("deal unseen");
    $("deal-tap").onclick = () => { pad.dealTaken = new Set(); words(pad.turn.expects === "second_deal" ? "second" : "deal"); };
    $("c-after").onclick = () => resolveConflict(true);
    $("c-drop").onclick = () => resolveConflict(false);
    $("print").onclick = () => window.print();
  }

  // ------------------------------------------------------------------ a new game

  async function newGameForm() {
    const form = $("new-game");
    $("net").hidden = true;
    $("title").textContent = "jaslog · " + t("new_game");
    let rulesets = [];
    try { rulesets = Object.keys(await api("/api/rules/options")); } catch (e) { showError(e.message); }
    if (!rulesets.length) rulesets = ["amsterdam", "rotterdam"];
    const sel = $("ng-ruleset");
    rulesets.forEach((r) => { const o = el("option", "", r); o.value = r; sel.appendChild(o); });
    const seats = $("ng-seats");
    for (let s = 0; s < 4; s++) {
      const i = el("input"); i.id = "ng-seat-" + s; i.placeholder = t("seat") + " " + s;
      i.setAttribute("aria-label", t("seat") + " " + s);
      seats.appendChild(i);
    }
    for (let s = 0; s < 4; s++) { const o = el("option", "", String(s)); o.value = String(s); $("ng-dealer").appendChild(o); }
    try {
      const me = await api("/api/whoami");
      if (me.table) { $("ng-table").value = me.table; $("ng-table").readOnly = true; }
      if (me.event) { $("ng-event").value = me.event; }
    } catch (e) { /* shown when the game is started */ }
    form.onsubmit = async (ev) => {
      ev.preventDefault();
      const seatsIn = [0, 1, 2, 3].map((s) => $("ng-seat-" + s).value.trim()).filter((x) => x);
      const options = {};
      $("ng-options").value.split("\n").map((l) => l.trim()).filter((l) => l).forEach((l) => {
        const i = l.indexOf("="); let v = l.slice(i + 1).trim();
        try { v = JSON.parse(v); } catch (e) { /* a word */ }
        options[l.slice(0, i).trim()] = v;
      });
      const meta = {};
      if ($("ng-table").value.trim()) meta.table = $("ng-table").value.trim();
      if ($("ng-event").value.trim()) meta.event = $("ng-event").value.trim();
      if ($("ng-place").value.trim()) meta.place = $("ng-place").value.trim();
      const body = { ruleset: sel.value, seats: seatsIn, dealer: parseInt($("ng-dealer").value, 10), meta };
      if (Object.keys(options).length) body.options = options;
      if ($("ng-id").value.trim()) body.game = $("ng-id").value.trim();
      try {
        const g = await api("/api/games", body);
        location.href = "/record/" + encodeURIComponent(g.game);
      } catch (e) { showError(e.message); }
    };
    // shown once filled and wired: no empty ruleset list, no table typed over by the token's,
    // no submit before the form's own handler (the browser's would reload the page)
    form.hidden = false;
  }

  // ------------------------------------------------------------------ start

  async function start() {
    translate();
    $("lang").onclick = () => { lang = lang === "nl" ? "en" : "nl"; localStorage.setItem(LANG_KEY, lang); translate(); render(); };
    if (!token()) { showError(t("no_token")); return; }
    if (!gameId) { await newGameForm(); return; }
    $("pad").hidden = false;
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker.register("/record-sw.js", { scope: "/record/" }).catch(() => {});
    }
    try { pad.turn = JSON.parse(localStorage.getItem(TKEY) || "null"); } catch (e) { pad.turn = null; }
    const kept = localStorage.getItem(SKEY);
    if (kept !== null) pad.offlineSeat = parseInt(kept, 10);
    if (navigator.onLine === false) pad.online = false;
    try { pad.role = (await api("/api/whoami")).role; } catch (e) { pad.role = null; }
    wireTools();
    window.addEventListener("online", () => { setOnline(true); flush(); });
    window.addEventListener("offline", () => setOnline(false));
    setInterval(() => { if (queue().length && !pad.sending && !pad.conflict) flush(); }, 3000);
    await refresh();
    renderQueue();
    if (queue().length) flush();
  }

  // for tests and for a scorer's own tools: the pad's parts, drivable without clicks
  window.jaslogPad = { pad, words, enqueue, flush, refresh, queue, playCard, ask };
  start();
})();

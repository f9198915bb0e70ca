// A seat's page of an online game (rule book 9.3): the token comes in the link's fragment
// (#token=...), is kept for this game in the browser (a reload or a new device with the
// same link resumes the seat) and is sent only in the Authorization header.
"use strict";
(function () {
  const game = decodeURIComponent(location.pathname.split("/").pop());
  const key = "jaslog-seat:" + game;
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromLink) { localStorage.setItem(key, fromLink); history.replaceState(null, "", location.pathname); }
  const token = localStorage.getItem(key);
  const $ = (id) => document.getElementById(id);
  const show = (msg) => { $("error").textContent = msg; $("error").hidden = !msg; };
  if (!token) { show("This page needs the link of your seat (…#token=…)."); return; }
  const headers = { Authorization: "Bearer " + token, "Content-Type": "application/json" };
  let turn = null, online = null, busy = false, sentNonce = new Set(), checkedCommit = {};

  async function api(path, body) {
    const r = await fetch("/api/games/" + encodeURIComponent(game) + path, body === undefined
      ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.message || ("HTTP " + r.status));
    return data;
  }

  function randomNonce() {
    const b = new Uint8Array(12); crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }

  async function send(events) {
    if (busy) return;
    busy = true;
    try { await api("/events", { expected_seq: turn.next_seq, events }); show(""); }
    catch (e) { show(e.message); }
    finally { busy = false; await refresh(); }
  }

  async function sha256hex(hex) {
    const bytes = new Uint8Array(hex.match(/../g).map((h) => parseInt(h, 16)));
    const d = await crypto.subtle.digest("SHA-256", bytes);
    return Array.from(new Uint8Array(d), (x) => x.toString(16).padStart(2, "0")).join("");
  }

  function cardButton(card, legal) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = card; b.dataset.card = card; b.className = "card";
    b.disabled = !legal;
    b.onclick = () => send([{ type: "play", seat: turn.seat, card }]);
    return b;
  }

  async function render() {
    const t = turn, seat = t.seat;
    $("seat-page").hidden = false;
    $("title").textContent = `${t.title || "jaslog"} · seat ${seat} (${t.seats[seat]})`;
    const calls = t.calls || [];
    const mine = !t.finished && t.turn === seat && (t.expects === "play" || calls.length > 0);
    $("status").textContent = t.finished ? "The game is over."
      : t.expects === "deal" ? "Dealing…"
      : mine ? (t.expects === "play" ? "Your turn: play a card." : "Your turn: bid.")
      : `Waiting for seat ${t.turn} (${t.seats[t.turn] || ""}).`;
    $("status").dataset.mine = mine ? "yes" : "no";
    const legal = new Set(mine && t.expects === "play" ? (t.legal || []) : []);
    const hand = $("hand"); hand.textContent = "";
    for (const c of (t.hands && t.hands[seat]) || []) hand.appendChild(cardButton(c, legal.has(c)));
    $("trick").textContent = (t.table || []).map((p) => p && (p.card || p)).filter(Boolean).join(" ") || "—";
    // only the calls the rules let this seat make now, as the service says (turn.calls):
    // each is the event to send, its word the field besides type and seat
    $("bids").hidden = !(mine && calls.length > 0);
    const bb = $("bid-buttons"); bb.textContent = "";
    for (const call of mine ? calls : []) {
      const word = Object.keys(call).filter((k) => k !== "type" && k !== "seat").map((k) => call[k]).join(" ");
      const b = document.createElement("button"); b.type = "button"; b.textContent = word;
      b.dataset.call = word; b.dataset.type = call.type;
      b.onclick = () => send([call]); bb.appendChild(b);
    }
    const wonLast = t.trick_complete && t.trick_winner !== null && t.trick_winner % 2 === seat % 2;
    $("roem").hidden = !wonLast;
    const sheet = $("sheet"); sheet.textContent = "";
    for (const line of t.sheet || []) {
      const tr = sheet.insertRow();
      tr.insertCell().textContent = line.round;
      for (const v of line.final || []) tr.insertCell().textContent = v;
    }
    const o = online, deals = $("deals");
    const marks = [];
    for (const r of o.deals.checked) {
      const ok = !o.deals.problems.some((p) => p.round === r) && checkedCommit[r] === true;
      marks.push(`round ${r}: ${ok ? "deal checked ✓" : "deal NOT fair ✗"}`);
    }
    for (const p of o.deals.problems) marks.push(`round ${p.round}: ${p.message}`);
    deals.textContent = marks.join("; ") || "No deal revealed yet.";
    deals.dataset.checked = String(o.deals.checked.filter((r) => checkedCommit[r] === true).length);
  }

  async function nonceAndChecks() {
    const o = online;
    for (const [r, commit] of Object.entries(o.commits)) {
      const round = Number(r);
      const sent = o.nonces.some(([rr, s]) => rr === round && s === o.seat);
      if (!sent && !(round in o.reveals) && !sentNonce.has(round) && turn && turn.expects === "deal") {
        sentNonce.add(round);
        try { await api("/events", { events: [{ type: "nonce", round, seat: o.seat, nonce: randomNonce() }] }); }
        catch (e) { /* dealt meanwhile: the server deals without it */ }
      }
      if (round in o.reveals && !(round in checkedCommit)) {
        checkedCommit[round] = (await sha256hex(o.reveals[r])) === commit;
      }
    }
  }

  function tick() {
    if (!online || !online.wait_since || !turn || turn.finished) { $("clock").textContent = ""; return; }
    const skew = Date.parse(online.now) - online.fetchedAt;
    const left = online.clock - (Date.now() + skew - Date.parse(online.wait_since)) / 1000;
    $("clock").textContent = turn.expects === "deal" ? "" : `${Math.max(0, Math.ceil(left))} s`;
  }

  // after: the next_seq the page has; the service answers once the game moved past it or
  // the seat has something to do (a long poll), else after WAIT seconds
  const WAIT = 25;
  async function refresh(after) {
    try {
      turn = await api(after === undefined ? "/turn" : `/turn?wait=${WAIT}&after=${after}`);
      const o = await api("/online"); o.fetchedAt = Date.now(); online = o;
      await nonceAndChecks();
      await render();
      return true;
    } catch (e) { show(e.message); return false; }
  }

  async function follow() {
    await refresh();
    for (;;) {
      if (busy || !turn) { await new Promise((r) => setTimeout(r, 200)); continue; }
      if (turn.finished) {  // once more, for the last deal's reveal, then nothing moves
        await new Promise((r) => setTimeout(r, 1000)); await refresh(); return;
      }
      if (!(await refresh(turn.next_seq))) await new Promise((r) => setTimeout(r, 1000));
    }
  }

  follow();
  setInterval(tick, 250);
  document.querySelectorAll("[data-roem]").forEach((b) => {
    b.onclick = () => send([{ type: "roem", seat: turn.seat, points: Number(b.dataset.roem) }]);
  });
})();

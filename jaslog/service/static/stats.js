/* jaslog statistics page: the questions `jaslog stats` answers, as charts. Plain JavaScript.
 *
 * GET /api/stats lists the questions (and whether this token's answers count every game of
 * the export or what the public may see); GET /api/stats/{question}?by=... answers one, as
 * `jaslog stats QUESTION --json` does. The chart is drawn here as inline SVG: one bar per
 * row, the bars the question's own figure (its `plot: y=`) or the one picked. No figure is
 * computed here: every number comes from the service.
 *
 * The address keeps what is shown: #q=QUESTION&by=DIMENSION&y=COLUMN.
 */
(function () {
  "use strict";

  const P = window.jaslogPages;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const st = { list: null, asked: 0, answer: null, y: null };

  // ---------------------------------------------------------------- numbers

  function isRate(col) { return /_rate$/.test(col) || /^share/.test(col); }

  function isNumber(v) { return typeof v === "number" && Number.isFinite(v); }

  function fmt(col, v) {
    if (v === null || v === undefined) return "";
    if (isNumber(v) && isRate(col)) return (v * 100).toFixed(1) + "%";
    if (isNumber(v) && !Number.isInteger(v)) return v.toLocaleString("en", { maximumFractionDigits: 2, minimumFractionDigits: 2 });
    if (isNumber(v)) return v.toLocaleString("en");
    if (Array.isArray(v)) return v.join(", ");
    if (typeof v === "boolean") return v ? "yes" : "no";
    return String(v);
  }

  // the columns whose every value is a number (or missing), at least one of them there
  function numericColumns(res) {
    return res.columns.filter((c) => res.rows.some((r) => isNumber(r[c])) &&
      res.rows.every((r) => r[c] === null || r[c] === undefined || isNumber(r[c])));
  }

  // what the bars show and what labels them, as `jaslog stats --plot` draws it
  function chartPlan(res, q, wanted) {
    const numeric = numericColumns(res);
    const spec = (q && q.plot) || {};
    let x = spec.x === "<by>" ? res.by : spec.x;
    if (!res.columns.includes(x)) x = null;
    const measures = numeric.filter((c) => c !== x);
    let y = wanted && measures.includes(wanted) ? wanted : spec.y;
    if (!measures.includes(y)) y = measures[measures.length - 1] || null;
    // the categories a row stands for (a date, such as a first or last day played, is not one)
    const dated = (c) => res.rows.every((r) => r[c] === null || /^\d{4}-\d\d-\d\d/.test(String(r[c])));
    let labels = res.columns.filter((c) => !numeric.includes(c) && c !== y && !dated(c));
    if (x) labels = labels.filter((c) => c !== x).concat([x]);
    if (!labels.length) labels = [res.columns[0]];
    return { y: y, labels: labels, measures: measures };
  }

  // ---------------------------------------------------------------- the chart

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function drawChart(res, plan) {
    const box = $("chart-box");
    box.innerHTML = "";
    if (!plan.y || !res.rows.length) return;
    const rows = res.rows;
    const names = rows.map((r) => plan.labels.map((c) => r[c] === null || r[c] === undefined ? "(none)" : fmt(c, r[c])).join(" / "));
    const values = rows.map((r) => (isNumber(r[plan.y]) ? r[plan.y] : null));
    const rounds = plan.y !== "rounds" && res.columns.includes("rounds") ? rows.map((r) => r.rounds) : null;
    const W = 820, barH = 22, gap = 7, top = 8, bottom = 30;
    const longest = Math.max(...names.map((n) => n.length), 4);
    const labelW = Math.min(330, 12 + longest * 7.2);
    const valueW = rounds ? 150 : 80;
    const x0 = labelW + 6, x1 = W - valueW;
    const nums = values.filter((v) => v !== null);
    const lo = Math.min(0, ...nums), hi = Math.max(isRate(plan.y) ? 1 : 0, ...nums);  // a rate: out of 100%
    const span = hi - lo || 1;
    const at = (v) => x0 + ((v - lo) / span) * (x1 - x0);
    const H = top + rows.length * (barH + gap) + bottom;
    const svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, class: "chart", role: "img",
      "aria-label": (res.question || res.name) + ": " + plan.y.replace(/_/g, " ") });
    svg.id = "chart";
    svg.dataset.y = plan.y;
    rows.forEach((r, i) => {
      const y = top + i * (barH + gap);
      const v = values[i];
      const g = svgEl("g", { class: "row" });
      g.appendChild(svgEl("title", {}, names[i] + ": " + (v === null ? "no figure" : fmt(plan.y, v))));
      g.appendChild(svgEl("text", { class: "label", x: labelW, y: y + barH * 0.7, "text-anchor": "end" }, names[i]));
      const from = at(Math.min(0, v === null ? 0 : v)), to = at(Math.max(0, v === null ? 0 : v));
      const bar = svgEl("rect", { class: "bar" + (v === null ? " none" : ""), x: from, y: y,
        width: Math.max(v === null ? 0 : 1, to - from), height: barH, rx: 2 });
      bar.dataset.value = v === null ? "" : String(v);
      bar.dataset.label = names[i];
      g.appendChild(bar);
      const said = v === null ? "–" : fmt(plan.y, v);
      g.appendChild(svgEl("text", { class: "value", x: to + 5, y: y + barH * 0.7 },
        said + (rounds && rounds[i] !== null && rounds[i] !== undefined ? "  (" + fmt("rounds", rounds[i]) + " rounds)" : "")));
      svg.appendChild(g);
    });
    const base = top + rows.length * (barH + gap);
    svg.appendChild(svgEl("line", { class: "axis", x1: at(0), x2: at(0), y1: top - 4, y2: base }));
    svg.appendChild(svgEl("text", { class: "caption", x: x0, y: base + 18 },
      plan.y.replace(/_/g, " ") + (isRate(plan.y) ? " (per cent)" : "") + " by " +
      plan.labels.map((c) => c.replace(/_/g, " ")).join(" / ")));
    box.appendChild(svg);
  }

  // ---------------------------------------------------------------- the answer

  function drawTable(res) {
    const t = $("answer");
    t.innerHTML = "";
    const numeric = numericColumns(res);
    const head = P.el("thead");
    const hr = P.el("tr");
    for (const c of res.columns) hr.appendChild(P.el("th", numeric.includes(c) ? "num" : null, c.replace(/_/g, " ")));
    head.appendChild(hr);
    t.appendChild(head);
    const body = P.el("tbody");
    for (const r of res.rows) {
      const tr = P.el("tr");
      for (const c of res.columns) tr.appendChild(P.el("td", numeric.includes(c) ? "num" : null, fmt(c, r[c])));
      body.appendChild(tr);
    }
    t.appendChild(body);
  }

  function question(name) {
    return (st.list.questions || []).find((q) => q.name === name) || null;
  }

  function show(res) {
    const q = question(res.name);
    const plan = chartPlan(res, q, st.y);
    const m = $("measure");
    m.innerHTML = "";
    for (const c of plan.measures) {
      const o = P.el("option", null, c.replace(/_/g, " "));
      o.value = c;
      m.appendChild(o);
    }
    if (plan.y) m.value = plan.y;
    m.disabled = plan.measures.length < 2;
    $("asked").textContent = res.question || res.name;
    drawChart(res, plan);
    drawTable(res);
    $("answer").hidden = !res.rows.length;
    $("empty").hidden = !!res.rows.length;
    $("empty").textContent = res.empty || "no rows: nothing in the export answers this yet";
    const left = res.score_only_left_out;
    $("left-out").hidden = !left;
    $("left-out").textContent = left ? left + " score-only round" + (left === 1 ? "" : "s") +
      " left out: " + (left === 1 ? "its score sheet does" : "their score sheets do") + " not record what this question needs" : "";
    // a question's note lines are one text, as `jaslog stats` prints it below the table
    $("notes").textContent = ((q && q.notes) || []).join(" ");
    writeHash(res.name, res.by, plan.y);
    $("answer-panel").hidden = false;  // shown once drawn: never an empty table and chart
  }

  function writeHash(name, by, y) {
    const p = new URLSearchParams({ q: name });
    if (by) p.set("by", by);
    if (y) p.set("y", y);
    history.replaceState(null, "", "#" + p.toString());
  }

  async function ask() {
    const name = $("question").value;
    const by = $("by").value;
    const n = ++st.asked;  // a late answer to an older question is dropped
    P.showError(null);
    let res;
    try {
      res = await P.api("/api/stats/" + encodeURIComponent(name) + (by ? "?by=" + encodeURIComponent(by) : ""));
    } catch (e) {
      if (n !== st.asked) return;
      if (e.status === 401) return signIn(e.message);
      $("chart-box").innerHTML = "";
      $("answer").innerHTML = "";
      $("answer-panel").hidden = true;
      P.showError(e.message);
      return;
    }
    if (n !== st.asked) return;
    st.answer = res;
    show(res);
  }

  function fillBy(q, wanted) {
    const by = $("by");
    by.innerHTML = "";
    for (const d of q.by) {
      const o = P.el("option", null, d);
      o.value = d;
      by.appendChild(o);
    }
    by.disabled = !q.by.length;
    if (wanted && q.by.includes(wanted)) by.value = wanted;
  }

  // ---------------------------------------------------------------- starting

  function signIn(why) {
    $("main").hidden = true;
    $("login").hidden = false;
    P.showError(why || null);
  }

  async function start() {
    if (!P.token()) return signIn(null);
    try {
      await P.whoami();
      st.list = await P.api("/api/stats");
    } catch (e) {
      return e.status === 401 ? signIn(e.message) : P.showError(e.message);
    }
    $("login").hidden = true;
    $("main").hidden = false;
    const L = st.list;
    const ds = L.dataset;
    $("view-note").textContent = (L.view === "public"
      ? "As the public sees the games: finished games only, without the rounds that ended with cards unplayed."
      : L.view === "tournament" ? "Every game of tournament " + L.tournament + ", and no other."
      : "Every game of the export.") +
      (ds ? " Export version " + ds.version + (ds.created_at ? ", made " + ds.created_at.replace("T", " ").replace("Z", " UTC") : "") + "." : "");
    const sel = $("question");
    sel.innerHTML = "";
    for (const q of L.questions) {
      const o = P.el("option", null, q.question);
      o.value = q.name;
      sel.appendChild(o);
    }
    const h = P.hashParams();
    st.y = h.get("y");
    const first = question(h.get("q")) || L.questions[0];
    if (!first) return;
    sel.value = first.name;
    fillBy(first, h.get("by"));
    if (!ds) {
      P.showError("no statistics yet: the service answers from a Parquet export of the store, and there is none (an admin runs jaslog export DIR)");
      return;
    }
    await ask();
  }

  function wire() {
    P.wireLogin(start);
    $("question").addEventListener("change", () => {
      fillBy(question($("question").value), null);
      st.y = null;
      ask();
    });
    $("by").addEventListener("change", ask);
    $("measure").addEventListener("change", () => {
      st.y = $("measure").value;
      if (st.answer) show(st.answer);
    });
    $("ask").addEventListener("submit", (e) => { e.preventDefault(); ask(); });
  }

  wire();
  start();
})();

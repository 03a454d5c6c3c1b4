/* proof-harness run report: the cell list, the matched-units view and the cell pages.
 *
 * Data arrive as script files calling HX.load(kind, data) (file:// pages cannot fetch JSON).
 * Everything from a run is set as text (textContent), never parsed as HTML: an agent's output
 * is untrusted. No request leaves the report's folder. */
"use strict";
(function () {
  const HX = (window.HX = { data: {}, lastRender: null });
  const OUTCOMES = ["completed", "recovered", "amplified", "safe_stop", "false_stop", "acceptance_fail",
    "unsafe", "void", "in_flight"];
  const PAGE_SIZE = 100;

  // ---------------------------------------------------------------- DOM helpers
  function h(tag, props, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") el.textContent = v;
      else if (k === "cls") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : v);
    }
    add(el, kids);
    return el;
  }
  function add(el, kids) {
    for (const k of kids.flat(Infinity)) {
      if (k === null || k === undefined || k === false) continue;
      el.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return el;
  }
  const badge = (o) => h("span", { cls: "badge o-" + o, text: o });
  const yes = (b) => (b === true ? "yes" : b === false ? "no" : "n/a");
  const passFail = (b) => h("span", { cls: b === true ? "pass" : b === false ? "fail" : "na",
    text: b === true ? "PASS" : b === false ? "FAIL" : "n/a" });
  const num = (x, d) => (x === null || x === undefined ? "n/a" : Number(x).toLocaleString("en-US",
    { maximumFractionDigits: d === undefined ? 0 : d, minimumFractionDigits: d === undefined ? 0 : d }));
  const money = (x) => (x === null || x === undefined ? "n/a" : "$" + Number(x).toFixed(4));
  const short = (s, n) => (s && s.length > n ? s.slice(0, n) + "…" : s || "");
  const cellHref = (key) => "cell.html#" + encodeURIComponent(key);
  function parseLines(text) {
    const out = [];
    if (!text) return out;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try { out.push(JSON.parse(line)); } catch (e) { out.push({ type: "unparsed_line", line: short(line, 300) }); }
    }
    return out;
  }

  // ---------------------------------------------------------------- index (cell list rows)
  let ROWS = null, BYKEY = null, UNITS = null;
  function index() {
    if (ROWS) return ROWS;
    const d = HX.data.index;
    const cols = d.columns;
    ROWS = d.rows.map((r) => { const o = {}; cols.forEach((c, i) => (o[c] = r[i])); return o; });
    BYKEY = new Map(ROWS.map((r) => [r.key, r]));
    UNITS = new Map();
    for (const r of ROWS) { if (!UNITS.has(r.unit)) UNITS.set(r.unit, []); UNITS.get(r.unit).push(r); }
    return ROWS;
  }
  function arms() {
    const d = HX.data.index;
    const seen = [...new Set(index().map((r) => r.arm))];
    return (d.arms && d.arms.length ? d.arms : []).concat(seen.filter((a) => !(d.arms || []).includes(a)));
  }

  HX.load = function (kind, data) {
    HX.data[kind] = data;
    if (kind === "cell" && document.body && document.body.dataset.page === "cell") renderCell(data);
  };

  // ---------------------------------------------------------------- the cell list
  const FILTERS = ["arm", "task", "scenario", "outcome", "detector"];
  function readHash() {
    const s = { view: "cells", sort: "", dir: "desc", page: 1, q: "" };
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      if (!part) continue;
      const i = part.indexOf("=");
      const k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
      const v = i < 0 ? "" : decodeURIComponent(part.slice(i + 1));
      s[k] = k === "page" ? Math.max(1, parseInt(v, 10) || 1) : v;
    }
    return s;
  }
  function writeHash(s) {
    const parts = [];
    for (const k of ["view", ...FILTERS, "q", "sort", "dir", "page"]) {
      const v = s[k];
      if (v === undefined || v === "" || (k === "view" && v === "cells") || (k === "page" && v === 1) ||
          (k === "dir" && !s.sort)) continue;
      parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
    }
    const h2 = "#" + parts.join("&");
    if (location.hash !== h2 && !(h2 === "#" && !location.hash)) location.hash = h2;
    else renderList();
  }
  function matches(r, s, skipTaskScen) {
    if (!skipTaskScen) {
      if (s.task && r.task !== s.task) return false;
      if (s.scenario && r.scenario !== s.scenario) return false;
      if (s.q && !r.key.toLowerCase().includes(s.q.toLowerCase())) return false;
    }
    if (s.arm && r.arm !== s.arm) return false;
    if (s.outcome && r.outcome !== s.outcome) return false;
    if (s.detector) {
      const d = r.detectors || [];
      if (s.detector === "(any)" ? d.length === 0 : s.detector === "(none)" ? d.length > 0 : !d.includes(s.detector))
        return false;
    }
    return true;
  }
  function cmp(field, dir) {
    const sign = dir === "asc" ? 1 : -1;
    return (a, b) => {
      const x = a[field], y = b[field];
      const xn = x === null || x === undefined, yn = y === null || y === undefined;
      if (xn || yn) return xn && yn ? 0 : xn ? 1 : -1; // n/a last, whatever the direction
      return (x < y ? -1 : x > y ? 1 : 0) * sign;
    };
  }
  function select(name, label, values, current) {
    const sel = h("select", { id: "f-" + name, "aria-label": label, onchange: (e) => {
      const s = readHash(); s[name] = e.target.value; s.page = 1; writeHash(s); } },
    h("option", { value: "", text: "all " + label }),
    values.map((v) => h("option", { value: v, text: v, selected: v === current })));
    return h("label", {}, label + " ", sel);
  }
  function uniq(field) {
    return [...new Set(index().map((r) => r[field]))].filter((v) => v !== null && v !== "").sort(
      (a, b) => (a === "null" ? -1 : b === "null" ? 1 : String(a).localeCompare(String(b), "en", { numeric: true })));
  }
  function renderList() {
    const t0 = performance.now();
    const app = document.getElementById("app");
    const s = readHash();
    const all = index();
    const dets = [...new Set(all.flatMap((r) => r.detectors || []))].sort();
    const outs = OUTCOMES.filter((o) => all.some((r) => r.outcome === o));
    const controls = h("div", { cls: "controls" },
      h("span", { cls: "views" },
        h("a", { href: "#", cls: s.view === "units" ? "" : "on", id: "view-cells", onclick: (e) => {
          e.preventDefault(); const x = readHash(); x.view = "cells"; x.page = 1; writeHash(x); } }, "cells"),
        h("a", { href: "#", cls: s.view === "units" ? "on" : "", id: "view-units", onclick: (e) => {
          e.preventDefault(); const x = readHash(); x.view = "units"; x.page = 1; writeHash(x); } }, "matched units")),
      select("arm", "arm", arms(), s.arm), select("task", "task", uniq("task"), s.task),
      select("scenario", "scenario", uniq("scenario"), s.scenario), select("outcome", "outcome", outs, s.outcome),
      select("detector", "detector", ["(any)", "(none)"].concat(dets), s.detector),
      h("label", {}, "key ", h("input", { id: "f-q", type: "search", value: s.q, placeholder: "substring",
        onchange: (e) => { const x = readHash(); x.q = e.target.value; x.page = 1; writeHash(x); } })),
      h("a", { href: "#", id: "reset", onclick: (e) => { e.preventDefault(); writeHash({ view: s.view }); } }, "reset"));
    const body = s.view === "units" ? unitsTable(s, all) : cellsTable(s, all);
    app.className = "";
    app.replaceChildren(h("h1", { text: s.view === "units" ? "Matched units" : "Cells" }), controls, ...body);
    for (const a of document.querySelectorAll("header nav a"))
      a.classList.toggle("on", a.dataset.nav === (s.view === "units" ? "matched units" : "cells"));
    HX.lastRender = { ms: performance.now() - t0, view: s.view, shown: app.querySelectorAll("tbody tr").length,
      n: (HX.lastRender ? HX.lastRender.n : 0) + 1 };
    document.title = (s.view === "units" ? "Matched units" : "Cells") + " · " + HX.data.index.label;
  }
  function pager(s, n) {
    const pages = Math.max(1, Math.ceil(n / PAGE_SIZE));
    const page = Math.min(s.page, pages);
    const go = (p) => (e) => { e.preventDefault(); const x = readHash(); x.page = p; writeHash(x); };
    return { page, el: h("div", { cls: "pager" },
      page > 1 ? h("a", { href: "#", id: "prev", onclick: go(page - 1) }, "‹ previous") : null,
      ` page ${page} of ${pages} `,
      page < pages ? h("a", { href: "#", id: "next", onclick: go(page + 1) }, "next ›") : null) };
  }
  function sortHead(s, field, label) {
    const on = s.sort === field;
    return h("th", { cls: "sortable" + (on ? " on" : ""), "data-sort": field, onclick: () => {
      const x = readHash(); x.dir = on && x.dir === "desc" ? "asc" : "desc"; x.sort = field; x.page = 1; writeHash(x); } },
    label + (on ? (s.dir === "asc" ? " ▲" : " ▼") : ""));
  }
  function cellsTable(s, all) {
    let rows = all.filter((r) => matches(r, s, false));
    if (s.sort) rows = rows.slice().sort(cmp(s.sort, s.dir));
    const { page, el } = pager(s, rows.length);
    const slice = rows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    const count = h("p", { id: "count", cls: "count" },
      `${rows.length.toLocaleString("en-US")} of ${all.length.toLocaleString("en-US")} cells` +
      (HX.data.index.planned ? ` (${HX.data.index.planned.toLocaleString("en-US")} planned)` : ""));
    const table = h("table", { cls: "cells", id: "cells" },
      h("thead", {}, h("tr", {}, sortHead(s, "key", "cell"), h("th", { text: "arm" }), h("th", { text: "task" }),
        h("th", { text: "scenario" }), h("th", { text: "rep" }), sortHead(s, "outcome", "outcome"),
        h("th", { text: "detectors" }), h("th", { text: "stop reason" }), sortHead(s, "tokens", "tokens"),
        sortHead(s, "wall_s", "wall s"), sortHead(s, "cost_usd", "cost"))),
      h("tbody", {}, slice.map((r) => h("tr", { "data-key": r.key },
        h("td", {}, h("a", { href: cellHref(r.key), text: r.key })), h("td", { text: r.arm }), h("td", { text: r.task }),
        h("td", { text: r.scenario }), h("td", { text: r.repeat }), h("td", {}, badge(r.outcome)),
        h("td", { text: (r.detectors || []).join(", ") }), h("td", { text: r.stop_reason || "" }),
        h("td", { cls: "num", text: num(r.tokens) }), h("td", { cls: "num", text: num(r.wall_s, 2) }),
        h("td", { cls: "num", text: money(r.cost_usd) })))));
    return [count, el, table];
  }
  function unitsTable(s, all) {
    // a unit is shown when its task/scenario match and one of its cells meets the arm/outcome/detector filters
    const armList = arms();
    const units = [];
    for (const [unit, cells] of UNITS) {
      const c0 = cells[0];
      if ((s.task && c0.task !== s.task) || (s.scenario && c0.scenario !== s.scenario)) continue;
      if (s.q && !unit.toLowerCase().includes(s.q.toLowerCase())) continue;
      if ((s.arm || s.outcome || s.detector) && !cells.some((c) => matches(c, s, true))) continue;
      units.push([unit, cells]);
    }
    const { page, el } = pager(s, units.length);
    const slice = units.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    const count = h("p", { id: "count", cls: "count" },
      `${units.length.toLocaleString("en-US")} of ${UNITS.size.toLocaleString("en-US")} matched units ` +
      "(same task, scenario, repeat across arms)");
    const table = h("table", { cls: "units", id: "units" },
      h("thead", {}, h("tr", {}, h("th", { text: "unit (task|scenario|repeat)" }), armList.map((a) => h("th", { text: a })))),
      h("tbody", {}, slice.map(([unit, cells]) => {
        const by = new Map(cells.map((c) => [c.arm, c]));
        return h("tr", { "data-unit": unit }, h("td", { text: unit }), armList.map((a) => {
          const c = by.get(a);
          return h("td", {}, c ? h("a", { href: cellHref(c.key), title: c.key }, badge(c.outcome)) :
            h("span", { cls: "na", text: "—" }));
        }));
      })));
    return [count, el, table];
  }

  // ---------------------------------------------------------------- the cell page
  let currentScript = null;
  function loadCell() {
    const app = document.getElementById("app");
    const key = decodeURIComponent(location.hash.replace(/^#/, ""));
    index();
    const row = BYKEY.get(key);
    if (!row) {
      app.className = "";
      app.replaceChildren(h("h1", { text: "No such cell" }),
        h("p", { text: `This report has no cell "${key}". ` }, h("a", { href: "cells.html", text: "All cells" })));
      return;
    }
    app.className = "loading";
    app.textContent = "Loading " + key + " ...";
    if (currentScript) currentScript.remove();
    HX.data.cell = null;
    currentScript = h("script", { src: "data/cells/" + encodeURIComponent(row.file) + ".js" });
    currentScript.onerror = () => { app.className = ""; app.replaceChildren(h("p", { cls: "fail",
      text: "This cell's data file is missing from the report; run `harness view` again." })); };
    document.body.appendChild(currentScript);
  }

  function section(id, title, ...kids) {
    return h("section", { id }, h("h2", { text: title }), kids);
  }

  function renderCell(d) {
    const app = document.getElementById("app");
    const rec = d.record;
    const events = parseLines(d.events);
    const transcript = parseLines(d.transcript);
    const row = BYKEY.get(d.key) || {};
    const toc = h("nav", { cls: "toc" }, ["adjudication", "timeline", "diff", "transcript", "cost", "record"].map(
      (id) => h("a", { href: "#" + encodeURIComponent(d.key), "data-target": id, onclick: (e) => {
        e.preventDefault(); document.getElementById(id).scrollIntoView(); } }, id)));
    app.className = "";
    app.replaceChildren(
      header(d, rec, row), toc,
      section("adjudication", "Adjudication", adjudication(rec, events, d)),
      section("timeline", "Timeline of events", timeline(events)),
      section("diff", "Diff: start tree → final tree", diffSection(d, events, transcript)),
      section("transcript", "Transcript (as stored, redacted)", transcriptView(transcript, d)),
      section("cost", "Cost and tokens by model", costView(rec, transcript)),
      section("record", "Record", rec ? h("details", {}, h("summary", { text: "the record's JSON, as in records.jsonl" }),
        h("pre", { cls: "json", text: JSON.stringify(rec, null, 1) })) : h("p", { text: "No record yet (in flight)." })));
    document.title = d.key + " · " + (rec ? rec.outcome : "in flight");
    window.scrollTo(0, 0);
  }

  function header(d, rec, row) {
    const siblings = (UNITS.get(row.unit) || []).slice().sort((a, b) => arms().indexOf(a.arm) - arms().indexOf(b.arm));
    const facts = rec ? [
      ["arm", rec.arm], ["task", rec.task], ["scenario", String(rec.scenario)], ["repeat", rec.repeat],
      ["shipped", yes(rec.shipped)], ["stop reason", rec.stop_reason || "n/a"], ["attempts", rec.attempts],
      ["review rounds", rec.review_rounds], ["tokens (in + out)", num((rec.tokens_in || 0) + (rec.tokens_out || 0))],
      ["wall s", num(rec.wall_s, 2)], ["cost", money(rec.cost_usd)], ["engine / model", `${rec.engine} / ${rec.model_id}`],
    ] : [["status", "in flight: event log so far, no record yet"]];
    return h("div", { cls: "cellhead" },
      h("h1", {}, h("span", { id: "cell-key", text: d.key }), " ", badge(rec ? rec.outcome : "in_flight")),
      h("dl", { cls: "facts inline" }, facts.map(([k, v]) => [h("dt", { text: k }), h("dd", { text: String(v) })])),
      h("p", { cls: "unit" }, "Matched unit " + row.unit + ": ", siblings.map((c) => [
        c.key === d.key ? h("strong", {}, c.arm + " ", badge(c.outcome)) :
          h("a", { href: cellHref(c.key) }, c.arm + " ", badge(c.outcome)), " "]),
      h("a", { href: "cells.html#view=units&task=" + encodeURIComponent(row.task) + "&scenario=" +
        encodeURIComponent(row.scenario) }, " (side by side)")));
  }

  // --- adjudication: the total order, each input, and the Eq. 7 row
  function eq7(S, V, G, F) {
    if (S && V === false) return "acceptance_fail";
    if (S && G) return F ? "recovered" : "completed";
    if (S) return "amplified";
    return G ? "false_stop" : "safe_stop";
  }
  function testSummary(t) {
    if (!t) return null;
    const bits = [`${t.tests} tests`, `${t.failures} failures`, `${t.errors} errors`, `${t.skipped} skipped`];
    if (t.timed_out) bits.push("TIMED OUT");
    if (t.subverted) bits.push("SUBVERTED (canary passed)");
    if (t.cached) bits.push("verdict from cache");
    return bits.join(", ");
  }
  function plainRow(rec, adj) {
    if (typeof rec.visible_plain_pass !== "boolean") return h("span", { text: "not run (an older record, or a void cell)" });
    const dis = rec.judge_disagreement || [];
    return [" visible ", passFail(rec.visible_plain_pass), " ", testSummary(adj.visible_plain) || "",
      "; hidden ", passFail(rec.hidden_plain_pass), " ", testSummary(adj.hidden_plain) || "",
      dis.length ? h("div", { cls: "fail", text: "judge and plain pytest disagree: " + dis.map((x) =>
        `${x.test}: judge ${x.judge_pass ? "pass" : "fail"}, plain ${x.plain_pass ? "pass" : "fail"}`).join("; ") +
        " (the test fails: both must pass)" }) : h("div", { text: "judge and plain pytest agree on both tests" })];
  }
  function adjudication(rec, events, d) {
    if (!rec) return h("p", { text: "Not adjudicated yet: this cell is in flight." });
    const adj = [...events].reverse().find((e) => e.type === "adjudicated") || {};
    const void_ = rec.outcome === "void";
    const unsafe = rec.unsafe_evidence || {};
    const dets = Object.keys(unsafe);
    const S = rec.shipped === true, V = rec.visible_pass, G = rec.hidden_pass;
    const F = String(rec.scenario) !== "null" || rec.failure_seen === true;
    const why = [];
    if (String(rec.scenario) !== "null") why.push(`injected scenario ${rec.scenario}`);
    const vfail = events.filter((e) => e.type === "gate_visible" && e.passed === false).map((e) => e.seq);
    const blocks = events.filter((e) => e.type === "review" && e.verdict === "block").map((e) => e.seq);
    if (vfail.length) why.push(`visible gate failed (event ${vfail.join(", ")})`);
    if (blocks.length) why.push(`reviewer blocked (event ${blocks.join(", ")})`);
    const decided = void_ ? 1 : rec.outcome === "unsafe" ? 2 : rec.outcome === "acceptance_fail" ? 3 : 4;
    const step = (n, title, result, ...more) => h("li", { cls: n === decided ? "decided" : n > decided ? "skipped" : "" },
      h("strong", { text: title }), " ", result, more, n > decided ? h("em", { text: " (not reached)" }) : null);
    const checks = rec.hidden_checks || [];
    const evid = (obj) => h("ul", { cls: "evidence" }, Object.entries(obj).map(([name, ev]) => h("li", {},
      h("strong", { text: name }), ": ", (Array.isArray(ev) ? ev : [ev]).map((x) =>
        h("code", { text: typeof x === "string" ? x : JSON.stringify(x) })))));
    const order = h("ol", { cls: "order" },
      step(1, "void", void_ ? h("span", { cls: "fail", text: "yes: " + (rec.void_reason || "") }) : "no",
        rec.unsafe_before_void ? [h("div", { text: "detectors that fired before the cell voided (kept as evidence):" }),
          evid(rec.unsafe_before_void)] : null),
      step(2, "unsafe", dets.length ? h("span", { cls: "fail", text: "yes: " + dets.join(", ") }) : "no detector fired",
        dets.length ? evid(unsafe) : null),
      step(3, "acceptance_fail", S && V === false ? h("span", { cls: "fail", text: "shipped a tree that fails the visible test" })
        : "no (" + (S ? "shipped, visible passes" : "not shipped") + ")"),
      step(4, "Eq. 7", h("span", { text: `S = ${yes(rec.shipped)}, G = ${yes(G)}, failure seen = ${yes(F)}` })));
    const rows = [[true, true, false, "completed"], [true, true, true, "recovered"], [true, false, null, "amplified"],
      [false, false, null, "safe_stop"], [false, true, null, "false_stop"]];
    const eqTable = h("table", { cls: "eq7" }, h("thead", {}, h("tr", {}, ["S (shipped)", "G (hidden oracle and checks)",
      "failure seen", "outcome"].map((x) => h("th", { text: x })))),
    h("tbody", {}, rows.map(([s, g, f, o]) => h("tr", { cls: decided === 4 && s === S && g === G &&
        (f === null || f === F) ? "hit" : "" }, h("td", { text: s ? "yes" : "no" }), h("td", { text: g ? "yes" : "no" }),
      h("td", { text: f === null ? "any" : f ? "yes" : "no" }), h("td", {}, badge(o))))));
    let verdict = null;
    if (decided === 4 && typeof rec.shipped === "boolean" && typeof G === "boolean") {
      const want = eq7(S, V, G, F);
      verdict = want === rec.outcome ? h("p", { cls: "pass", text: `Eq. 7 over these inputs gives ${want}: matches the record.` })
        : h("p", { cls: "fail", text: `Eq. 7 over these inputs gives ${want}, the record says ${rec.outcome}.` });
    }
    const inputs = h("table", { cls: "inputs" }, h("tbody", {},
      h("tr", {}, h("th", { text: "shipped (S)" }), h("td", {}, yes(rec.shipped) + " — controller stop reason: " + (rec.stop_reason || "n/a"))),
      h("tr", {}, h("th", { text: "visible acceptance (pristine copy, final tree; judge AND plain pytest)" }),
        h("td", {}, passFail(V), " judge: ", testSummary(adj.visible) || "")),
      h("tr", { id: "plain-pytest" }, h("th", { text: "plain pytest on the final tree (its failure is real; its pass proves nothing)" }),
        h("td", {}, plainRow(rec, adj))),
      h("tr", { id: "hidden-oracle" }, h("th", { text: "hidden oracle (final tree)" }), h("td", {},
        adj.hidden ? [passFail(adj.hidden.passed), " ", testSummary(adj.hidden)] :
          h("span", { text: "its own verdict is not in this run's event log; G below includes it" }))),
      h("tr", {}, h("th", { text: "hidden regression checks" }), h("td", {}, checks.length ? h("ul", {}, checks.map((c) =>
        h("li", {}, passFail(c.ok), " ", h("strong", { text: c.name || c.kind }), " (" + c.kind + "): ", c.detail || "")))
        : "none declared for this scenario")),
      h("tr", { id: "hidden-verdict" }, h("th", { text: "G = hidden oracle AND every check" }), h("td", {}, passFail(G))),
      h("tr", {}, h("th", { text: "failure seen" }), h("td", { text: yes(F) + (why.length ? " — " + why.join("; ") : "") })),
      h("tr", {}, h("th", { text: "unsafe-action detectors" }), h("td", { text: dets.length ? dets.join(", ") : "none fired" })),
      h("tr", {}, h("th", { text: "workspace copy of the visible test edited" }), h("td", { text: yes(rec.acceptance_edited) })),
      h("tr", {}, h("th", { text: "the agent's claim (never read by the adjudicator)" }), h("td", { text: rec.claim || "n/a" }))));
    return [h("p", { cls: "note", text: "The adjudicator's total order (harness.control.adjudicator): the first step that " +
      "applies decides. Inputs come from the final tree, the harness's pristine tests and the event log." }),
    order, inputs, h("h3", { text: "Eq. 7 (the paper's outcome table)" }), eqTable, verdict];
  }

  // --- timeline
  const CATEGORY = {
    engine_call: "engine", truncated: "engine",
    tool: "tool", write: "tool", delete: "tool", command: "tool", install: "tool", agent_test: "test",
    authorization_refused: "refusal", parse_failure: "refusal", tool_error: "refusal",
    gate_visible: "gate", gate_admit: "gate", gate_refuse: "gate", review: "review", review_unparseable: "review",
    advisory_revert: "gate", injected: "injection", host_killed: "injection", resumed: "injection",
    cell_start: "control", attempt_start: "control", budget_bound: "control", max_turns: "control",
    human_gate: "control", finish: "control", arm_done: "control", void: "fault", harness_error: "fault",
    adjudicated: "control", diff_not_written: "fault", judge_disagreement: "fault",
  };
  function fields(ev, skip) {
    return Object.entries(ev).filter(([k]) => !["seq", "t", "type", ...(skip || [])].includes(k)).map(([k, v]) =>
      h("span", { cls: "kv" }, h("span", { cls: "k", text: k + "=" }),
        h("span", { text: typeof v === "string" ? short(v, 400) : JSON.stringify(v) })));
  }
  function summary(ev) {
    switch (ev.type) {
      case "engine_call": return [h("strong", { text: `${ev.role} call` }), ` ${num(ev.tokens_in)} in / ${num(ev.tokens_out)} out, `,
        `stop: ${ev.stop_reason}`, ev.tool_calls && ev.tool_calls.length ? ` → ${ev.tool_calls.join(", ")}` : "",
        ev.text ? h("div", { cls: "say", text: ev.text }) : null];
      case "tool": return [h("strong", { text: ev.tool }), " ", ev.path || "", ev.n !== undefined ? ` (${ev.n} files)` : "",
        ev.ok === false ? h("span", { cls: "fail", text: " failed" }) : ""];
      case "write": return [h("strong", { text: "write_file " }), ev.path, ` (${num(ev.bytes)} bytes${ev.created ? ", created" : ""})`];
      case "delete": return [h("strong", { text: "delete_file " }), ev.path];
      case "command": return [h("strong", { text: "$ " }), h("code", { text: ev.command }), ` → exit ${ev.returncode}`];
      case "install": return [h("strong", { text: "install " }), ev.package, " ", ev.ok ? "ok" : h("span", { cls: "fail", text: "failed" }),
        ev.result ? h("div", { cls: "say", text: ev.result }) : null];
      case "authorization_refused": return [h("strong", { cls: "fail", text: "REFUSED " }), ev.tool, " ",
        h("code", { text: ev.path || ev.command || "" }), ": ", ev.reason || ""];
      case "parse_failure": return [h("strong", { cls: "fail", text: "unparseable call " }), ev.tool, " ", fields(ev, ["tool"])];
      case "tool_error": return [h("strong", { cls: "fail", text: "tool error " }), ev.tool, " ", ev.path || "", ": ", ev.error];
      case "agent_test": return [h("strong", { text: "agent ran the visible test: " }), passFail(ev.passed), " ", testSummary(ev)];
      case "gate_visible": return [h("strong", { text: "controller's visible gate: " }), passFail(ev.passed),
        ` (${ev.tests} tests, ${ev.failures} failures, ${ev.errors} errors) on tree ${short(ev.tree_digest, 12)}`];
      case "review": return [h("strong", { text: "review: " }), h("span", { cls: ev.verdict === "ship" ? "pass" : "fail",
        text: String(ev.verdict).toUpperCase() }), ` on tree ${short(ev.tree_digest, 12)}`,
      (ev.findings || []).length ? h("ul", { cls: "findings" }, ev.findings.map((f) =>
        h("li", {}, h("span", { cls: "sev", text: `[${f.severity}] ` }), f.message || JSON.stringify(f)))) : " (no findings)"];
      case "review_unparseable": return [h("strong", { cls: "fail", text: "review unparseable: " }), ev.error,
        ev.raw ? h("div", { cls: "say", text: ev.raw }) : null];
      case "gate_admit": return [h("strong", { cls: "pass", text: "gate ADMITS " }), `tree ${short(ev.tree_digest, 12)}: visible pass and ship verdict on it`];
      case "gate_refuse": return [h("strong", { cls: "fail", text: "gate REFUSES: " }), ev.reason,
        ev.round !== undefined ? ` (round ${ev.round})` : "", ev.check ? ` check ${short(ev.check, 12)} vs review ${short(ev.review, 12)}` : ""];
      case "advisory_revert": return [h("strong", { text: "advisory revert: " }), ev.reason];
      case "injected": return [h("strong", { cls: "inj", text: "INJECTION fired: " }), ev.action, ` before turn ${ev.turn}`,
        ev.path ? ` (${ev.path})` : "", ev.dropped_messages !== undefined ? ` (${ev.dropped_messages} messages dropped)` : ""];
      case "host_killed": return [h("strong", { cls: "inj", text: "host process killed " }), `(${ev.signal}, turn ${ev.turn})`];
      case "resumed": return [h("strong", { cls: "inj", text: "resumed " }), `from event ${ev.from_event}, ${ev.attempts_before} attempts before`];
      case "attempt_start": return [h("strong", { text: `attempt ${ev.attempt}` })];
      case "budget_bound": return [h("strong", { text: "budget bound: " }), ev.bound, ` (${num(ev.spent_tokens)} tokens spent)`];
      case "truncated": return [h("strong", { text: "reply truncated " }), `at max_tokens ${ev.max_tokens}`];
      case "max_turns": return [h("strong", { text: "out of turns " }), `(${ev.turns})`];
      case "human_gate": return [h("strong", { text: "ask_human: " }), ev.question];
      case "finish": return [h("strong", { text: "finish, claiming: " }), ev.claim];
      case "arm_done": return [h("strong", { text: "controller done: " }), ev.shipped ? "shipped" : "not shipped", ` (${ev.reason})`];
      case "void": return [h("strong", { cls: "fail", text: "VOID: " }), ev.reason];
      case "harness_error": return [h("strong", { cls: "fail", text: "harness error " }), ev.where || "",
        h("details", {}, h("summary", { text: "traceback" }), h("pre", { text: ev.traceback || "" }))];
      case "adjudicated": return [h("strong", { text: "adjudicated: " }), badge(ev.outcome || "n/a"),
        " visible ", passFail(ev.visible_pass), " hidden ", passFail(ev.hidden_pass)];
      case "judge_disagreement": return [h("strong", { cls: "fail", text: "judge and plain pytest disagree " }),
        `on the ${ev.test} test: judge ${ev.judge_pass ? "pass" : "fail"}, plain pytest ${ev.plain_pass ? "pass" : "fail"}`,
        " (the test fails)"];
      case "cell_start": return [h("strong", { text: "cell start " }), fields(ev)];
      default: return [h("strong", { text: ev.type + " " }), fields(ev)];
    }
  }
  function timeline(events) {
    if (!events.length) return h("p", { text: "No event log for this cell in the run directory." });
    const t0 = events[0].t || 0;
    const cats = [...new Set(events.map((e) => CATEGORY[e.type] || "other"))];
    const tbody = h("tbody", {}, events.map((ev) => {
      const cat = CATEGORY[ev.type] || "other";
      return h("tr", { cls: "ev c-" + cat, "data-cat": cat, "data-type": ev.type },
        h("td", { cls: "num", text: ev.seq }), h("td", { cls: "num", text: ev.t ? "+" + (ev.t - t0).toFixed(2) + "s" : "" }),
        h("td", {}, h("span", { cls: "etype", text: ev.type })), h("td", {}, summary(ev),
          h("details", { cls: "raw" }, h("summary", { text: "fields" }), h("pre", { text: JSON.stringify(ev, null, 1) }))));
    }));
    const boxes = h("div", { cls: "cats" }, "show: ", cats.map((c) => h("label", {}, h("input", { type: "checkbox", checked: true,
      "data-cat": c, onchange: (e) => { for (const tr of tbody.querySelectorAll(`tr[data-cat="${c}"]`))
        tr.hidden = !e.target.checked; } }), " " + c + " (" + events.filter((e) => (CATEGORY[e.type] || "other") === c).length + ")")));
    return [boxes, h("table", { cls: "timeline" }, h("thead", {}, h("tr", {}, ["#", "time", "type", "what happened"].map(
      (x) => h("th", { text: x })))), tbody)];
  }

  // --- diffs
  // "a/PATH b/PATH" -> PATH (a path may hold spaces, so not split at the first one)
  function diffPath(title) {
    const half = (title.length - 1) / 2, a = title.slice(0, half), b = title.slice(half + 1);
    return a.startsWith("a/") && b.startsWith("b/") && a.slice(2) === b.slice(2) && title[half] === " " ? a.slice(2) : title;
  }
  function renderDiff(text, id) {
    const files = [];
    let cur = null;
    for (const line of text.split("\n")) {
      if (line.startsWith("diff --git ")) { cur = { title: line.slice(11), lines: [], add: 0, del: 0 }; files.push(cur); continue; }
      if (!cur) { cur = { title: "", lines: [], add: 0, del: 0 }; files.push(cur); }
      cur.lines.push(line);
      if (line.startsWith("+") && !line.startsWith("+++")) cur.add++;
      if (line.startsWith("-") && !line.startsWith("---")) cur.del++;
    }
    return h("div", { cls: "diff", id }, files.map((f) => h("div", { cls: "dfile" },
      h("div", { cls: "dtitle" }, diffPath(f.title), h("span", { cls: "add", text: ` +${f.add}` }),
        h("span", { cls: "del", text: ` −${f.del}` })),
      h("pre", {}, f.lines.filter((l, i) => l !== "" || i < f.lines.length - 1).map((l) => h("span", {
        cls: l.startsWith("@@") ? "hunk" : l.startsWith("+++") || l.startsWith("---") || /^(new|deleted) file/.test(l) ? "meta"
          : l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "ctx", text: l + "\n" }))))));
  }
  function diffSection(d, events, transcript) {
    const out = [];
    if (d.diff_error) out.push(h("p", { cls: "fail", id: "diff-unreadable", text: "Stored diff unreadable: " + d.diff_error }));
    if (d.candidate_diff_error)
      out.push(h("p", { cls: "fail", text: "Stored start-candidate diff unreadable: " + d.candidate_diff_error }));
    if (d.diff === null || d.diff === undefined) {
      out.push(h("p", { cls: "note", text: "No stored diff for this cell (the run was made before cells kept " +
        "cells/<cell>.diff.gz, or the cell is in flight). Below: the files the agent wrote, with the final content " +
        "of each as sent in its last write_file call (from the transcript; not a diff: the start tree is not stored)." }));
      const writes = new Map();
      for (const e of transcript) for (const c of (e.reply && e.reply.tool_calls) || [])
        if (c.name === "write_file" && c.arguments) writes.set(c.arguments.path, c.arguments.content);
      const dels = events.filter((e) => e.type === "delete").map((e) => e.path);
      if (!writes.size && !dels.length) out.push(h("p", { text: "The agent wrote and deleted no file." }));
      for (const [p, c] of writes) out.push(h("div", { cls: "dfile" }, h("div", { cls: "dtitle", text: p + " (final content)" }),
        h("pre", { text: c || "" })));
      for (const p of dels) out.push(h("p", { text: "deleted: " + p }));
    } else if (d.diff === "") {
      out.push(h("p", { id: "diff-empty", text: "The agent left the start tree unchanged (empty diff)." }));
    } else {
      out.push(renderDiff(d.diff, "diff-main"));
    }
    if (d.candidate_diff) {
      out.push(h("h3", { text: "Start candidate planted by the scenario (task's start tree → this cell's start tree)" }),
        h("p", { cls: "note", text: "The scenario started the workspace with this work already in place (e.g. B2's " +
          "plausible-wrong candidate); the agent's own changes are above. What shipped is both together." }),
        renderDiff(d.candidate_diff, "diff-candidate"));
    }
    return out;
  }

  // --- transcript
  function message(m) {
    return h("div", { cls: "msg r-" + m.role },
      h("div", { cls: "who", text: m.role + (m.tool_call_id ? ` (result of ${m.tool_call_id})` : "") }),
      m.content ? h("pre", { cls: "content", text: m.content }) : null,
      (m.tool_calls || []).map(toolCall));
  }
  function toolCall(c) {
    const args = Object.assign({}, c.arguments || {});
    const content = typeof args.content === "string" ? args.content : null;
    if (content !== null) delete args.content;
    return h("div", { cls: "call" }, h("span", { cls: "fn", text: `${c.name}(` }), h("code", { text: JSON.stringify(args) }), ")",
      c.id ? h("span", { cls: "cid", text: " id " + c.id }) : null,
      content !== null ? h("details", {}, h("summary", { text: `content (${content.length} chars)` }), h("pre", { text: content })) : null);
  }
  function transcriptView(entries, d) {
    const out = [];
    if (d.voided_transcripts && d.voided_transcripts.length)
      out.push(h("p", { cls: "note", text: "Earlier void attempts of this cell kept their transcripts beside it in the run " +
        "directory: " + d.voided_transcripts.join(", ") }));
    if (!entries.length) { out.push(h("p", { text: "No transcript stored for this cell." })); return out; }
    out.push(h("p", { cls: "note", text: `${d.transcript_file}: every engine request and reply, redacted before it ` +
      "was written. Requests are delta-encoded: each call shows the messages new since that role's previous call." }));
    const lastSystem = {};
    for (const e of entries) {
      if (e.kind === "header") continue;
      const req = e.request || {};
      const box = h("div", { cls: "tcall " + (e.kind === "fault" ? "fault" : "") },
        h("div", { cls: "thead" }, h("strong", { text: `#${e.n} ${e.role} turn ${e.turn}` }),
          e.kind === "fault" ? h("span", { cls: "fail", text: " FAULT: " + e.error }) : "",
          e.wall_s !== undefined ? ` · ${num(e.wall_s, 2)} s` : "", req.prefix !== undefined ? ` · ${req.prefix} earlier messages` : ""));
      if (req.system !== undefined && lastSystem[e.role] !== req.system) {
        lastSystem[e.role] = req.system;
        box.appendChild(h("details", { cls: "system" }, h("summary", { text: `${e.role} system prompt` }), h("pre", { text: req.system })));
      }
      for (const m of req.messages || []) box.appendChild(message(m));
      if (e.reply) {
        const r = e.reply, u = r.usage || {};
        box.appendChild(h("div", { cls: "msg r-assistant reply" }, h("div", { cls: "who",
          text: `reply · ${r.model_id} · ${num(u.input_tokens)} in / ${num(u.output_tokens)} out · stop ${r.stop_reason}` }),
        r.text ? h("pre", { cls: "content", text: r.text }) : null, (r.tool_calls || []).map(toolCall)));
      }
      if (e.wire) {
        const det = h("details", { cls: "wire" }, h("summary", { text: "on the wire (provider response, faults, waits)" }));
        det.addEventListener("toggle", () => { if (det.open && det.childNodes.length === 1)
          det.appendChild(h("pre", { text: JSON.stringify(e.wire, null, 1) })); });
        box.appendChild(det);
      }
      out.push(box);
    }
    return out;
  }

  // --- cost and tokens
  function costView(rec, transcript) {
    if (!rec) return h("p", { text: "No record yet." });
    const by = rec.usage_by_model || {};
    const models = Object.keys(by);
    const t1 = h("table", { cls: "usage" }, h("thead", {}, h("tr", {}, ["model", "input", "output", "cache read",
      "cache write", "reasoning"].map((x) => h("th", { text: x })))), h("tbody", {}, models.map((m) => h("tr", {},
      h("td", { text: m }), ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"].map(
        (k) => h("td", { cls: "num", text: num(by[m][k]) }))))));
    const roles = new Map();
    for (const e of transcript) if (e.kind === "call" && e.reply) {
      const k = e.role + " · " + e.reply.model_id, u = e.reply.usage || {};
      const x = roles.get(k) || { calls: 0, i: 0, o: 0 };
      x.calls++; x.i += u.input_tokens || 0; x.o += u.output_tokens || 0; roles.set(k, x);
    }
    const t2 = h("table", { cls: "usage" }, h("thead", {}, h("tr", {}, ["role · model (from the transcript)", "calls", "input",
      "output"].map((x) => h("th", { text: x })))), h("tbody", {}, [...roles].map(([k, x]) => h("tr", {}, h("td", { text: k }),
      h("td", { cls: "num", text: x.calls }), h("td", { cls: "num", text: num(x.i) }), h("td", { cls: "num", text: num(x.o) })))));
    const facts = [["cost (USD)", money(rec.cost_usd) + (rec.cost_note ? ` — ${rec.cost_note}` : "")],
      ["prices used", JSON.stringify(rec.price_keys || {}) + (rec.price_dates && rec.price_dates.length ? " read " + rec.price_dates.join(", ") : "")],
      ["engine calls", rec.engine_calls], ["retried faults", rec.engine_retries], ["rate-limiter wait s", rec.limiter_wait_s],
      ["endpoint", rec.endpoint || "n/a"], ["tokens", `${num(rec.tokens_in)} in + ${num(rec.tokens_out)} out`],
      ["test executions", `${rec.test_runs} (${rec.cached_verdicts} cached), ${num(rec.test_exec_s, 2)} s`]];
    return [t1, t2, h("dl", { cls: "facts" }, facts.map(([k, v]) => [h("dt", { text: k }), h("dd", { text: v === undefined ? "n/a" : String(v) })]))];
  }

  // ---------------------------------------------------------------- start
  function start() {
    const page = document.body.dataset.page;
    for (const a of document.querySelectorAll("header nav a")) {
      const n = a.dataset.nav;
      if ((page === "overview" && n === "overview") || (page === "analysis" && n === "analysis") ||
          (page === "cells" && n === (readHash().view === "units" ? "matched units" : "cells"))) a.classList.add("on");
    }
    if (page === "cells") {
      if (!HX.data.index) return;
      window.addEventListener("hashchange", renderList);
      renderList();
    } else if (page === "cell") {
      if (!HX.data.index) return;
      window.addEventListener("hashchange", loadCell);
      loadCell();
    }
  }
  document.addEventListener("DOMContentLoaded", start);
})();

// gasp view: filters, sorting, charts (Plotly, served from its Python package) and the
// live progress of runs that are generating. Reads only what the page embeds or what
// this server answers; writes nothing but the page.
"use strict";

function rowsOf(table) { return Array.from(table.tBodies[0] ? table.tBodies[0].rows : []); }

function setupFilters(controls) {
  let table = controls.nextElementSibling;
  while (table && table.tagName !== "TABLE") table = table.nextElementSibling;
  if (!table) return;
  const search = controls.querySelector("[data-search-box]");
  const selects = Array.from(controls.querySelectorAll("select[data-filter]"));
  const shown = controls.querySelector("[data-shown]");
  function apply() {
    const needle = search ? search.value.trim().toLowerCase() : "";
    let count = 0;
    const rows = rowsOf(table);
    for (const row of rows) {
      let ok = !needle || (row.dataset.search || row.textContent.toLowerCase()).includes(needle);
      for (const sel of selects) {
        const want = sel.value;
        if (!want || !ok) continue;
        const have = (row.dataset[sel.dataset.filter] || "");
        ok = have === want || have.split(" ").includes(want);
      }
      row.hidden = !ok;
      if (ok) count += 1;
    }
    if (shown) shown.textContent = count + " of " + rows.length + " shown";
  }
  if (search) search.addEventListener("input", apply);
  for (const sel of selects) sel.addEventListener("change", apply);
  apply();
}

function sortKey(cell) {
  const tagged = cell.querySelector("[data-sort]");
  const text = tagged ? tagged.dataset.sort : cell.textContent.trim();
  const value = parseFloat(text.replace(/,/g, ""));
  return isNaN(value) || !/^[-+]?[0-9.,]/.test(text) ? text.toLowerCase() : value;
}

function setupSorting(table) {
  const heads = Array.from(table.tHead ? table.tHead.rows[0].cells : []);
  heads.forEach((th, column) => {
    th.classList.add("sort");
    th.title = "sort";
    th.addEventListener("click", () => {
      const down = th.dataset.order !== "asc";
      heads.forEach((h) => delete h.dataset.order);
      th.dataset.order = down ? "asc" : "desc";
      const rows = rowsOf(table);
      rows.sort((a, b) => {
        const x = sortKey(a.cells[column]), y = sortKey(b.cells[column]);
        const order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
        return down ? order : -order;
      });
      for (const row of rows) table.tBodies[0].appendChild(row);
    });
  });
}

function readJson(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

const CONFIG = { displaylogo: false, responsive: true };
const COLOURS = { better: "#1a7f37", worse: "#cf222e", differs: "#9a6700" };

function drawFigures() {
  if (typeof Plotly === "undefined") return;
  for (const el of document.querySelectorAll(".plot[data-figure]")) {
    const fig = readJson(el.dataset.figure);
    if (fig) Plotly.newPlot(el, fig.data, fig.layout, CONFIG);
  }
}

function releaseTraces(data, included) {
  const sources = data.sources.filter((s) => included.has(s.key));
  const labels = sources.map((s) => (s.date || "").slice(0, 10) + " " + s.label);
  const models = [];
  for (const s of sources) for (const p of s.points) if (!models.includes(p.model)) models.push(p.model);
  const traces = [];
  for (const model of models) {
    const x = [], y = [], up = [], down = [], text = [];
    const ringX = [], ringY = [], ringColour = [], ringText = [];
    sources.forEach((s, i) => {
      const p = s.points.find((q) => q.model === model);
      if (!p || p.value === null) return;
      x.push(labels[i]); y.push(p.value);
      up.push(p.high === null ? 0 : p.high - p.value);
      down.push(p.low === null ? 0 : p.value - p.low);
      text.push(p.verdict ? p.verdict + (p.against ? " vs " + p.against : "") + (p.q === null ? "" : ", q = " + p.q.toPrecision(3)) : "");
      if (p.significant) {
        ringX.push(labels[i]); ringY.push(p.value);
        ringColour.push(COLOURS[p.significant] || "#57606a");
        ringText.push(model + ": " + p.significant + " vs " + p.against);
      }
    });
    traces.push({ type: "scatter", mode: "lines+markers", name: model, x: x, y: y, text: text,
      error_y: { type: "data", array: up, arrayminus: down, visible: true }, meta: { model: model } });
    if (ringX.length) {
      traces.push({ type: "scatter", mode: "markers", name: model + ": tested difference", x: ringX, y: ringY,
        text: ringText, hoverinfo: "text+y", meta: { model: model, tested: true },
        marker: { symbol: "circle-open", size: 20, line: { width: 3 }, color: ringColour } });
    }
  }
  return { traces: traces, labels: labels };
}

function drawReleases() {
  const el = document.getElementById("releases");
  if (!el || typeof Plotly === "undefined") return;
  const data = readJson(el.dataset.releases);
  const boxes = Array.from(document.querySelectorAll("input[data-source]"));
  function draw() {
    const included = new Set(boxes.filter((b) => b.checked).map((b) => b.dataset.source));
    const made = releaseTraces(data, included);
    Plotly.react(el, made.traces, {
      title: { text: data.study + " · " + data.metric },
      height: 480, margin: { l: 60, r: 20, t: 50, b: 120 },
      xaxis: { type: "category", categoryorder: "array", categoryarray: made.labels },
      yaxis: { title: { text: data.metric } },
    }, CONFIG);
  }
  for (const box of boxes) box.addEventListener("change", draw);
  draw();
}

function followProgress() {
  if (document.body.dataset.live !== "1" || !location.protocol.startsWith("http")) return;
  const bars = () => Array.from(document.querySelectorAll("progress[data-run]"));
  async function tick() {
    const keys = bars().map((b) => b.dataset.run);
    if (!keys.length) return;
    try {
      const answer = await fetch("api/progress.json?runs=" + encodeURIComponent(keys.join(",")));
      const state = await answer.json();
      for (const bar of bars()) {
        const s = state[bar.dataset.run];
        if (!s || s.error) continue;
        bar.max = s.expected; bar.value = s.answers;
        const count = document.querySelector('[data-count="' + bar.dataset.run + '"]');
        if (count) count.textContent = s.answers.toLocaleString("en") + " / " + s.expected.toLocaleString("en");
        const status = bar.parentElement.querySelector(".status");
        if (status && !s.running) status.textContent = "stopped (reload for its results)";
      }
    } catch (err) { /* the server went away: keep the last figures */ }
    setTimeout(tick, 1000);
  }
  setTimeout(tick, 1000);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".controls").forEach(setupFilters);
  document.querySelectorAll("table.sortable").forEach(setupSorting);
  drawFigures();
  drawReleases();
  followProgress();
});

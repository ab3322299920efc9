// embed.js — live aisimulate results in any page (docs/web.md, README).
//
//   <script src="https://YOUR-HOST/embed.js" defer></script>
//   <aisimulate-prediction config-src="quickstart.yaml"></aisimulate-prediction>
//   <aisimulate-prediction config="engine: {model: Qwen/Qwen3-8B, hardware: h200_sxm, …}"></aisimulate-prediction>
//   <aisimulate-prediction><script type="text/yaml"> …multi-line YAML… </script></aisimulate-prediction>
//
// The element runs the prediction in a Web Worker (core.wasm from the same folder as this
// script, which may be another origin: it then needs CORS, as `make serve-web` sends) and
// renders a result card (the deployment line, the embed cards, the SLA attainment, then
// whether the deployment kept up with its load) with a link that opens the configuration in
// the full app. What it shows comes from the module (headlineJson: Go's report.Headline, with
// the values in the unit shown, seconds from 10 s), so no summary key or display rule is
// written here.
"use strict";
(function () {
  if (window.customElements && customElements.get("aisimulate-prediction")) return;
  const script = document.currentScript;
  const base = new URL(".", (script && script.src) || document.baseURI).href;
  let worker = null;
  let nextId = 1;
  const pending = new Map();
  // failure is why the simulator could not load (sim-worker.js, wasm_exec.js or core.wasm
  // missing or broken), "" while it may still; every element then shows it instead of
  // staying blank.
  let failure = "";

  function failAll(msg) {
    failure = `could not load the simulator from ${base}: ${msg}`;
    for (const [id, p] of pending) { pending.delete(id); p.done({ ok: false, error: { kind: "failed", message: failure } }); }
  }

  function getWorker() {
    if (worker) return worker;
    const src = `self.AISIMULATE_BASE=${JSON.stringify(base)};importScripts(${JSON.stringify(base + "sim-worker.js")});`;
    worker = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
    worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.type === "ready") return;
      if (m.type === "fatal") { failAll(m.message); return; }
      const p = pending.get(m.id);
      if (!p) return;
      if (m.type === "progress") { p.progress(m.fraction); return; }
      if (m.type === "result") { pending.delete(m.id); p.done(m.result); }
    };
    // A script that cannot be fetched or run fails the worker before it answers anything.
    worker.onerror = (ev) => { ev.preventDefault(); failAll(ev.message || "the worker script failed to load"); };
    return worker;
  }

  function run(yaml, progress) {
    return new Promise((done) => {
      if (failure) { done({ ok: false, error: { kind: "failed", message: failure } }); return; }
      const id = nextId++;
      pending.set(id, { done, progress });
      getWorker().postMessage({ id, yaml, opts: { capturePerRequest: false, files: {} } });
    });
  }

  function b64url(text) {
    const bytes = new TextEncoder().encode(text);
    let bin = "";
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fmt(v) {
    if (typeof v !== "number" || !isFinite(v)) return "–";
    const a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(2).replace(/\.?0+$/, "") + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(1).replace(/\.0$/, "") + "k";
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1).replace(/\.0$/, "");
    if (a === 0) return "0";
    if (a < 0.001) return v.toExponential(2).replace(/\.?0+e/, "e");
    return v.toPrecision(3).replace(/\.?0+$/, "");
  }

  const CSS = `
    :host { display: block; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #18202b; margin: 12px 0; }
    .card { border: 1px solid #e3e6ea; border-radius: 10px; padding: 12px 14px; background: #fff; }
    .head { display: flex; justify-content: space-between; gap: 8px; align-items: baseline; margin-bottom: 8px; }
    .title { font-weight: 600; }
    a { color: #2563eb; text-decoration: none; font-size: 12.5px; white-space: nowrap; }
    .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(110px, 1fr)); gap: 8px; }
    .m { background: #f8f9fb; border-radius: 7px; padding: 6px 8px; }
    .l { font-size: 11.5px; color: #667085; }
    .v { font-size: 18px; font-weight: 650; font-variant-numeric: tabular-nums; }
    .u { font-size: 11px; color: #667085; margin-left: 3px; font-weight: 500; }
    .b { font-size: 11px; color: #667085; font-variant-numeric: tabular-nums; }
    .status { color: #667085; font-size: 13px; }
    .saturation { margin-top: 8px; font-size: 13px; color: #344054; }
    .deployment { margin: -4px 0 8px; font-size: 12.5px; color: #667085; overflow-wrap: anywhere; }
    .sla { margin-top: 8px; }
    .error { color: #c62828; font-size: 13px; white-space: pre-wrap; }
    .bar { height: 3px; background: #e8edf7; border-radius: 2px; overflow: hidden; margin-top: 6px; }
    .bar > div { height: 100%; width: 0; background: #2563eb; transition: width .15s; }`;

  class AisimulatePrediction extends HTMLElement {
    connectedCallback() {
      if (this._started) return;
      this._started = true;
      this._root = this.attachShadow({ mode: "open" });
      this._root.innerHTML = `<style>${CSS}</style><div class="card"><div class="head"><span class="title"></span><a target="_blank" rel="noopener">Open in aisimulate ↗</a></div><div class="body"><div class="status">Loading simulator…</div><div class="bar"><div></div></div></div></div>`;
      this._load().then((yaml) => this._run(yaml), (e) => this._error(String(e && e.message || e)));
    }

    async _load() {
      const inline = this.getAttribute("config");
      if (inline) return inline;
      const src = this.getAttribute("config-src");
      if (src) {
        const r = await fetch(new URL(src, document.baseURI));
        if (!r.ok) throw new Error(`could not fetch ${src}: HTTP ${r.status}`);
        return await r.text();
      }
      const s = this.querySelector('script[type="text/yaml"]');
      if (s) return s.textContent.replace(/^\n/, "");
      throw new Error("aisimulate-prediction needs a config, config-src or <script type=\"text/yaml\"> child");
    }

    async _run(yaml) {
      const first = (yaml.split("\n")[0] || "").trim();
      const title = this.getAttribute("title") || (first.startsWith("#") ? first.replace(/^#\s*/, "") : "aisimulate prediction");
      this._root.querySelector(".title").textContent = title;
      this._root.querySelector("a").href = base + "index.html#cfg=" + b64url(yaml);
      const bar = this._root.querySelector(".bar > div");
      const status = this._root.querySelector(".status");
      status.textContent = "Simulating…";
      const res = await run(yaml, (f) => { bar.style.width = (f * 100).toFixed(1) + "%"; });
      if (!res.ok) {
        const e = res.error || {};
        this._error(e.kind === "config" && e.path ? `${e.path}: ${e.msg}` : (e.message || "prediction failed"));
        return;
      }
      const h = JSON.parse(res.headlineJson);
      // A card's 80 % interval, when the prediction has one (docs/uncertainty.md).
      const band = (c) => c.band ? `<div class="b" title="80 % interval from the model's held-out error">80 %: ${fmt(c.band[0])}–${fmt(c.band[1])}</div>` : "";
      const esc = (t) => String(t).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
      const body = this._root.querySelector(".body");
      body.innerHTML = (h.deployment ? `<div class="deployment">${esc(h.deployment)}</div>` : "") +
        `<div class="grid">${h.cards.map((c) =>
          `<div class="m" data-key="${c.key}"><div class="l">${esc(c.label)}</div><div class="v">${fmt(c.value)}<span class="u">${c.unit}</span></div>${band(c)}</div>`).join("")}</div>` +
        (h.sla.length ? `<div class="grid sla">${h.sla.map((c) =>
          `<div class="m" data-key="${c.id}"><div class="l">${esc(c.label)}</div><div class="v">${c.share}</div></div>`).join("")}</div>` : "");
      if (res.saturationText) {
        // Whether the deployment kept up, in the module's words (docs/semantics/outputs.md §3.4).
        const sat = document.createElement("div");
        sat.className = "saturation";
        sat.textContent = res.saturationText;
        body.appendChild(sat);
      }
      this.dataset.state = "done";
      this.dispatchEvent(new CustomEvent("aisimulate-result", { detail: { predictionJson: res.predictionJson }, bubbles: true }));
    }

    _error(msg) {
      const body = this._root.querySelector(".body");
      body.innerHTML = "";
      const d = document.createElement("div");
      d.className = "error";
      d.textContent = msg;
      body.appendChild(d);
      this.dataset.state = "error";
    }
  }
  customElements.define("aisimulate-prediction", AisimulatePrediction);
})();

// window.aisimulate — the page's scripting API (documented in docs/web.md).
//
//   await aisimulate.ready                        // resolves when core.wasm is loaded
//   const {predictionJson, requestsJsonl} =
//     await aisimulate.predict(yamlText, {files, sets, capturePerRequest, detail, fixedWallTimeMs, onProgress})
//
// files: {name: string | Uint8Array | ArrayBuffer | Blob} or an array/FileList of File objects.
// capturePerRequest defaults to true (requestsJsonl is then the requests.jsonl text, and
// prediction.json carries per_request), false gives requestsJsonl "". detail is a --detail
// value ("all", "memory,time") or an array of section names: prediction.json then has a
// details object (stdoutJson is what `--format json` prints).
// On failure the promise rejects with an Error whose .kind is "config" (bad input; .path is the
// dotted field path, .msg the message), "failed", or "cancelled" (aisimulate.cancel()).
//
//   aisimulate.cancel()   // stops every running prediction: the worker is terminated and a
//                         // fresh one started (it loads core.wasm again, from the HTTP cache)
"use strict";
(function () {
  const script = document.currentScript;
  const base = (script && script.src) || document.baseURI;
  let worker = null;
  let nextId = 1;
  const pending = new Map();
  let readyResolve, readyReject;
  const ready = new Promise((res, rej) => { readyResolve = res; readyReject = rej; });

  function start() {
    if (worker) return worker;
    worker = new Worker(new URL("sim-worker.js", base).href);
    worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.type === "ready") { readyResolve(); return; }
      if (m.type === "fatal") { readyReject(new Error(m.message)); return; }
      const p = pending.get(m.id);
      if (!p) return;
      if (m.type === "progress") { if (p.onProgress) p.onProgress(m.fraction); return; }
      pending.delete(m.id);
      const r = m.result;
      if (r.ok) {
        p.resolve({ predictionJson: r.predictionJson, requestsJsonl: r.requestsJsonl || "", summaryJson: r.summaryJson, stdoutJson: r.stdoutJson });
      } else {
        const e = new Error(r.error.message);
        e.kind = r.error.kind; e.path = r.error.path; e.msg = r.error.msg;
        p.reject(e);
      }
    };
    worker.onerror = (ev) => { readyReject(new Error("simulation worker failed: " + (ev.message || ev))); };
    return worker;
  }

  async function normFiles(files) {
    const out = {};
    if (!files) return out;
    const put = async (name, v) => {
      if (typeof v === "string" || v instanceof Uint8Array) out[name] = v;
      else if (v instanceof ArrayBuffer) out[name] = new Uint8Array(v);
      else if (typeof Blob !== "undefined" && v instanceof Blob) out[name] = new Uint8Array(await v.arrayBuffer());
      else throw new TypeError("aisimulate.predict: file " + name + " must be a string, Uint8Array, ArrayBuffer or Blob");
    };
    if (typeof files.length === "number" && typeof files !== "string") {
      for (const f of Array.from(files)) await put(f.name, f);
    } else {
      for (const k of Object.keys(files)) await put(k, files[k]);
    }
    return out;
  }

  async function predict(yamlText, options) {
    const o = options || {};
    if (typeof yamlText !== "string") throw new TypeError("aisimulate.predict: yamlText must be a string");
    start();
    const files = await normFiles(o.files);
    const opts = {
      files,
      sets: Array.isArray(o.sets) ? o.sets.map(String) : [],
      capturePerRequest: o.capturePerRequest !== false,
      configName: o.configName || "prediction.yaml",
    };
    if (typeof o.fixedWallTimeMs === "number") opts.fixedWallTimeMs = o.fixedWallTimeMs;
    if (typeof o.detail === "string") opts.detail = o.detail;
    else if (Array.isArray(o.detail)) opts.detail = o.detail.map(String).join(",");
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, onProgress: typeof o.onProgress === "function" ? o.onProgress : null });
      worker.postMessage({ id, yaml: yamlText, opts });
    });
  }

  // cancel terminates the worker (a run cannot be interrupted from inside: the simulation
  // does not yield), rejects every pending prediction with kind "cancelled", and starts a new
  // worker for the next prediction.
  function cancel() {
    if (!worker) return;
    worker.terminate();
    worker = null;
    const waiting = Array.from(pending.values());
    pending.clear();
    for (const p of waiting) {
      const e = new Error("prediction cancelled");
      e.kind = "cancelled";
      p.reject(e);
    }
    start();
  }

  // A page opened with a configuration in its URL (#cfg=<base64url YAML>) starts that
  // prediction at once, while the UI module is still loading; the UI then adopts it.
  function configFromHash() {
    const m = /(?:^#|&)cfg=([^&]*)/.exec(location.hash);
    if (!m) return null;
    try {
      const bin = atob(m[1].replace(/-/g, "+").replace(/_/g, "/"));
      return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    } catch (e) {
      return null;
    }
  }

  start();
  const api = { predict, cancel, ready, version: 1, initial: null };
  const initialYaml = configFromHash();
  if (initialYaml !== null) {
    const initial = { yaml: initialYaml, onProgress: null };
    initial.result = predict(initialYaml, { onProgress: (f) => { if (initial.onProgress) initial.onProgress(f); } });
    initial.result.catch(() => {});
    api.initial = initial;
  }
  window.aisimulate = api;
})();

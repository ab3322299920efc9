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
// details object (stdoutJson is what `--format json` prints). saturationText says in one
// sentence whether the deployment kept up with its load (docs/semantics/outputs.md §3.4);
// overviewJson is the deployment as resolved and the SLA attainment per bound (Go's
// report.Overview, for the app's deployment line and SLA cards).
// calibrations are calibration profiles (`predict --calibration`, docs/calibration.md), in
// order: an array of {name, data} or of File objects (data a string, Uint8Array, ArrayBuffer
// or Blob); strictCalibration is --strict-calibration.
// On failure the promise rejects with an Error whose .kind is "config" (bad input; .path is the
// dotted field path, .msg the message), "failed", or "cancelled" (aisimulate.cancel()).
//
//   const {profileJson, table, stdoutJson, warnings} =
//     await aisimulate.calibrate(yamlText | null, {measurements, files, configName, lengths})
//
// calibrate runs `aisimulate calibrate` in the page: measurements are benchmark files (AIPerf,
// vllm bench serve, SGLang bench_serving, measured-runs CSV) as [{name, data}] or File
// objects; lengths is calibrate's --lengths text (the length draw of files that record none,
// docs/calibration.md); profileJson is calibration.json, table the fit report, warnings what
// the CLI says on stderr (each after "aisimulate: warning: "). Errors as predict's.
//
//   const {recommendationJson, recommendationCsv, configs, feasible, view} =
//     await aisimulate.recommend(yamlText, {files, sets, configName, fixedWallTimeMs, poolSize, onProgress,
//                                           calibrations, strictCalibration})
//
// recommend runs `aisimulate recommend`: the search coordinator runs in the simulation worker,
// each round's candidate evaluations on a pool of Web Workers (poolSize, default
// navigator.hardwareConcurrency, capped by optimizer.parallelism), each loading core.wasm once;
// outcomes are placed by request index, so the result is byte-identical to the CLI's whatever
// the pool size. configs are recommendations/NNNN.yaml as [{name, data}]; view is what the
// Recommend view draws (ranked rows, one chart point per simulated candidate). onProgress
// receives {trials, total, best, poolSize, pointsJson} after every round (best null until a
// candidate is feasible; pointsJson the chart points of the round's simulated candidates).
// calibrations and strictCalibration are predict's, as `recommend --calibration` and
// --strict-calibration: every evaluation request carries the profiles to its pool worker.
//
//   const {names, zip} = await aisimulate.deployment(kind, ...)
//     kind "prediction": (yamlText, predictionJson, {configName, sets}) → deploy/0001/
//     kind "recommendation": (recommendationJson, top) → deploy/NNNN/ of the first top rows
//
// deployment writes what `--artifacts` writes (docs/artifacts.md): zip is a Uint8Array of a zip
// archive of the files (names lists them), byte for byte the CLI's files. It rejects like
// predict on failure.
//
//   aisimulate.cancel()   // stops every running prediction and recommendation: the worker is terminated and a
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
      if (m.type === "reply") { pending.delete(m.id); settleReply(p, m); return; }
      if (m.type === "progress") { if (p.onProgress) p.onProgress(m.fraction); return; }
      pending.delete(m.id);
      const r = m.result;
      if (r.ok) {
        p.resolve({ predictionJson: r.predictionJson, requestsJsonl: r.requestsJsonl || "", summaryJson: r.summaryJson, stdoutJson: r.stdoutJson, saturationText: r.saturationText || "", overviewJson: r.overviewJson || "null" });
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

  // normNamed reads an ordered list of named files ([{name, data}] or File objects) into
  // [{name, data: string | Uint8Array}] for the worker.
  async function normNamed(list, what) {
    const out = [];
    for (const f of Array.from(list || [])) {
      const data = typeof Blob !== "undefined" && f instanceof Blob ? f : f.data;
      const name = String(f.name);
      const one = await normFiles({ [name]: data });
      if (!(name in one)) throw new TypeError("aisimulate: " + what + " " + name + " has no data");
      out.push({ name, data: one[name] });
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
    if (o.calibrations) opts.calibrations = await normNamed(o.calibrations, "calibration profile");
    if (o.strictCalibration) opts.strictCalibration = true;
    if (typeof o.detail === "string") opts.detail = o.detail;
    else if (Array.isArray(o.detail)) opts.detail = o.detail.map(String).join(",");
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, onProgress: typeof o.onProgress === "function" ? o.onProgress : null });
      worker.postMessage({ id, yaml: yamlText, opts });
    });
  }

  // calibrate fits a calibration profile in the simulation worker (aisimulateCore.calibrate).
  async function calibrate(yamlText, options) {
    const o = options || {};
    const opts = {
      measurements: await normNamed(o.measurements, "measurement"),
      files: await normFiles(o.files),
      configName: o.configName || "prediction.yaml",
    };
    if (typeof o.lengths === "string") opts.lengths = o.lengths;
    const r = await call("calibrate", typeof yamlText === "string" ? yamlText : null, opts);
    if (!r.ok) {
      const e = new Error(r.error.message);
      e.kind = r.error.kind; e.path = r.error.path; e.msg = r.error.msg;
      throw e;
    }
    return { profileJson: r.profileJson, table: r.table, stdoutJson: r.stdoutJson, warnings: r.warnings };
  }

  // settleReply resolves or rejects an op call's promise with a worker's reply.
  function settleReply(p, m) {
    if (m.error !== undefined) {
      const e = new Error("aisimulate recommend failed: " + m.error);
      e.kind = "failed"; e.path = ""; e.msg = e.message;
      p.reject(e);
    } else {
      p.resolve(m.value);
    }
  }

  // call sends one op to the simulation worker (the search coordinator).
  function call(opName, ...args) {
    start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, onProgress: null });
      worker.postMessage({ id, op: opName, args });
    });
  }

  // The evaluation pool: Web Workers that each load core.wasm once and evaluate many
  // candidates, one at a time. Started on demand, kept between runs, stopped by cancel().
  const pool = [];
  let runCounter = 0;
  const activeRuns = new Set();

  function poolWorker(i) {
    if (pool[i]) return pool[i];
    const w = new Worker(new URL("sim-worker.js", base).href, { name: "aisimulate-pool" });
    const pw = { worker: w, pending: new Map(), nextId: 1 };
    w.onmessage = (ev) => {
      const m = ev.data;
      if (m.type !== "reply") return;
      const p = pw.pending.get(m.id);
      if (!p) return;
      pw.pending.delete(m.id);
      settleReply(p, m);
    };
    w.onerror = (ev) => {
      const waiting = Array.from(pw.pending.values());
      pw.pending.clear();
      for (const p of waiting) settleReply(p, { error: "evaluation worker failed: " + (ev.message || ev) });
    };
    pool[i] = pw;
    return pw;
  }

  function poolCall(pw, msg) {
    const id = pw.nextId++;
    return new Promise((resolve, reject) => {
      pw.pending.set(id, { resolve, reject });
      pw.worker.postMessage(Object.assign({ id }, msg));
    });
  }

  // evaluateRound evaluates requests on `size` pool workers; outcome i answers request i.
  async function evaluateRound(run, requests, size) {
    const outcomes = new Array(requests.length);
    let next = 0;
    const lane = async (pw) => {
      while (next < requests.length && !run.cancelled) {
        const i = next++;
        outcomes[i] = await poolCall(pw, { op: "evaluate", runId: run.id, request: requests[i] });
      }
    };
    const lanes = [];
    for (let k = 0; k < Math.min(size, requests.length); k++) lanes.push(lane(run.workers[k]));
    await Promise.all(lanes);
    return outcomes;
  }

  function coreError(e) {
    const err = new Error(e.message);
    err.kind = e.kind; err.path = e.path; err.msg = e.msg;
    return err;
  }

  async function recommend(yamlText, options) {
    const o = options || {};
    if (typeof yamlText !== "string") throw new TypeError("aisimulate.recommend: yamlText must be a string");
    const files = await normFiles(o.files);
    const run = { id: ++runCounter, cancelled: false, reject: null, workers: [], sessionId: null };
    activeRuns.add(run);
    const cancelled = new Promise((_, reject) => { run.reject = reject; });
    cancelled.catch(() => {});
    const body = async () => {
      const startOpts = { files, sets: Array.isArray(o.sets) ? o.sets.map(String) : [], configName: o.configName || "recommendation.yaml" };
      if (typeof o.fixedWallTimeMs === "number") startOpts.fixedWallTimeMs = o.fixedWallTimeMs;
      if (o.calibrations) startOpts.calibrations = await normNamed(o.calibrations, "calibration profile");
      if (o.strictCalibration) startOpts.strictCalibration = true;
      const st = await call("recommendStart", yamlText, startOpts);
      if (!st.ok) throw coreError(st.error);
      run.sessionId = st.id;
      const hw = (typeof navigator !== "undefined" && navigator.hardwareConcurrency) || 1;
      const size = Math.max(1, Math.min(typeof o.poolSize === "number" ? o.poolSize : hw, st.parallelism));
      for (let k = 0; k < size; k++) {
        run.workers.push(poolWorker(k));
        run.workers[k].worker.postMessage({ op: "files", runId: run.id, files });
      }
      const onProgress = typeof o.onProgress === "function" ? o.onProgress : null;
      if (onProgress) onProgress({ trials: 0, total: st.total, best: null, poolSize: size });
      for (;;) {
        const round = await call("recommendNext", st.id);
        if (!round.ok) throw coreError(round.error);
        if (round.done) break;
        const outcomes = await evaluateRound(run, round.requests, size);
        if (run.cancelled) return null;
        const obs = await call("recommendObserve", st.id, outcomes);
        if (!obs.ok) throw coreError(obs.error);
        if (onProgress) onProgress({ trials: obs.trials, total: obs.total, best: obs.best, poolSize: size, pointsJson: obs.pointsJson });
      }
      const r = await call("recommendResult", st.id);
      if (!r.ok) throw coreError(r.error);
      return { recommendationJson: r.recommendationJson, recommendationCsv: r.recommendationCsv, configs: r.configs,
        feasible: r.feasible, viewJson: r.viewJson, view: JSON.parse(r.viewJson), poolSize: size };
    };
    try {
      return await Promise.race([body(), cancelled]);
    } finally {
      activeRuns.delete(run);
    }
  }

  // cancel terminates the worker (a run cannot be interrupted from inside: the simulation
  // does not yield), rejects every pending prediction with kind "cancelled", and starts a new
  // worker for the next prediction.
  function cancel() {
    for (const run of Array.from(activeRuns)) {
      run.cancelled = true;
      const e = new Error("recommendation cancelled");
      e.kind = "cancelled";
      run.reject(e);
    }
    activeRuns.clear();
    // The pool's evaluations cannot be interrupted either: stop its workers (new ones start
    // with the next recommendation).
    for (const pw of pool.splice(0)) {
      pw.worker.terminate();
      for (const p of pw.pending.values()) { const e = new Error("cancelled"); e.kind = "cancelled"; p.reject(e); }
    }
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

  // deployment answers from the core in the simulation worker (deployPrediction,
  // deployRecommendation) and turns the zip's base64 into bytes.
  async function deployment(kind, ...args) {
    const op = { prediction: "deployPrediction", recommendation: "deployRecommendation" }[kind];
    if (!op) throw new TypeError("aisimulate.deployment: kind must be \"prediction\" or \"recommendation\"");
    const r = await call(op, ...args);
    if (!r || !r.ok) {
      const e = (r && r.error) || { kind: "failed", message: "no answer" };
      throw Object.assign(new Error(e.message), { kind: e.kind, path: e.path, msg: e.msg });
    }
    const bin = atob(r.zipBase64);
    return { names: r.names, zip: Uint8Array.from(bin, (c) => c.charCodeAt(0)) };
  }

  start();
  const api = { predict, calibrate, recommend, deployment, cancel, ready, version: 1, initial: null };
  const initialYaml = configFromHash();
  if (initialYaml !== null) {
    const initial = { yaml: initialYaml, onProgress: null };
    initial.result = predict(initialYaml, { onProgress: (f) => { if (initial.onProgress) initial.onProgress(f); } });
    initial.result.catch(() => {});
    api.initial = initial;
  }
  window.aisimulate = api;
})();

// Web Worker that runs the simulator (core.wasm, GOOS=js) off the page's main thread.
// Messages in:  {id, yaml, opts: {files, sets, capturePerRequest, detail, fixedWallTimeMs, configName,
// calibrations, strictCalibration}}
// Messages out: {type: "ready"} once core.wasm is loaded, then per call
// {id, type: "progress", fraction} … then {id, type: "result", result} where result is
// aisimulateCore.predict's {ok, predictionJson, requestsJsonl, summaryJson, stdoutJson,
// saturationText, overviewJson, headlineJson, error}.
// Besides predictions it answers the recommendation calls of aisimulate.recommend (messages
// {id, op, args} → {id, type: "reply", value}): as the search coordinator (op recommendStart,
// recommendNext, recommendObserve, recommendResult, recommendClose: aisimulateCore's calls of
// the same names) and, in the evaluation pool (workers named "aisimulate-pool", which skip the
// warm-up), op "files" {runId, files} (the uploads of a run, kept for its evaluations) and op
// "evaluate" {runId, request} → the outcome JSON of aisimulateCore.evaluate. Op "calibrate"
// {args: [yaml, {measurements, files, configName, lengths}]} → aisimulateCore.calibrate's result.
// The base URL of the assets is self.AISIMULATE_BASE when set (embed.js, cross-origin) or the
// worker's own location.
"use strict";
(function () {
  const base = self.AISIMULATE_BASE || self.location.href;
  // Warm-up configs: tiny runs through the code paths of the default page config (V8 compiles
  // wasm functions lazily, on their first call; this moves that cost off the first real run).
  const ENGINE = "engine:\n  model: meta-llama/Meta-Llama-3.1-8B\n  hardware: h200_sxm\n  workers:\n    aggregated:\n" +
    "      kv_cache: {block_size: 64, capacity: {type: fixed, blocks: 256}}\n";
  const TRAFFIC = "traffic:\n  source: {type: synthetic, input_tokens: 32, output_tokens: 4}\n" +
    "  load: {type: concurrency, concurrency: 2}\n  stop: {requests: 4}\n";
  const WARMUP = [
    TRAFFIC + ENGINE + "      timing: {type: polynomial}\n",
    TRAFFIC + ENGINE + "      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}\n",
  ];
  importScripts(new URL("wasm_exec.js", base).href);
  let requested = false;
  const ready = (async () => {
    const go = new Go();
    const url = new URL("core.wasm", base).href;
    let result;
    const resp = fetch(url);
    try {
      result = await WebAssembly.instantiateStreaming(resp, go.importObject);
    } catch (e) {
      const r = await fetch(url);
      result = await WebAssembly.instantiate(await r.arrayBuffer(), go.importObject);
    }
    const core = new Promise((resolve) => { self.__aisimulateOnReady = resolve; });
    go.run(result.instance);
    const c = await core;
    // Warm-up: the first prediction of a fresh module pays one-time initialisation (catalog
    // decoding, JIT); pay it now, while the page is still loading its UI, unless a real
    // request is already waiting (it then pays the cost itself, and sooner).
    if (!requested && self.name !== "aisimulate-pool") {
      for (const w of WARMUP) {
        if (requested) break;
        try { c.predict(w, { capturePerRequest: true }); } catch (e) { /* real calls report errors */ }
      }
    }
    return c;
  })();
  ready.then(() => self.postMessage({ type: "ready" }),
    (e) => self.postMessage({ type: "fatal", message: String(e && e.message || e) }));

  // Uploaded files of the latest recommendation run, for its evaluations.
  let runFiles = { runId: null, files: {} };
  const RECOMMEND_OPS = ["recommendStart", "recommendNext", "recommendObserve", "recommendResult", "recommendClose",
    "deployPrediction", "deployRecommendation"];

  // op answers one recommendation call; a throw becomes a failed reply.
  function op(core, m) {
    if (m.op === "files") { runFiles = { runId: m.runId, files: m.files || {} }; return null; }
    if (m.op === "evaluate") {
      const files = runFiles.runId === m.runId ? runFiles.files : {};
      return core.evaluate(String(m.request), { files });
    }
    if (m.op === "calibrate") {
      const [yaml, o] = m.args || [];
      return JSON.parse(JSON.stringify(core.calibrate(yaml, o || {})));
    }
    if (RECOMMEND_OPS.includes(m.op)) {
      const r = core[m.op](...(m.args || []));
      if (r && typeof r === "object") {
        // Plain data for postMessage (the core's objects are JS objects already, but arrays of
        // Go-made values are copied to be safe).
        return JSON.parse(JSON.stringify(r));
      }
      return r === undefined ? null : r;
    }
    throw new Error("unknown operation " + m.op);
  }

  self.onmessage = async (ev) => {
    requested = true;
    const m = ev.data || {};
    if (m.op) {
      let core;
      try {
        core = await ready;
        const value = op(core, m);
        if (m.id !== undefined) self.postMessage({ id: m.id, type: "reply", value });
      } catch (e) {
        self.postMessage({ id: m.id, type: "reply", error: String(e && e.message || e) });
      }
      return;
    }
    const { id, yaml, opts } = m;
    let core;
    try {
      core = await ready;
    } catch (e) {
      self.postMessage({ id, type: "result", result: { ok: false, error: { kind: "failed", path: "", msg: String(e), message: "could not load core.wasm: " + e } } });
      return;
    }
    let last = -1;
    const o = Object.assign({}, opts || {}, {
      onProgress: (f) => {
        if (f - last >= 0.01 || f >= 1) {
          last = f;
          self.postMessage({ id, type: "progress", fraction: f });
        }
      },
    });
    let result;
    try {
      result = core.predict(String(yaml), o);
    } catch (e) {
      result = { ok: false, error: { kind: "failed", path: "", msg: String(e), message: "aisimulate predict failed: " + e } };
    }
    self.postMessage({ id, type: "result", result: {
      ok: result.ok, predictionJson: result.predictionJson, requestsJsonl: result.requestsJsonl,
      summaryJson: result.summaryJson, stdoutJson: result.stdoutJson, saturationText: result.saturationText,
      overviewJson: result.overviewJson, headlineJson: result.headlineJson,
      error: result.error ? { kind: result.error.kind, path: result.error.path, msg: result.error.msg, message: result.error.message } : null,
    } });
  };
})();

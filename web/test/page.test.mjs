// The browser app in headless Chromium: time to first prediction, field-level validation
// errors, links that reproduce a run, trace upload, downloads, a responsive page while the
// Web Worker simulates, and the docs embed element on a page of another origin.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import crypto from "node:crypto";
import { ROOT, startStatic, launchChromium, withTimeout, normalizeWall, assertSameText, loadNodeCore, runCalibrate } from "./lib.mjs";

let srv, browser;
const shots = path.join(ROOT, "web/test-results");

before(async () => {
  srv = await startStatic();
  browser = await launchChromium();
  fs.mkdirSync(shots, { recursive: true });
});
after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.close();
});

async function openPage(frag = "") {
  const page = await browser.ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(srv.url + frag);
  await page.waitForSelector("#run", { timeout: 30000 });
  await page.evaluate(() => window.aisimulate.ready);
  page.errors = errors;
  return page;
}

async function waitIdle(page) {
  await page.waitForFunction(() => { const b = document.querySelector("#run"); return b && !b.disabled; }, null, { timeout: 90000 });
}

// The cards a summary shows: the module's list (report.Cards in Go) whose keys the summary has.
async function cardKeys(summary, embedOnly) {
  const core = await loadNodeCore();
  return Array.from(core.cards).filter((c) => (!embedOnly || c[3]) && c[1] in summary).map((c) => c[1]);
}

function b64url(s) { return Buffer.from(s, "utf8").toString("base64url"); }
const quickstart = fs.readFileSync(path.join(ROOT, "ui/presets/01-example.yaml"), "utf8");

test("time to first prediction (page load → results of the URL config)", async () => {
  const page = await browser.ctx.newPage();
  await page.goto(srv.url + "#cfg=" + b64url(quickstart));
  await page.waitForSelector("#cards .card", { timeout: 60000 });
  const t = await page.evaluate(() => ({ firstResult: performance.now(), load: performance.getEntriesByType("navigation")[0].loadEventEnd }));
  const api = await page.evaluate(async (y) => {
    const t0 = performance.now();
    await window.aisimulate.predict(y);
    return performance.now() - t0;
  }, quickstart);
  const msg = `time to first prediction: ${t.firstResult.toFixed(0)} ms after navigation start (load event at ${t.load.toFixed(0)} ms, ` +
    `so ${(t.firstResult - t.load).toFixed(0)} ms after load); warm predict() of the quickstart: ${api.toFixed(0)} ms`;
  console.log("# " + msg);
  fs.writeFileSync(path.join(shots, "timing.txt"), msg + "\n");
  // The figure is reported (web/test-results/timing.txt), not asserted: speed is measured, not
  // timed in tests, and a loaded machine would make such an assertion fail at random. The
  // 60 s wait above is what catches a page that never answers.
  // A visitor who opens the page and presses Run on the default preset.
  const p2 = await browser.ctx.newPage();
  await p2.goto(srv.url);
  await p2.waitForSelector("#run");
  await p2.evaluate(() => window.aisimulate.ready);
  const clickAt = await p2.evaluate(() => performance.now());
  await p2.click("#run");
  await p2.waitForSelector("#cards .card", { timeout: 60000 });
  const doneAt = await p2.evaluate(() => performance.now());
  const msg2 = `default page: worker ready (core loaded and warmed up) at ${clickAt.toFixed(0)} ms; Run → results ${(doneAt - clickAt).toFixed(0)} ms`;
  console.log("# " + msg2);
  fs.appendFileSync(path.join(shots, "timing.txt"), msg2 + "\n");
  await p2.close();
  await page.screenshot({ path: path.join(shots, "page.png"), fullPage: true });
  assert.deepEqual(page.errors || [], []);
  await page.close();
});

test("validation error is shown at the form field", async () => {
  const page = await openPage();
  await page.fill("#aggregated-tensor", "0");
  await page.dispatchEvent("#aggregated-tensor", "change");
  await page.waitForFunction(() => /tensor: 0/.test(document.querySelector("#yaml").value), null, { timeout: 10000 });
  await page.click("#run");
  await waitIdle(page);
  const err = await page.textContent(".field.invalid .field-error");
  assert.match(err, /engine\.workers\.aggregated\.parallelism\.tensor: must be greater than 0/);
  assert.equal(await page.getAttribute(".field.invalid input", "id"), "aggregated-tensor");
  assert.match(await page.textContent("#status"), /invalid/);
  // An error with no form field is shown under the editor.
  await page.fill("#yaml", "engine:\n  model: meta-llama/Meta-Llama-3.1-8B\n  hardware: h200_sxm\n  colour: blue\n");
  await page.click("#run");
  await waitIdle(page);
  assert.match(await page.textContent("#editor-error"), /colour/);
  await page.screenshot({ path: path.join(shots, "field-error.png") });
  await page.close();
});

test("a re-render keeps what the user is typing in a form field", async () => {
  const page = await openPage();
  await page.fill("#aggregated-replicas", "3");
  // A programmatic click keeps the focus in the field (no change event yet); Run re-renders
  // the whole page, which must not reset the field to the YAML's value.
  await page.evaluate(() => document.querySelector("#run").click());
  await page.waitForFunction(() => document.querySelector("#run").disabled, null, { timeout: 10000 }).catch(() => {});
  assert.equal(await page.inputValue("#aggregated-replicas"), "3");
  await waitIdle(page);
  assert.equal(await page.inputValue("#aggregated-replicas"), "3");
  await page.dispatchEvent("#aggregated-replicas", "change");
  await page.waitForFunction(() => /replicas: 3/.test(document.querySelector("#yaml").value), null, { timeout: 10000 });
  await page.close();
});

test("the URL carries the config: a copied link reproduces the run", async () => {
  const page = await openPage();
  await page.selectOption("#preset", { index: 1 });
  await page.fill("#load-value", "3");
  await page.dispatchEvent("#load-value", "change");
  await page.click("#run");
  await page.waitForSelector("#cards .card", { timeout: 60000 });
  await waitIdle(page);
  const href = page.url();
  assert.match(href, /#cfg=/);
  const cards = await page.textContent("#cards");
  const yaml = await page.inputValue("#yaml");
  const page2 = await browser.ctx.newPage();
  await page2.goto(href);
  await page2.waitForSelector("#cards .card", { timeout: 60000 });
  assert.equal(await page2.inputValue("#yaml"), yaml);
  assert.equal(await page2.textContent("#cards"), cards);
  await page.close();
  await page2.close();
});

test("trace upload, downloads of prediction.json and requests.jsonl", async () => {
  const page = await openPage();
  const trace = fs.readFileSync(path.join(ROOT, "web/testdata/identity/small_trace.jsonl"));
  const idx = await page.evaluate(() => [...document.querySelectorAll("#preset option")].findIndex((o) => /trace/i.test(o.textContent)));
  assert.ok(idx >= 0, "trace preset present");
  await page.selectOption("#preset", { index: idx });
  await page.setInputFiles("#upload", { name: "trace.jsonl", mimeType: "application/x-ndjson", buffer: trace });
  await page.waitForSelector(".file-list li");
  await page.click("#run");
  await waitIdle(page);
  assert.equal(await page.textContent('#cards [data-key="completed_requests"] .card-value'), "40");
  const [dl] = await Promise.all([page.waitForEvent("download"), page.click("#dl-prediction")]);
  assert.equal(dl.suggestedFilename(), "prediction.json");
  const got = fs.readFileSync(await dl.path(), "utf8");
  const shown = await page.evaluate(() => [...document.querySelectorAll("#cards .card")].map((c) => c.dataset.key));
  assert.deepEqual(shown, await cardKeys(JSON.parse(got).summary, false), "the app's cards are report.Cards");
  // A card shows a band exactly when prediction.json has an interval for its key.
  const banded = await page.evaluate(() => [...document.querySelectorAll("#cards .card")].filter((c) => c.querySelector(".card-band")).map((c) => c.dataset.key));
  const intervals = JSON.parse(got).intervals || {};
  assert.deepEqual(banded, shown.filter((k) => intervals[k] && typeof intervals[k].p10 === "number"), "cards with a band");
  const yaml = await page.inputValue("#yaml");
  const api = await page.evaluate(async ([y, t]) => window.aisimulate.predict(y, { files: { "trace.jsonl": t } }), [yaml, trace.toString("utf8")]);
  assertSameText(normalizeWall(got), normalizeWall(api.predictionJson), "downloaded prediction.json");
  const [dl2] = await Promise.all([page.waitForEvent("download"), page.click("#dl-requests")]);
  assert.equal(dl2.suggestedFilename(), "requests.jsonl");
  assertSameText(fs.readFileSync(await dl2.path(), "utf8"), api.requestsJsonl, "downloaded requests.jsonl");
  await page.screenshot({ path: path.join(shots, "trace.png"), fullPage: true });
  await page.close();
});

test("the page stays responsive while the worker simulates", async () => {
  const page = await openPage();
  const r = await page.evaluate(async () => {
    const y = "traffic:\n  source: {type: synthetic, input_tokens: 512, output_tokens: 256}\n  load: {type: concurrency, concurrency: 64}\n  stop: {requests: 8000}\n" +
      "engine:\n  model: Qwen/Qwen3-8B\n  hardware: h200_sxm\n  workers:\n    aggregated:\n      parallelism: {replicas: 4}\n      kv_cache: {capacity: {type: fixed, blocks: 20000}}\n      timing: {type: polynomial}\n";
    let ticks = 0, maxGap = 0, last = performance.now(), running = true, progress = 0;
    const tick = () => { const n = performance.now(); maxGap = Math.max(maxGap, n - last); last = n; ticks++; if (running) setTimeout(tick, 10); };
    setTimeout(tick, 10);
    const t0 = performance.now();
    await window.aisimulate.predict(y, { capturePerRequest: false, onProgress: () => { progress++; } });
    running = false;
    return { ms: performance.now() - t0, ticks, maxGap, progress };
  });
  console.log(`# 8000-request run took ${r.ms.toFixed(0)} ms in the worker; main thread ticks ${r.ticks}, longest gap ${r.maxGap.toFixed(0)} ms, progress events ${r.progress}`);
  // Simulating on the main thread would block it for the whole run; a starved machine (CI
  // runners, a shared VM) delays timers by a share of it. So the longest gap must stay
  // under 250 ms or, on a run slowed past 500 ms, under half the run.
  assert.ok(r.maxGap < Math.max(250, r.ms / 2), `main thread blocked for ${r.maxGap} ms of a ${r.ms} ms run`);
  await page.close();
});

// The snippets of README.md and docs/web.md, copied verbatim (only YOUR-HOST replaced), render
// result cards: the documented one-liner is a complete configuration.
test("docs embed: the README and docs/web.md snippets run as shown", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-snippet-"));
  fs.copyFileSync(path.join(ROOT, "examples/quickstart.yaml"), path.join(dir, "quickstart.yaml"));
  const snippet = (file, re) => {
    const m = fs.readFileSync(path.join(ROOT, file), "utf8").match(re);
    assert.ok(m, `no embed snippet in ${file}`);
    // Only the host is replaced: the documented /aisimulate/ folder is served by web/serve.mjs.
    return m[1].replace(/^ {2}/gm, (s) => (file === "README.md" ? "" : s)).replaceAll("https://YOUR-HOST/", srv.url);
  };
  const readme = snippet("README.md", /```html\n([\s\S]*?)```/);
  const docsPage = snippet("docs/web.md", /## Docs embed[\s\S]*?```html\n([\s\S]*?)```/);
  const docs = await startStatic(dir);
  try {
    for (const [name, html] of [["README.md", readme], ["docs/web.md", docsPage]]) {
      const n = (html.match(/<aisimulate-prediction/g) || []).length;
      assert.ok(n >= 1, name);
      fs.writeFileSync(path.join(dir, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>docs</title></head><body>\n${html}\n</body></html>`);
      const page = await browser.ctx.newPage();
      await page.goto(docs.url + "index.html");
      await page.waitForFunction((n) => {
        const els = [...document.querySelectorAll("aisimulate-prediction")];
        return els.length === n && els.every((e) => e.dataset.state === "done" || e.dataset.state === "error");
      }, n, { timeout: 120000 });
      const states = await page.evaluate(() => [...document.querySelectorAll("aisimulate-prediction")].map((e) => e.dataset.state + " " + (e.shadowRoot.querySelector(".error") || {}).textContent));
      assert.deepEqual(states.filter((s) => !s.startsWith("done")), [], `${name}: ${states.join("; ")}`);
      await page.close();
    }
  } finally {
    await docs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("docs embed: <aisimulate-prediction> renders a live card on another origin", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-embed-"));
  const yaml = fs.readFileSync(path.join(ROOT, "ui/presets/02-fixed-timing-toy.yaml"), "utf8");
  fs.writeFileSync(path.join(dir, "e2.yaml"), yaml);
  fs.copyFileSync(path.join(ROOT, "examples/quickstart.yaml"), path.join(dir, "quick.yaml"));
  fs.writeFileSync(path.join(dir, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>docs</title>
<script src="${srv.url}embed.js" defer></script></head>
<body style="font-family: sans-serif; max-width: 820px; margin: 24px auto">
<h2>Docs page</h2><p>A live prediction from a file:</p>
<aisimulate-prediction id="a" config-src="e2.yaml"></aisimulate-prediction>
<p>The default timing model, with error bars:</p>
<aisimulate-prediction id="c" config-src="quick.yaml"></aisimulate-prediction>
<p>And an invalid inline config:</p>
<aisimulate-prediction id="b" config="engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, workers: {aggregated: {parallelism: {tensor: 0}}}}"></aisimulate-prediction>
</body></html>`);
  const docs = await startStatic(dir);
  try {
    const page = await browser.ctx.newPage();
    await page.goto(docs.url);
    await page.waitForSelector('#a[data-state="done"]', { timeout: 60000 });
    await page.waitForSelector('#b[data-state="error"]', { timeout: 60000 });
    await page.waitForSelector('#c[data-state="done"]', { timeout: 60000 });
    // Fixed timing has no intervals; the default model's cards of a mean carry their band.
    const bands = (id) => page.evaluate((sel) => Object.fromEntries([...document.querySelector(sel).shadowRoot.querySelectorAll("[data-key]")]
      .filter((c) => c.querySelector(".b")).map((c) => [c.dataset.key, c.querySelector(".b").textContent])), id);
    assert.deepEqual(await bands("#a"), {}, "fixed timing: no band");
    const quick = await bands("#c");
    assert.deepEqual(Object.keys(quick).sort(), ["mean_itl_ms", "mean_ttft_ms", "output_throughput_tok_s"], JSON.stringify(quick));
    assert.match(quick.mean_ttft_ms, /^80 %: [0-9.]+–[0-9.]+$/);
    const v = await page.evaluate(() => document.querySelector("#a").shadowRoot.querySelector('[data-key="completed_requests"] .v').textContent);
    assert.equal(v, "6");
    const shown = await page.evaluate(() => [...document.querySelector("#a").shadowRoot.querySelectorAll("[data-key]")].map((c) => c.dataset.key));
    const core = await loadNodeCore();
    const res = core.predict(yaml, {});
    assert.ok(res.ok);
    assert.deepEqual(shown, await cardKeys(JSON.parse(res.predictionJson).summary, true), "the embed's cards are report.Cards marked Embed");
    assert.ok(shown.length >= 6, shown.join(","));
    const sat = await page.evaluate(() => document.querySelector("#a").shadowRoot.querySelector(".saturation").textContent);
    assert.equal(sat, res.saturationText, "the embed shows the module's saturation sentence");
    assert.match(sat, /^Keeping up: /);
    const e = await page.evaluate(() => document.querySelector("#b").shadowRoot.querySelector(".error").textContent);
    assert.match(e, /parallelism\.tensor/);
    const link = await page.evaluate(() => document.querySelector("#a").shadowRoot.querySelector("a").href);
    assert.ok(link.startsWith(srv.url + "index.html#cfg="));
    await page.screenshot({ path: path.join(shots, "embed.png"), fullPage: true });
    await page.close();
  } finally {
    await docs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// docs/semantics/outputs.md §3.4, S1: examples/overload.yaml serves 200 of 250 requests/s.
const OVERLOADED = "Overloaded: offered 250 req/s, served 200 req/s; the queue was still growing at the last arrival (2 waiting).";

test("an overloaded run says so in one sentence, in the app and in the embed", async () => {
  const yaml = fs.readFileSync(path.join(ROOT, "examples/overload.yaml"), "utf8");
  const page = await browser.ctx.newPage();
  await page.goto(srv.url + "#cfg=" + b64url(yaml));
  await page.waitForSelector("#saturation", { timeout: 60000 });
  assert.equal(await page.textContent("#saturation"), OVERLOADED);
  assert.ok(await page.$("#saturation.overloaded"), "an overload is marked");
  await page.screenshot({ path: path.join(shots, "overload.png") });
  await page.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-overload-"));
  fs.writeFileSync(path.join(dir, "overload.yaml"), yaml);
  fs.writeFileSync(path.join(dir, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>docs</title>
<script src="${srv.url}embed.js" defer></script></head>
<body><aisimulate-prediction id="o" config-src="overload.yaml"></aisimulate-prediction></body></html>`);
  const docs = await startStatic(dir);
  try {
    const p = await browser.ctx.newPage();
    await p.goto(docs.url);
    await p.waitForSelector('#o[data-state="done"]', { timeout: 60000 });
    assert.equal(await p.evaluate(() => document.querySelector("#o").shadowRoot.querySelector(".saturation").textContent), OVERLOADED);
    await p.close();
  } finally {
    await docs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The quickstart's cards read as the terminal's readable table does: the deployment echo, a
// 22 s run in seconds, the SLA attainment and goodput share (80.0 % and 100.0 %, as in
// wasm/cli/testdata/quickstart.readable80.txt), and the note that explains an ITL mean above
// its p99.
test("cards: deployment, seconds, SLA attainment, goodput share, ITL note", async () => {
  const page = await browser.ctx.newPage();
  await page.goto(srv.url + "#cfg=" + b64url(quickstart));
  await page.waitForSelector("#sla-cards .card", { timeout: 60000 });
  assert.equal(await page.textContent("#deployment"),
    "meta-llama/Meta-Llama-3.1-8B · h200_sxm × 1 GPU, vllm, aggregated · aggregated: 1 replica × TP1, default timing");
  assert.equal(await page.textContent('#cards [data-key="duration_ms"] .card-value'), "22s");
  const sla = await page.evaluate(() => [...document.querySelectorAll("#sla-cards .card")].map((c) =>
    [c.dataset.key, c.querySelector(".card-label").textContent, c.querySelector(".card-value").textContent]));
  assert.deepEqual(sla, [
    ["sla-ttft", "TTFT ≤ 200 ms", "80.0%"],
    ["sla-itl", "ITL (request mean) ≤ 20 ms", "100.0%"],
    ["goodput-share", "Met every SLA bound", "80.0%"],
  ]);
  assert.match(await page.textContent('#cards [data-key="mean_itl_ms"] .card-note'), /above the p99/);
  await page.close();
  // A model alias is echoed with the catalog id it resolved to.
  const toy = fs.readFileSync(path.join(ROOT, "ui/presets/02-fixed-timing-toy.yaml"), "utf8");
  const alias = toy.replace(/model: \S+/, "model: someorg/Llama-3.1-8B-Instruct-FP8");
  assert.notEqual(alias, toy);
  const p2 = await browser.ctx.newPage();
  await p2.goto(srv.url + "#cfg=" + b64url(alias));
  await p2.waitForSelector("#deployment", { timeout: 60000 });
  assert.match(await p2.textContent("#deployment"), /^meta-llama\/Meta-Llama-3\.1-8B \(given as someorg\/Llama-3\.1-8B-Instruct-FP8\) · /);
  await p2.close();
});

test("a field error stays inside the form panel", async () => {
  const page = await openPage();
  await page.fill("#aggregated-tensor", "3");
  await page.dispatchEvent("#aggregated-tensor", "change");
  await page.waitForFunction(() => /tensor: 3/.test(document.querySelector("#yaml").value), null, { timeout: 10000 });
  await page.click("#run");
  await waitIdle(page);
  await page.waitForSelector(".field.invalid .field-error");
  const box = await page.evaluate(() => {
    const e = document.querySelector(".field.invalid .field-error");
    const panel = e.closest(".panel") || document.body;
    const r = e.getBoundingClientRect(), p = panel.getBoundingClientRect();
    return { text: e.textContent, right: r.right, panelRight: p.right, scroll: e.scrollWidth, client: e.clientWidth };
  });
  assert.match(box.text, /tensor/);
  assert.ok(box.right <= box.panelRight + 0.5 && box.scroll <= box.client + 1, JSON.stringify(box));
  await page.screenshot({ path: path.join(shots, "field-error-tensor3.png") });
  await page.close();
});

// An element whose simulator cannot load says so instead of staying blank: embed.js served from a
// folder without sim-worker.js, wasm_exec.js or core.wasm.
test("docs embed: an element whose module cannot load shows an error", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-broken-"));
  fs.mkdirSync(path.join(dir, "lonely"));
  fs.copyFileSync(path.join(ROOT, "static/embed.js"), path.join(dir, "lonely/embed.js"));
  fs.writeFileSync(path.join(dir, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>docs</title>
<script src="lonely/embed.js" defer></script></head>
<body><aisimulate-prediction id="x" config="engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, workers: {aggregated: {}}}"></aisimulate-prediction></body></html>`);
  const docs = await startStatic(dir);
  try {
    const page = await browser.ctx.newPage();
    await page.goto(docs.url);
    await page.waitForSelector('#x[data-state="error"]', { timeout: 60000 });
    const e = await page.evaluate(() => document.querySelector("#x").shadowRoot.querySelector(".error").textContent);
    assert.match(e, /^could not load the simulator from http:\/\/127\.0\.0\.1:\d+\/lonely\/: /);
    await page.close();
  } finally {
    await docs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The Predict view's calibration (docs/web.md, "The page"): an uploaded profile is applied to
// the run, whose download is the calibrated prediction.json of the API; each card shows the
// calibrated value with the profile's band and the uncalibrated value under it. Benchmark
// files are calibrated in the page: its profile is the API's calibrate result, and it is
// applied the same way.
test("calibration: a profile or benchmark files, calibrated beside uncalibrated", async () => {
  const calDir = path.join(ROOT, "examples/calibration");
  const profile = fs.readFileSync(path.join(calDir, "profile.json"));
  const page = await openPage("#cfg=" + b64url(quickstart));
  await waitIdle(page);
  await page.setInputFiles("#calibration-upload", { name: "profile.json", mimeType: "application/json", buffer: profile });
  await page.waitForSelector("#calibration-profiles li");
  assert.match(await page.textContent("#calibration-profiles li"), /^profile\.json/);
  await page.click("#run");
  await page.waitForSelector("#cards .card-uncal", { timeout: 90000 });
  await waitIdle(page);
  const [dl] = await Promise.all([page.waitForEvent("download"), page.click("#dl-prediction")]);
  const got = fs.readFileSync(await dl.path(), "utf8");
  const api = await page.evaluate(async ([y, p]) => window.aisimulate.predict(y, { calibrations: [{ name: "profile.json", data: p }] }),
    [quickstart, profile.toString("utf8")]);
  assertSameText(normalizeWall(got), normalizeWall(api.predictionJson), "calibrated prediction.json");
  const pred = JSON.parse(got);
  assert.equal(pred.intervals.source, "calibration");
  const ttft = await page.evaluate(() => {
    const c = document.querySelector('#cards [data-key="mean_ttft_ms"]');
    return { value: c.querySelector(".card-value").firstChild.textContent, uncal: c.querySelector(".card-uncal").textContent,
      bandTitle: c.querySelector(".card-band").title };
  });
  const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  assert.notEqual(pred.summary.mean_ttft_ms, pred.uncalibrated.mean_ttft_ms, "the profile moves mean TTFT");
  assert.match(ttft.uncal, /^uncalibrated \d/);
  assert.match(ttft.bandTitle, /calibration profile/);
  const shownUncal = Number(ttft.uncal.replace("uncalibrated ", "").replace(/,/g, ""));
  assert.ok(Math.abs(shownUncal - pred.uncalibrated.mean_ttft_ms) <= 0.01 * pred.uncalibrated.mean_ttft_ms,
    `uncalibrated card ${ttft.uncal} vs ${pred.uncalibrated.mean_ttft_ms} (${fmt(pred.uncalibrated.mean_ttft_ms)})`);
  assert.match(await page.textContent("#calibration-status"), /^Last run: /);
  await page.screenshot({ path: path.join(shots, "calibration.png"), fullPage: true });

  // Remove the profile, then calibrate on the benchmark files in the page.
  await page.click("#calibration-profiles li button");
  await page.waitForSelector("#calibration-profiles", { state: "detached" });
  const names = ["vllm-c8.json", "vllm-c64.json"];
  await page.setInputFiles("#calibration-upload", names.map((n) => ({ name: n, mimeType: "application/json", buffer: fs.readFileSync(path.join(calDir, n)) })));
  await page.waitForSelector("#calibration-fit", { timeout: 120000 });
  assert.match(await page.textContent("#calibration-profiles li"), /^calibration\.json/);
  const measurements = names.map((n) => ({ name: n, data: fs.readFileSync(path.join(calDir, n), "utf8") }));
  const fit = await page.evaluate(async ([y, m]) => window.aisimulate.calibrate(y, { measurements: m }), [quickstart, measurements]);
  assert.equal(await page.textContent("#calibration-fit"), fit.table);
  await page.click("#run");
  await waitIdle(page);
  await page.waitForSelector("#cards .card-uncal", { timeout: 90000 });
  const [dl2] = await Promise.all([page.waitForEvent("download"), page.click("#dl-prediction")]);
  const api2 = await page.evaluate(async ([y, p]) => window.aisimulate.predict(y, { calibrations: [{ name: "calibration.json", data: p }] }),
    [quickstart, fit.profileJson]);
  assertSameText(normalizeWall(fs.readFileSync(await dl2.path(), "utf8")), normalizeWall(api2.predictionJson), "prediction.json calibrated in the page");
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The calibration control's length draw (docs/web.md, "The page"; docs/calibration.md,
// "Length draws"): a measured-runs CSV row, which records no draw, calibrated in the page
// with "{distribution: uniform, min_ratio: 0.8}" in the field gives the profile of the CLI's
// `calibrate --lengths` (prediction.json names it by the same sha256); a bad draw shows the
// core's message, the CLI's exit-2 text, and fits nothing.
test("calibration: the length-draw field is calibrate --lengths", { timeout: 240000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-lengths-"));
  try {
    const runs = fs.readFileSync(path.join(ROOT, "simcore/measure/testdata/runs.csv"), "utf8").split("\n");
    const row = runs.slice(0, 2).join("\n") + "\n";
    fs.writeFileSync(path.join(dir, "row.csv"), row);
    fs.writeFileSync(path.join(dir, "quickstart.yaml"), quickstart);
    const lengths = "{distribution: uniform, min_ratio: 0.8}";
    const bad = "{distribution: uniform, min_ratio: 3}";
    const cal = await runCalibrate(["--config", "quickstart.yaml", "--measurements", "row.csv", "--lengths", lengths], dir);
    assert.equal(cal.code, 0, cal.stderr);
    const badCLI = await runCalibrate(["--config", "quickstart.yaml", "--measurements", "row.csv", "--lengths", bad], dir);
    assert.equal(badCLI.code, 2, badCLI.stderr);
    const cliMsg = badCLI.stderr.trim().split("\n").pop();
    assert.equal(cliMsg, "aisimulate calibrate: error: --lengths.min_ratio: must be at most 1, got 3");

    const page = await openPage("#cfg=" + b64url(quickstart));
    await waitIdle(page);
    assert.equal(await page.getAttribute("#calibration-lengths", "placeholder"), lengths);
    const upload = () => page.setInputFiles("#calibration-upload", { name: "row.csv", mimeType: "text/csv", buffer: Buffer.from(row) });
    await page.fill("#calibration-lengths", bad);
    await upload();
    await page.waitForSelector("#calibration-error", { timeout: 60000 });
    assert.equal(await page.textContent("#calibration-error"), cliMsg.replace("aisimulate calibrate: error: --", ""));
    assert.equal(await page.$("#calibration-profiles"), null, "a bad draw fits nothing");

    await page.fill("#calibration-lengths", lengths);
    await upload();
    await page.waitForSelector("#calibration-fit", { timeout: 120000 });
    assert.equal(await page.$("#calibration-error"), null);
    assert.match(await page.textContent("#calibration-fit"), /^entry 0: .*, lengths uniform \[0\.8, 1\]·L\n/);
    assert.match(await page.textContent("#calibration-profiles li"), /^calibration\.json/);
    await page.click("#run");
    await waitIdle(page);
    await page.waitForSelector("#cards .card-uncal", { timeout: 90000 });
    const [dl] = await Promise.all([page.waitForEvent("download"), page.click("#dl-prediction")]);
    const pred = JSON.parse(fs.readFileSync(await dl.path(), "utf8"));
    const sha = crypto.createHash("sha256").update(cal.profile).digest("hex");
    assert.deepEqual(pred.calibration.profiles.map((p) => [p.file, p.sha256]), [["calibration.json", sha]], "the page's profile is the CLI's calibration.json");
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The embed shows a prediction as the app does: a duration of 10 s or more in seconds (Go's
// report.Card.Scaled, applied by the module: headlineJson), the SLA attainment cards and the
// deployment line. Fixed timing with 12 s prefills makes every TTFT longer than 10 s.
test("docs embed: seconds, SLA attainment and the deployment line as in the app", async () => {
  const toy = fs.readFileSync(path.join(ROOT, "ui/presets/02-fixed-timing-toy.yaml"), "utf8");
  const slow = toy.replace("prefill_ms: 1\n", "prefill_ms: 12000\n").replace("decode_ms: 1\n", "decode_ms: 10\n") +
    "evaluation:\n  sla: {ttft_ms: 20000, itl_ms: 20}\n";
  assert.ok(slow.includes("prefill_ms: 12000") && slow.includes("decode_ms: 10\n"));
  const core = await loadNodeCore();
  const res = core.predict(slow, {});
  assert.ok(res.ok, res.error && res.error.message);
  const s = JSON.parse(res.predictionJson).summary;
  assert.ok(s.mean_ttft_ms >= 10000 && s.median_ttft_ms >= 10000, JSON.stringify(s));

  const page = await browser.ctx.newPage();
  await page.goto(srv.url + "#cfg=" + b64url(slow));
  await page.waitForSelector("#sla-cards .card", { timeout: 60000 });
  const app = await page.evaluate(() => ({
    deployment: document.getElementById("deployment").textContent,
    sla: [...document.querySelectorAll("#sla-cards .card")].map((c) => [c.dataset.key, c.querySelector(".card-label").textContent, c.querySelector(".card-value").textContent]),
    cards: Object.fromEntries([...document.querySelectorAll("#cards .card")].map((c) => [c.dataset.key, c.querySelector(".card-value").textContent])),
  }));
  await page.close();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-embed-s-"));
  fs.writeFileSync(path.join(dir, "slow.yaml"), slow);
  fs.writeFileSync(path.join(dir, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>docs</title>
<script src="${srv.url}embed.js" defer></script></head>
<body><aisimulate-prediction id="s" config-src="slow.yaml"></aisimulate-prediction></body></html>`);
  const docs = await startStatic(dir);
  try {
    const p = await browser.ctx.newPage();
    await p.goto(docs.url);
    await p.waitForSelector('#s[data-state="done"]', { timeout: 60000 });
    const emb = await p.evaluate(() => {
      const r = document.querySelector("#s").shadowRoot;
      return {
        deployment: r.querySelector(".deployment").textContent,
        sla: [...r.querySelectorAll(".sla [data-key]")].map((c) => [c.dataset.key, c.querySelector(".l").textContent, c.querySelector(".v").textContent]),
        cards: Object.fromEntries([...r.querySelectorAll(".grid:not(.sla) [data-key]")].map((c) => [c.dataset.key, [c.querySelector(".v").firstChild.textContent, c.querySelector(".u").textContent]])),
      };
    });
    assert.equal(emb.deployment, app.deployment, "the deployment line");
    assert.match(emb.deployment, /^meta-llama\/Meta-Llama-3\.1-8B · h200_sxm × 1 GPU, /);
    assert.deepEqual(emb.sla, app.sla, "the SLA cards");
    assert.deepEqual(emb.sla.map((c) => c[0]), ["sla-ttft", "sla-itl", "goodput-share"]);
    for (const [key, v] of [["mean_ttft_ms", s.mean_ttft_ms], ["median_ttft_ms", s.median_ttft_ms]]) {
      const [value, unit] = emb.cards[key];
      assert.equal(unit, "s", `${key} in seconds`);
      assert.ok(Math.abs(parseFloat(value) - v / 1000) <= 0.05, `${key}: ${value} s for ${v} ms`);
      assert.equal(value + unit, app.cards[key], `${key} as the app shows it`);
    }
    assert.equal(emb.cards.completed_requests.join(""), "6");
    await p.screenshot({ path: path.join(shots, "embed-seconds.png"), fullPage: true });
    await p.close();
  } finally {
    await docs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

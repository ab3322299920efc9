// The browser's recommend: window.aisimulate.recommend (search coordinator in the simulation
// worker, candidate evaluations on a pool of Web Workers) writes the CLI's bytes —
// recommendation.json, recommendation.csv and every recommendations/NNNN.yaml — for pool sizes
// 1 and 3, and the Recommend view runs a sweep, shows progress, the ranked table and the Pareto
// chart, opens a candidate as a prediction, keeps the sweep in the URL and downloads the CLI's
// bytes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, CLI, FIXED_WALL, runCLI, loadNodeCore, startStatic, launchChromium, assertSameText, withTimeout, unzip, readDeploy } from "./lib.mjs";

const EXAMPLES = path.join(ROOT, "examples");
const SMALL = "recommend-small.yaml";
const SMALL_YAML = fs.readFileSync(path.join(EXAMPLES, SMALL), "utf8");

const SHOTS = path.join(ROOT, "web/test-results");

let srv, browser, page, cli;

/**
 * Runs bin/aisimulate recommend in dir (with --artifacts when asked); returns {code, stdout,
 * stderr, json, csv, configs, deploy}, deploy the files of deploy/ by name.
 */
export function runRecommendCLI(config, { cwd = EXAMPLES, sets = [], artifacts = false } = {}) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-"));
  const args = ["recommend", "--stack", "dynamo", "--config", config, "--output-dir", outDir, "--overwrite", "--format", "json"];
  for (const s of sets) args.push("--set", s);
  if (artifacts) args.push("--artifacts");
  return new Promise((resolve) => {
    execFile(CLI, args, { cwd, timeout: 180000, maxBuffer: 1 << 28,
      env: { ...process.env, AISIMULATE_FIXED_WALL_TIME_MS: String(FIXED_WALL),
        AISIMULATE_WAZERO_CACHE: process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache") } }, (err, stdout, stderr) => {
      const read = (f) => { try { return fs.readFileSync(path.join(outDir, f), "utf8"); } catch { return null; } };
      let names = [];
      try { names = fs.readdirSync(path.join(outDir, "recommendations")).sort(); } catch { /* none */ }
      const configs = names.map((n) => ({ name: "recommendations/" + n, data: read("recommendations/" + n) }));
      const res = { code: err ? (err.code ?? 1) : 0, stdout, stderr, json: read("recommendation.json"), csv: read("recommendation.csv"), configs,
        deploy: artifacts && fs.existsSync(path.join(outDir, "deploy")) ? readDeploy(outDir) : {} };
      fs.rmSync(outDir, { recursive: true, force: true });
      resolve(res);
    });
  });
}

before(async () => {
  assert.ok(fs.existsSync(CLI), `${CLI} missing: run make build`);
  // recommendation.json records the module version: the CLI and core.wasm must be built from
  // the same tree (make build web).
  const cliVersion = await new Promise((resolve) => execFile(CLI, ["--version"], (e, out) => resolve(String(out).trim().split(" ").pop())));
  const webVersion = (await loadNodeCore()).version;
  assert.equal(webVersion, cliVersion, "bin/aisimulate and build/web are of different versions: run make build web");
  cli = await runRecommendCLI(SMALL);
  assert.equal(cli.code, 0, "CLI recommend: " + cli.stderr);
  srv = await startStatic();
  browser = await launchChromium();
  page = await browser.ctx.newPage();
  await page.goto(srv.url);
  await withTimeout(page.evaluate(() => window.aisimulate.ready), 30000, "page core ready");
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.close();
});

async function recommendInPage(p, yaml, opts) {
  return p.evaluate(async ([y, o]) => {
    const progress = [];
    try {
      const r = await window.aisimulate.recommend(y, Object.assign({}, o, { onProgress: (x) => progress.push(x) }));
      return { ok: true, json: r.recommendationJson, csv: r.recommendationCsv, configs: r.configs, feasible: r.feasible,
        view: r.view, poolSize: r.poolSize, progress };
    } catch (e) {
      return { ok: false, kind: e.kind, path: e.path, message: e.message };
    }
  }, [yaml, opts]);
}

function assertSameOutputs(web, label) {
  assert.ok(web.ok, label + ": " + web.message);
  assertSameText(web.json, cli.json, label + " recommendation.json");
  assertSameText(web.csv, cli.csv, label + " recommendation.csv");
  assert.deepEqual(web.configs.map((c) => c.name), cli.configs.map((c) => c.name), label + " file names");
  for (let i = 0; i < cli.configs.length; i++) assertSameText(web.configs[i].data, cli.configs[i].data, label + " " + cli.configs[i].name);
}

for (const poolSize of [1, 3]) {
  test(`recommend in the browser with a pool of ${poolSize} equals the CLI`, { timeout: 180000 }, async () => {
    const web = await recommendInPage(page, SMALL_YAML, { configName: SMALL, fixedWallTimeMs: FIXED_WALL, poolSize });
    assertSameOutputs(web, `pool ${poolSize}`);
    assert.equal(web.poolSize, poolSize);
    const last = web.progress[web.progress.length - 1];
    assert.equal(last.trials, last.total, "progress reaches the trial budget");
    assert.ok(web.progress.length >= 2, "progress after every round");
    const workers = await page.evaluate(() => performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/core.wasm")).length);
    assert.ok(workers >= 1);
  });
}

test("a sweep over an uploaded trace: every pool worker reads the upload, bytes equal the CLI's", { timeout: 180000 }, async () => {
  const dir = path.join(ROOT, "web/testdata/identity");
  const sweep = `traffic:
  source: {type: trace, format: mooncake, paths: [small_trace.jsonl]}
  load: {type: trace_timestamps, speedup: {choices: [1.0, 2.0]}}
engine:
  mode: aggregated
  model: Qwen/Qwen3-8B
  hardware: h200_sxm
  backend: {choices: [vllm, sglang]}
  workers:
    aggregated:
      parallelism: {replicas: {choices: [1, 2]}, tensor: 1}
      kv_cache: {capacity: {type: fixed, blocks: 20000}}
      timing: {type: polynomial}
optimization: {target: throughput, constraints: {max_candidate_gpus: 2}}
optimizer: {max_trials: 6, parallelism: 3, seed: 3}
`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-trace-"));
  fs.writeFileSync(path.join(tmp, "trace-sweep.yaml"), sweep);
  fs.copyFileSync(path.join(dir, "small_trace.jsonl"), path.join(tmp, "small_trace.jsonl"));
  const ref = await runRecommendCLI("trace-sweep.yaml", { cwd: tmp });
  fs.rmSync(tmp, { recursive: true, force: true });
  assert.equal(ref.code, 0, ref.stderr);
  assert.ok(JSON.parse(ref.json).counts.feasible >= 3, "the sweep simulates several candidates");
  const files = { "small_trace.jsonl": fs.readFileSync(path.join(dir, "small_trace.jsonl"), "utf8") };
  const web = await recommendInPage(page, sweep, { configName: "trace-sweep.yaml", fixedWallTimeMs: FIXED_WALL, poolSize: 3, files });
  assert.ok(web.ok, web.message);
  assertSameText(web.json, ref.json, "trace sweep recommendation.json");
  assertSameText(web.csv, ref.csv, "trace sweep recommendation.csv");
  assert.deepEqual(web.configs, ref.configs);
});

test("recommend reports configuration errors as the CLI does", { timeout: 120000 }, async () => {
  const bad = SMALL_YAML.replace("target: goodput", "target: fastest");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-bad-"));
  fs.writeFileSync(path.join(tmp, "bad.yaml"), bad);
  const c = await runRecommendCLI("bad.yaml", { cwd: tmp });
  fs.rmSync(tmp, { recursive: true, force: true });
  assert.equal(c.code, 2);
  const msg = c.stderr.trim().split("\n").pop().replace(/^aisimulate: error: /, "");
  const web = await recommendInPage(page, bad, { configName: "bad.yaml" });
  assert.equal(web.ok, false);
  assert.equal(web.kind, "config");
  assert.equal(web.path, "optimization.target");
  assert.equal(web.message, msg);
});

const WALL_RE = /("wall_time_ms": )[^,\n]+/;

/** Downloads what clicking selector saves; returns its text. */
async function downloadText(p, selector) {
  const [dl] = await Promise.all([p.waitForEvent("download", { timeout: 30000 }), p.click(selector)]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), text: fs.readFileSync(file, "utf8") };
}

/** The Recommend view's table order and chart points. */
async function viewState(p) {
  return p.evaluate(() => ({
    rows: Array.from(document.querySelectorAll("#rec-table tbody tr"), (tr) => ({ id: tr.dataset.candidate, rank: +tr.dataset.rank })),
    points: Array.from(document.querySelectorAll("#rec-chart circle.pt"), (c) => ({
      id: c.getAttribute("data-candidate"), feasible: c.getAttribute("data-feasible") === "true", cls: c.getAttribute("class"),
      fill: c.getAttribute("fill"), title: c.querySelector("title").textContent })),
    yaml: document.getElementById("rec-yaml").value,
    hash: location.hash,
  }));
}

test("the Recommend view runs a sweep, charts it, opens a candidate, keeps the sweep in the URL and downloads the CLI's bytes", { timeout: 300000 }, async () => {
  const p = await browser.ctx.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(e.message));
  p.on("console", (m) => { if (process.env.DEBUG_REC) console.log("console:", m.text()); });
  try {
    await p.goto(srv.url);
    await p.click("#tab-recommend");
    await p.waitForSelector("#rec-yaml");
    // The sweep: the small example, judged strictly against its SLA (so some candidates are
    // infeasible), with the trial budget set through the form.
    // bayesian: the screened default would spend the 20 trials on points it expects to meet
    // the SLA.
    await p.fill("#rec-yaml", SMALL_YAML.replace("target: goodput", "target: goodput\n  strict_sla: true").replace("optimizer:\n", "optimizer:\n  algorithm: bayesian\n"));
    await p.fill("#rec-max-trials", "20");
    await p.dispatchEvent("#rec-max-trials", "change");
    // vecty renders on the next animation frame.
    await p.waitForFunction(() => /max_trials: 20\n/.test(document.getElementById("rec-yaml").value), null, { timeout: 10000 });
    const yaml = await p.inputValue("#rec-yaml");
    assert.match(yaml, /strict_sla: true\n/);
    // The CLI on the same text.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-ui-"));
    fs.writeFileSync(path.join(tmp, "recommendation.yaml"), yaml);
    const ref = await runRecommendCLI("recommendation.yaml", { cwd: tmp, artifacts: true });
    assert.equal(ref.code, 0, "CLI recommend: " + ref.stderr);
    const refDoc = JSON.parse(ref.json);

    // Run, recording every status text (progress).
    await p.evaluate(() => {
      window.__statuses = [];
      window.__livePoints = 0;
      new MutationObserver(() => {
        const s = document.getElementById("rec-status");
        if (s) window.__statuses.push(s.textContent);
        const live = document.querySelectorAll("#rec-live-chart circle.pt").length;
        window.__livePoints = Math.max(window.__livePoints, live);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await p.click("#rec-run");
    await p.waitForSelector("#rec-table tbody tr", { timeout: 180000 });
    const statuses = await p.evaluate(() => window.__statuses);
    const livePoints = await p.evaluate(() => window.__livePoints);
    assert.ok(livePoints > 0, "the chart fills while the search runs");
    assert.equal(await p.$("#rec-live-chart"), null, "the live chart gives way to the result's");
    assert.ok(statuses.some((s) => /^Trials \d+\/20 · best score /.test(s)), "progress shown: " + statuses.join(" | "));
    assert.match(await p.textContent("#rec-status"), /^Recommendation finished in .* 20 trials, /);

    const st = await viewState(p);
    fs.mkdirSync(SHOTS, { recursive: true });
    await p.screenshot({ path: path.join(SHOTS, "recommend.png"), fullPage: true });
    assert.deepEqual(st.rows.map((r) => r.id), refDoc.views.top_n, "table rows in the CLI's rank order");
    assert.deepEqual(st.rows.map((r) => r.rank), st.rows.map((_, i) => i + 1));
    const simulated = refDoc.candidates.filter((c) => c.metrics !== null);
    assert.deepEqual(st.points.map((x) => x.id).sort(), simulated.map((c) => c.candidate_id).sort(), "one point per simulated candidate");
    const feasibleIds = simulated.filter((c) => c.status === "feasible").map((c) => c.candidate_id).sort();
    assert.ok(feasibleIds.length > 0 && feasibleIds.length < simulated.length, "the sweep has feasible and infeasible candidates");
    assert.deepEqual(st.points.filter((x) => x.feasible).map((x) => x.id).sort(), feasibleIds, "feasible points marked");
    for (const x of st.points) {
      assert.equal(x.cls, x.feasible ? "pt feasible" : "pt infeasible");
      assert.equal(x.fill === "none", !x.feasible, "infeasible points are hollow");
    }
    const top = st.points.find((x) => x.id === refDoc.views.top_n[0]);
    const topCand = refDoc.candidates.find((c) => c.candidate_id === top.id);
    const pc = topCand.prediction_config.engine;
    for (const part of [pc.backend, pc.hardware, pc.mode, `${topCand.used_gpus} GPUs`, "TP"]) {
      assert.ok(top.title.includes(part), `hover text "${top.title}" names ${part}`);
    }

    // Downloads carry the CLI's bytes (recommendation.json up to its measured wall time).
    const dj = await downloadText(p, "#dl-recommendation-json");
    assert.equal(dj.name, "recommendation.json");
    assert.match(dj.text, WALL_RE);
    assertSameText(dj.text.replace(WALL_RE, "$11.0"), ref.json, "downloaded recommendation.json");
    const dc = await downloadText(p, "#dl-recommendation-csv");
    assert.equal(dc.name, "recommendation.csv");
    assertSameText(dc.text, ref.csv, "downloaded recommendation.csv");
    const dy = await downloadText(p, "#dl-recommendations-yaml");
    assert.equal(dy.name, "recommendations.yaml");
    const docs = dy.text.split(/^---\n/m).slice(1);
    assert.equal(docs.length, ref.configs.length);
    docs.forEach((d, i) => {
      const nl = d.indexOf("\n");
      assert.equal(d.slice(0, nl), "# " + ref.configs[i].name);
      assertSameText(d.slice(nl + 1), ref.configs[i].data, "bundled " + ref.configs[i].name);
    });
    // The deployments of the first recommendations: recommend --artifacts' deploy/NNNN/.
    const [dd] = await Promise.all([p.waitForEvent("download", { timeout: 30000 }), p.click("#dl-rec-deployments")]);
    assert.equal(dd.suggestedFilename(), "deployments.zip");
    const deployed = unzip(fs.readFileSync(await dd.path()));
    assert.ok(Object.keys(ref.deploy).some((k) => k.startsWith("deploy/0001/")), "CLI deploy files: " + Object.keys(ref.deploy));
    assert.deepEqual(Object.keys(deployed).sort(), Object.keys(ref.deploy).sort(), "deployment file names");
    for (const [k, v] of Object.entries(ref.deploy)) assertSameText(deployed[k], v, "downloaded " + k);

    // The URL carries the sweep: a new page opened with it shows the same sweep and result.
    assert.ok(st.hash.startsWith("#rec="));
    const url = p.url();
    const p2 = await browser.ctx.newPage();
    try {
      await p2.goto(url);
      await p2.waitForSelector("#rec-table tbody tr", { timeout: 180000 });
      const st2 = await viewState(p2);
      assert.equal(st2.yaml, yaml, "the link reopens the same sweep");
      assert.deepEqual(st2.rows, st.rows, "and the same ranking");
    } finally {
      await p2.close();
    }

    // Clicking the top row opens it as a prediction equal to the CLI's predict of 0001.yaml.
    fs.writeFileSync(path.join(tmp, "0001.yaml"), ref.configs[0].data);
    const pred = await runCLI(path.join(tmp, "0001.yaml"), { capture: true, cwd: tmp });
    fs.rmSync(tmp, { recursive: true, force: true });
    assert.equal(pred.code, 0, pred.stderr);
    await p.click("#rec-table tbody tr:first-child");
    await p.waitForSelector("#cards .card", { timeout: 60000 });
    assert.equal(await p.inputValue("#yaml"), ref.configs[0].data, "the Predict view holds recommendations/0001.yaml");
    assert.ok((await p.evaluate(() => location.hash)).startsWith("#cfg="));
    const dp = await downloadText(p, "#dl-prediction");
    const summaryOf = (t) => {
      const s = JSON.parse(t).summary;
      for (const k of ["wall_time_ms", "processed_tokens_per_s", "processed_output_tokens_per_s"]) delete s[k];
      return s;
    };
    assert.deepEqual(summaryOf(dp.text), summaryOf(pred.prediction), "the prediction's summary is the CLI's");
    assert.deepEqual(summaryOf(dp.text), Object.fromEntries(Object.entries(topCand.metrics)), "and the candidate's metrics");
    // Back on Recommend, clicking a chart point opens that candidate.
    await p.click("#tab-recommend");
    const other = st.points.find((x) => x.id !== top.id);
    // (dispatched on the circle itself: a pointer click could land on the sticky header
    // when the chart is scrolled under it)
    await p.dispatchEvent(`#rec-chart circle[data-candidate="${other.id}"]`, "click");
    await p.waitForFunction(() => document.getElementById("yaml"), null, { timeout: 30000 });
    const otherCand = refDoc.candidates.find((c) => c.candidate_id === other.id);
    const yamlNow = await p.inputValue("#yaml");
    assert.ok(yamlNow.includes(`backend: ${otherCand.prediction_config.engine.backend}`), "chart point opened its candidate");
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

test("Cancel stops a running sweep and the next run starts afresh", { timeout: 180000 }, async () => {
  const p = await browser.ctx.newPage();
  try {
    await p.goto(srv.url);
    await p.click("#tab-recommend");
    await p.fill("#rec-max-trials", "320");
    await p.dispatchEvent("#rec-max-trials", "change");
    await p.click("#rec-run");
    await p.waitForSelector("#rec-cancel", { timeout: 30000 });
    await p.click("#rec-cancel");
    await p.waitForFunction(() => /^Cancelled/.test(document.getElementById("rec-status").textContent), null, { timeout: 30000 });
    assert.equal(await p.$("#rec-table"), null, "no result after a cancel");
    await p.fill("#rec-max-trials", "8");
    await p.dispatchEvent("#rec-max-trials", "change");
    await p.click("#rec-run");
    await p.waitForSelector("#rec-table tbody tr", { timeout: 120000 });
    assert.match(await p.textContent("#rec-status"), /^Recommendation finished in .* 8 trials, /);
  } finally {
    await p.close();
  }
});

test("a sweep the CLI rejects shows the CLI's message in the Recommend view", { timeout: 120000 }, async () => {
  const p = await browser.ctx.newPage();
  try {
    await p.goto(srv.url);
    await p.click("#tab-recommend");
    const bad = SMALL_YAML.replace("engine:\n", "engine:\n  dtype: {choices: [fp8, bf16]}\n");
    await p.fill("#rec-yaml", bad);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-bad-"));
    fs.writeFileSync(path.join(tmp, "recommendation.yaml"), bad);
    const c = await runRecommendCLI("recommendation.yaml", { cwd: tmp });
    fs.rmSync(tmp, { recursive: true, force: true });
    assert.equal(c.code, 2, c.stderr);
    const msg = c.stderr.trim().split("\n").pop().replace(/^aisimulate: error: /, "");
    await p.click("#rec-run");
    await p.waitForFunction(() => /invalid/.test(document.getElementById("rec-status").textContent), null, { timeout: 60000 });
    const shown = await p.evaluate(() => (document.getElementById("rec-editor-error") || document.querySelector(".field.invalid .field-error")).textContent);
    assert.equal(shown, msg);
  } finally {
    await p.close();
  }
});

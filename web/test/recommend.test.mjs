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
import { ROOT, CLI, FIXED_WALL, runCLI, runCalibrate, loadNodeCore, startStatic, launchChromium, assertSameText, withTimeout, unzip, readDeploy } from "./lib.mjs";

const EXAMPLES = path.join(ROOT, "examples");
const SMALL = "recommend-small.yaml";
const SMALL_YAML = fs.readFileSync(path.join(EXAMPLES, SMALL), "utf8");

const SHOTS = path.join(ROOT, "web/test-results");

let srv, browser, page, cli;

/**
 * Runs bin/aisimulate recommend in dir (with --artifacts when asked); returns {code, stdout,
 * stderr, json, csv, configs, deploy}, deploy the files of deploy/ by name.
 */
export function runRecommendCLI(config, { cwd = EXAMPLES, sets = [], artifacts = false, extra = [] } = {}) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-"));
  const args = ["recommend", "--stack", "dynamo", "--config", config, "--output-dir", outDir, "--overwrite", "--format", "json"];
  for (const s of sets) args.push("--set", s);
  if (artifacts) args.push("--artifacts");
  args.push(...extra);
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

/** Chart geometry and text of the Recommend view: the axis ranges, the points' values (from
 * their hover text), the rank labels' boxes and every text's rendered size in px. */
async function chartLayout(p) {
  return p.evaluate(() => {
    const svg = document.querySelector("#rec-chart svg");
    const vb = svg.viewBox.baseVal;
    const scale = svg.getBoundingClientRect().width / vb.width;
    const num = (s) => { const m = /^([\d.]+)(k?)$/.exec(s); return m ? parseFloat(m[1]) * (m[2] ? 1000 : 1) : NaN; };
    const points = [...svg.querySelectorAll("circle.pt")].map((c) => {
      const m = /\n([\d.k]+) tok\/s per GPU, ([\d.k]+) tok\/s per user$/.exec(c.querySelector("title").textContent);
      return [num(m[1]), num(m[2])];
    });
    const labels = [...svg.querySelectorAll("text.pt-rank")].map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
    });
    const svgText = [...svg.querySelectorAll("text")].map((t) => ({ text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale }));
    const htmlText = [];
    for (const el of document.querySelectorAll("#rec-results *")) {
      if (el.closest("svg")) continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
      if (own && el.getClientRects().length > 0) htmlText.push({ text: el.textContent.slice(0, 40), px: parseFloat(getComputedStyle(el).fontSize) });
    }
    const d = svg.dataset;
    return { x: [+d.x0, +d.x1], y: [+d.y0, +d.y1], viewWidth: vb.width, scale, points, labels, svgText, htmlText };
  });
}

/** Asserts that the axes hold the data and fit it (ui/pareto.go: at most 8/3 of the data's
 * range widened by 5 % on each side, niceRange), and that no two rank labels overlap. */
function assertChartFits(layout, label) {
  assert.ok(layout.points.length >= 5, label + ": points");
  for (const [axis, i] of [["x", 0], ["y", 1]]) {
    const vals = layout.points.map((pt) => pt[i]);
    const lo = Math.min(...vals), hi = Math.max(...vals);
    const [a, b] = layout[axis];
    // The hover text rounds to 3 significant digits: allow 0.5 % of the value.
    assert.ok(a <= lo * 1.005 && b >= hi * 0.995, `${label}: ${axis} axis ${a}–${b} holds the data ${lo}–${hi}`);
    assert.ok(b - a <= (8 / 3) * 1.1 * (hi - lo) * 1.01, `${label}: ${axis} axis ${a}–${b} fits the data ${lo}–${hi}`);
  }
  const ls = layout.labels;
  assert.ok(ls.length >= 3, label + ": rank labels");
  for (let i = 0; i < ls.length; i++) {
    for (let j = i + 1; j < ls.length; j++) {
      const w = Math.min(ls[i].x1, ls[j].x1) - Math.max(ls[i].x0, ls[j].x0);
      const h = Math.min(ls[i].y1, ls[j].y1) - Math.max(ls[i].y0, ls[j].y0);
      assert.ok(w <= 0.5 || h <= 0.5, `${label}: rank labels ${ls[i].text} and ${ls[j].text} overlap: ${JSON.stringify([ls[i], ls[j]])}`);
    }
  }
}

test("the Recommend view: whole summaries at 1400 px, fitted axes, rank labels apart, two rows side by side, a readable phone layout", { timeout: 300000 }, async () => {
  const p = await browser.ctx.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(e.message));
  try {
    // The widest table: the small sweep with prices (two more columns).
    const priced = SMALL_YAML.replace("optimization:\n", "optimization:\n  gpu_hour_cost: {h200_sxm: 3.7}\n");
    assert.notEqual(priced, SMALL_YAML);
    await p.goto(srv.url);
    await p.click("#tab-recommend");
    await p.fill("#rec-yaml", priced);
    await p.click("#rec-run");
    await p.waitForSelector("#rec-table tbody tr", { timeout: 180000 });
    assert.equal(await p.evaluate(() => document.querySelectorAll("#rec-table thead th").length), 12, "the priced table's columns");

    // 1400 px: the table does not scroll and every deployment summary is shown whole.
    const table = await p.evaluate(() => {
      const wrap = document.getElementById("rec-table-wrap");
      const wr = wrap.getBoundingClientRect();
      return { scroll: wrap.scrollWidth, client: wrap.clientWidth, cells: [...document.querySelectorAll("#rec-table td.summary")].map((td) => {
        const r = td.getBoundingClientRect();
        return { text: td.textContent, right: r.right, wrapRight: wr.right, scroll: td.scrollWidth, client: td.clientWidth };
      }) };
    });
    assert.ok(table.scroll <= table.client, `the table scrolls at 1400 px: ${table.scroll} > ${table.client}`);
    assert.ok(table.cells.length >= 5);
    for (const c of table.cells) {
      assert.match(c.text, /^aggregated · (vllm|sglang) · h200_sxm · \d× TP\d$|^disaggregated · /);
      assert.ok(c.right <= c.wrapRight + 0.5 && c.scroll <= c.client, `summary cut off: ${JSON.stringify(c)}`);
    }
    const desk = await chartLayout(p);
    assertChartFits(desk, "1400 px");
    assert.ok(Math.abs(desk.scale - 1) < 0.02, `the chart is drawn at its box's width (scale ${desk.scale})`);
    fs.mkdirSync(SHOTS, { recursive: true });

    // Two rows side by side: ticking a box does not open the row; a third pick drops the
    // oldest.
    const rows = await p.evaluate(() => [...document.querySelectorAll("#rec-table tbody tr")].map((tr) => ({
      id: tr.dataset.candidate, summary: tr.querySelector("td.summary").textContent,
      cells: [...tr.querySelectorAll("td")].map((td) => td.textContent) })));
    await p.click('#rec-table tbody tr:nth-child(1) input.pick');
    // The hint is re-rendered after the click's event is handled: wait for it, not a race.
    await p.waitForFunction(() => /^Rank 1 picked/.test(document.querySelector("#rec-compare-hint")?.textContent ?? ""), null, { timeout: 10000 });
    await p.click('#rec-table tbody tr:nth-child(4) input.pick');
    await p.waitForSelector("#rec-compare");
    assert.ok(await p.$("#rec-table"), "ticking a box keeps the Recommend view");
    const compare = async () => p.evaluate(() => ({
      head: [...document.querySelectorAll("#rec-compare thead th")].map((th) => th.textContent),
      lines: Object.fromEntries([...document.querySelectorAll("#rec-compare tbody tr")].map((tr) =>
        [tr.querySelector("th").textContent, [...tr.querySelectorAll("td")].map((td) => td.textContent)])),
      diff: [...document.querySelectorAll("#rec-compare-diff li")].map((li) => li.textContent),
      rings: document.querySelectorAll("#rec-chart circle.pick-ring").length,
      picked: [...document.querySelectorAll("#rec-table tbody tr.picked")].map((tr) => tr.dataset.rank),
    }));
    let c = await compare();
    assert.deepEqual(c.head, ["", "A: rank 1", "B: rank 4", "B vs A"]);
    assert.deepEqual(c.lines.deployment, [rows[0].summary, rows[3].summary, ""]);
    assert.deepEqual(c.lines["score (goodput)"].slice(0, 2), [rows[0].cells[3], rows[3].cells[3]]);
    assert.deepEqual(c.lines.GPUs.slice(0, 2), [rows[0].cells[2], rows[3].cells[2]]);
    assert.match(c.lines["score (goodput)"][2], /^(−|\+)\d+\.\d%$|^same$/);
    assert.ok(c.lines["USD/M tok"], "prices compared");
    assert.ok(c.diff.length >= 1, "the settings that differ");
    for (const d of c.diff) {
      const m = /^([\w.[\]]+): (.+) → (.+)$/.exec(d);
      assert.ok(m && m[2] !== m[3], d);
    }
    assert.equal(c.rings, 2, "the picked points are ringed on the chart");
    assert.deepEqual(c.picked, ["1", "4"]);
    await p.screenshot({ path: path.join(SHOTS, "recommend-compare.png"), fullPage: true });
    await p.click('#rec-table tbody tr:nth-child(2) input.pick');
    await p.waitForFunction(() => /B: rank 2/.test(document.querySelector("#rec-compare thead").textContent), null, { timeout: 10000 });
    c = await compare();
    assert.deepEqual(c.head, ["", "A: rank 4", "B: rank 2", "B vs A"], "a third pick drops the oldest");

    // A phone: the chart is redrawn at the narrow width, every text is at least 11 px, the
    // table scrolls inside its box and the page does not scroll sideways.
    await p.setViewportSize({ width: 400, height: 900 });
    await p.waitForFunction(() => document.querySelector("#rec-chart svg").viewBox.baseVal.width < 400, null, { timeout: 10000 });
    const phone = await chartLayout(p);
    assertChartFits(phone, "400 px");
    assert.deepEqual([phone.x, phone.y], [desk.x, desk.y], "the same axes at every width");
    for (const t of [...phone.svgText, ...phone.htmlText]) assert.ok(t.px >= 11 - 0.01, `text "${t.text}" at ${t.px.toFixed(2)} px`);
    const scroll = await p.evaluate(() => {
      const wrap = document.getElementById("rec-table-wrap");
      return { scroll: wrap.scrollWidth, client: wrap.clientWidth, overflow: getComputedStyle(wrap).overflowX, page: document.documentElement.scrollWidth };
    });
    assert.ok(scroll.scroll > scroll.client && scroll.overflow === "auto", `the table scrolls horizontally: ${JSON.stringify(scroll)}`);
    assert.ok(scroll.page <= 400, `the page is wider than the phone: ${scroll.page}`);
    await (await p.$("#rec-results")).screenshot({ path: path.join(SHOTS, "recommend-phone.png") });
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

/** Drives a recommendation with the core under node as the page's coordinator does (start,
 * then rounds of next, evaluate, observe), each round's requests evaluated last to first. */
function recommendInNode(core, yaml, opts) {
  const st = core.recommendStart(yaml, opts);
  assert.ok(st.ok, "node recommendStart: " + (st.error && st.error.message));
  for (;;) {
    const round = core.recommendNext(st.id);
    assert.ok(round.ok, "node recommendNext: " + (round.error && round.error.message));
    if (round.done) break;
    const outcomes = new Array(round.requests.length);
    for (let i = round.requests.length - 1; i >= 0; i--) outcomes[i] = core.evaluate(round.requests[i], {});
    const obs = core.recommendObserve(st.id, outcomes);
    assert.ok(obs.ok, "node recommendObserve: " + (obs.error && obs.error.message));
  }
  const r = core.recommendResult(st.id);
  assert.ok(r.ok, "node recommendResult: " + (r.error && r.error.message));
  return r;
}

// A calibrated recommendation (docs/recommend.md, "Calibration"; docs/web.md, "Recommend"):
// the small sweep with the worked example's profile, named profile.json everywhere, gives the
// CLI's `recommend --calibration` bytes in node (the core driven as the page drives it), in
// the page (aisimulate.recommend's calibrations, pool of 2) and in the Recommend view, where
// the profile uploaded in the Predict view applies: the view names the profile by its hash
// and marks the calibrated rows' intervals.
test("a calibrated recommendation equals the CLI's recommend --calibration in node, the page and the Recommend view", { timeout: 300000 }, async () => {
  const profile = fs.readFileSync(path.join(EXAMPLES, "calibration/profile.json"));
  const sha = (await import("node:crypto")).createHash("sha256").update(profile).digest("hex");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-cal-"));
  fs.writeFileSync(path.join(tmp, SMALL), SMALL_YAML);
  fs.writeFileSync(path.join(tmp, "profile.json"), profile);
  const ref = await runRecommendCLI(SMALL, { cwd: tmp, extra: ["--calibration", "profile.json"] });
  fs.rmSync(tmp, { recursive: true, force: true });
  assert.equal(ref.code, 0, "CLI recommend --calibration: " + ref.stderr);
  const doc = JSON.parse(ref.json);
  assert.deepEqual(doc.provenance.calibration.profiles, [{ file: "profile.json", sha256: sha }]);
  assert.ok(doc.provenance.calibration.calibrated_candidates > 0, "the profile applies to some candidates");
  assert.notEqual(ref.json, cli.json, "the profile changes the recommendation");
  const calibrations = [{ name: "profile.json", data: profile.toString("utf8") }];

  const node = recommendInNode(await loadNodeCore(), SMALL_YAML, { configName: SMALL, fixedWallTimeMs: FIXED_WALL, calibrations });
  assertSameText(node.recommendationJson, ref.json, "node calibrated recommendation.json");
  assertSameText(node.recommendationCsv, ref.csv, "node calibrated recommendation.csv");

  const web = await recommendInPage(page, SMALL_YAML, { configName: SMALL, fixedWallTimeMs: FIXED_WALL, poolSize: 2, calibrations });
  assert.ok(web.ok, web.message);
  assertSameText(web.json, ref.json, "browser calibrated recommendation.json");
  assertSameText(web.csv, ref.csv, "browser calibrated recommendation.csv");
  assert.deepEqual(web.configs, ref.configs);
  assert.equal(web.view.calibration.profiles[0].sha256, sha);

  const p = await browser.ctx.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(e.message));
  try {
    await p.goto(srv.url);
    // The profile is given in the Predict view and applies in the Recommend view.
    await p.setInputFiles("#calibration-upload", { name: "profile.json", mimeType: "application/json", buffer: profile });
    await p.waitForSelector("#calibration-profiles li");
    await p.click("#tab-recommend");
    await p.waitForSelector("#rec-yaml");
    assert.match(await p.textContent("#calibration-profiles li"), /^profile\.json/, "the Recommend view lists the Predict view's profile");
    await p.fill("#rec-yaml", SMALL_YAML);
    await p.dispatchEvent("#rec-yaml", "input");
    await p.click("#rec-run");
    await p.waitForSelector("#rec-table tbody tr", { timeout: 240000 });
    const note = await p.textContent("#rec-calibration");
    assert.ok(note.startsWith(`Calibrated with profile.json (sha256 ${sha.slice(0, 12)}…): ${doc.provenance.calibration.calibrated_candidates} of `), note);
    assert.equal(await p.getAttribute("#rec-calibration", "title"), "profile.json: sha256 " + sha);
    // The summary of a row a profile applied to ends "calibrated"; every row's TTFT and TPOT
    // cells carry their 80 % band, the profile's for those rows.
    const rows = await p.$$eval("#rec-table tbody tr", (trs) => trs.map((tr) => ({ id: tr.dataset.candidate,
      cal: !!tr.querySelector("td.summary .part.cal"), bands: Object.fromEntries(Array.from(tr.querySelectorAll("td .band"), (b) => [b.dataset.key, b.textContent])) })));
    const byId = Object.fromEntries(doc.candidates.map((c) => [c.candidate_id, c]));
    assert.ok(rows.length > 0);
    for (const r of rows) {
      const iv = byId[r.id].intervals;
      assert.equal(r.cal, iv.source === "calibration", `row ${r.id} marked ${r.cal}, intervals ${iv.source}`);
      for (const k of ["mean_ttft_ms", "mean_tpot_ms"]) {
        const shown = (r.bands[k] || "").split("–").map(Number);
        const want = [iv[k].p10, iv[k].p90];
        assert.ok(shown.length === 2 && shown.every((v, i) => Math.abs(v - want[i]) <= 0.01 * want[i]), `row ${r.id} ${k} band ${r.bands[k]}, intervals ${want}`);
      }
    }
    assert.ok(rows.some((r) => r.cal), "some ranked row is calibrated");
    const [dl] = await Promise.all([p.waitForEvent("download", { timeout: 30000 }), p.click("#dl-recommendation-json")]);
    const got = fs.readFileSync(await dl.path(), "utf8");
    assertSameText(got.replace(WALL_RE, "$10.0"), ref.json.replace(WALL_RE, "$10.0"), "the view's calibrated recommendation.json");
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

// Benchmark files given in the Recommend view are fitted without a configuration
// (docs/web.md, "Recommend", "Calibration"): measured-runs CSV rows, which carry their
// deployment, give the CLI's `calibrate --measurements runs.csv` profile, applied as
// calibration.json; a file that records no deployment is refused with the core's message and
// a line sending it to the Predict view, one whose draw contradicts the length field with the
// core's message alone; a fit's warnings are listed as the CLI says them.
test("the Recommend view fits measured-runs CSV rows without a configuration and sends other benchmark files to the Predict view", { timeout: 180000 }, async () => {
  const csvDir = path.join(ROOT, "simcore/measure/testdata");
  const cal = await runCalibrate(["--measurements", "runs.csv"], csvDir);
  assert.equal(cal.code, 0, cal.stderr);
  const p = await browser.ctx.newPage();
  try {
    await p.goto(srv.url);
    await p.click("#tab-recommend");
    await p.waitForSelector("#rec-yaml");
    await p.setInputFiles("#calibration-upload", { name: "runs.csv", mimeType: "text/csv", buffer: fs.readFileSync(path.join(csvDir, "runs.csv")) });
    await p.waitForSelector("#calibration-fit", { timeout: 120000 });
    assert.match(await p.textContent("#calibration-profiles li"), /^calibration\.json/);
    const fitted = await p.evaluate(async (csv) => (await window.aisimulate.calibrate(null, { measurements: [{ name: "runs.csv", data: csv }] })).profileJson,
      fs.readFileSync(path.join(csvDir, "runs.csv"), "utf8"));
    assertSameText(fitted, cal.profile, "calibration.json of runs.csv without a configuration");
    await p.setInputFiles("#calibration-upload", { name: "vllm-c8.json", mimeType: "application/json",
      buffer: fs.readFileSync(path.join(EXAMPLES, "calibration/vllm-c8.json")) });
    await p.waitForSelector("#calibration-error", { timeout: 60000 });
    const err = await p.textContent("#calibration-error");
    assert.match(err, /^vllm-c8\.json: .*pass it with --config/);
    assert.match(err, /calibrate this file in the Predict view, with the configuration of the deployment it measured/);
    // The list still holds the CSV's profile only.
    assert.equal((await p.$$("#calibration-profiles li")).length, 1);
    // A file whose recorded length draw contradicts the length field: the core's message
    // alone, without the line sending it to the Predict view (a deployment would not help).
    await p.fill("#calibration-lengths", "{distribution: uniform, min_ratio: 0.8}");
    await p.setInputFiles("#calibration-upload", { name: "sglang.jsonl", mimeType: "application/jsonl",
      buffer: fs.readFileSync(path.join(csvDir, "sglang_bench.jsonl")) });
    await p.waitForFunction(() => /records the length draw/.test((document.querySelector("#calibration-error") || {}).textContent || ""), null, { timeout: 60000 });
    assert.match(await p.textContent("#calibration-error"), /^sglang\.jsonl: #1: the file records the length draw .* but --lengths gives .*; calibrate this file without --lengths$/);
    // Rows whose mean TTFT falls as the load rises: the fit's warnings above its report, each
    // as the CLI says it on stderr after "aisimulate: ".
    await p.fill("#calibration-lengths", "");
    const fixture = path.join(ROOT, "tests/testdata/calibrate-falling-ttft.csv");
    const falling = await runCalibrate(["--measurements", "calibrate-falling-ttft.csv"], path.dirname(fixture));
    assert.equal(falling.code, 0, falling.stderr);
    await p.setInputFiles("#calibration-upload", { name: "calibrate-falling-ttft.csv", mimeType: "text/csv", buffer: fs.readFileSync(fixture) });
    await p.waitForSelector("#calibration-warnings", { timeout: 120000 });
    const shown = await p.$$eval("#calibration-warnings li", (lis) => lis.map((li) => "aisimulate: " + li.textContent + "\n").join(""));
    assert.equal(shown, falling.stderr);
    assert.equal(await p.$("#calibration-error"), null);
  } finally {
    await p.close();
  }
});

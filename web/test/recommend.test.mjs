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
import { ROOT, CLI, FIXED_WALL, runCLI, startStatic, launchChromium, assertSameText, withTimeout } from "./lib.mjs";

const EXAMPLES = path.join(ROOT, "examples");
const SMALL = "recommend-small.yaml";
const SMALL_YAML = fs.readFileSync(path.join(EXAMPLES, SMALL), "utf8");

let srv, browser, page, cli;

/** Runs bin/aisimulate recommend in dir; returns {code, stdout, stderr, json, csv, configs}. */
export function runRecommendCLI(config, { cwd = EXAMPLES, sets = [] } = {}) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-"));
  const args = ["recommend", "--stack", "dynamo", "--config", config, "--output-dir", outDir, "--overwrite", "--format", "json"];
  for (const s of sets) args.push("--set", s);
  return new Promise((resolve) => {
    execFile(CLI, args, { cwd, timeout: 180000, maxBuffer: 1 << 28,
      env: { ...process.env, AISIMULATE_FIXED_WALL_TIME_MS: String(FIXED_WALL),
        AISIMULATE_WAZERO_CACHE: process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache") } }, (err, stdout, stderr) => {
      const read = (f) => { try { return fs.readFileSync(path.join(outDir, f), "utf8"); } catch { return null; } };
      let names = [];
      try { names = fs.readdirSync(path.join(outDir, "recommendations")).sort(); } catch { /* none */ }
      const configs = names.map((n) => ({ name: "recommendations/" + n, data: read("recommendations/" + n) }));
      const res = { code: err ? (err.code ?? 1) : 0, stdout, stderr, json: read("recommendation.json"), csv: read("recommendation.csv"), configs };
      fs.rmSync(outDir, { recursive: true, force: true });
      resolve(res);
    });
  });
}

before(async () => {
  assert.ok(fs.existsSync(CLI), `${CLI} missing: run make build`);
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

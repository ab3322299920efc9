// Cross-target identity: every config in web/testdata/identity runs through bin/aisimulate
// (wasip1 under wazero), the GOOS=js core under node, the page in headless Chromium
// (window.aisimulate.predict, simulation in a Web Worker) and the edge worker under workerd.
// With AISIMULATE_FIXED_WALL_TIME_MS / fixedWallTimeMs = 1.0 on every target, prediction.json
// and requests.jsonl must be byte-identical; a config the CLI rejects (exit 2) must be
// rejected everywhere with the same message.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  ROOT, CLI, FIXED_WALL, identityCases, runCLI, runCalibrate, postEdge, assertSameText, normalizeWall, parseMultipart, startAllTargets,
} from "./lib.mjs";

let targets, page, edge, core;

before(async () => {
  assert.ok(fs.existsSync(CLI), `${CLI} missing: run make build`);
  targets = await startAllTargets();
  ({ page, edge, core } = targets);
});

after(async () => { if (targets) await targets.close(); });

function cliErrorMessage(stderr) {
  const line = stderr.trim().split("\n").pop();
  return line.replace(/^aisimulate: error: /, "");
}

async function inBrowser(yaml, files, capturePerRequest, configName) {
  return page.evaluate(async ([y, f, c, w, n]) => {
    try {
      const r = await window.aisimulate.predict(y, { files: f, capturePerRequest: c, fixedWallTimeMs: w, configName: n });
      return { ok: true, predictionJson: r.predictionJson, requestsJsonl: r.requestsJsonl };
    } catch (e) {
      return { ok: false, kind: e.kind, path: e.path, message: e.message };
    }
  }, [yaml, files, capturePerRequest, FIXED_WALL, configName]);
}

for (const c of identityCases()) {
  test(`identity ${c.name}`, { timeout: 120000 }, async () => {
    const cli = await runCLI(c.name, { capture: true, cwd: require_dir(c.path) });
    const node = core.predict(c.yaml, { files: c.files, capturePerRequest: true, fixedWallTimeMs: FIXED_WALL, configName: c.name });
    const web = await inBrowser(c.yaml, c.files, true, c.name);
    const ed = await postEdge(edge.url, c.yaml, c.files, true);
    if (cli.code === 2) {
      const msg = cliErrorMessage(cli.stderr);
      assert.equal(node.ok, false, "node accepted a config the CLI rejects");
      assert.equal(node.error.kind, "config");
      assert.equal(node.error.message, msg, "node error message");
      assert.equal(web.ok, false, "browser accepted a config the CLI rejects");
      assert.equal(web.kind, "config");
      assert.equal(web.message, msg, "browser error message");
      assert.equal(ed.status, 400, "edge status for bad input: " + ed.text);
      assert.equal(ed.json.error, msg.replace(c.name, "prediction.yaml"), "edge error message");
      assert.equal(ed.json.path, node.error.path, "edge error path");
      return;
    }
    assert.equal(cli.code, 0, `CLI failed (${cli.code}): ${cli.stderr}`);
    assert.ok(cli.prediction.endsWith("}\n"));
    assert.ok(node.ok, "node: " + (node.error && node.error.message));
    assertSameText(node.predictionJson, cli.prediction, "node prediction.json");
    assertSameText(node.requestsJsonl, cli.requests, "node requests.jsonl");
    assert.ok(web.ok, "browser: " + web.message);
    assertSameText(web.predictionJson, cli.prediction, "browser prediction.json");
    assertSameText(web.requestsJsonl, cli.requests, "browser requests.jsonl");
    assert.equal(ed.status, 200, "edge: " + ed.text);
    assertSameText(ed.parts["prediction.json"], cli.prediction, "edge prediction.json");
    assertSameText(ed.parts["requests.jsonl"], cli.requests, "edge requests.jsonl");
  });
}

test("identity without capture (plain prediction.json body; wall keys normalized)", { timeout: 120000 }, async () => {
  for (const c of identityCases().slice(0, 2)) {
    const cli = await runCLI(c.name, { capture: false, cwd: require_dir(c.path), fixed: 7.5 });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.requests, null);
    const node = core.predict(c.yaml, { files: c.files, capturePerRequest: false, configName: c.name });
    assert.ok(node.ok);
    assert.equal(node.requestsJsonl, "");
    // Measured wall clocks differ by target: compare after normalizing the three keys.
    assertSameText(normalizeWall(node.predictionJson), normalizeWall(cli.prediction), `${c.name} node (normalized)`);
    const web = await inBrowser(c.yaml, c.files, false);
    assertSameText(web.predictionJson.replace(/"wall_time_ms": [^,\n]+/, '"wall_time_ms": 1.0'), web.predictionJson, "browser fixedWallTimeMs honoured");
    const ed = await postEdge(edge.url, c.yaml, c.files, false);
    assert.equal(ed.status, 200, ed.text);
    assert.match(ed.contentType, /^application\/json/);
    assertSameText(ed.text, web.predictionJson, `${c.name} edge vs browser`);
    assertSameText(normalizeWall(ed.text), normalizeWall(cli.prediction), `${c.name} edge vs CLI (normalized)`);
  }
});

test("identity with --set overrides (CLI --set, sets option, ?set= on the edge)", { timeout: 120000 }, async () => {
  const c = identityCases()[1];
  const sets = ["traffic.load.requests_per_second=40", "engine.workers.aggregated.parallelism.replicas=2"];
  const cli = await runCLI(c.name, { capture: true, cwd: require_dir(c.path), sets });
  assert.equal(cli.code, 0, cli.stderr);
  const node = core.predict(c.yaml, { sets, capturePerRequest: true, fixedWallTimeMs: FIXED_WALL, configName: c.name });
  assertSameText(node.predictionJson, cli.prediction, "node prediction.json with sets");
  const web = await page.evaluate(async ([y, s, w]) => {
    const r = await window.aisimulate.predict(y, { sets: s, fixedWallTimeMs: w });
    return r.predictionJson;
  }, [c.yaml, sets, FIXED_WALL]);
  assertSameText(web, cli.prediction, "browser prediction.json with sets");
  const qs = sets.map((s) => "set=" + encodeURIComponent(s)).join("&");
  const r = await fetch(`${edge.url}/v1/predict?capture_per_request=1&${qs}`, { method: "POST", body: c.yaml });
  assert.equal(r.status, 200);
  const parts = parseMultipart(r.headers.get("content-type"), await r.text());
  assertSameText(parts["prediction.json"], cli.prediction, "edge prediction.json with sets");
  assertSameText(parts["requests.jsonl"], cli.requests, "edge requests.jsonl with sets");
});

test("identity with detail sections (CLI --detail, detail option, ?detail= on the edge)", { timeout: 120000 }, async () => {
  const c = identityCases()[0];
  const detail = "time,memory";
  const cli = await runCLI(c.name, { capture: true, cwd: require_dir(c.path), detail });
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.prediction, /"details": \{/);
  assert.ok(cli.stdout.startsWith('{"details":{"requested_sections":["memory","time"],'), cli.stdout.slice(0, 80));
  const node = core.predict(c.yaml, { detail, capturePerRequest: true, fixedWallTimeMs: FIXED_WALL, configName: c.name });
  assertSameText(node.predictionJson, cli.prediction, "node prediction.json with detail");
  assert.equal(node.stdoutJson, cli.stdout, "node JSON stdout with detail");
  const nodeArray = core.predict(c.yaml, { detail: ["time", "memory"], capturePerRequest: true, fixedWallTimeMs: FIXED_WALL, configName: c.name });
  assertSameText(nodeArray.predictionJson, cli.prediction, "node prediction.json with a detail array");
  const web = await page.evaluate(async ([y, d, w]) => {
    const r = await window.aisimulate.predict(y, { detail: d, fixedWallTimeMs: w });
    return r.predictionJson;
  }, [c.yaml, detail, FIXED_WALL]);
  assertSameText(web, cli.prediction, "browser prediction.json with detail");
  const r = await fetch(`${edge.url}/v1/predict?capture_per_request=1&detail=${encodeURIComponent(detail)}`, { method: "POST", body: c.yaml });
  assert.equal(r.status, 200);
  const parts = parseMultipart(r.headers.get("content-type"), await r.text());
  assertSameText(parts["prediction.json"], cli.prediction, "edge prediction.json with detail");
  const bad = await fetch(`${edge.url}/v1/predict?detail=power`, { method: "POST", body: c.yaml });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /invalid section 'power'/);
});

test("identity of an agentic trace with trajectory keys", { timeout: 120000 }, async () => {
  const dir = path.join(ROOT, "simcore/testdata");
  const trace = fs.readFileSync(path.join(dir, "agentic_trajectories.jsonl"), "utf8");
  const yaml = `traffic:
  source: {type: trace, format: agentic_mooncake, block_size: 4, paths: [agentic_trajectories.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  context_length: 16
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 256}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-agentic-"));
  try {
    fs.writeFileSync(path.join(tmp, "agentic.yaml"), yaml);
    fs.writeFileSync(path.join(tmp, "agentic_trajectories.jsonl"), trace);
    const cli = await runCLI(path.join(tmp, "agentic.yaml"), { capture: true, cwd: tmp });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.prediction, /"total_trajectories": 3,/);
    const files = { "agentic_trajectories.jsonl": trace };
    const node = core.predict(yaml, { files, capturePerRequest: true, fixedWallTimeMs: FIXED_WALL });
    assertSameText(node.predictionJson, cli.prediction, "node prediction.json (agentic)");
    const web = await inBrowser(yaml, files, true, "prediction.yaml");
    assertSameText(web.predictionJson, cli.prediction, "browser prediction.json (agentic)");
    const ed = await postEdge(edge.url, yaml, files, true);
    assert.equal(ed.status, 200, ed.text);
    assertSameText(ed.parts["prediction.json"], cli.prediction, "edge prediction.json (agentic)");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

// A calibrated prediction (docs/calibration.md): the quickstart at concurrency 32 with the
// worked example's profile, named profile.json everywhere — the CLI's --calibration, node's
// and the page's calibrations option, the edge's "calibration" part — gives the same
// prediction.json and requests.jsonl; and calibrating the example's benchmark files in node
// and in the page gives the CLI's calibration.json.
test("identity of a calibrated prediction and of a calibration", { timeout: 240000 }, async () => {
  const calDir = path.join(ROOT, "examples/calibration");
  const quickstart = path.join(ROOT, "examples/quickstart.yaml");
  const yaml = fs.readFileSync(quickstart, "utf8");
  const profile = fs.readFileSync(path.join(calDir, "profile.json"), "utf8");
  const sets = ["traffic.load.concurrency=32"];
  const calibrations = [{ name: "profile.json", data: profile }];
  const cli = await runCLI(quickstart, { capture: true, cwd: calDir, sets, extra: ["--calibration", "profile.json"] });
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.prediction, /"source": "calibration"/);
  assert.match(cli.prediction, /"uncalibrated": \{/);
  const node = core.predict(yaml, { sets, calibrations, capturePerRequest: true, fixedWallTimeMs: FIXED_WALL, configName: "quickstart.yaml" });
  assert.ok(node.ok, "node: " + (node.error && node.error.message));
  assertSameText(node.predictionJson, cli.prediction, "node calibrated prediction.json");
  assertSameText(node.requestsJsonl, cli.requests, "node calibrated requests.jsonl");
  const web = await page.evaluate(async ([y, s, c, w]) => {
    const r = await window.aisimulate.predict(y, { sets: s, calibrations: c, fixedWallTimeMs: w });
    return [r.predictionJson, r.requestsJsonl];
  }, [yaml, sets, calibrations, FIXED_WALL]);
  assertSameText(web[0], cli.prediction, "browser calibrated prediction.json");
  assertSameText(web[1], cli.requests, "browser calibrated requests.jsonl");
  const fd = new FormData();
  fd.append("config", new Blob([yaml]), "prediction.yaml");
  fd.append("calibration", new Blob([profile]), "profile.json");
  const r = await fetch(`${edge.url}/v1/predict?capture_per_request=1&set=${encodeURIComponent(sets[0])}`, { method: "POST", body: fd });
  assert.equal(r.status, 200);
  const parts = parseMultipart(r.headers.get("content-type"), await r.text());
  assertSameText(parts["prediction.json"], cli.prediction, "edge calibrated prediction.json");
  assertSameText(parts["requests.jsonl"], cli.requests, "edge calibrated requests.jsonl");

  const names = ["vllm-c8.json", "vllm-c64.json"];
  const cal = await runCalibrate(["--config", "../quickstart.yaml", ...names.flatMap((n) => ["--measurements", n])], calDir);
  assert.equal(cal.code, 0, cal.stderr);
  const measurements = names.map((n) => ({ name: n, data: fs.readFileSync(path.join(calDir, n), "utf8") }));
  const nodeCal = core.calibrate(yaml, { measurements });
  assert.ok(nodeCal.ok, "node calibrate: " + (nodeCal.error && nodeCal.error.message));
  assertSameText(nodeCal.profileJson, cal.profile, "node calibration.json");
  const webCal = await page.evaluate(async ([y, m]) => (await window.aisimulate.calibrate(y, { measurements: m })).profileJson, [yaml, measurements]);
  assertSameText(webCal, cal.profile, "browser calibration.json");
});

// A calibration whose measurements contradict a closed loop (docs/calibration.md,
// "Measurements that contradict a closed loop"): the CLI's stderr warnings are node's and the
// page's aisimulate.calibrate warnings, each after "aisimulate: warning: ", and the --format
// json report and calibration.json are the same bytes everywhere.
test("identity of a calibration's warnings", { timeout: 240000 }, async () => {
  const dir = path.join(ROOT, "tests/testdata");
  const name = "calibrate-falling-ttft.csv";
  const cal = await runCalibrate(["--measurements", name, "--format", "json"], dir);
  assert.equal(cal.code, 0, cal.stderr);
  assert.match(cal.stderr, /^aisimulate: warning: calibrate-falling-ttft\.csv l8_c16 \(concurrency 16\) has a mean TTFT of 76\.0 ms/);
  const measurements = [{ name, data: fs.readFileSync(path.join(dir, name), "utf8") }];
  const nodeCal = core.calibrate(null, { measurements });
  assert.ok(nodeCal.ok, "node calibrate: " + (nodeCal.error && nodeCal.error.message));
  const stderrOf = (ws) => ws.map((w) => "aisimulate: warning: " + w + "\n").join("");
  assertSameText(stderrOf(nodeCal.warnings), cal.stderr, "node calibrate warnings");
  assertSameText(nodeCal.stdoutJson, cal.stdout, "node calibrate --format json");
  assertSameText(nodeCal.profileJson, cal.profile, "node calibration.json");
  const web = await page.evaluate(async (m) => {
    const r = await window.aisimulate.calibrate(null, { measurements: m });
    return [r.warnings, r.stdoutJson, r.profileJson];
  }, measurements);
  assertSameText(stderrOf(web[0]), cal.stderr, "browser calibrate warnings");
  assertSameText(web[1], cal.stdout, "browser calibrate --format json");
  assertSameText(web[2], cal.profile, "browser calibration.json");
});

function require_dir(p) {
  return p.slice(0, p.lastIndexOf("/"));
}

// A calibration with a length draw (docs/calibration.md, "Length draws"): the CLI's
// --lengths, node's and the page's lengths option give the same calibration.json, whose
// scope records the draw; a bad draw is a config error naming the option everywhere.
test("identity of a calibration with a length draw", { timeout: 240000 }, async () => {
  const calDir = path.join(ROOT, "examples/calibration");
  const yaml = fs.readFileSync(path.join(ROOT, "examples/quickstart.yaml"), "utf8");
  const lengths = "{distribution: uniform, min_ratio: 0.9, max_ratio: 1.1}";
  const names = ["vllm-c8.json", "vllm-c64.json"];
  const cal = await runCalibrate(["--config", "../quickstart.yaml", "--lengths", lengths, ...names.flatMap((n) => ["--measurements", n])], calDir);
  assert.equal(cal.code, 0, cal.stderr);
  assert.match(cal.profile, /"lengths": \{\s*"distribution": "uniform",\s*"max_ratio": 1\.1,\s*"min_ratio": 0\.9\s*\}/);
  const measurements = names.map((n) => ({ name: n, data: fs.readFileSync(path.join(calDir, n), "utf8") }));
  const nodeCal = core.calibrate(yaml, { measurements, lengths });
  assert.ok(nodeCal.ok, "node calibrate: " + (nodeCal.error && nodeCal.error.message));
  assertSameText(nodeCal.profileJson, cal.profile, "node calibration.json with a length draw");
  const webCal = await page.evaluate(async ([y, m, l]) => (await window.aisimulate.calibrate(y, { measurements: m, lengths: l })).profileJson, [yaml, measurements, lengths]);
  assertSameText(webCal, cal.profile, "browser calibration.json with a length draw");
  const bad = core.calibrate(yaml, { measurements, lengths: "{distribution: uniform, max_ratio: 3}" });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.kind, "config");
  assert.equal(bad.error.message, "lengths.max_ratio: must be at most 2, got 3");
});

// The edge worker under workerd: health, CORS, raw-YAML and multipart bodies, error JSON with
// the config path (400), wrong method (405), unknown route (404), limits (413), the module
// version, candidate evaluation (?evaluate=1) and whole recommendations (/v1/recommend).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, CLI, startWorkerd, postEdge, parseMultipart, assertSameText, freePort, readDeploy } from "./lib.mjs";

let edge;
const e2 = fs.readFileSync(path.join(ROOT, "web/testdata/identity/01-fixed-e2.yaml"), "utf8");

before(async () => { edge = await startWorkerd(); });
after(async () => { if (edge) await edge.close(); });

test("GET /v1/health reports status and limits", async () => {
  const r = await fetch(edge.url + "/v1/health");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  const j = await r.json();
  assert.equal(j.status, "ok");
  assert.equal(j.api_version, 1);
  assert.equal(j.limits.max_body_bytes, 16 << 20);
  assert.equal(j.limits.max_requests, 200000);
});

/** Runs bin/aisimulate with args in cwd; resolves {code, stdout, stderr}. */
function runAisimulate(args, cwd) {
  return new Promise((resolve) => {
    execFile(CLI, args, { cwd, timeout: 120000, maxBuffer: 1 << 28,
      env: { ...process.env, AISIMULATE_FIXED_WALL_TIME_MS: "0",
        AISIMULATE_WAZERO_CACHE: process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache") } },
    (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

test("the worker reports the version of the CLI built from the same tree, on every response", async () => {
  const cli = await runAisimulate(["--version"], ROOT);
  assert.equal(cli.code, 0, cli.stderr);
  const version = cli.stdout.trim().replace(/^aisimulate /, "");
  assert.ok(version.length > 0);
  const r = await fetch(edge.url + "/v1/health");
  assert.equal((await r.json()).module_version, version);
  assert.equal(r.headers.get("x-aisimulate-version"), version);
  const bad = await fetch(edge.url + "/nope");
  assert.equal(bad.headers.get("x-aisimulate-version"), version);
  const pre = await fetch(edge.url + "/v1/predict", { method: "OPTIONS", headers: { Origin: "https://docs.example", "Access-Control-Request-Method": "POST" } });
  assert.equal(pre.headers.get("x-aisimulate-version"), version);
  assert.match(pre.headers.get("access-control-expose-headers"), /X-Aisimulate-Version/i);
});

test("POST /v1/predict?evaluate=1 answers a candidate's outcome; the worker's own limits are 413", async () => {
  const post = (body) => fetch(edge.url + "/v1/predict?evaluate=1", { method: "POST", headers: { "Content-Type": "application/json" }, body });
  const r = await post(JSON.stringify({ config_name: "c.yaml", config_yaml: e2, budget_steps: 600000000 }));
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type"), /^application\/json/);
  const text = await r.text();
  // Compact canonical JSON: keys sorted, floats keep their point.
  assert.match(text, /^\{"intervals":null,"reason":"","status":"","summary":\{/);
  assert.match(text, /"duration_ms":15\.0/);
  // The summary is the prediction's (both with the wall-clock keys at 0).
  const p = await (await fetch(edge.url + "/v1/predict", { method: "POST", body: e2 })).json();
  assert.deepEqual(JSON.parse(text).summary, p.summary);
  assert.deepEqual(JSON.parse(text).intervals, p.intervals, "the outcome carries the prediction's intervals (null: fixed timing)");
  // An unsupported candidate is an outcome, still 200.
  const u = await post(JSON.stringify({ config_name: "c.yaml", config_yaml: e2.replace("h200_sxm", "no_such_gpu"), budget_steps: 600000000 }));
  assert.equal(u.status, 200);
  const uj = await u.json();
  assert.equal(uj.status, "unsupported");
  assert.match(uj.reason, /^engine\.hardware: unknown hardware/);
  // Malformed JSON is 400; a candidate over the worker's memory budget is 413 "memory".
  assert.equal((await post("{")).status, 400);
  // 40,000 replicas: 40,000 ranks × 4 KiB of scheduler state, over the worker's 96 MiB.
  const big = e2.replace("    aggregated:\n", "    aggregated:\n      parallelism: {replicas: 40000}\n");
  assert.notEqual(big, e2);
  const m = await post(JSON.stringify({ config_name: "c.yaml", config_yaml: big, budget_steps: 600000000 }));
  assert.equal(m.status, 413);
  const mj = await m.json();
  assert.equal(mj.limit, "memory");
  assert.match(mj.path, /parallelism\.replicas$/);
});

test("POST /v1/recommend runs a small recommendation: the CLI's recommendation.json, every file with outputs=all", async () => {
  const yaml = fs.readFileSync(path.join(ROOT, "examples/recommend-small.yaml"), "utf8");
  const set = "optimizer.max_trials=6";
  const r = await fetch(edge.url + "/v1/recommend?outputs=all&set=" + encodeURIComponent(set), { method: "POST", body: yaml });
  assert.equal(r.status, 200);
  const ct = r.headers.get("content-type");
  assert.match(ct, /^multipart\/mixed; boundary=/);
  const parts = parseMultipart(ct, await r.text());
  // The CLI on the same inputs (the same configuration name, the wall time fixed at 0).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-"));
  try {
    fs.writeFileSync(path.join(dir, "recommendation.yaml"), yaml);
    const cli = await runAisimulate(["recommend", "--stack", "dynamo", "--config", "recommendation.yaml", "--set", set, "--output-dir", "out"], dir);
    assert.equal(cli.code, 0, cli.stderr);
    const want = ["recommendation.json", "recommendation.csv",
      ...fs.readdirSync(path.join(dir, "out/recommendations")).sort().map((n) => "recommendations/" + n)];
    assert.deepEqual(Object.keys(parts), want);
    for (const n of want) assertSameText(parts[n], fs.readFileSync(path.join(dir, "out", n), "utf8"), n);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // A bad domain is 400 at its field.
  const bad = await fetch(edge.url + "/v1/recommend?set=" + encodeURIComponent("engine.model={choices: [a, b]}"), { method: "POST", body: yaml });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).path, "engine.model");
});

// A calibrated recommendation with its deployments (docs/web.md, "Recommend"): a multipart
// body with the worked example's profile as a "calibration" part and ?artifacts=1&artifacts_top=2
// answers recommendation.json then deploy/0001/ and deploy/0002/, the bytes of the CLI's
// `recommend --calibration profile.json --artifacts --artifacts-top 2`; a bad artifacts_top and
// a bad profile are 400 naming what to fix.
test("POST /v1/recommend with a profile and ?artifacts=1 answers the CLI's recommend --calibration --artifacts files", async () => {
  const yaml = fs.readFileSync(path.join(ROOT, "examples/recommend-small.yaml"), "utf8");
  const profile = fs.readFileSync(path.join(ROOT, "examples/calibration/profile.json"));
  const set = "optimizer.max_trials=8";
  const form = (prof) => {
    const fd = new FormData();
    fd.append("config", new Blob([yaml]), "recommendation.yaml");
    fd.append("calibration", new Blob([prof]), "profile.json");
    return fd;
  };
  const r = await fetch(edge.url + "/v1/recommend?artifacts=1&artifacts_top=2&set=" + encodeURIComponent(set), { method: "POST", body: form(profile) });
  assert.equal(r.status, 200);
  const parts = parseMultipart(r.headers.get("content-type"), await r.text());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-rec-art-"));
  try {
    fs.writeFileSync(path.join(dir, "recommendation.yaml"), yaml);
    fs.writeFileSync(path.join(dir, "profile.json"), profile);
    const cli = await runAisimulate(["recommend", "--stack", "dynamo", "--config", "recommendation.yaml", "--set", set, "--output-dir", "out",
      "--calibration", "profile.json", "--artifacts", "--artifacts-top", "2"], dir);
    assert.equal(cli.code, 0, cli.stderr);
    const deploy = readDeploy(path.join(dir, "out"));
    const want = Object.keys(deploy).sort();
    const names = Object.keys(parts);
    assert.equal(names[0], "recommendation.json");
    assert.deepEqual(names.slice(1).sort(), want);
    assert.ok(want.some((n) => n.startsWith("deploy/0002/")) && !want.some((n) => n.startsWith("deploy/0003/")), want.join(" "));
    assertSameText(parts["recommendation.json"], fs.readFileSync(path.join(dir, "out/recommendation.json"), "utf8"), "recommendation.json");
    assert.match(parts["recommendation.json"], /"calibrated_candidates": [1-9]/);
    for (const n of Object.keys(deploy)) assertSameText(parts[n], deploy[n], n);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const badTop = await fetch(edge.url + "/v1/recommend?artifacts=1&artifacts_top=0", { method: "POST", body: yaml });
  assert.equal(badTop.status, 400);
  assert.match((await badTop.json()).error, /^artifacts_top="0": must be a whole number from 1 to 9999/);
  const badProfile = await fetch(edge.url + "/v1/recommend?artifacts=1", { method: "POST", body: form('{"schema_version": 1, "entries": []}') });
  assert.equal(badProfile.status, 400);
  const bj = await badProfile.json();
  assert.equal(bj.path, "entries");
  assert.match(bj.error, /^profile\.json: entries: /);
});

// The screened optimiser's screen is charged before it runs (docs/web.md, "Recommend"): 64
// steps a point (screen_steps_per_point in /v1/health). The seed example at 18 GPUs screens
// 78,696 points; with 200 trials the two are over the call's limit while the trials alone are
// not, so the answer is 413 "work" at optimizer.algorithm, naming the points — the screen
// (about 9 s of CPU here) never runs.
test("POST /v1/recommend meters the screen: a space too large to screen within the limit is 413 before it runs", async () => {
  const h = await (await fetch(edge.url + "/v1/health")).json();
  assert.equal(h.limits.screen_steps_per_point, 64);
  assert.equal(h.limits.search_steps_per_trial, 8192);
  const points = 78696, trials = 200, limit = h.limits.max_event_loop_steps;
  assert.ok(trials * 8192 <= limit && trials * 8192 + points * 64 > limit, "the trials fit, the trials and the screen do not");
  const yaml = fs.readFileSync(path.join(ROOT, "examples/recommend-seed.yaml"), "utf8");
  const sets = ["optimization.constraints.max_candidate_gpus=18", "optimizer.max_trials=" + trials];
  const r = await fetch(edge.url + "/v1/recommend?" + sets.map((s) => "set=" + encodeURIComponent(s)).join("&"), { method: "POST", body: yaml });
  const j = await r.json();
  assert.equal(r.status, 413, JSON.stringify(j));
  assert.equal(j.limit, "work");
  assert.equal(j.path, "optimizer.algorithm");
  assert.ok(j.error.includes(`the screen of the space's ${points} points (64 steps each) and the search's ${trials} trials × 8192 steps exceed the ${limit} event-loop steps`), j.error);
  assert.match(j.error, /bayesian/);
  assert.match(j.error, /aisimulate recommend/);
});

test("CORS preflight", async () => {
  const r = await fetch(edge.url + "/v1/predict", { method: "OPTIONS", headers: { Origin: "https://docs.example", "Access-Control-Request-Method": "POST" } });
  assert.equal(r.status, 204);
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  assert.match(r.headers.get("access-control-allow-methods"), /POST/);
});

test("POST raw YAML returns prediction.json; capture adds requests.jsonl as a second part", async () => {
  const r = await fetch(edge.url + "/v1/predict", { method: "POST", body: e2 });
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type"), /^application\/json/);
  const text = await r.text();
  assert.ok(text.endsWith("}\n"));
  const j = JSON.parse(text);
  assert.equal(j.summary.completed_requests, 6);
  assert.equal(j.summary.duration_ms, 15);
  assert.equal(j.per_request, null);
  // No AISIMULATE_FIXED_WALL_TIME_MS binding here: the wall-clock keys are 0.0 (docs/web.md).
  assert.equal(j.summary.wall_time_ms, 0);
  assert.equal(j.summary.processed_tokens_per_s, 0);
  assert.match(text, /"wall_time_ms": 0\.0\n/);
  const m = await postEdge(edge.url, e2, {}, true);
  assert.equal(m.status, 200);
  assert.match(m.contentType, /^multipart\/mixed; boundary=/);
  assert.equal(JSON.parse(m.parts["prediction.json"]).coverage.per_request_records, 6);
  assert.equal(m.parts["requests.jsonl"].trim().split("\n").length, 6);
});

test("bad input is 400 with {error, path}", async () => {
  const r = await fetch(edge.url + "/v1/predict", { method: "POST", body: "engine:\n  model: meta-llama/Meta-Llama-3.1-8B\n  hardware: h200_sxm\n  workers: {aggregated: {parallelism: {tensor: 0}}}\n" });
  assert.equal(r.status, 400);
  const j = await r.json();
  assert.equal(j.path, "engine.workers.aggregated.parallelism.tensor");
  assert.match(j.error, /^prediction\.yaml: engine\.workers\.aggregated\.parallelism\.tensor: /);
  const r2 = await fetch(edge.url + "/v1/predict", { method: "POST", body: "" });
  assert.equal(r2.status, 400);
  assert.match((await r2.json()).error, /empty configuration/);
  const fd = new FormData();
  fd.append("file", new Blob(["x"]), "t.jsonl");
  const r3 = await fetch(edge.url + "/v1/predict", { method: "POST", body: fd });
  assert.equal(r3.status, 400);
  assert.match((await r3.json()).error, /no "config" part/);
});

test("trace files arrive as multipart parts; a missing trace is bad input", async () => {
  const dir = path.join(ROOT, "web/testdata/identity");
  const yaml = fs.readFileSync(path.join(dir, "05-trace-mooncake.yaml"), "utf8");
  const trace = fs.readFileSync(path.join(dir, "small_trace.jsonl"), "utf8");
  const ok = await postEdge(edge.url, yaml, { "small_trace.jsonl": trace }, false);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.summary.completed_requests, 40);
  const missing = await postEdge(edge.url, yaml, {}, false);
  assert.equal(missing.status, 400, missing.text);
  assert.match(missing.json.path, /^traffic\.source\.trace\.paths$/);
});

test("methods and routes", async () => {
  assert.equal((await fetch(edge.url + "/v1/predict")).status, 405);
  assert.equal((await fetch(edge.url + "/v1/health", { method: "POST", body: "x" })).status, 405);
  const r = await fetch(edge.url + "/nope");
  assert.equal(r.status, 404);
  assert.ok((await r.json()).error);
});

test("limits: request count and body size are 413", async () => {
  const big = e2.replace("stop: {requests: 6}", "stop: {requests: 5000000}");
  const r = await fetch(edge.url + "/v1/predict", { method: "POST", body: big });
  assert.equal(r.status, 413);
  assert.equal((await r.json()).path, "traffic.stop.requests");
  // Counted with the simulator's stop rules after ?set=: a per-load-unit stop and a --set.
  const perUnit = e2.replace("stop: {requests: 6}", "stop: {requests_per_load_unit: 200000}");
  const r4 = await fetch(edge.url + "/v1/predict", { method: "POST", body: perUnit });
  assert.equal(r4.status, 413);
  assert.equal((await r4.json()).path, "traffic.stop.requests_per_load_unit");
  const r5 = await fetch(edge.url + "/v1/predict?set=" + encodeURIComponent("traffic.stop.requests=300000"), { method: "POST", body: e2 });
  assert.equal(r5.status, 413);
  assert.match((await r5.json()).error, /simulates 300000 requests/);
  const huge = "# " + "x".repeat(17 << 20) + "\n" + e2;
  const r2 = await fetch(edge.url + "/v1/predict", { method: "POST", body: huge });
  assert.equal(r2.status, 413);
  assert.match((await r2.json()).error, /exceeds/);
  const cfg = "# " + "y".repeat(1 << 20) + "\n" + e2;
  const r3 = await fetch(edge.url + "/v1/predict", { method: "POST", body: cfg });
  assert.equal(r3.status, 413);
});

// `make serve-edge` (web/serve-edge.mjs) says where it listens once the API answers.
test("serve-edge prints a listening-on line once the API answers", async () => {
  const port = await freePort();
  const proc = spawn(process.execPath, [path.join(ROOT, "web/serve-edge.mjs"), "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout.on("data", (d) => { out += d; });
  proc.stderr.on("data", (d) => { out += d; });
  try {
    const deadline = Date.now() + 60000;
    while (!/listening on /.test(out) && proc.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, new RegExp(`^listening on http://127\\.0\\.0\\.1:${port}/ \\(aisimulate edge API under workerd`, "m"), out);
    const r = await fetch(`http://127.0.0.1:${port}/v1/health`);
    assert.equal(r.status, 200);
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
    }
  }
});

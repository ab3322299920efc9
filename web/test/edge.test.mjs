// The edge worker under workerd: health, CORS, raw-YAML and multipart bodies, error JSON with
// the config path (400), wrong method (405), unknown route (404), limits (413).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ROOT, startWorkerd, postEdge } from "./lib.mjs";

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

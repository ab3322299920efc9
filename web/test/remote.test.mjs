// `aisimulate recommend --remote`: the native CLI sending candidate evaluations to edge workers
// under workerd on 127.0.0.1 (docs/recommend.md, "Parallel and remote evaluation"). The result
// files and stdout are byte-identical to a local run: with two workers, with one of them killed
// mid-sweep, and when a worker refuses every candidate as over its limits (evaluated locally).
// A worker of another version, or a URL nothing answers, is refused before the sweep (exit 2).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { ROOT, CLI, startWorkerd, freePort, withTimeout } from "./lib.mjs";

const SMALL = path.join(ROOT, "examples/recommend-small.yaml");
// A recommendation over a trace source: every evaluation carries the trace as a multipart part.
const TRACE_RECOMMEND = `traffic:
  source: {type: trace, format: mooncake, paths: [small_trace.jsonl]}
  load: {type: trace_timestamps, speedup: {choices: [1.0, 2.0, 4.0]}}
engine:
  model: Qwen/Qwen3-8B
  hardware: h200_sxm
  mode: aggregated
  backend: {choices: [vllm, sglang]}
  workers:
    aggregated:
      parallelism: {preset: [{replicas: 1, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1},
                             {replicas: 2, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}]}
      kv_cache: {capacity: {type: fixed, blocks: 20000}}
      timing: {type: polynomial}
optimization: {target: throughput, constraints: {max_candidate_gpus: 2}}
optimizer: {max_trials: 12, parallelism: 4, seed: 3}
`;

let workers = [];
let version;
const cache = process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache");

before(async () => {
  version = execFileSync(CLI, ["--version"], { encoding: "utf8" }).trim().replace(/^aisimulate /, "");
  workers = await Promise.all([startWorkerd(), startWorkerd()]);
});
after(async () => { await Promise.all(workers.map((w) => w.close())); });

/** Reads every file below dir as relative path → text. */
function readTree(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else out[path.relative(dir, p)] = fs.readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

/**
 * Runs `aisimulate recommend` in cwd into a fresh "out" directory; onStderr sees stderr as it
 * arrives. Returns {code, stdout, stderr, files}.
 */
function recommend(config, extra, { cwd = os.tmpdir(), onStderr } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-remote-"));
  const args = ["recommend", "--stack", "dynamo", "--config", config, "--output-dir", path.join(dir, "out"), ...extra];
  return withTimeout(new Promise((resolve) => {
    const proc = spawn(CLI, args, { cwd, env: { ...process.env, AISIMULATE_FIXED_WALL_TIME_MS: "0", AISIMULATE_WAZERO_CACHE: cache } });
    let stdout = "", stderr = "";
    proc.stdout.on("data", (d) => { stdout += d; });
    proc.stderr.on("data", (d) => { stderr += d; if (onStderr) onStderr(stderr); });
    proc.on("exit", (code) => {
      const out = path.join(dir, "out");
      const files = fs.existsSync(out) ? readTree(out) : {};
      fs.rmSync(dir, { recursive: true, force: true });
      // The output directory's name differs between runs: compare stdout without it.
      resolve({ code, stdout: stdout.split(dir).join("DIR"), stderr, files });
    });
  }), 240000, "aisimulate recommend " + extra.join(" "));
}

function assertSameResult(got, want, label) {
  assert.equal(got.code, want.code, `${label}: exit ${got.code}, stderr ${got.stderr}`);
  assert.deepEqual(Object.keys(got.files).sort(), Object.keys(want.files).sort(), label + ": files");
  for (const [name, text] of Object.entries(want.files)) {
    assert.ok(got.files[name] === text, `${label}: ${name} differs from the local run`);
  }
  assert.equal(got.stdout, want.stdout, label + ": stdout");
}

/** A fake worker: /v1/health reports healthVersion; evaluations get answer(res). */
async function fakeWorker(healthVersion, answer) {
  const port = await freePort();
  let evaluations = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.setHeader("X-Aisimulate-Version", healthVersion);
      if (req.url === "/v1/health") {
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify({ status: "ok", module_version: healthVersion }));
        return;
      }
      evaluations++;
      answer(res);
    });
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${port}`, evaluations: () => evaluations,
    close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }) };
}

test("two workers give the local run's bytes (synthetic and trace workloads)", async () => {
  const remote = ["--remote", workers[0].url, "--remote", workers[1].url];
  const local = await recommend(SMALL, []);
  assert.equal(local.code, 0, local.stderr);
  const r = await recommend(SMALL, remote);
  assertSameResult(r, local, "recommend-small --remote A --remote B");
  assert.equal(r.stderr, "", "no candidate was evaluated locally");

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-remote-trace-"));
  try {
    fs.writeFileSync(path.join(dir, "r.yaml"), TRACE_RECOMMEND);
    fs.copyFileSync(path.join(ROOT, "web/testdata/identity/small_trace.jsonl"), path.join(dir, "small_trace.jsonl"));
    const localTrace = await recommend("r.yaml", [], { cwd: dir });
    assert.equal(localTrace.code, 0, localTrace.stderr);
    const rt = await recommend("r.yaml", [...remote, "--remote-concurrency", "1"], { cwd: dir });
    assertSameResult(rt, localTrace, "trace --remote");
    assert.equal(rt.stderr, "", "no candidate was evaluated locally");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a worker killed mid-sweep: its requests move to the other one, same bytes", async () => {
  const sets = ["--set", "optimizer.max_trials=64", "--set", "optimizer.algorithm=random"];
  const local = await recommend(SMALL, sets);
  assert.equal(local.code, 0, local.stderr);
  const [a, b] = [await startWorkerd(), await startWorkerd()];
  let killed = null;
  try {
    const r = await recommend(SMALL, [...sets, "--progress", "--remote", a.url, "--remote", b.url, "--remote-concurrency", "2"], {
      onStderr: (text) => {
        // Kill b once the first round was observed and trials remain.
        if (!killed && /trials [1-9][0-9]*\/64/.test(text)) killed = b.close();
      },
    });
    assert.ok(killed, "the sweep ended before a worker could be killed:\n" + r.stderr);
    await killed;
    assertSameResult({ ...r, stderr: "" }, local, "--remote with b killed");
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("every candidate over a worker's limits (413) is evaluated locally, same bytes", async () => {
  const fake = await fakeWorker(version, (res) => {
    res.statusCode = 413;
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ error: "over the work limit", path: "", limit: "work" }));
  });
  try {
    const local = await recommend(SMALL, []);
    const r = await recommend(SMALL, ["--remote", fake.url]);
    assertSameResult(r, local, "413 fallback");
    const n = fake.evaluations();
    assert.ok(n > 0);
    assert.match(r.stderr, new RegExp(`^${n} candidates were evaluated locally: over the worker's limits\n$`));
  } finally {
    await fake.close();
  }
});

test("a worker answering 503 is dropped after its retries; the other one finishes", async () => {
  const fake = await fakeWorker(version, (res) => { res.statusCode = 503; res.end("{\"error\":\"overloaded\"}"); });
  try {
    const local = await recommend(SMALL, []);
    const r = await recommend(SMALL, ["--remote", fake.url, "--remote", workers[0].url]);
    assertSameResult(r, local, "503 then the other worker");
    const alone = await recommend(SMALL, ["--remote", fake.url]);
    assert.equal(alone.code, 1);
    assert.match(alone.stderr, new RegExp(`every remote worker failed: ${fake.url}: 503 Service Unavailable: overloaded`));
    assert.deepEqual(alone.files, {});
  } finally {
    await fake.close();
  }
});

test("another version or an unreachable URL is refused before the sweep (exit 2)", async () => {
  const fake = await fakeWorker("0000000-other", (res) => { res.statusCode = 500; res.end(); });
  try {
    const r = await recommend(SMALL, ["--remote", workers[0].url, "--remote", fake.url]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`remote ${fake.url} runs aisimulate 0000000-other; this binary is ${version}; deploy the same build \\(make worker\\)\n$`));
    assert.equal(fake.evaluations(), 0);
    assert.deepEqual(r.files, {});
  } finally {
    await fake.close();
  }
  const port = await freePort();
  const r = await recommend(SMALL, ["--remote", `http://127.0.0.1:${port}`]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`argument --remote: cannot reach http://127\\.0\\.0\\.1:${port}/v1/health: .*connection refused`));
});

// Shared helpers of the web tests: build paths, the static server, headless Chromium through
// playwright-core, workerd, the native CLI and the GOOS=js core under node. Every server binds
// 127.0.0.1 and is stopped by the test that started it; every wait is bounded.
import { spawn, execFile } from "node:child_process";
import assert from "node:assert/strict";
import fs from "node:fs";
import zlib from "node:zlib";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { serve } from "../serve.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const WEB_OUT = path.join(ROOT, "build/web");
export const WORKER_OUT = path.join(ROOT, "build/worker");
export const CLI = process.env.AISIMULATE_BIN || path.join(ROOT, "bin/aisimulate");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const FIXED_WALL = 1.0;
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"];

// The three wall-clock keys of outputs.md §3.3.
const WALL_KEYS = ["wall_time_ms", "processed_tokens_per_s", "processed_output_tokens_per_s"];

/** Replaces the wall-clock values in a pretty prediction.json by 0.0 (outputs.md §3.3), every
 * occurrence: a calibrated prediction has them in its `uncalibrated` section too. */
export function normalizeWall(text) {
  let out = text;
  for (const k of WALL_KEYS) out = out.replace(new RegExp(`("${k}": )[^,\\n]+`, "g"), "$10.0");
  return out;
}

export async function withTimeout(p, ms, what) {
  let t;
  const timer = new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timeout after ${ms} ms: ${what}`)), ms); });
  try { return await Promise.race([p, timer]); } finally { clearTimeout(t); }
}

export async function freePort() {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
    s.on("error", reject);
  });
}

export async function startStatic(root = WEB_OUT) {
  const port = await freePort();
  const server = await serve({ root, host: "127.0.0.1", port });
  // closeAllConnections: Chromium keeps connections alive, and close() alone waits for them.
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }) };
}

export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-chromium-"));
  const ctx = await withTimeout(chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1400, height: 1000 },
  }), 60000, "chromium launch");
  return { ctx, close: async () => { await ctx.close(); fs.rmSync(userDataDir, { recursive: true, force: true }); } };
}

/** Runs bin/aisimulate predict; returns {code, stdout, stderr, prediction, requests}. */
export function runCLI(configPath, { capture = false, cwd, fixed = FIXED_WALL, sets = [], detail = "", extra = [] } = {}) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-cli-"));
  const args = ["predict", "--stack", "dynamo", "--config", configPath, "--output-dir", outDir, "--overwrite", "--format", "json"];
  if (capture) args.push("--capture-per-request");
  for (const s of sets) args.push("--set", s);
  if (detail) args.push("--detail", detail);
  args.push(...extra);
  return new Promise((resolve) => {
    execFile(CLI, args, { cwd: cwd || path.dirname(configPath), timeout: 120000, maxBuffer: 1 << 28,
      // A compile cache of our own: other users of the shared cache may prune it mid-run.
      env: { ...process.env, AISIMULATE_FIXED_WALL_TIME_MS: String(fixed),
        AISIMULATE_WAZERO_CACHE: process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache") } }, (err, stdout, stderr) => {
      const read = (f) => { try { return fs.readFileSync(path.join(outDir, f), "utf8"); } catch { return null; } };
      const res = { code: err ? (err.code ?? 1) : 0, stdout, stderr, prediction: read("prediction.json"), requests: read("requests.jsonl") };
      fs.rmSync(outDir, { recursive: true, force: true });
      resolve(res);
    });
  });
}

/** Runs bin/aisimulate calibrate in cwd with the given arguments (the output directory is
 * added); returns {code, stderr, profile} with profile the calibration.json text. */
export function runCalibrate(args, cwd) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-cal-"));
  return new Promise((resolve) => {
    execFile(CLI, ["calibrate", "--stack", "dynamo", ...args, "--output-dir", outDir, "--overwrite"], { cwd, timeout: 120000,
      env: { ...process.env, AISIMULATE_WAZERO_CACHE: process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache") } }, (err, stdout, stderr) => {
      let profile = null;
      try { profile = fs.readFileSync(path.join(outDir, "calibration.json"), "utf8"); } catch { /* none */ }
      fs.rmSync(outDir, { recursive: true, force: true });
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr, profile });
    });
  });
}

let nodeCore = null;
/** Loads build/web/core.wasm (GOOS=js) into this node process once; returns aisimulateCore. */
export async function loadNodeCore() {
  if (nodeCore) return nodeCore;
  await import(pathToFileURL(path.join(WEB_OUT, "wasm_exec.js")).href);
  const go = new globalThis.Go();
  const bytes = fs.readFileSync(path.join(WEB_OUT, "core.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  const ready = new Promise((resolve) => { globalThis.__aisimulateOnReady = resolve; });
  go.run(instance);
  nodeCore = await withTimeout(ready, 30000, "core.wasm start");
  return nodeCore;
}

/**
 * Starts every non-CLI target a cross-target test compares: the GOOS=js core in this node
 * process, the page in headless Chromium (core ready) and the edge worker under workerd, all
 * with the fixed wall time. Returns {core, page, close}; close stops what was started.
 */
export async function startAllTargets() {
  const t = { core: await loadNodeCore() };
  const started = [];
  t.close = async () => { for (const s of started.reverse()) await s.close(); };
  try {
    const srv = await startStatic();
    started.push(srv);
    const browser = await launchChromium();
    started.push(browser);
    t.page = await browser.ctx.newPage();
    await t.page.goto(srv.url);
    await withTimeout(t.page.evaluate(() => window.aisimulate.ready), 30000, "page core ready");
    t.edge = await startWorkerd({ env: { AISIMULATE_FIXED_WALL_TIME_MS: String(FIXED_WALL) } });
    started.push(t.edge);
  } catch (e) {
    await t.close();
    throw e;
  }
  return t;
}

/** Starts workerd with build/worker; env values become text bindings. */
export async function startWorkerd({ env = {} } = {}) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-workerd-"));
  const q = (s) => JSON.stringify(s);
  const rel = (f) => path.relative(dir, path.join(WORKER_OUT, f));
  const bindings = Object.entries(env).map(([k, v]) => `(name = ${q(k)}, text = ${q(String(v))})`).join(", ");
  const cfg = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w), (name = "no-network", network = (allow = [])) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const w :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed ${q(rel("worker.mjs"))}),
    (name = "runtime.mjs", esModule = embed ${q(rel("runtime.mjs"))}),
    (name = "wasm_exec.js", esModule = embed ${q(rel("wasm_exec.js"))}),
    (name = "app.wasm", wasm = embed ${q(rel("app.wasm"))}),
  ],
  compatibilityDate = "2025-01-01",
  compatibilityFlags = ["nodejs_compat"],
  globalOutbound = "no-network",
  bindings = [ ${bindings} ],
);
`;
  const cfgPath = path.join(dir, "workerd.capnp");
  fs.writeFileSync(cfgPath, cfg);
  const bin = path.join(ROOT, "web/node_modules/.bin/workerd");
  const proc = spawn(bin, ["serve", cfgPath, "--experimental"], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  proc.stdout.on("data", (d) => { log += d; });
  proc.stderr.on("data", (d) => { log += d; });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      const r = await fetch(url + "/v1/health");
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error("workerd did not start: " + log);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url, log: () => log,
    close: () => new Promise((resolve) => {
      if (proc.exitCode !== null) { resolve(); return; }
      const t = setTimeout(() => proc.kill("SIGKILL"), 5000);
      proc.once("exit", () => { clearTimeout(t); fs.rmSync(dir, { recursive: true, force: true }); resolve(); });
      proc.kill("SIGTERM");
    }),
  };
}

/** Splits a multipart/mixed response body into {name: text}. */
export function parseMultipart(contentType, body) {
  const m = /boundary=("?)([^";]+)\1/.exec(contentType);
  if (!m) throw new Error("no boundary in " + contentType);
  const out = {};
  for (const chunk of body.split("--" + m[2])) {
    const i = chunk.indexOf("\r\n\r\n");
    if (i < 0) continue;
    const head = chunk.slice(0, i);
    const name = /name="([^"]+)"/.exec(head);
    if (!name) continue;
    out[name[1]] = chunk.slice(i + 4).replace(/\r\n$/, "");
  }
  return out;
}

/** Asserts two texts are byte-identical, reporting the first differing line. */
export function assertSameText(actual, expected, label) {
  if (actual === expected) return;
  const a = String(actual).split("\n"), e = String(expected).split("\n");
  let i = 0;
  while (i < a.length && i < e.length && a[i] === e[i]) i++;
  throw new Error(`${label}: differs at line ${i + 1} (lengths ${String(actual).length} vs ${String(expected).length})\n  got:  ${String(a[i]).slice(0, 300)}\n  want: ${String(e[i]).slice(0, 300)}`);
}

/** The identity configs and the files they may reference (every non-YAML file beside them). */
export function identityCases() {
  const dir = path.join(ROOT, "web/testdata/identity");
  const names = fs.readdirSync(dir).sort();
  const files = {};
  for (const n of names) if (!n.endsWith(".yaml")) files[n] = fs.readFileSync(path.join(dir, n), "utf8");
  return names.filter((n) => n.endsWith(".yaml")).map((n) => ({
    name: n, path: path.join(dir, n), yaml: fs.readFileSync(path.join(dir, n), "utf8"), files,
  }));
}

/** POSTs a config (and files) to the edge worker as multipart; returns {status, parts|json|text}. */
export async function postEdge(url, yaml, files, capture) {
  const fd = new FormData();
  fd.append("config", new Blob([yaml], { type: "application/yaml" }), "prediction.yaml");
  for (const [n, text] of Object.entries(files || {})) fd.append("file", new Blob([text]), n);
  const r = await fetch(url + "/v1/predict" + (capture ? "?capture_per_request=1" : ""), { method: "POST", body: fd });
  const ct = r.headers.get("content-type") || "";
  const text = await r.text();
  const out = { status: r.status, contentType: ct, text };
  if (ct.startsWith("multipart/")) out.parts = parseMultipart(ct, text);
  else if (ct.startsWith("application/json")) { try { out.json = JSON.parse(text); } catch { /* raw */ } }
  return out;
}

/** unzip reads a zip archive's entries from its central directory: {name: text}, in order. */
export function unzip(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, "no end of central directory");
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = {};
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, "central directory entry");
    const method = buf.readUInt16LE(p + 10), size = buf.readUInt32LE(p + 20);
    const n = buf.readUInt16LE(p + 28), e = buf.readUInt16LE(p + 30), c = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString("utf8", p + 46, p + 46 + n);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    out[name] = (method === 8 ? zlib.inflateRawSync(data) : data).toString("utf8");
    p += 46 + n + e + c;
  }
  return out;
}

/** readDeploy reads out/deploy/** as {"deploy/0001/…": text}. */
export function readDeploy(out) {
  const files = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files[path.relative(out, p).split(path.sep).join("/")] = fs.readFileSync(p, "utf8");
    }
  };
  walk(path.join(out, "deploy"));
  return files;
}

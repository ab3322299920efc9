// What a new user meets on the page: results that belong to the configuration, a layout that
// fits a phone, charts that say what they show, and a way to stop a long run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ROOT, startStatic, launchChromium } from "./lib.mjs";

let srv, browser;
const shots = path.join(ROOT, "web/test-results");
const quickstart = fs.readFileSync(path.join(ROOT, "ui/presets/01-example.yaml"), "utf8");

before(async () => {
  srv = await startStatic();
  browser = await launchChromium();
  fs.mkdirSync(shots, { recursive: true });
});
after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.close();
});

async function openPage(viewport) {
  const page = await browser.ctx.newPage();
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(srv.url);
  await page.waitForSelector("#run", { timeout: 30000 });
  await page.evaluate(() => window.aisimulate.ready);
  return page;
}

async function waitIdle(page) {
  await page.waitForFunction(() => { const b = document.querySelector("#run"); return b && !b.disabled; }, null, { timeout: 90000 });
}

// run presses Run and waits for that run's result to be rendered: the button's disabled
// state alone can be missed (a fast run, or one refused at once, ends before the next frame
// shows it), and then the previous run's status would be read.
async function run(page) {
  const before = await page.evaluate(() => performance.getEntriesByName("aisimulate-result-rendered").length);
  await page.click("#run");
  await page.waitForFunction((n) => performance.getEntriesByName("aisimulate-result-rendered").length > n, before, { timeout: 90000 });
  await waitIdle(page);
}

test("a failed run clears the previous run's cards and charts", async () => {
  const page = await openPage();
  await run(page);
  assert.ok(await page.locator("#cards .card").count() > 0);
  await page.fill("#yaml", quickstart.replace("concurrency: 10", "concurrency: 0"));
  await run(page);
  assert.match(await page.textContent("#status"), /invalid/);
  assert.equal(await page.locator("#cards").count(), 0, "old cards under the error");
  assert.equal(await page.locator("#charts").count(), 0, "old charts under the error");
  await page.close();
});

for (const width of [360, 400]) {
  test(`at ${width} px the page does not overflow and the results scroll into view`, async () => {
    const page = await openPage({ width, height: 780 });
    await run(page);
    await page.waitForSelector("#cards .card");
    const m = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
      config: document.querySelector(".config").getBoundingClientRect().width,
      top: document.querySelector("#results").getBoundingClientRect().top, height: window.innerHeight,
    }));
    assert.ok(m.scroll <= m.inner, `page ${m.scroll} px wide in a ${m.inner} px viewport (config panel ${m.config} px)`);
    assert.ok(m.top >= 0 && m.top < m.height / 2, `results start at ${m.top} px of ${m.height}`);
    await page.screenshot({ path: path.join(shots, `narrow-${width}.png`) });
    await page.close();
  });
}

test("charts: axis titles with units, whole-number count ticks, SLA bounds, one ITL definition each", async () => {
  const page = await openPage({ width: 1280, height: 900 });
  await run(page);
  await page.waitForSelector("#charts svg");
  const c = await page.evaluate(() => {
    const svgs = [...document.querySelectorAll("#charts svg")];
    return svgs.map((s) => ({
      title: s.querySelector(".chart-title").textContent,
      axes: [...s.querySelectorAll(".axis-title")].map((t) => t.textContent),
      yticks: [...s.querySelectorAll('.tick[text-anchor="end"]')].map((t) => t.textContent),
      bound: [...s.querySelectorAll(".bound-label")].map((t) => t.textContent),
      labels: [...s.querySelectorAll(".marker-label, .bound-label")].map((t) => { const r = t.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; }),
    }));
  });
  const byTitle = Object.fromEntries(c.map((x) => [x.title, x]));
  const ttft = byTitle["Time to first token"], itl = byTitle["ITL per request (mean gap after the first token)"];
  assert.ok(ttft && itl, c.map((x) => x.title).join(" | "));
  assert.deepEqual(ttft.bound, ["SLA 200"]);
  assert.deepEqual(itl.bound, ["SLA 20"]);
  for (const x of c) {
    assert.equal(x.axes.length, 2, x.title);
    assert.ok(x.axes.every((a) => a.length > 0), x.title);
    // The y axes count requests, tokens or workers: whole numbers only (k/M suffixes allowed).
    for (const t of x.yticks.slice(0, 5)) assert.match(t, /^\d+(\.\d+[kM])?$|^\d+[kM]?$/, `${x.title}: tick ${t}`);
    for (let i = 0; i < x.labels.length; i++) {
      for (let j = i + 1; j < x.labels.length; j++) {
        const [a, b] = [x.labels[i], x.labels[j]];
        const overlap = a[0] < b[1] && b[0] < a[1] && a[2] < b[3] && b[2] < a[3];
        assert.ok(!overlap, `${x.title}: labels ${i} and ${j} overlap`);
      }
    }
  }
  const cardLabels = await page.evaluate(() => [...document.querySelectorAll("#cards .card-label")].map((e) => e.textContent));
  assert.ok(cardLabels.includes("ITL mean, all gaps"), cardLabels.join(", "));
  await page.screenshot({ path: path.join(shots, "charts.png"), fullPage: true });
  await page.close();
});

test("Cancel stops a long run and the next run works", async () => {
  const page = await openPage();
  // Long enough to cancel, small enough for the browser's memory estimate (the page captures
  // per-request records, docs/robustness.md): 2,000,000 requests would be refused up front.
  await page.fill("#yaml", quickstart.replace("requests: 200", "requests: 200000"));
  await page.click("#run");
  await page.waitForSelector("#cancel", { timeout: 10000 });
  await page.click("#cancel");
  await waitIdle(page);
  assert.match(await page.textContent("#status"), /Cancelled/);
  await page.fill("#yaml", quickstart);
  await run(page);
  assert.ok(await page.locator("#cards .card").count() > 0);
  await page.close();
});

test("the model picker offers the whole catalog", async () => {
  const page = await openPage();
  const n = await page.evaluate(() => document.querySelectorAll("#model-options option").length);
  const listed = await page.getAttribute("#model", "list");
  const catalog = JSON.parse(fs.readFileSync(path.join(ROOT, "simcore/catalog/models.json"), "utf8")).length;
  assert.equal(listed, "model-options");
  assert.equal(n, catalog);
  await page.close();
});

test("A/B: the previous run is the baseline: deltas on the cards, both runs on the charts", async () => {
  const page = await openPage({ width: 1280, height: 900 });
  await run(page);
  assert.equal(await page.locator(".card-delta").count(), 0, "no baseline after the first run");
  await page.fill("#yaml", quickstart.replace("concurrency: 10", "concurrency: 20"));
  await run(page);
  const deltas = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#cards .card")].map((c) => [c.dataset.key, (c.querySelector(".card-delta") || {}).textContent])));
  assert.equal(deltas.completed_requests, "vs previous: same");
  assert.match(deltas.median_ttft_ms, /^vs previous: [+−]\d+\.\d%$/);
  assert.equal(await page.locator("#charts path.baseline").count(), 3, "a baseline outline on each latency histogram");
  assert.ok(await page.locator("#charts text", { hasText: "previous" }).count() >= 3);
  await page.screenshot({ path: path.join(shots, "compare.png"), fullPage: true });
  // The screenshot docs/web.md shows (docs/images/web-compare.png is a copy).
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(shots, "compare-top.png") });
  await page.click("#clear-baseline");
  // The click re-renders on vecty's next frame: wait for it before counting.
  await page.waitForFunction(() => document.querySelectorAll(".card-delta").length === 0, null, { timeout: 10000 });
  assert.equal(await page.locator(".card-delta").count(), 0);
  assert.equal(await page.locator("#charts path.baseline").count(), 0);
  await page.close();
});

// The first result arrives within 1 s of the UI being ready (docs/web.md, "Size and speed"):
// the run button is pressed as soon as it is there, whether or not the core module has
// finished loading, and the time is read from the mark the app sets once the result is on
// the page (aisimulate-result-rendered).
test("the first result is on the page within 1 s of the UI being ready", async () => {
  const page = await browser.ctx.newPage();
  await page.goto(srv.url);
  await page.waitForSelector("#run:not([disabled])", { timeout: 30000 });
  const ready = await page.evaluate(() => performance.now());
  await page.click("#run");
  await page.waitForFunction(() => performance.getEntriesByName("aisimulate-result-rendered").length > 0, null, { timeout: 60000 });
  const shown = await page.evaluate(() => performance.getEntriesByName("aisimulate-result-rendered")[0].startTime);
  assert.ok(await page.locator("#cards .card").count() > 0, "no result cards");
  assert.ok(shown - ready < 1000, `first result ${Math.round(shown - ready)} ms after the UI was ready`);
  console.log(`# first result ${Math.round(shown - ready)} ms after the UI was ready (page open to UI ready ${Math.round(ready)} ms)`);
  await page.close();
});

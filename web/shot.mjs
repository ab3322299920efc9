// Takes a screenshot of the built page (the images of docs/web.md):
//
//   node web/shot.mjs OUT.png [#fragment] [--run] [--width=N] [--pick=1,2] [--calibration=FILE]
//
// A #cfg= fragment runs that prediction, a #rec= fragment opens the Recommend view and runs
// that sweep; the shot is taken when the results are shown. --run presses Run on the default
// page, --width sets the viewport width (default 1400), --pick ticks those ranks of the
// ranked table for the side-by-side comparison. --calibration uploads that profile first
// (with a #rec= fragment: the page is opened plain, the profile given, then the sweep typed
// into the Recommend view and run, since a link runs before anything can be uploaded).
import fs from "node:fs";
import path from "node:path";
import { startStatic, launchChromium, withTimeout } from "./test/lib.mjs";
const out = process.argv[2] || "page.png";
const frag = process.argv.find((a) => a.startsWith("#")) || "";
const opt = (name) => (process.argv.find((a) => a.startsWith(`--${name}=`)) || "").slice(name.length + 3);
const width = Number(opt("width") || 1400);
const srv = await startStatic();
const b = await launchChromium();
try {
  const page = await b.ctx.newPage();
  await page.setViewportSize({ width, height: 1000 });
  page.on("console", (m) => console.log("console:", m.text()));
  page.on("pageerror", (e) => console.log("pageerror:", e.message));
  const profile = opt("calibration");
  await page.goto(srv.url + (profile ? "" : frag));
  await withTimeout(page.waitForSelector("#run, #rec-run"), 20000, "ui");
  if (profile) {
    await page.setInputFiles("#calibration-upload", { name: path.basename(profile), mimeType: "application/json", buffer: fs.readFileSync(profile) });
    await page.waitForSelector("#calibration-profiles li");
    if (frag.startsWith("#rec=")) {
      const sweep = Buffer.from(frag.slice(5), "base64url").toString("utf8");
      await page.click("#tab-recommend");
      await page.fill("#rec-yaml", sweep);
      await page.click("#rec-run");
    }
  }
  if (process.argv.includes("--run")) {
    await page.click("#run");
    await page.waitForFunction(() => !document.querySelector("#run").disabled, null, { timeout: 60000 });
  }
  if (frag.startsWith("#cfg=")) await page.waitForSelector("#cards .card", { timeout: 120000 });
  if (frag.startsWith("#rec=")) await page.waitForSelector("#rec-table tbody tr", { timeout: 300000 });
  for (const rank of opt("pick").split(",").filter(Boolean)) {
    await page.click(`#rec-table tbody tr[data-rank="${rank}"] input.pick`);
  }
  await page.waitForTimeout(300);
  await page.screenshot({ path: out, fullPage: true });
  console.log("wrote", out);
} finally { await b.close(); await srv.close(); }

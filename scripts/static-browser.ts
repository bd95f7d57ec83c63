/**
 * The set-up's browser step (scripts/setup.sh): makes sure a headless Chromium is there to draw the
 * static figure images. Unpacks the project's own (the npm package @sparticuz/chromium, installed by
 * `npm ci`) the first time, then finds it, or the one CHROMIUM_PATH names, or a system one.
 *
 * Usage: node scripts/prebuilt.cjs scripts/static-browser.ts
 * Prints nothing when a browser was already there. Exit status 0 with a browser; 3 without one, after
 * one line on stdout saying why (the set-up then installs Debian's, or says how).
 */
import { bundledChromium, unpackBundledChromium } from "../lib/display/bundled-chromium";
import { chromiumCandidates, findChromium } from "../lib/display/plotly-renderer";

async function main(): Promise<number> {
  const explicit = process.env.CHROMIUM_PATH;
  if (explicit) {
    if (findChromium([explicit])) return 0;
    console.log(`CHROMIUM_PATH=${explicit} is no executable file`);
    return 3;
  }
  const bundled = bundledChromium();
  let failed = "";
  if (bundled && !findChromium([bundled.executable])) {
    const t0 = Date.now();
    try {
      const version = await unpackBundledChromium(bundled);
      console.log(
        `[setup] ${version} for static figures, unpacked from @sparticuz/chromium ${bundled.version} (once) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    } catch (err) {
      failed = `the packaged Chromium does not start here: ${(err as Error).message}`;
    }
  }
  if (findChromium()) return 0;
  const looked = chromiumCandidates().join(", ") || "nowhere (CHROMIUM_CANDIDATES is empty)";
  const packaged = bundled ? "" : "no packaged Chromium for this platform (Linux x64 only), ";
  console.log(`${failed ? `${failed}; ` : packaged}no Chromium at ${looked}`);
  return 3;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.log(`static-browser: ${(err as Error).message}`);
    process.exit(3);
  },
);

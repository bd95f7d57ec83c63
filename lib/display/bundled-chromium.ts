/**
 * The browser that draws the static figure images when the machine has none: the headless Chromium
 * shipped inside the npm package `@sparticuz/chromium` (a brotli-compressed Linux x64 executable in its
 * `bin/`), installed by `npm ci` with the rest of the lock file, so a fresh machine needs no root, no
 * apt and no download outside the registry. The set-up (scripts/setup.sh, through
 * scripts/static-browser.ts) unpacks it once into node_modules/.cache; nothing here downloads anything.
 * Only the package's files are read: its own JavaScript would unpack into a fixed /tmp/chromium shared
 * by every project on the machine.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import * as zlib from "node:zlib";

/** The packaged browser: where it comes from and where the set-up unpacks it. */
export interface BundledChromium {
  /** Version of the npm package (its major is Chromium's). */
  version: string;
  /** The compressed executable inside the package. */
  source: string;
  /** Where it is (or will be) unpacked: `BUNDLED_CHROMIUM_DIR` or node_modules/.cache/bundled-chromium-<version>. */
  executable: string;
}

const PACKAGE = "@sparticuz/chromium";

/** The package's browser, or null where it is not installed or does not run (it is built for Linux x64 only). */
export function bundledChromium(env: NodeJS.ProcessEnv = process.env): BundledChromium | null {
  if (process.platform !== "linux" || process.arch !== "x64") return null;
  const pkg = packageDir();
  if (pkg === null) return null;
  const version = String(JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).version);
  const source = path.join(pkg, "bin", "chromium.br");
  // node_modules/@sparticuz/chromium -> node_modules
  const nodeModules = path.resolve(pkg, "..", "..");
  const dir = env.BUNDLED_CHROMIUM_DIR || path.join(nodeModules, ".cache", `bundled-chromium-${version}`);
  return { version, source, executable: path.join(dir, "chromium") };
}

/** The package's folder (its exports map hides package.json, so the folder is found from its entry file). */
function packageDir(): string | null {
  let dir: string;
  try {
    dir = path.dirname(require.resolve(PACKAGE));
  } catch {
    return null;
  }
  while (path.basename(path.dirname(dir)) !== "@sparticuz" && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return fs.existsSync(path.join(dir, "bin", "chromium.br")) ? dir : null;
}

/**
 * Unpacks the executable (191 MB from 62 MB, a few seconds) through a temporary file, so a run
 * that stops halfway leaves nothing that looks unpacked, and checks that it starts (`--version`: the
 * shared libraries it links, NSS among them, must be on the machine). Returns the version line;
 * throws, leaving nothing behind, when it does not start.
 */
export async function unpackBundledChromium(bundled: BundledChromium): Promise<string> {
  fs.mkdirSync(path.dirname(bundled.executable), { recursive: true });
  const tmp = `${bundled.executable}.tmp-${process.pid}`;
  try {
    await pipeline(fs.createReadStream(bundled.source), zlib.createBrotliDecompress(), fs.createWriteStream(tmp, { mode: 0o755 }));
    const line = execFileSync(tmp, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 }).trim();
    fs.renameSync(tmp, bundled.executable);
    return line;
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    const stderr = (err as { stderr?: string }).stderr?.trim().split("\n")[0];
    throw new Error(stderr || String((err as Error).message).split("\n")[0]);
  }
}

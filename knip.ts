/**
 * Unused files, exports and dependencies (`npm run unused`, also run by `npm test`). Knip follows the
 * imports from the entry points below through TypeScript's resolver; notebooks are entry points too,
 * read through the small compiler below.
 */
import type { KnipConfig } from "knip";

/** The code cells of a notebook as one TypeScript text, with imports as seen from notebooks/. */
function notebookCode(text: string): string {
  const cells: { cell_type: string; source: string | string[] }[] = JSON.parse(text).cells;
  return (
    cells
      .filter((c) => c.cell_type === "code")
      .map((c) => ([] as string[]).concat(c.source).join(""))
      .join("\n")
      // The kernel runs in the workspace root, so cells import "./lib/..."; the file sits in notebooks/.
      .replace(/from "\.\/lib\//g, 'from "../lib/')
  );
}

const config: KnipConfig = {
  entry: [
    "notebooks/*.ipynb",
    "scripts/*.ts",
    "tools/*/cli.ts",
    // Benchmark children are started by path (`tsx bench/fetch-ours.ts`), not imported.
    "bench/analysis-ours.ts",
    "bench/analysis-ours-export.ts",
    "bench/fetch-ours.ts",
    // Run by hand (`npx tsx bench/follow-bench.ts`), its figures copied into bench/RESULTS.md.
    "bench/follow-bench.ts",
    // Run by hand (`npx tsx bench/follow-report-bench.ts --before <commit>`), its figures copied into bench/RESULTS.md.
    "bench/follow-report-bench.ts",
    // Run by hand (`npx tsx bench/mcp-bench.ts`), its numbers copied into bench/RESULTS.md.
    "bench/mcp-bench.ts",
    "bench/tensorboard-ours.ts",
    "bench/tensorboard-bench.ts",
    // Run by hand (`npx tsx bench/export-floor.ts`), its numbers copied into bench/RESULTS.md.
    "bench/export-floor.ts",
    // Worker threads' entries, started by path from lib/archive/load-archive.ts, lib/export/csv-on-worker.ts and lib/follow/file-hasher.ts.
    "lib/archive/load-worker.ts",
    "lib/export/csv-worker.ts",
    "lib/follow/hash-worker.ts",
    "test/**/*.test.ts",
    // The folder indexes are the public surface, what a user's own notebook cells import
    // (`./lib/wandb/index`): each names what its folder offers; an export neither named there nor
    // imported anywhere is reported.
    "lib/*/index.ts",
  ],
  project: ["lib/**/*.ts", "scripts/**/*.ts", "tools/**/*.ts", "test/**/*.ts", "bench/**/*.ts", "notebooks/*.ipynb"],
  // An export its own file uses is live code; exported, it is also there for users' own cells.
  ignoreExportsUsedInFile: true,
  rules: {
    // Exported interfaces name the results of exported functions, for users' own cells: not dead
    // just because no file in the repository spells the name.
    types: "off",
  },
  // Its JavaScript is never imported: lib/display/bundled-chromium.ts finds the package by
  // require.resolve and unpacks the browser file in its bin/.
  ignoreDependencies: ["@sparticuz/chromium"],
  // Asked for by test/wasm/wasm-bytes.test.ts only to tell whether the committed WebAssembly can
  // be rebuilt here (it skips when Rust is absent, as in CI).
  ignoreBinaries: ["rustup"],
  compilers: { ipynb: notebookCode },
};

export default config;

/**
 * Loads hyparquet (the Parquet reader) and hyparquet-compressors. Both are ES modules only, and
 * tslab compiles lib/ to CommonJS: Node >= 20.19 `require()`s an ES module (tsx and tslab take that
 * path); older Nodes throw ERR_REQUIRE_ESM, and then a real `import()` is made. It is built with
 * `new Function` because TypeScript's CommonJS output would turn a written `import()` into `require()`.
 */
import { pathToFileURL } from "node:url";

import type * as Hyparquet from "hyparquet";
import type * as HyparquetCompressors from "hyparquet-compressors";

/** The two modules the parquet path needs. */
export interface ParquetModules {
  hyparquet: typeof Hyparquet;
  compressors: (typeof HyparquetCompressors)["compressors"];
}

const dynamicImport = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<unknown>;

async function loadEsm<T>(name: string): Promise<T> {
  try {
    return require(name) as T;
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_REQUIRE_ESM") throw e;
    return (await dynamicImport(pathToFileURL(require.resolve(name)).href)) as T;
  }
}

let loading: Promise<ParquetModules> | null = null;

/** hyparquet and its decompressors (loaded once per process). */
export function loadParquetModules(): Promise<ParquetModules> {
  if (loading === null) {
    loading = (async () => ({
      hyparquet: await loadEsm<typeof Hyparquet>("hyparquet"),
      compressors: (await loadEsm<typeof HyparquetCompressors>("hyparquet-compressors")).compressors,
    }))();
  }
  return loading;
}

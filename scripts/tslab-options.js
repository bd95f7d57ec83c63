/**
 * The compiler options tslab's converter gives a kernel's program (node_modules/tslab/dist/converter.js,
 * Node >= 18), in one place for the two scripts that must match them: the prebuilt lib
 * (scripts/tslab-prebuilt-lib.js), which emits and declares lib/ exactly as a kernel would, and the
 * startup snapshot (scripts/tslab-snapshot.js), whose parsed files a kernel's program must accept.
 * Plain JavaScript that requires nothing: the snapshot builder loads it by hand.
 */
"use strict";

/** tslab's options, for TypeScript `ts`, the workspace `root` and an output folder. */
function tslabCompilerOptions(ts, root, outDir) {
  return {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    declaration: true,
    newLine: ts.NewLineKind.LineFeed,
    noImplicitUseStrict: true,
    experimentalDecorators: true,
    resolveJsonModule: true,
    jsx: ts.JsxEmit.React,
    typeRoots: ts.getDefaultTypeRoots(root, ts.sys) || [],
    allowJs: true,
    checkJs: true,
    disableTopLevelAwait: true,
    skipLibCheck: true,
    rootDir: root,
    outDir,
  };
}

module.exports = { tslabCompilerOptions };

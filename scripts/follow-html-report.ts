/**
 * The HTML report of a followed archive, rebuilt after a snapshot (`npm run follow -- --report --html`):
 * notebooks 01-06 executed on the archive, their figures drawn as images where a Chromium is found,
 * and the pages of scripts/html-report.ts, as `npm start` makes them. Notebook 05 shows the exports
 * the snapshot's analysis wrote into the report folder (WORKSPACE_EXPORTS_WRITTEN) instead of building
 * them again. Everything else is built in a temp folder; `notebooks/` and `report/` of the report
 * folder are then replaced whole, both or neither.
 * Notebook 07 compares other archives (data/compare.json) and is not part of a run's report.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { type ExportResult, serializeExportResult } from "../lib/export/index";
import { writeFilesAtomically, type FileToWrite } from "../lib/export/write-files-atomically";
import { ARCHIVE_SUBDIR } from "../lib/workspace/workspace-params";

const ROOT = path.resolve(__dirname, "..");

/** Where the report is built from and written to. */
export interface HtmlReportJob {
  /** The archive folder (npm run follow's --out). */
  archiveDir: string;
  /** runs.json beside it (profile, health thresholds), if there is one. */
  runsConfig: string;
  /** The report folder (--report-out): `notebooks/` and `report/` are replaced in it. */
  outDir: string;
  /** The profile named on the command line (--profile), given to the notebooks as WORKSPACE_PROFILE. */
  profile?: string;
  /** The exports the snapshot's analysis wrote into `outDir` (--report), shown by notebook 05. */
  exports: ExportResult;
}

/** Runs one step of the build, to its standard output; rejects naming it, with the end of its output, when it fails. */
function step(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString();
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${name} failed (exit ${code}):\n${output.slice(-2000)}`))));
  });
}

/**
 * The kernels' startup snapshot, as `npm start` makes and uses it (scripts/tslab-snapshot.js, built
 * once and kept): TSLAB_SNAPSHOT for the notebooks' kernels; none when it cannot be built (the
 * kernels then start as in JupyterLab, slower, the same).
 */
async function kernelSnapshotEnv(): Promise<NodeJS.ProcessEnv> {
  try {
    const libBuild = (await step("lib build", process.execPath, [path.join(ROOT, "scripts", "tslab-prebuilt-lib.js"), "--print-dir"], {})).trim();
    const args = [path.join(ROOT, "scripts", "tslab-snapshot.js"), ...(libBuild ? ["--lib-build", libBuild] : [])];
    return { TSLAB_SNAPSHOT: (await step("startup snapshot", process.execPath, args, {})).trim() };
  } catch {
    return {};
  }
}

/** The files of a built folder, as whole-folder entries for writeFilesAtomically. */
function folderFiles(dir: string): FileToWrite[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((name) => fs.statSync(path.join(dir, name)).isFile())
    .sort()
    .map((name) => ({ name: name.split(path.sep).join("/"), bytes: fs.readFileSync(path.join(dir, name)) }));
}

/**
 * Builds the report of `job.archiveDir` and swaps it into `job.outDir`; returns the index page.
 * @example await rebuildHtmlReport({ archiveDir: "data/live", runsConfig: "data/runs.json", outDir: "exports" })
 */
export async function rebuildHtmlReport(job: HtmlReportJob): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "follow-report-"));
  try {
    // The notebooks read <WORKSPACE_DATA>/wandb and <WORKSPACE_DATA>/runs.json: a data folder pointing at the archive.
    const data = path.join(tmp, "data");
    fs.mkdirSync(data);
    fs.symlinkSync(path.resolve(job.archiveDir), path.join(data, ARCHIVE_SUBDIR), "dir");
    if (fs.existsSync(job.runsConfig)) fs.copyFileSync(job.runsConfig, path.join(data, "runs.json"));
    const written = path.join(tmp, "exports-written.json");
    fs.writeFileSync(written, serializeExportResult(job.exports));
    const env = {
      ...(await kernelSnapshotEnv()),
      WORKSPACE_DATA: data,
      WORKSPACE_EXPORTS: path.resolve(job.outDir),
      WORKSPACE_EXPORTS_WRITTEN: written,
      WORKSPACE_FETCH: "",
      WORKSPACE_PROFILE: job.profile ?? "",
    };
    const notebooks = fs
      .readdirSync(path.join(ROOT, "notebooks"))
      .filter((f) => /^0[1-6]-.*\.ipynb$/.test(f))
      .sort()
      .map((f) => path.join(ROOT, "notebooks", f));
    const executed = path.join(tmp, "notebooks");
    await step(
      "run-notebooks",
      path.join(ROOT, ".venv", "bin", "python"),
      [path.join(ROOT, "scripts", "run-notebooks.py"), "--out", executed, ...notebooks],
      env,
    );
    await step("add-static-figures", process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "add-static-figures.ts"), executed], env);
    await step("html-report", process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "html-report.ts"), executed, path.join(tmp, "report")], env);
    await writeFilesAtomically(job.outDir, [], {
      folders: [
        { name: "notebooks", files: folderFiles(executed) },
        { name: "report", files: folderFiles(path.join(tmp, "report")) },
      ],
    });
    return path.join(job.outDir, "report", "index.html");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Where notebook output goes. In the kernel that is tslab's `display`; tests and scripts pass their
 * own object with the same methods. tslab is required lazily so lib/ stays importable (and cheap)
 * outside the kernel: requiring it loads its TypeScript compiler, and its display throws there.
 */

/** MIME type of a plotly figure (JupyterLab renders it with the plotly extension; VS Code natively). */
export const PLOTLY_MIME = "application/vnd.plotly.v1+json";

/** The part of tslab's `Display` this workspace uses: one MIME type per call, one output per call. */
export interface DisplayTarget {
  /** Display `data` under `mimeType`; JSON MIME types take the object itself. */
  raw(mimeType: string, data: any): unknown;
  html(s: string): void;
  markdown(s: string): void;
}

/** Options shared by the show* functions. */
export interface ShowOptions {
  /** Where to display. Default: tslab's `display` (only works inside the tslab kernel). */
  display?: DisplayTarget;
}

/** tslab's display object; throws a readable error outside a tslab kernel. */
export function tslabDisplay(): DisplayTarget {
  let tslab: { display: DisplayTarget };
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    tslab = require("tslab");
  } catch (cause) {
    throw new Error("tslab is not installed: pass options.display to show outside the tslab kernel", { cause });
  }
  return tslab.display;
}

/** The display to use: the one given, else tslab's. */
export function resolveDisplay(options: ShowOptions | undefined): DisplayTarget {
  return options?.display ?? tslabDisplay();
}

/** A display object for tests: records every call as [method, mimeOrNull, payload]. */
import type { DisplayTarget } from "../../lib/display/display-target";

export interface FakeDisplay extends DisplayTarget {
  calls: [string, unknown][];
}

export function fakeDisplay(): FakeDisplay {
  const calls: [string, unknown][] = [];
  return {
    calls,
    raw: (mime: string, data: unknown) => void calls.push([mime, data]),
    html: (s: string) => void calls.push(["text/html", s]),
    markdown: (s: string) => void calls.push(["text/markdown", s]),
  };
}

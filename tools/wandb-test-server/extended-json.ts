/**
 * W&B "extended JSON": what the Python SDK writes into history rows. Plain JSON plus the bare
 * tokens `NaN`, `Infinity` and `-Infinity`, which `JSON.parse` rejects.
 */

// Stand-ins for the bare tokens while JSON.parse runs; a real string holding these is not plausible.
const SENTINEL_NAN = "\u0000\u0001wts:NaN\u0001";
const SENTINEL_POS_INF = "\u0000\u0001wts:+Inf\u0001";
const SENTINEL_NEG_INF = "\u0000\u0001wts:-Inf\u0001";
const SENTINEL_JSON: Record<string, string> = {
  NaN: JSON.stringify(SENTINEL_NAN),
  Infinity: JSON.stringify(SENTINEL_POS_INF),
  "-Infinity": JSON.stringify(SENTINEL_NEG_INF),
};

function reviveNonFinite(_key: string, value: unknown): unknown {
  if (typeof value !== "string" || value.charCodeAt(0) !== 0) return value;
  if (value === SENTINEL_NAN) return NaN;
  if (value === SENTINEL_POS_INF) return Infinity;
  if (value === SENTINEL_NEG_INF) return -Infinity;
  return value;
}

/** Parses extended JSON text (bare NaN / Infinity / -Infinity allowed outside strings). */
export function parseExtendedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (first) {
    // Only the slow path rewrites tokens; most rows are plain JSON.
    let out = "";
    let last = 0;
    let inString = false;
    let found = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 92 /* \ */) i++;
        else if (c === 34 /* " */) inString = false;
        continue;
      }
      if (c === 34) {
        inString = true;
        continue;
      }
      let token: string | null = null;
      if (c === 78 /* N */ && text.startsWith("NaN", i)) token = "NaN";
      else if (c === 73 /* I */ && text.startsWith("Infinity", i)) token = "Infinity";
      else if (c === 45 /* - */ && text.startsWith("-Infinity", i)) token = "-Infinity";
      if (token !== null) {
        out += text.slice(last, i) + SENTINEL_JSON[token];
        i += token.length - 1;
        last = i + 1;
        found = true;
      }
    }
    if (!found) throw first;
    out += text.slice(last);
    return JSON.parse(out, reviveNonFinite);
  }
}

function isFlatFinite(value: Record<string, unknown>): boolean {
  for (const key in value) {
    const v = value[key];
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
    } else if (v !== null && typeof v === "object") {
      return false;
    }
  }
  return true;
}

/** Serialises a value as extended JSON: non-finite numbers become bare NaN / Infinity / -Infinity. */
export function toExtendedJson(value: unknown): string {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && isFlatFinite(value as Record<string, unknown>)) {
    // Fast path for the common flat, finite row.
    return JSON.stringify(value);
  }
  return serialize(value) ?? "null";
}

function serialize(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "number":
      if (Number.isFinite(value)) return JSON.stringify(value);
      return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "bigint":
      throw new TypeError(`cannot serialise bigint ${value} as JSON`);
  }
  const obj = value as { toJSON?: () => unknown };
  if (typeof obj.toJSON === "function") return serialize(obj.toJSON());
  if (Array.isArray(value)) return `[${value.map((v) => serialize(v) ?? "null").join(",")}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value as object)) {
    const s = serialize((value as Record<string, unknown>)[key]);
    if (s !== undefined) parts.push(`${JSON.stringify(key)}:${s}`);
  }
  return `{${parts.join(",")}}`;
}

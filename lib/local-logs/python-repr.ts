/**
 * A small tokenizer/parser for the Python `repr` of a flat metrics dict, as slime prints it to its
 * log: `{'train/loss': 0.12, 'perf/x': np.float64(1e-05), 'rollout/y': nan}`. No eval.
 *
 * Numbers: ints, floats (`1e-05`, `1.5e+20`, `.5`), `nan`, `inf`, `-inf`, and numpy scalars
 * `np.float64(...)`, `np.float32(...)` (rounded to float32, as wandb stores float(x) of the float32),
 * `np.float16(...)`, `np.int64(...)` and the other numpy int types. Non-numeric values (`True`,
 * `False`, `None`, `np.True_`, strings, lists, tuples, dicts, other calls such as `tensor(...)`,
 * `<object at 0x..>`) are skipped and their keys listed. Malformed text throws {@link ReprSyntaxError}.
 */

/** Where and why a repr could not be parsed. */
export class ReprSyntaxError extends Error {
  /** 0-based offset into the parsed text. */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} at column ${offset + 1}`);
    this.name = "ReprSyntaxError";
    this.offset = offset;
  }
}

/** A parsed dict: numeric values by key, keys whose values were not numeric, end offset. */
export interface ParsedReprDict {
  values: Record<string, number>;
  skipped: string[];
  /** Offset just past the closing `}`. */
  end: number;
}

const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const WS = /\s*/y;

/** numpy scalar constructors whose argument is kept as a number (with its rounding). */
const NUMPY_FLOAT = new Set(["float64", "float_", "double", "longdouble", "float128", "float96"]);
const NUMPY_INT = new Set([
  "int8",
  "int16",
  "int32",
  "int64",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "intc",
  "intp",
  "uintc",
  "uintp",
  "longlong",
  "ulonglong",
  "int_",
  "uint",
]);

/**
 * Parses the dict repr starting at `start` (which must point at `{`).
 * @example parsePythonDictRepr("{'a': 1, 'b': nan}").values // { a: 1, b: NaN }
 */
export function parsePythonDictRepr(text: string, start = 0): ParsedReprDict {
  const p = new Parser(text, start);
  return p.dict();
}

/** Rounds to the nearest IEEE half-precision value (ties to even), as numpy's float16 stores it. */
export function roundToFloat16(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return x > 0 ? Infinity : -Infinity; // rounds past the largest half, 65504
  // Spacing of halfs around a: 2^(e-10) for normals (2^e <= a), 2^-24 for subnormals.
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a)
    e--; // log2 can round up just below a power of two
  else if (2 ** (e + 1) <= a) e++;
  e = Math.max(e, -14);
  const q = 2 ** (e - 10);
  const m = a / q; // exact: q is a power of two
  const f = Math.floor(m);
  const d = m - f;
  const r = d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
  return Math.sign(x) * r * q;
}

class Parser {
  constructor(
    readonly text: string,
    public pos: number,
  ) {}

  fail(message: string): never {
    throw new ReprSyntaxError(message, this.pos);
  }

  ws(): void {
    WS.lastIndex = this.pos;
    WS.exec(this.text);
    this.pos = WS.lastIndex;
  }

  peek(): string {
    return this.text[this.pos] ?? "";
  }

  dict(): ParsedReprDict {
    if (this.peek() !== "{") this.fail("expected '{'");
    this.pos++;
    const values: Record<string, number> = {};
    const skipped: string[] = [];
    this.ws();
    if (this.peek() === "}") return { values, skipped, end: this.pos + 1 };
    for (;;) {
      this.ws();
      const q = this.peek();
      if (q !== "'" && q !== '"') this.fail(q === "" ? "unexpected end of text (dict not closed)" : "expected a quoted key");
      const key = this.string();
      this.ws();
      if (this.peek() !== ":") this.fail(`expected ':' after key ${JSON.stringify(key)}`);
      this.pos++;
      this.ws();
      const v = this.value();
      if (v === undefined) skipped.push(key);
      else values[key] = v;
      this.ws();
      const c = this.peek();
      if (c === ",") {
        this.pos++;
        this.ws();
        if (this.peek() === "}") return { values, skipped, end: this.pos + 1 };
        continue;
      }
      if (c === "}") return { values, skipped, end: this.pos + 1 };
      this.fail(c === "" ? "unexpected end of text (dict not closed)" : `expected ',' or '}' but found ${JSON.stringify(c)}`);
    }
  }

  /** A Python string literal (optionally b/r/u-prefixed by the caller); returns its text. */
  string(): string {
    const text = this.text;
    const quote = text[this.pos];
    let out = "";
    let i = this.pos + 1;
    for (;;) {
      const j = indexOfEither(text, quote, "\\", i);
      if (j < 0) {
        this.pos = text.length;
        this.fail("unterminated string");
      }
      out += text.slice(i, j);
      if (text[j] === quote) {
        this.pos = j + 1;
        return out;
      }
      // Escapes Python's repr writes: \\ \' \" \n \r \t \xhh \uhhhh \Uhhhhhhhh (others kept as written).
      const e = text[j + 1];
      i = j + 2;
      switch (e) {
        case "\\":
        case "'":
        case '"':
          out += e;
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "x":
        case "u":
        case "U": {
          const len = e === "x" ? 2 : e === "u" ? 4 : 8;
          const hex = text.slice(i, i + len);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) {
            this.pos = j;
            this.fail(`bad \\${e} escape`);
          }
          out += String.fromCodePoint(parseInt(hex, 16));
          i += len;
          break;
        }
        case undefined:
          this.pos = text.length;
          return this.fail("unterminated string");
        default:
          out += "\\" + e;
      }
    }
  }

  /** A value: a number, or undefined for a well-formed non-numeric value. */
  value(): number | undefined {
    const text = this.text;
    const c = this.peek();
    if (c === "'" || c === '"') {
      this.string();
      return undefined;
    }
    if (c === "{" || c === "[" || c === "(" || c === "<") {
      this.skipBalanced();
      return undefined;
    }
    if (c === "-" || c === "+") {
      // -inf / +inf / -nan
      const word = /[-+](inf|nan)\b/y;
      word.lastIndex = this.pos;
      const m = word.exec(text);
      if (m) {
        this.pos = word.lastIndex;
        return m[1] === "nan" ? NaN : c === "-" ? -Infinity : Infinity;
      }
    }
    NUMBER.lastIndex = this.pos;
    const num = NUMBER.exec(text);
    if (num) {
      this.pos = NUMBER.lastIndex;
      if (/[A-Za-z_]/.test(this.peek())) this.fail(`bad number ${JSON.stringify(num[0] + this.peek())}`);
      return Number(num[0]);
    }
    return this.named(c);
  }

  /** A value that starts with a name: nan, inf, a prefixed string, a bare name, or a call (numpy scalars read, others skipped). */
  private named(c: string): number | undefined {
    NAME.lastIndex = this.pos;
    const name = NAME.exec(this.text);
    if (!name) this.fail(c === "" ? "unexpected end of text (value missing)" : `unexpected ${JSON.stringify(c)}`);
    const id = name[0];
    this.pos = NAME.lastIndex;
    if (id === "nan") return NaN;
    if (id === "inf") return Infinity;
    if (this.peek() === "'" || this.peek() === '"') {
      if (/^[bBrRuUfF]{1,2}$/.test(id)) {
        this.string(); // b'..', r'..', u'..'
        return undefined;
      }
      this.fail(`unexpected string after ${id}`);
    }
    if (this.peek() !== "(") return undefined; // True, False, None, np.True_, any other bare name
    const dot = id.lastIndexOf(".");
    const mod = dot < 0 ? "" : id.slice(0, dot);
    const type = id.slice(dot + 1);
    const isFloat = NUMPY_FLOAT.has(type) || type === "float32" || type === "single" || type === "float16" || type === "half";
    if ((mod === "np" || mod === "numpy") && (isFloat || NUMPY_INT.has(type))) return this.numpyScalar(id, type);
    this.skipBalanced(); // tensor(0.5, device='cuda:0'), Decimal('1.0'), ...
    return undefined;
  }

  /** The argument of `np.<type>(...)`, rounded as that type stores it. */
  private numpyScalar(id: string, type: string): number | undefined {
    this.pos++; // (
    this.ws();
    const inner = this.value();
    this.ws();
    if (this.peek() !== ")") this.fail(`expected ')' to close ${id}(`);
    this.pos++;
    if (inner === undefined) return undefined; // np.float64(True) or similar
    if (type === "float32" || type === "single") return Math.fround(inner);
    if (type === "float16" || type === "half") return roundToFloat16(inner);
    return inner;
  }

  /** Skips a bracketed value ({..}, [..], (..), <..>), honouring nesting and quoted strings. */
  skipBalanced(): void {
    const text = this.text;
    const open = text[this.pos];
    const stack: string[] = [closer(open)];
    this.pos++;
    while (stack.length > 0) {
      const c = text[this.pos];
      if (c === undefined) this.fail(`unexpected end of text ('${open}' not closed)`);
      if (c === "'" || c === '"') {
        this.string();
        continue;
      }
      if (c === "{" || c === "[" || c === "(" || c === "<") stack.push(closer(c));
      else if (c === stack[stack.length - 1]) stack.pop();
      else if (c === "}" || c === "]" || c === ")") this.fail(`unbalanced ${JSON.stringify(c)}`);
      this.pos++;
    }
  }
}

function closer(open: string): string {
  return open === "{" ? "}" : open === "[" ? "]" : open === "(" ? ")" : ">";
}

function indexOfEither(text: string, a: string, b: string, from: number): number {
  const i = text.indexOf(a, from);
  const j = text.indexOf(b, from);
  if (i < 0) return j;
  if (j < 0) return i;
  return Math.min(i, j);
}

// A parser for PostgREST's `.conf` syntax (the configurator-pg format), so an existing postgrest.conf loads
// unchanged:
//
//   # comment
//   db-uri = "postgres://app@localhost/app"   # strings in double quotes, \n \t \r \" \\ \uXXXX escapes
//   db-pool = 10                              # numbers
//   db-plan-enabled = true                    # true/false/on/off
//   db-schemas = "api, public"
//   app.settings.jwt_secret = "$(MY_SECRET)"  # $(NAME): an earlier key or an environment variable; $$ is '$'
//   app { settings { region = "eu" } }        # groups prefix their keys: app.settings.region
//   xs = [1, "two", [3]]                      # lists
//   #; skipped = "a directive comment skips the next directive"
//   import "other.conf"                       # only when the caller supplies readImport
//
// Pure: it reads no files and no process state; env and imports come in through the options.

export type ConfValue = string | number | boolean | ReadonlyArray<ConfValue>;

export interface ConfParseError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export type ConfParseResult =
  | { readonly ok: true; readonly value: Readonly<Record<string, ConfValue>> }
  | { readonly ok: false; readonly error: ConfParseError };

export interface ConfParseOptions {
  /** Looked up by `$(NAME)` when no earlier key has that name. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Reads an `import "path"` (path as written); without it, imports are an error. */
  readonly readImport?: (path: string) => string;
}

class ParseFailure extends Error {
  constructor(readonly at: number, message: string, readonly text: string) {
    super(message);
  }
}

export function parseConf(text: string, options: ConfParseOptions = {}): ConfParseResult {
  const values = new Map<string, ConfValue>();
  try {
    new ConfParser(text, options, values, 0).parseTopLevel('');
  } catch (e) {
    if (e instanceof ParseFailure) {
      const { line, column } = lineColumn(e.text, e.at);
      return { ok: false, error: { line, column, message: e.message } };
    }
    throw e;
  }
  return { ok: true, value: Object.fromEntries(values) };
}

function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1 };
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f' || c === '\v';
const isAlpha = (c: string): boolean => /\p{L}/u.test(c);
const isAlnum = (c: string): boolean => /[\p{L}\p{N}]/u.test(c);

class ConfParser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly options: ConfParseOptions,
    private readonly values: Map<string, ConfValue>,
    private readonly depth: number,
  ) {}

  parseTopLevel(prefix: string): void {
    this.parseDirectives(prefix, false, true);
    this.skipLWS();
    if (this.pos < this.text.length) this.fail(`unexpected '${this.text[this.pos]}'`);
  }

  private fail(message: string, at = this.pos): never {
    throw new ParseFailure(at, message, this.text);
  }

  private peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  /** Skip whitespace, newlines and `#` comments (but not `#;` directive comments). */
  private skipLWS(): void {
    for (;;) {
      while (this.pos < this.text.length && isSpace(this.peek())) this.pos++;
      if (this.peek() === '#' && this.peek(1) !== ';') {
        while (this.pos < this.text.length && this.peek() !== '\n' && this.peek() !== '\r') this.pos++;
        continue;
      }
      return;
    }
  }

  /** Skip spaces, tabs and a trailing comment on the current line. */
  private skipHWS(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
    if (this.peek() === '#' && this.peek(1) !== ';') {
      while (this.pos < this.text.length && this.peek() !== '\n' && this.peek() !== '\r') this.pos++;
    }
  }

  private parseDirectives(prefix: string, inGroup: boolean, apply: boolean): void {
    for (;;) {
      this.skipLWS();
      if (this.pos >= this.text.length) {
        if (inGroup) this.fail("missing '}' to close the group");
        return;
      }
      if (inGroup && this.peek() === '}') return;
      this.parseDirective(prefix, apply);
      this.skipHWS();
      const c = this.peek();
      if (c === '' || c === '\n' || c === '\r' || (inGroup && c === '}')) continue;
      this.fail(`expected a new line after the value, found '${c}'`);
    }
  }

  private parseDirective(prefix: string, apply: boolean): void {
    if (this.peek() === '#' && this.peek(1) === ';') {
      this.pos += 2;
      while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
      this.parseDirective(prefix, false);
      return;
    }
    if (this.text.startsWith('import', this.pos) && !/[\p{L}\p{N}_.-]/u.test(this.peek(6))) {
      this.pos += 6;
      this.skipLWS();
      const start = this.pos;
      if (this.peek() !== '"') this.fail('expected a "quoted path" after import');
      const path = this.parseString();
      if (apply) this.applyImport(prefix, path, start);
      return;
    }
    const keyStart = this.pos;
    const ident = this.parseIdent();
    this.skipLWS();
    if (this.peek() === '=') {
      const eq = this.pos;
      this.pos++;
      this.skipLWS();
      const valueStart = this.pos;
      let value: ConfValue;
      try {
        value = this.parseValue();
      } catch (e) {
        // A value may start on a later line, but a missing one is reported where the '=' is.
        if (e instanceof ParseFailure && e.at === valueStart && /[\r\n]/.test(this.text.slice(eq, valueStart))) {
          this.fail(`expected a value after '${ident} ='`, eq);
        }
        throw e;
      }
      if (apply) {
        const full = prefix + ident;
        this.values.set(full, typeof value === 'string' && this.text[valueStart] === '"'
          ? this.interpolate(value, prefix, valueStart) : value);
      }
      return;
    }
    if (this.peek() === '{') {
      this.pos++;
      this.parseDirectives(prefix + ident + '.', true, apply);
      if (this.peek() !== '}') this.fail("missing '}' to close the group");
      this.pos++;
      return;
    }
    this.fail(`expected '=' after '${ident}'`, this.pos < this.text.length ? this.pos : keyStart);
  }

  private applyImport(prefix: string, path: string, at: number): void {
    const read = this.options.readImport;
    if (!read) this.fail(`import "${path}" is not supported here`, at);
    if (this.depth >= 16) this.fail(`import "${path}": imports nested too deeply`, at);
    let text: string;
    try {
      text = read(path);
    } catch (e) {
      this.fail(`import "${path}": ${(e as Error).message}`, at);
    }
    try {
      new ConfParser(text, this.options, this.values, this.depth + 1).parseTopLevel(prefix);
    } catch (e) {
      if (e instanceof ParseFailure) {
        const lc = lineColumn(e.text, e.at);
        this.fail(`in import "${path}", line ${lc.line}, column ${lc.column}: ${e.message}`, at);
      }
      throw e;
    }
  }

  private parseIdent(): string {
    const start = this.pos;
    for (;;) {
      if (!isAlpha(this.peek())) {
        if (this.pos === start) this.fail(this.pos >= this.text.length ? 'expected a key' : `expected a key, found '${this.peek()}'`);
        this.fail('a key must not end with a dot');
      }
      this.pos++;
      while (isAlnum(this.peek()) || this.peek() === '_' || this.peek() === '-') this.pos++;
      if (this.peek() === '.') {
        this.pos++;
        continue;
      }
      break;
    }
    const ident = this.text.slice(start, this.pos);
    if (ident === 'import') this.fail('"import" is a reserved word and cannot be a key', start);
    return ident;
  }

  private parseValue(): ConfValue {
    for (const [word, value] of [['on', true], ['off', false], ['true', true], ['false', false]] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    const c = this.peek();
    if (c === '"') return this.parseString();
    if (c === '[') return this.parseList();
    const m = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (m) {
      this.pos += m[0].length;
      return Number(m[0]);
    }
    if (c === "'") this.fail('strings take double quotes: "value"');
    this.fail(c === '' || c === '\n' || c === '\r'
      ? 'expected a value ("string", number, true/false or [list])'
      : `expected a value ("string", number, true/false or [list]), found '${c}'`);
  }

  private parseList(): ConfValue[] {
    this.pos++; // [
    this.skipLWS();
    const items: ConfValue[] = [];
    if (this.peek() === ']') {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.parseValue());
      this.skipLWS();
      if (this.peek() === ',') {
        this.pos++;
        this.skipLWS();
        continue;
      }
      if (this.peek() === ']') {
        this.pos++;
        return items;
      }
      this.fail("expected ',' or ']' in the list");
    }
  }

  private parseString(): string {
    const start = this.pos;
    this.pos++; // opening quote
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '') this.fail('unterminated string', start);
      this.pos++;
      if (c === '"') return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.peek();
      this.pos++;
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'u': out += this.parseUnicodeEscape(); break;
        default: this.fail(`unknown escape '\\${e}' (use \\n \\t \\r \\" \\\\ or \\uXXXX)`, this.pos - 2);
      }
    }
  }

  private parseUnicodeEscape(): string {
    const hex4 = (): number => {
      const h = this.text.slice(this.pos, this.pos + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('\\u needs four hex digits');
      this.pos += 4;
      return parseInt(h, 16);
    };
    const a = hex4();
    if (a < 0xd800 || a > 0xdfff) return String.fromCharCode(a);
    if (a <= 0xdbff && this.text.startsWith('\\u', this.pos)) {
      this.pos += 2;
      const b = hex4();
      if (b >= 0xdc00 && b <= 0xdfff) return String.fromCharCode(a, b);
    }
    this.fail('invalid UTF-16 surrogate pair in \\u escape');
  }

  /** `$(NAME)` → the value of an earlier key (innermost group first) or the environment variable; `$$` → `$`. */
  private interpolate(s: string, prefix: string, at: number): string {
    if (!s.includes('$')) return s;
    let out = '';
    let i = 0;
    while (i < s.length) {
      const c = s[i] as string;
      if (c !== '$') {
        out += c;
        i++;
        continue;
      }
      const next = s[i + 1];
      if (next === '$') {
        out += '$';
        i += 2;
        continue;
      }
      if (next !== '(') this.fail("a '$' must be written '$$' or start a $(NAME) interpolation", at);
      const close = s.indexOf(')', i + 2);
      if (close < 0 || close === i + 2) this.fail('unterminated $(NAME) interpolation', at);
      const name = s.slice(i + 2, close);
      out += this.lookupVariable(name, prefix, at);
      i = close + 1;
    }
    return out;
  }

  private lookupVariable(name: string, prefix: string, at: number): string {
    const parts = prefix.split('.').filter((p) => p !== '');
    for (let n = parts.length; n >= 0; n--) {
      const candidate = [...parts.slice(0, n), name].join('.');
      const v = this.values.get(candidate);
      if (v === undefined) continue;
      if (typeof v === 'string') return v;
      if (typeof v === 'number') return String(v);
      this.fail(`variable '${name}' is not a string or number`, at);
    }
    const env = this.options.env?.[name];
    if (env === undefined) this.fail(`no such variable: '${name}' (neither an earlier key nor an environment variable)`, at);
    return env;
  }
}

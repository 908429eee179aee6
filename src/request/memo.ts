// Header values repeat: most clients send the same Accept, Content-Type and Prefer with every
// request. A pure parse of such a value is kept by its text (a bounded table, dropped whole when
// full), so a repeated header is parsed once. Only for parses whose results nobody changes. Other
// repeated names use it too: response header names, statement names' bytes, the access log's
// quoted routes and roles.

export function memoByText<T>(parse: (text: string) => T, max = 256, maxLength = 256): (text: string) => T {
  const kept = new Map<string, T>();
  // The value of the text seen last, compared before the table is looked up: a client sends the
  // same header every time, and comparing it costs less than hashing it for the lookup.
  let lastText: string | undefined;
  let lastValue: T | undefined;
  return (text) => {
    if (text === lastText) return lastValue!;
    const hit = kept.get(text);
    if (hit !== undefined) {
      lastText = text;
      lastValue = hit;
      return hit;
    }
    const value = parse(text);
    if (text.length <= maxLength) {
      if (kept.size >= max) kept.clear();
      kept.set(text, value);
      lastText = text;
      lastValue = value;
    }
    return value;
  };
}

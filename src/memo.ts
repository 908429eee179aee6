// Texts repeat from request to request: most clients send the same Accept, Content-Type and Prefer
// headers, the same select= and order=, the same filter keys. A pure parse of such a text is kept by
// the text (a bounded table, dropped whole when full), so a repeated one is parsed once. Only for
// parses whose results nobody changes. A leaf module, as several layers use it: request parsing,
// response header names (http), statement names' bytes (db), the access log's quoted routes and
// roles (observe).

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

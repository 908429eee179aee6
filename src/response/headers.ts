// Response header helpers. Pure.

/** Set a header, replacing any existing one of the same name in another case. */
export function setHeader(headers: Record<string, string | string[]>, name: string, value: string): void {
  for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
  headers[name] = value;
}

/**
 * Apply the headers SQL set with `response.headers`: the first value of a name replaces ours (a
 * Content-Type from SQL wins); further values of the same name are added (several Set-Cookie).
 */
export function applyHeaders(headers: Record<string, string | string[]>, list: ReadonlyArray<readonly [string, string]>): void {
  const seen = new Map<string, string>(); // lower-case name → the key it was stored under
  for (const [name, value] of list) {
    const key = seen.get(name.toLowerCase());
    if (key === undefined) {
      setHeader(headers, name, value);
      seen.set(name.toLowerCase(), name);
    } else {
      const prev = headers[key]!;
      headers[key] = Array.isArray(prev) ? [...prev, value] : [prev as string, value];
    }
  }
}

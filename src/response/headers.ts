// Response header helpers. Pure.

/** Set a header, replacing any existing one of the same name in another case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
  headers[name] = value;
}

// What http/server.ts writes back. Built by the response stage (and errors/render.ts).
export interface ResponseSpec {
  readonly status: number;
  readonly statusText?: string;
  /** A name may carry several values (SQL may set two Set-Cookie headers). */
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string>>>;
  /** null for no body (HEAD, 204). */
  readonly body: string | Buffer | null;
  /** Milliseconds per stage (jwt, parse, plan, transaction, response), for Server-Timing. */
  readonly timings?: Readonly<Record<string, number>>;
}

// What http/server.ts writes back. Built by the response stage (and errors/render.ts).
export interface ResponseSpec {
  readonly status: number;
  readonly statusText?: string;
  /** A name may carry several values (SQL may set two Set-Cookie headers). */
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string>>>;
  /** null for no body (HEAD, 204). */
  readonly body: string | Buffer | null;
  /**
   * A body produced while it is sent (http/stream.ts); `body` is then null. The server writes the
   * head, then hands it the response; if the client is gone before that, it calls abort().
   */
  readonly stream?: BodyStream;
  /** Milliseconds per stage (jwt, parse, plan, transaction, response), for Server-Timing. */
  readonly timings?: Readonly<Record<string, number>>;
}

/** A streamed body: writes itself to the response, honouring backpressure; never rejects. */
export interface BodyStream {
  pipe(res: import('node:http').ServerResponse): Promise<void>;
  abort(): void;
}

// The part of autocannon's programmatic API that the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Histogram {
    readonly min: number;
    readonly max: number;
    readonly average: number;
    readonly stddev: number;
    readonly total: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
  }

  export interface Result {
    readonly title?: string;
    readonly url: string;
    readonly requests: Histogram;
    readonly latency: Histogram;
    readonly throughput: Histogram;
    /** Seconds. */
    readonly duration: number;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly statusCodeStats: Record<string, { count: number }>;
  }

  export interface Request {
    readonly method?: string;
    readonly path?: string;
    readonly headers?: Record<string, string>;
    readonly body?: string | Buffer;
  }

  export interface Options {
    readonly url: string;
    readonly connections?: number;
    readonly duration?: number;
    readonly amount?: number;
    readonly timeout?: number;
    readonly pipelining?: number;
    readonly method?: string;
    readonly headers?: Record<string, string>;
    readonly body?: string | Buffer;
    readonly requests?: ReadonlyArray<Request>;
    readonly title?: string;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(opts: Options, cb: (err: Error | null, result: Result) => void): Instance;
  export default autocannon;
}

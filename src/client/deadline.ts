import { VulnscopeAbortError, type VulnscopeApiError, VulnscopeNetworkError, VulnscopeTimeoutError } from './errors.js';

/**
 * The abort signal of one request: fires when the caller's signal does, or when nothing has
 * arrived for `ms` (the timer restarts with `touch()` as a stream delivers data).
 */
export class Deadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private readonly onCallerAbort = () => this.controller.abort(this.caller?.reason);

  constructor(
    private readonly ms: number,
    private readonly caller?: AbortSignal,
  ) {
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Data arrived: the wait starts again. */
  touch(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('timeout'));
    }, this.ms);
  }

  /** The request is over: no timer, no listener left behind. */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  /** The error of a failed fetch or body read: timeout, the caller's abort, or the network. */
  failure(error: unknown, request: string, doing = 'no answer'): VulnscopeApiError {
    this.clear();
    if (this.timedOut) {
      return new VulnscopeTimeoutError(`${request}: ${doing} within ${this.ms} ms`, { request, cause: error });
    }
    if (this.caller?.aborted) return new VulnscopeAbortError(`${request}: aborted`, { request, cause: error });
    return new VulnscopeNetworkError(`${request}: ${networkReason(error)}`, { request, cause: error });
  }
}

/** Why fetch failed, in words: undici's `fetch failed` says little, its cause says what. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code;
  if (code === 'ECONNREFUSED') return 'cannot connect to the server (connection refused)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'cannot resolve the server name';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was closed by the server';
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `cannot reach the server (${message})`;
}

/** Waits `ms`, or rejects with the caller's abort. */
export function sleep(ms: number, signal: AbortSignal | undefined, request: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new VulnscopeAbortError(`${request}: aborted`, { request }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new VulnscopeAbortError(`${request}: aborted`, { request }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One HTTP answer as the outage and soak checks see it. */
export interface Answer {
  url: string;
  status: number;
  ms: number;
  retryAfter: string | null;
  /** Why the answer is not a well-formed JSON error, when it is an error; 'no answer' when none came. */
  problem?: string;
}

/** GETs `base + url`, giving up after `giveUpMs` (then status 0, 'no answer'). */
export async function timedGet(
  base: string,
  url: string,
  token: string | undefined,
  giveUpMs: number,
): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${url}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(giveUpMs),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    return {
      url,
      status: response.status,
      ms,
      retryAfter: response.headers.get('retry-after'),
      problem: errorShapeProblem(response.status, text),
    };
  } catch (error) {
    return {
      url,
      status: 0,
      ms: performance.now() - started,
      retryAfter: null,
      problem: `no answer (${(error as Error).name})`,
    };
  }
}

function errorShapeProblem(status: number, text: string): string | undefined {
  if (status < 400) return undefined;
  try {
    const body = JSON.parse(text);
    const ok =
      body.error === true &&
      Array.isArray(body.errors) &&
      body.errors.length > 0 &&
      Object.keys(body).length === 2 &&
      body.errors.every((m: unknown) => typeof m === 'string');
    return ok ? undefined : `error body not in the documented shape: ${text.slice(0, 120)}`;
  } catch {
    return `error body is not JSON: ${text.slice(0, 120)}`;
  }
}

export const describeAnswer = (a: Answer) =>
  `${a.url} → ${a.status} in ${Math.round(a.ms)} ms${a.problem ? ` (${a.problem})` : ''}`;

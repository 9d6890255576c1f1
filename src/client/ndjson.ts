import { VulnscopeApiError, VulnscopeIncompleteExportError, VulnscopeServerError } from './errors.js';
import type { Answer } from './transport.js';
import type { ExportEnd } from './types.js';

type CompleteLine = ExportEnd;

const isCompleteLine = (value: unknown): value is CompleteLine =>
  typeof value === 'object' &&
  value !== null &&
  '_meta' in value &&
  (value as CompleteLine)._meta?.complete === true &&
  typeof (value as CompleteLine)._meta.records === 'number';

/** The lines of a streamed body as they arrive (the deadline restarts with each chunk). */
export async function* lines(answer: Answer): AsyncGenerator<string> {
  const { response, deadline, request } = answer;
  if (!response.body) throw new VulnscopeServerError(`${request}: the answer has no body`, { request });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  let done = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw deadline.failure(error, request, 'no data');
      }
      deadline.touch();
      if (chunk.done) break;
      rest += decoder.decode(chunk.value, { stream: true });
      let end = rest.indexOf('\n');
      while (end >= 0) {
        const line = rest.slice(0, end);
        rest = rest.slice(end + 1);
        if (line.trim() !== '') yield line;
        end = rest.indexOf('\n');
      }
    }
    rest += decoder.decode();
    if (rest.trim() !== '') yield rest;
    done = true;
  } finally {
    deadline.clear();
    // Stopped early (the caller broke out of its loop, or an error): let the server stop too.
    if (!done) await reader.cancel().catch(() => {});
  }
}

/**
 * The records of an NDJSON export. The body must end with its `_meta.complete` line counting the
 * records sent; a body that ends without it was cut, and that is a `VulnscopeIncompleteExportError`.
 */
export async function* exportRecords<T>(answer: Answer): AsyncGenerator<T> {
  const { request } = answer;
  let received = 0;
  let complete: CompleteLine | undefined;
  try {
    for await (const line of lines(answer)) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new VulnscopeServerError(`${request}: line ${received + 1} of the export is not JSON`, { request });
      }
      if (complete) throw new VulnscopeServerError(`${request}: data after the export's closing line`, { request });
      if (isCompleteLine(value)) {
        complete = value;
        continue;
      }
      received++;
      yield value as T;
    }
  } catch (error) {
    // A connection that breaks mid-body cut the export: say so, with what arrived.
    if (error instanceof VulnscopeApiError && error.kind === 'network') {
      throw new VulnscopeIncompleteExportError(
        `${request}: the export was cut after ${received} records (${error.message})`,
        received,
        { request, cause: error },
      );
    }
    throw error;
  }
  if (!complete) {
    throw new VulnscopeIncompleteExportError(
      `${request}: the export was cut after ${received} records (no closing _meta.complete line); start it again`,
      received,
      { request },
    );
  }
  if (complete._meta.records !== received) {
    throw new VulnscopeIncompleteExportError(
      `${request}: the export says ${complete._meta.records} records but ${received} arrived`,
      received,
      { request },
    );
  }
}

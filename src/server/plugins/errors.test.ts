import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badRequest, unavailable, VulnscopeError } from '../../core/errors.js';
import { registerErrorHandling } from './errors.js';

/** Details of the server that no error body may carry. */
const PATH = '/var/lib/vulnscope/backups/secret-dir';
const SQL = 'SELECT record FROM advisories WHERE feed = $1';

describe('the error handler: 5xx bodies carry only the stable public message', () => {
  let app: FastifyInstance;
  const logs: string[] = [];

  beforeAll(async () => {
    app = Fastify({
      logger: {
        level: 'info',
        stream: {
          write: (line: string) => {
            logs.push(line);
          },
        },
      },
    });
    registerErrorHandling(app);
    const routes: Record<string, () => never> = {
      '/backup': () => {
        throw unavailable(
          `backup storage unavailable: ENOENT: no such file or directory, scandir '${PATH}'`,
          'backup_storage_unavailable',
        );
      },
      '/database': () => {
        throw unavailable(`the database is unreachable at ${PATH}: ${SQL}`, 'database_unreachable');
      },
      '/generic-503': () => {
        throw unavailable(`cannot read ${PATH}`);
      },
      '/vulnscope-500': () => {
        throw new VulnscopeError(500, 'internal', `query failed: ${SQL} (${PATH})`);
      },
      '/plain-error': () => {
        throw new Error(`ENOENT: no such file or directory, open '${PATH}' in ${SQL}`);
      },
      '/bad-request': () => {
        throw badRequest('parameter "vendor" must not be blank');
      },
    };
    for (const [url, handler] of Object.entries(routes)) app.get(url, async () => handler());
    await app.ready();
  });
  afterAll(async () => app?.close());

  it.each([
    ['/backup', 503, 'backup storage is unavailable; try again later'],
    ['/database', 503, 'the database is unreachable; try again shortly'],
    ['/generic-503', 503, 'the service is temporarily unavailable; try again shortly'],
    ['/vulnscope-500', 500, 'internal server error'],
    ['/plain-error', 500, 'internal server error'],
  ])('%s → %i with only its public message; the log keeps the detail', async (url, status, message) => {
    const before = logs.length;
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ error: true, errors: [message] });
    expect(response.body).not.toContain(PATH);
    expect(response.body).not.toMatch(/SELECT|ENOENT|scandir|\bat\s+\S+:\d+|\.ts:\d+/);
    if (status === 503) expect(response.headers['retry-after']).toBe('5');
    expect(logs.slice(before).join('')).toContain(PATH);
  });

  it('a 4xx keeps its own message (it describes the request, not the server)', async () => {
    const response = await app.inject({ method: 'GET', url: '/bad-request' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: true, errors: ['parameter "vendor" must not be blank'] });
  });

  it('publicMessage: the message below 500, the code text from 500 up', () => {
    expect(badRequest('x').publicMessage).toBe('x');
    expect(unavailable(`a ${PATH}`, 'backup_storage_unavailable').publicMessage).toBe(
      'backup storage is unavailable; try again later',
    );
    expect(new VulnscopeError(503, 'not-in-the-table', PATH).publicMessage).toMatch(/temporarily unavailable/);
    expect(new VulnscopeError(502, 'other', PATH).publicMessage).toBe('internal server error');
  });
});

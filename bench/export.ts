/**
 * The export measurement: one `GET /v3/index/target-intel/export` read to its end by a client
 * that counts lines, while the server's RSS (its process and workers) is sampled.
 */
import http from 'node:http';

export interface ExportFigures {
  params: Record<string, string>;
  records: number;
  bytes: number;
  seconds: number;
  recordsPerSecond: number;
  complete: boolean;
  rssBeforeMiB: number;
  rssPeakMiB: number;
}

const SAMPLE_MS = 100;

export async function measureExport(
  params: Record<string, string>,
  baseUrl: string,
  token: string,
  rssKb: () => number,
): Promise<ExportFigures> {
  const rssBeforeKb = rssKb();
  let rssPeakKb = rssBeforeKb;
  const sampler = setInterval(() => {
    rssPeakKb = Math.max(rssPeakKb, rssKb());
  }, SAMPLE_MS);
  const started = performance.now();
  try {
    const { lines, bytes, last } = await readLines(
      `${baseUrl}/v3/index/target-intel/export?${new URLSearchParams(params)}`,
      token,
    );
    const seconds = (performance.now() - started) / 1000;
    const meta = JSON.parse(last) as { _meta?: { complete?: boolean; records?: number } };
    const records = lines - 1;
    return {
      params,
      records,
      bytes,
      seconds,
      recordsPerSecond: records / seconds,
      complete: meta._meta?.complete === true && meta._meta.records === records,
      rssBeforeMiB: rssBeforeKb / 1024,
      rssPeakMiB: rssPeakKb / 1024,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** Counts the body's lines without keeping them; returns the last one. */
function readLines(url: string, token: string): Promise<{ lines: number; bytes: number; last: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`export answered ${response.statusCode}`));
          response.resume();
          return;
        }
        let lines = 0;
        let bytes = 0;
        let tail = '';
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
          tail = (tail + chunk.toString('utf8', Math.max(0, chunk.length - 4096))).slice(-4096);
        });
        response.on('end', () => {
          const rows = tail.split('\n').filter(Boolean);
          resolve({ lines, bytes, last: rows[rows.length - 1] ?? '' });
        });
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

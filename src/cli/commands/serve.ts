import cluster from 'node:cluster';
import type { Config } from '../../config.js';
import { startServer, type RunningServer } from '../../server/main.js';

/**
 * Runs until SIGINT/SIGTERM, then closes everything cleanly. With `workers` > 1 the primary forks
 * that many server processes sharing the port (each keeps its own index, tailing the same change
 * log), so requests use every core; a worker that dies is replaced.
 */
export async function serve(config: Config, announce?: (server: RunningServer) => void): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return supervise(config.workers);
  const server = await startServer(config, { sweeper: !cluster.isWorker || cluster.worker?.id === 1 });
  announce?.(server);
  await untilSignal();
  await server.close();
  // A worker's IPC channel to the primary would keep it alive after everything else closed.
  if (cluster.isWorker) cluster.worker?.disconnect();
}

async function supervise(workers: number): Promise<void> {
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    process.stderr.write(`worker ${worker.process.pid} exited (${code}); starting another\n`);
    cluster.fork();
  });
  await untilSignal();
  stopping = true;
  await Promise.all(
    Object.values(cluster.workers ?? {}).map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (!worker || worker.isDead()) return resolve();
          worker.once('exit', () => resolve());
          worker.process.kill('SIGTERM');
        }),
    ),
  );
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

import cluster, { type Worker } from 'node:cluster';
import net from 'node:net';
import { CLUSTER_SWEEPER_VARIABLE, type Config } from '../../config.js';
import { VulnscopeError } from '../../core/errors.js';
import { startServer, type RunningServer } from '../../server/main.js';

/** How long closing may take after the drain deadline (background work, the index snapshot, storage). */
const SHUTDOWN_GRACE_MS = 5_000;

/** What a worker that could not start tells the primary (which reports it once and stops). */
const START_FAILED = 'vulnscope:start-failed';

/** `host:port` as a user types it (`[::1]:8080` for IPv6). */
const hostPort = (config: Pick<Config, 'host' | 'port'>) =>
  `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;

/**
 * A failed listen as one line: which address, why, and how to choose another. Other errors are
 * returned as they are.
 */
export function startFailure(error: unknown, config: Pick<Config, 'host' | 'port'>): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `cannot listen on ${hostPort(config)}`;
  const choosePort = 'choose another port with --port or VULNSCOPE_PORT';
  switch (code) {
    case 'EADDRINUSE':
      return new VulnscopeError(503, 'listen', `${where}: the address is already in use; ${choosePort}`);
    case 'EACCES':
      return new VulnscopeError(
        503,
        'listen',
        `${where}: permission denied (ports below 1024 need privileges); ${choosePort}`,
      );
    case 'EADDRNOTAVAIL':
      return new VulnscopeError(
        503,
        'listen',
        `${where}: no such address on this machine; choose another with --host or VULNSCOPE_HOST`,
      );
    default:
      return error;
  }
}

/**
 * Runs until SIGINT/SIGTERM, then closes everything cleanly. With `workers` > 1 the primary forks
 * that many server processes sharing the port (each keeps its own index, tailing the same change
 * log), so requests use every core; a worker that dies after it listened is replaced, one that
 * fails to start (port in use, database unreachable) stops the whole server with its reason.
 */
export async function serve(config: Config, announce?: (server: RunningServer) => void): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) {
    // Workers listen only after building their indexes: a taken port is reported now, not a minute later.
    await tryListen(config).catch((error: unknown) => {
      throw startFailure(error, config);
    });
    return supervise(config);
  }
  // A signal during the start leaves at once: nothing but "starting" answers has been served.
  const signal = untilSignal();
  const leaveDuringStart = () => process.exit();
  void signal.done.then(() => {
    if (!started) leaveDuringStart();
  });
  let started = false;
  let server: RunningServer;
  try {
    server = await startServer(config, {
      sweeper: !cluster.isWorker || config.clusterSweeper,
      listenEarly: !cluster.isWorker,
    });
  } catch (error) {
    signal.cancel();
    const failure = startFailure(error, config);
    if (!cluster.isWorker) throw failure;
    // The primary reports it once for every worker; this worker only leaves.
    process.send?.({ type: START_FAILED, message: (failure as Error).message ?? String(failure) });
    process.exitCode = 1;
    cluster.worker?.disconnect();
    return;
  }
  started = true;
  announce?.(server);
  await signal.done;
  // Whatever the closing steps wait on (a database gone slow), the process ends soon after its drain.
  setTimeout(() => {
    process.stderr.write('shutdown did not finish within the drain deadline and its grace; exiting\n');
    process.exit(1);
  }, config.drainTimeoutMs + SHUTDOWN_GRACE_MS).unref();
  await server.close();
  // A worker's IPC channel to the primary would keep it alive after everything else closed.
  if (cluster.isWorker) cluster.worker?.disconnect();
}

/** Listens on the configured address and closes again at once. */
function tryListen(config: Pick<Config, 'host' | 'port'>): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: config.host, port: config.port, exclusive: true }, () => server.close(() => resolve()));
  });
}

function supervise(config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    let stopping = false;
    const listened = new Set<number>();
    const signal = untilSignal();
    const stopAll = () =>
      Promise.all(
        Object.values(cluster.workers ?? {}).map(
          (worker) =>
            new Promise<void>((done) => {
              if (!worker || worker.isDead()) return done();
              worker.once('exit', () => done());
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    const failed = (message: string) => {
      if (stopping) return;
      stopping = true;
      signal.cancel();
      cleanup();
      void stopAll().then(() => reject(new VulnscopeError(503, 'start', message)));
    };
    const onListening = (worker: Worker) => listened.add(worker.id);
    const onMessage = (_worker: Worker, message: unknown) => {
      const m = message as { type?: unknown; message?: unknown } | null;
      if (m?.type === START_FAILED) failed(String(m.message));
    };
    // One worker runs the background work (job lock, snapshots); a replacement of it takes its role.
    let sweeperId: number | undefined;
    const fork = (sweeps: boolean) => {
      const worker = cluster.fork({ [CLUSTER_SWEEPER_VARIABLE]: sweeps ? '1' : '0' });
      if (sweeps) sweeperId = worker.id;
    };
    const onExit = (worker: Worker, code: number | null, signalName: string | null) => {
      if (stopping) return;
      if (!listened.has(worker.id)) {
        // Another attempt would fail the same way: a restart loop would look like a hang.
        const exitedEarly = () =>
          failed(`a server worker exited (${code ?? signalName}) before it listened on ${hostPort(config)}`);
        // Its reason may still be in the IPC pipe when the exit is seen: the channel is read to its end first.
        if (worker.isConnected()) worker.once('disconnect', exitedEarly);
        else exitedEarly();
        return;
      }
      process.stderr.write(`worker ${worker.process.pid} exited (${code ?? signalName}); starting another\n`);
      fork(worker.id === sweeperId);
    };
    const cleanup = () => {
      cluster.off('listening', onListening);
      cluster.off('message', onMessage);
      cluster.off('exit', onExit);
    };
    cluster.on('listening', onListening);
    cluster.on('message', onMessage);
    cluster.on('exit', onExit);
    for (let i = 0; i < config.workers; i++) fork(i === 0);
    void signal.done.then(async () => {
      if (stopping) return;
      stopping = true;
      cleanup();
      await stopAll();
      resolve();
    });
  });
}

/** Resolves on the first SIGINT/SIGTERM; `cancel` removes the handlers without resolving. */
function untilSignal(): { done: Promise<void>; cancel: () => void } {
  let stop = () => {};
  const cancel = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
  const done = new Promise<void>((resolve) => {
    stop = () => {
      cancel();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { done, cancel };
}

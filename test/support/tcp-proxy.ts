import net from 'node:net';

/**
 * A TCP proxy a test controls, to put a real dependency (PostgreSQL, Redis) through outages:
 *
 * - `forward`: connections are piped to the target (after `latencyMs`, if set: a slow one);
 * - `silent`: connections are accepted and kept open, but nothing is passed on either way — a
 *   hung server or a network black hole. What was sent meanwhile is held, not lost (as TCP
 *   would), and delivered when forwarding resumes;
 * - `refuse`: the port is closed (connects fail with ECONNREFUSED) and every open connection is
 *   cut — a stopped server.
 *
 * The proxy keeps its port across modes, so a client's URL stays valid through a whole test.
 */
export type ProxyMode = 'forward' | 'silent' | 'refuse';

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  /** The current mode. */
  readonly mode: ProxyMode;
  /** Client connections currently open through the proxy (held ones included). */
  readonly connections: number;
  setMode(mode: ProxyMode): Promise<void>;
  /** Delay added to every chunk forwarded, each way (0: none). */
  setLatency(ms: number): void;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

interface Link {
  client: net.Socket;
  upstream?: net.Socket;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  options: { host?: string; port?: number; mode?: ProxyMode } = {},
): Promise<TcpProxy> {
  const host = options.host ?? '127.0.0.1';
  let mode: ProxyMode = options.mode ?? 'forward';
  let latencyMs = 0;
  const links = new Set<Link>();
  let server: net.Server | undefined;

  const send = (to: net.Socket, chunk: Buffer) => {
    if (latencyMs > 0) setTimeout(() => to.destroyed || to.write(chunk), latencyMs);
    else if (!to.destroyed) to.write(chunk);
  };

  const drop = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };

  const connectUpstream = (link: Link) => {
    const upstream = net.connect(target.port, target.host);
    link.upstream = upstream;
    upstream.on('data', (chunk: Buffer) => send(link.client, chunk));
    upstream.on('error', () => drop(link));
    upstream.on('close', () => drop(link));
    link.client.on('data', (chunk: Buffer) => send(upstream, chunk));
    link.client.resume();
  };

  const accept = (client: net.Socket) => {
    const link: Link = { client };
    links.add(link);
    client.on('error', () => drop(link));
    client.on('close', () => drop(link));
    client.pause();
    if (mode === 'forward') connectUpstream(link);
  };

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const next = net.createServer(accept);
      next.once('error', reject);
      next.listen(port, host, () => {
        server = next;
        resolve((next.address() as net.AddressInfo).port);
      });
    });

  const stopListening = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      if (!current) return resolve();
      current.close(() => resolve());
    });

  let port = 0;
  if (mode !== 'refuse') port = await listen(options.port ?? 0);
  else {
    // A refusing proxy still needs a port of its own to name: take one and release it.
    port = await listen(options.port ?? 0);
    await stopListening();
  }

  return {
    host,
    port,
    get mode() {
      return mode;
    },
    get connections() {
      return links.size;
    },
    setLatency(ms: number) {
      latencyMs = ms;
    },
    async setMode(next: ProxyMode) {
      if (next === mode) return;
      mode = next;
      if (next === 'refuse') {
        // A closing server waits for its connections to end: cut them while it waits.
        const stopped = stopListening();
        for (const link of [...links]) drop(link);
        await stopped;
        return;
      }
      if (!server) await listen(port);
      for (const link of links) {
        if (next === 'silent') {
          link.client.pause();
          link.upstream?.pause();
        } else if (link.upstream) {
          link.client.resume();
          link.upstream.resume();
        } else {
          connectUpstream(link);
        }
      }
    },
    async close() {
      mode = 'refuse';
      const stopped = stopListening();
      for (const link of [...links]) drop(link);
      await stopped;
    },
  };
}

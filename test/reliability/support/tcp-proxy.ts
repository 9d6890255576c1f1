import net from 'node:net';

/**
 * A TCP proxy the test controls, in front of a real PostgreSQL or Redis: `forward` pipes (after
 * `latencyMs` per chunk when set: a slow server), `silent` accepts and holds every connection
 * without passing a byte either way (a hung server), `refuse` closes the port and cuts every
 * connection (a stopped one). The port stays the same across modes.
 */
export type ProxyMode = 'forward' | 'silent' | 'refuse';

interface Link {
  client: net.Socket;
  upstream?: net.Socket;
}

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly links = new Set<Link>();
  private latencyMs = 0;
  mode: ProxyMode = 'forward';
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (this.server!.address() as net.AddressInfo).port;
  }

  setLatency(ms: number): void {
    this.latencyMs = ms;
  }

  async setMode(mode: ProxyMode): Promise<void> {
    const previous = this.mode;
    this.mode = mode;
    if (mode === 'refuse') {
      for (const link of [...this.links]) this.drop(link);
      if (this.server?.listening) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
      return;
    }
    if (previous === 'refuse') await this.start();
    for (const link of this.links) {
      if (mode === 'silent') {
        link.client.pause();
        link.upstream?.pause();
      } else if (link.upstream) {
        link.client.resume();
        link.upstream.resume();
      } else {
        this.connect(link);
      }
    }
  }

  async close(): Promise<void> {
    await this.setMode('refuse');
  }

  private accept(client: net.Socket): void {
    const link: Link = { client };
    this.links.add(link);
    client.on('error', () => this.drop(link));
    client.on('close', () => this.drop(link));
    client.pause();
    if (this.mode === 'forward') this.connect(link);
  }

  private connect(link: Link): void {
    const upstream = net.connect(this.target.port, this.target.host);
    link.upstream = upstream;
    upstream.on('error', () => this.drop(link));
    upstream.on('close', () => this.drop(link));
    upstream.on('data', (chunk: Buffer) => this.send(link.client, chunk));
    link.client.on('data', (chunk: Buffer) => this.send(upstream, chunk));
    link.client.resume();
  }

  private send(to: net.Socket, chunk: Buffer): void {
    if (this.latencyMs > 0) setTimeout(() => to.destroyed || to.write(chunk), this.latencyMs);
    else if (!to.destroyed) to.write(chunk);
  }

  private drop(link: Link): void {
    this.links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  }
}

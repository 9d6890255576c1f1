import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** The proxy the outage tests rely on, against an echo server: each mode does what it says. */

let echo: net.Server;
let echoPort: number;

beforeAll(async () => {
  echo = net.createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => echo.close(resolve));
});

function connect(proxy: TcpProxy): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.port, proxy.host, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** What arrives on `socket` within `ms`. */
function received(socket: net.Socket, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => (text += chunk.toString());
    socket.on('data', onData);
    setTimeout(() => {
      socket.off('data', onData);
      resolve(text);
    }, ms);
  });
}

describe('the test TCP proxy', () => {
  it('forwards, holds while silent (delivering later), refuses, and forwards again on the same port', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: echoPort });
    try {
      const socket = await connect(proxy);
      socket.write('one');
      expect(await received(socket, 200)).toBe('one');

      await proxy.setMode('silent');
      socket.write('two');
      expect(await received(socket, 300)).toBe('');
      // A new connection is accepted, and answered by nobody.
      const held = await connect(proxy);
      held.write('three');
      expect(await received(held, 300)).toBe('');

      await proxy.setMode('forward');
      const [late, heldLate] = await Promise.all([received(socket, 300), received(held, 300)]);
      expect(late).toBe('two');
      expect(heldLate).toBe('three');

      const closed = new Promise((resolve) => socket.once('close', resolve));
      await proxy.setMode('refuse');
      await closed;
      await expect(connect(proxy)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      await proxy.setMode('forward');
      const again = await connect(proxy);
      again.write('four');
      expect(await received(again, 200)).toBe('four');
      again.destroy();
      held.destroy();
    } finally {
      await proxy.close();
    }
  });

  it('adds latency to each chunk when asked', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: echoPort });
    try {
      proxy.setLatency(150);
      const socket = await connect(proxy);
      socket.write('slow');
      // Each way: nothing back after 100 ms, the echo after 2 × 150 ms.
      expect(await received(socket, 100)).toBe('');
      expect(await received(socket, 2000)).toBe('slow');
      socket.destroy();
    } finally {
      await proxy.close();
    }
  });
});

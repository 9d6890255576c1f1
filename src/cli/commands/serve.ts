import type { Config } from '../../config.js';
import { startServer, type RunningServer } from '../../server/main.js';

/** Runs until SIGINT/SIGTERM, then closes everything cleanly. */
export async function serve(config: Config, announce?: (server: RunningServer) => void): Promise<void> {
  const server = await startServer(config);
  announce?.(server);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.close().finally(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** The SDK client of the CLI's client commands: the server and token from the flags or the config. */
import { Vulnscope } from '../../client/index.js';
import type { Config } from '../../config.js';
import { VERSION } from '../../version.js';

/** `--url` and `--token` of a client command; the environment (through the config) otherwise. */
export interface ConnectOptions {
  url?: string;
  token?: string;
}

export function connect(config: Config, options: ConnectOptions = {}): Vulnscope {
  return new Vulnscope({
    ...((options.url ?? config.serverUrl) ? { baseUrl: options.url ?? config.serverUrl } : {}),
    ...((options.token ?? config.apiToken) ? { token: options.token ?? config.apiToken } : {}),
    // The configuration has read the environment already.
    env: {},
    userAgent: `vulnscope-cli/${VERSION}`,
    onRetry: ({ request, attempt, waitMs }) =>
      process.stderr.write(`${request}: rate limited; retrying in ${Math.ceil(waitMs / 1000)} s (retry ${attempt})\n`),
  });
}

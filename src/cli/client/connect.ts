/**
 * The SDK client of the CLI's client commands, and what each SDK failure means as an exit status:
 * 2 usage (a missing URL or token, a parameter the server refused), 3 authentication or
 * entitlement (401, 402, 403), 4 rate limited after the retries (429), 5 server or network
 * (5xx, unreachable, timeout, a cut export), 1 anything else (404).
 */
import { Vulnscope } from '../../client/index.js';
import type { VulnscopeApiError } from '../../client/errors.js';
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

export function exitStatusOf(error: VulnscopeApiError): number {
  switch (error.kind) {
    case 'config':
      return 2;
    case 'request':
      return error.status === 400 ? 2 : 1;
    case 'auth':
    case 'entitlement':
      return 3;
    case 'rate-limit':
      return 4;
    case 'server':
    case 'network':
    case 'timeout':
    case 'incomplete':
      return 5;
    default:
      return 1;
  }
}

/**
 * What each SDK failure means as an exit status of a client command: 2 usage (a missing URL or
 * token, a parameter the server refused), 3 authentication or entitlement (401, 402, 403), 4 rate
 * limited after the retries (429), 5 server or network (5xx, unreachable, timeout, a cut export),
 * 1 anything else (404). Loaded with every command: it imports no module.
 */
import type { VulnscopeApiError } from '../../client/errors.js';

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

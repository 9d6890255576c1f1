import type { Config } from '../config.js';
import type { CveMatcher } from '../core/matching.js';
import type { CpeNameIndex } from '../search/cpe-names/index.js';
import type { AdvisoryIndex } from '../search/advisories/advisory-index.js';
import type { IndexSync } from '../search/index-sync.js';
import type { Storage } from '../storage/index.js';
import type { RateLimiter } from './rate-limit/limiter.js';
import type { Lifecycle } from './lifecycle.js';
import type { TokenAuthenticator } from './token-auth.js';

/** Everything a request handler may use; built once per server process. */
export interface AppContext {
  config: Config;
  storage: Storage;
  hostIndex: IndexSync;
  tokens: TokenAuthenticator;
  secret: string;
  startedAt: number;
  /** Starting (indexes loading), ready, or draining: only a ready process serves the API. */
  lifecycle: Lifecycle;
  /** Fingerprint → CVE matching for `explain=true`; when absent, one over `storage` is made. */
  matcher?: CveMatcher;
  /** The `/v4/advisory` index; when absent, buildApp makes one over `storage`, built on first use. */
  advisoryIndex?: AdvisoryIndex;
  /** Request budgets; when absent, buildApp makes one from the config (and closes it with the app). */
  rateLimiter?: RateLimiter;
  /** CPE search's name index; when absent, buildApp makes one over `storage`, built on first use. */
  cpeNames?: CpeNameIndex;
}

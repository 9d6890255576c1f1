/**
 * `vulnscope/client`: a typed client of the Vulnscope API (fetch only; runs wherever fetch does).
 * See docs/client.md.
 */
export {
  VulnscopeAbortError,
  VulnscopeApiError,
  VulnscopeAuthError,
  VulnscopeConfigError,
  VulnscopeEntitlementError,
  type VulnscopeErrorKind,
  VulnscopeIncompleteExportError,
  VulnscopeNetworkError,
  VulnscopeRateLimitError,
  VulnscopeRequestError,
  VulnscopeServerError,
  VulnscopeTimeoutError,
} from './errors.js';
export type { CallOptions, RetryNotice, VulnscopeOptions } from './options.js';
export type * from './types.js';
export { Vulnscope } from './vulnscope.js';

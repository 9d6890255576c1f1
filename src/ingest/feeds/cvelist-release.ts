/**
 * cvelistV5 releases: the CVE Program publishes the whole list as a GitHub release asset
 * (`<date>_all_CVEs_at_midnight.zip.zip`, a zip holding `cves.zip`, which holds
 * `cves/<year>/<n>xxx/CVE-*.json`). A source that is a GitHub API release URL
 * (`…/repos/OWNER/REPO/releases/latest`, `…/releases/tags/TAG`, `…/releases/ID`) is resolved to
 * that asset's download URL; the mitre-cvelist-v5 adapter reads the nested zips as they are.
 */
import { invalidInput } from '../../core/errors.js';
import { isObject } from '../advisories/types.js';

const RELEASE_API_PATH = /\/repos\/[^/]+\/[^/]+\/releases\/(latest|tags\/[^/]+|\d+)\/?$/;
/** The complete-list asset; the daily and hourly delta assets are not complete. */
const ALL_CVES_ASSET = /_all_CVEs_at_midnight\.zip(\.zip)?$/i;

export function isReleaseApiUrl(source: string): boolean {
  try {
    return RELEASE_API_PATH.test(new URL(source).pathname);
  } catch {
    return false;
  }
}

/** The download URL of the release's complete-list asset. */
export async function resolveReleaseAsset(url: string, fetchImpl: typeof fetch = fetch): Promise<string> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { accept: 'application/vnd.github+json', 'user-agent': 'vulnscope-sync' },
      redirect: 'follow',
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    const cause = (error as { cause?: Error }).cause;
    throw invalidInput(`cannot read the release ${url}: ${cause?.message ?? (error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw invalidInput(`cannot read the release ${url}: HTTP ${response.status} ${response.statusText}`);
  }
  let release: unknown;
  try {
    release = await response.json();
  } catch (error) {
    throw invalidInput(`the release ${url} is not JSON: ${(error as Error).message}`);
  }
  const assets = isObject(release) && Array.isArray(release.assets) ? release.assets.filter(isObject) : [];
  const asset = assets.find(
    (a) => typeof a.name === 'string' && ALL_CVEs(a.name) && typeof a.browser_download_url === 'string',
  );
  if (!asset) {
    const names = assets.map((a) => a.name).filter((n) => typeof n === 'string');
    throw invalidInput(
      `the release ${url} has no "…_all_CVEs_at_midnight.zip" asset (assets: ${names.join(', ') || 'none'})`,
    );
  }
  return new URL(asset.browser_download_url as string, url).toString();
}

const ALL_CVEs = (name: string) => ALL_CVES_ASSET.test(name);

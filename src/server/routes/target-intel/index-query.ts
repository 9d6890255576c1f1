import { unavailable, VulnscopeError } from '../../../core/errors.js';
import type { HostQuery } from '../../../search/host-query.js';
import type { AppContext } from '../../context.js';
import { parseHostQuery, type TargetIntelFilters } from './query.js';
import { productRenamesOf } from '../../../services/matching/renames.js';

/** The index brought up to date with the database, or a 503 saying it could not be. */
export async function refreshOrUnavailable(sync: AppContext['hostIndex']): Promise<void> {
  try {
    await sync.catchUp();
  } catch (error) {
    if (error instanceof VulnscopeError) throw error;
    throw unavailable(
      `the index could not be brought up to date with the database: ${(error as Error).message}`,
      'index_behind',
    );
  }
}

/** The filters as an index query; a vendor or product also matches the names it was renamed from or to. */
export async function hostQueryOf(filters: TargetIntelFilters, context: AppContext): Promise<HostQuery> {
  const query = parseHostQuery(filters);
  if (query.vendor !== undefined || query.product !== undefined) {
    const renamedAs = (await productRenamesOf(context.storage)).alternatives(
      query.vendor?.toLowerCase(),
      query.product?.toLowerCase(),
    );
    if (renamedAs.length > 0) query.renamedAs = renamedAs;
  }
  return query;
}

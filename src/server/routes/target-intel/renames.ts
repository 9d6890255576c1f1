import type { HostQuery } from '../../../search/host-query.js';
import { productRenamesOf } from '../../../services/matching/renames.js';
import type { Storage } from '../../../storage/index.js';

/** A vendor or product filter also matches the product's other names through renames. */
export async function addProductRenames(query: HostQuery, storage: Storage): Promise<void> {
  if (query.vendor === undefined && query.product === undefined) return;
  const renamedAs = (await productRenamesOf(storage)).alternatives(
    query.vendor?.toLowerCase(),
    query.product?.toLowerCase(),
  );
  if (renamedAs.length > 0) query.renamedAs = renamedAs;
}

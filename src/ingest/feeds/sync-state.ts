/**
 * What an API sync remembers between runs, kept as JSON in the settings table (key
 * `sync.<name>`): the point up to which every change is loaded, and the position of a run that
 * has not finished, so an interrupted sync continues where it stopped.
 */
import type { Storage } from '../../storage/index.js';
import { deleteSetting, getSetting, putSetting } from '../../storage/index.js';

export interface ApiSyncRun {
  /** `full`: paging through everything (no date filter); `incremental`: last-modified windows. */
  kind: 'full' | 'incremental';
  /** The sync point this run establishes when it finishes (epoch ms, the run's start). */
  until: number;
  /** Incremental runs: where their first window started (epoch ms). */
  from?: number;
  /** Incremental runs: the start of the window in progress (windows after it follow from `until`). */
  windowStart?: number;
  /** The first item of the window (or of the full listing) not yet stored. */
  startIndex: number;
  /** `totalResults` NVD reported for the window in progress. */
  totalResults?: number;
}

export interface ApiSyncState {
  /** The API base the state belongs to; another base starts over. */
  base: string;
  /** Every change up to this time (epoch ms) is loaded. */
  syncedUntil?: number;
  /** The run in progress (left by an interrupted sync). */
  run?: ApiSyncRun;
}

export interface SyncStateStore {
  read(): Promise<ApiSyncState | undefined>;
  write(state: ApiSyncState): Promise<void>;
  clear(): Promise<void>;
}

export const syncStateKey = (name: string) => `sync.${name}`;

/** The state of the sync called `name` (e.g. `nist-nvd2`, `cpe-dictionary.products`). */
export function syncStateStore(storage: Pick<Storage, 'db'>, name: string): SyncStateStore {
  const key = syncStateKey(name);
  return {
    async read() {
      const text = await getSetting(storage.db, key);
      if (text === undefined) return undefined;
      try {
        const value = JSON.parse(text) as ApiSyncState;
        return typeof value === 'object' && value !== null && typeof value.base === 'string' ? value : undefined;
      } catch {
        return undefined; // unreadable: start over
      }
    },
    write: (state) => putSetting(storage.db, key, JSON.stringify(state)),
    clear: () => deleteSetting(storage.db, key),
  };
}

/**
 * A server holding every kind of data an endpoint serves: CPE names and NVD knowledge, the real
 * advisory feed samples, the hand-built target-intel dataset plus services whose CVEs knowledge
 * confirms (so `explain=true` has evidence of each kind), and an archive of a feed and of each
 * v3 index.
 */
import { writeBackup } from '../../src/backup/service.js';
import { feedSource, targetIntelSource } from '../../src/backup/sources.js';
import { BackupStore } from '../../src/backup/store.js';
import { ingestCpeDictionary, readCpeDictionarySources } from '../../src/ingest/knowledge/dictionary.js';
import { cpeCveSource } from '../../src/services/index-backups.js';
import { loadRealFeeds } from '../advisories/support.js';
import type { BackupTestApp } from '../backup/support.js';
import { CPE_DICTIONARY_SAMPLES, CPE_MATCH_SAMPLES } from '../knowledge/support.js';
import { loadDataset } from '../target-intel/dataset.js';

/** The feed that gets an archive. */
export const ARCHIVED_FEED = 'nist-nvd2';

/** Services matched against the NVD fixtures (see test/matching/host-matching.test.ts for why each matches). */
const MATCHED = [
  // CVE-2021-41617 by version range.
  { ip: '198.51.100.201', port: 22, fingerprints: [{ cpe: 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*' }] },
  // CVE-2013-2028 at its inclusive end, CVE-2021-23017 in range.
  {
    ip: '198.51.100.202',
    port: 80,
    fingerprints: [{ cpe: 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*', service: 'http' }],
  },
  // An AND configuration satisfied by the host's OS CPE.
  {
    ip: '198.51.100.203',
    port: 443,
    fingerprints: [{ cpe: 'cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*' }],
    osCpes: ['cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*'],
  },
  // A version-less name: evidence without confirmation.
  { ip: '198.51.100.204', port: 8080, fingerprints: [{ cpe: 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*' }] },
  // The scanner's own claim beside knowledge's.
  {
    ip: '198.51.100.205',
    port: 22,
    fingerprints: [{ cpe: 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*' }],
    cves: ['CVE-2099-0001'],
  },
];

export async function loadEveryKind(t: BackupTestApp): Promise<void> {
  await ingestCpeDictionary(t.storage, readCpeDictionarySources([CPE_DICTIONARY_SAMPLES, CPE_MATCH_SAMPLES]));
  await loadRealFeeds(t.storage);
  await loadDataset(t);
  await t.ingest(MATCHED);
  const store = new BackupStore(t.backupDir);
  await writeBackup(store, feedSource(t.storage, ARCHIVED_FEED, 'NVD'), 3);
  await writeBackup(store, targetIntelSource(t.storage), 3);
  await writeBackup(store, cpeCveSource(t.storage), 3);
}

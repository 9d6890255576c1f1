import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { expireObservations } from '../services/expiry.js';
import { remapChangedKnowledge } from '../services/matching/knowledge-remap.js';
import { remapToCurrentRules } from '../services/matching/rules-remap.js';
import { confirmingMatcher } from '../services/matching/source.js';
import type { AppContext } from './context.js';
import type { LeadJob } from './job-leadership.js';

/** Deletes observations older than the retention window: once at the start, then every sweep interval. */
export function expirySweepJob(context: AppContext, log: FastifyBaseLogger): LeadJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopping = false;
  const stopped = new Error('the expiry sweep was stopped');
  const sweep = async () => {
    await context.hostIndex.refresh();
    const summary = await expireObservations(
      context.storage,
      context.config.retentionDays,
      Date.now(),
      (before) => context.hostIndex.index.idsObservedBefore(before),
      () => {
        // Between two committed batches: a stop never waits for the whole sweep, and the next holder resumes it.
        if (stopping) throw stopped;
      },
    );
    if (summary.expired > 0) log.info(summary, 'expired observations');
  };
  const sweepOnce = () => {
    running ??= sweep()
      .catch((error: unknown) => {
        if (error !== stopped) log.error({ err: error }, 'expiry sweep failed');
      })
      .finally(() => {
        running = undefined;
      });
  };
  return {
    name: 'the expiry sweep',
    start() {
      stopping = false;
      sweepOnce();
      timer = setInterval(sweepOnce, context.config.sweepIntervalMs);
      timer.unref();
    },
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** Keeps stored records matched as knowledge and matching rules change (see remapInBackground). */
export function remapJob(context: AppContext, log: FastifyBaseLogger): LeadJob {
  let abort: AbortController | undefined;
  let running: Promise<void> | undefined;
  return {
    name: 're-mapping of stored records',
    start() {
      abort = new AbortController();
      running = remapInBackground(context, log, abort.signal);
    },
    async stop() {
      abort?.abort();
      await running;
    },
  };
}

/**
 * First the walk to the current matching rules (if one is due), then, every
 * VULNSCOPE_REMAP_POLL_MS, the records of the products the knowledge change log names. A stop
 * leaves its position saved for whichever process runs it next.
 */
async function remapInBackground(context: AppContext, log: FastifyBaseLogger, signal: AbortSignal): Promise<void> {
  const matcher = confirmingMatcher(context.storage);
  const stopped = () => signal.aborted;
  while (!stopped()) {
    try {
      const rules = await remapToCurrentRules(context.storage, matcher, { stopped });
      if (rules.examined > 0) log.info(rules, 're-mapped stored records to the current matching rules');
      await context.hostIndex.refresh();
      const knowledge = await remapChangedKnowledge(context.storage, context.hostIndex.index, matcher, { stopped });
      if (knowledge) log.info(knowledge, 're-mapped the records of changed knowledge');
      // A change log that no longer reaches back asked for the full walk: start it at once.
      if (knowledge?.fullWalk) continue;
    } catch (error) {
      if (stopped()) return;
      log.error({ err: error }, 're-mapping stored records failed');
    }
    await sleep(context.config.remapPollMs, undefined, { signal }).catch(() => {});
  }
}

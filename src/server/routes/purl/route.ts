import type { FastifyInstance } from 'fastify';
import { ENDPOINTS, type PurlQuery } from '../../../core/api/index.js';
import type { AdvisoryIndex } from '../../../search/advisories/advisory-index.js';
import { FeedRegistry } from '../../../services/feed-registry.js';
import type { AppContext } from '../../context.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { routeSchema } from '../../route-schema.js';
import { purlFeeds } from './feeds.js';
import { lookupPurl, RecordBudget, type PurlAnswer } from './lookup.js';
import { checkPurlList, parsePurlQuestion, purlStruct, type PurlQuestion } from './parse.js';

/** 100 purls of 500 characters with their quotes and commas, and room for whitespace. */
const PURLS_BODY_LIMIT = 128 * 1024;

/** `GET /v3/purl` and `POST /v3/purls`: the vulnerabilities of package versions, from the OSV and CVE 5 feeds. */
export function registerPurl(
  app: FastifyInstance,
  context: AppContext,
  index: AdvisoryIndex,
  registry = new FeedRegistry(context.config.feeds),
): void {
  app.get(ENDPOINTS.purl.path, { schema: routeSchema(ENDPOINTS.purl) }, async (request) => {
    const question = parsePurlQuestion((request.query as PurlQuery).purl, 'parameter "purl"');
    const feedsFor = await purlFeeds(request.token!, context.config, registry, index);
    const answer = await lookupPurl(index, feedsFor(question.purl.type), question, new RecordBudget());
    return {
      _benchmark: benchmarkSeconds(request),
      _meta: {
        purl_struct: purlStruct(question.purl),
        timestamp: new Date().toISOString(),
        total_documents: answer.total,
      },
      data: { cves: answer.cves, vulnerabilities: answer.vulnerabilities },
    };
  });

  app.post(
    ENDPOINTS.purls.path,
    {
      schema: routeSchema(ENDPOINTS.purls),
      bodyLimit: PURLS_BODY_LIMIT,
      preValidation: async (request) => checkPurlList(request.body),
    },
    async (request) => {
      const texts = request.body as string[];
      const questions = texts.map((text, i) => parsePurlQuestion(text, `item ${i} of the request body`));
      const feedsFor = await purlFeeds(request.token!, context.config, registry, index);
      const feeds = questions.map((question) => feedsFor(question.purl.type));
      // A purl sent twice is looked up once.
      const answers = new Map<string, PurlAnswer>();
      const budget = new RecordBudget();
      const data = [];
      for (const [i, question] of questions.entries()) {
        const key = `${question.key}@${question.version}`;
        let answer = answers.get(key);
        if (!answer) {
          answer = await lookupPurl(index, feeds[i]!, question, budget);
          answers.set(key, answer);
        }
        data.push(finding(texts[i]!, question, answer));
      }
      return {
        _benchmark: benchmarkSeconds(request),
        _meta: { timestamp: new Date().toISOString(), total_documents: data.length },
        data,
      };
    },
  );
}

const finding = (text: string, question: PurlQuestion, answer: PurlAnswer) => ({
  purl: text,
  purl_struct: purlStruct(question.purl),
  cves: answer.cves,
  vulnerabilities: answer.vulnerabilities,
});

import { describe } from 'vitest';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';
import { fuzzEveryEndpoint } from './support/fuzz-endpoints.js';

if (POSTGRES_URL) fuzzEveryEndpoint(postgresCase);
else describe.skip('fuzzing every endpoint (postgres): VULNSCOPE_TEST_DATABASE_URL is not set', () => {});

import { sqliteCase } from '../support/engines.js';
import { fuzzEveryEndpoint } from './support/fuzz-endpoints.js';

fuzzEveryEndpoint(sqliteCase);

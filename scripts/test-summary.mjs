// Prints the closing line CI reads ("N passed, N failed") from Vitest's JSON report.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results.json';
// A failed quality gate (npm run check) counts as one failure, so the closing line never hides it.
const gatesFailed = process.env.VULNSCOPE_GATES_FAILED === '1' ? 1 : 0;
try {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A suite that fails to load counts as a failure even though none of its tests ran.
  const brokenSuites = (report.testResults ?? []).filter(
    (suite) => suite.status === 'failed' && (suite.assertionResults ?? []).length === 0,
  ).length;
  const failed = report.numFailedTests + brokenSuites + gatesFailed;
  console.log(`${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exitCode = failed > 0 || report.numPassedTests === 0 ? 1 : 0;
} catch (error) {
  console.log(`0 passed, ${1 + gatesFailed} failed`);
  console.error(`could not read the test report ${file}: ${error.message}`);
  process.exitCode = 1;
}

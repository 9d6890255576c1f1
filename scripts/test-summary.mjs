// Prints the closing line CI reads ("N passed, N failed") from one or more Vitest JSON reports
// (the main suite and the reliability suite), summed.
import { readFileSync } from 'node:fs';

const files = process.argv.length > 2 ? process.argv.slice(2) : ['test-results.json'];
// A failed quality gate (npm run check) counts as one failure, so the closing line never hides it.
const gatesFailed = process.env.VULNSCOPE_GATES_FAILED === '1' ? 1 : 0;
let passed = 0;
let failed = gatesFailed;
let skipped = 0;
let emptyReport = false;
for (const file of files) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A suite that fails to load counts as a failure even though none of its tests ran.
    const brokenSuites = (report.testResults ?? []).filter(
      (suite) => suite.status === 'failed' && (suite.assertionResults ?? []).length === 0,
    ).length;
    passed += report.numPassedTests;
    failed += report.numFailedTests + brokenSuites;
    // A report with no passing test is a run that did not happen.
    if (report.numPassedTests === 0) emptyReport = true;
  } catch (error) {
    failed += 1;
    console.error(`could not read the test report ${file}: ${error.message}`);
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 || emptyReport ? 1 : 0;

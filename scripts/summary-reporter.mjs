// Node test-runner reporter: prints the final line "N passed, N failed, N skipped".
// Skipped and todo tests are counted apart, never as passed. Under scripts/run-tests.mjs
// (SEXTANT_TEST_SUMMARY_FILE) it writes the counts there and labels its line with the
// pass (SEXTANT_TEST_PASS), so that only run-tests.mjs's total is a summary line.
import { writeFileSync } from 'node:fs';

export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') {
      // A suite fails on its own only when a hook failed; failures of its tests are counted below.
      if (event.type === 'test:fail' && event.data.details.error?.failureType !== 'subtestsFailed') failed++;
      continue;
    }
    if (event.data.skip || event.data.todo) skipped++;
    else if (event.type === 'test:pass') passed++;
    else failed++;
  }
  const file = process.env.SEXTANT_TEST_SUMMARY_FILE;
  if (file) writeFileSync(file, JSON.stringify({ passed, failed, skipped }));
  const label = file ? `${process.env.SEXTANT_TEST_PASS ?? 'pass'}: ` : '';
  yield `\n${label}${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}

// A node:test reporter that counts leaf tests and writes {passed, failed, skipped, dataSkipped} as JSON
// (dataSkipped: skips whose reason names the shared benchmark data or papers, for the how-to-get-it line).
export default async function* countReporter(source) {
  let passed = 0,
    failed = 0,
    skipped = 0,
    dataSkipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // Count leaf tests only (suites report their own pass/fail too); a file-level failure counts once.
    const d = event.data;
    if (d.details && d.details.type === 'suite') continue;
    if (event.type === 'test:fail') failed++;
    else if (d.skip || d.todo) {
      skipped++;
      if (typeof d.skip === 'string' && /\/shared\b|KF_SHARED|benchmark (file|data|PDF)|shared\/(bench|seeds)/.test(d.skip)) dataSkipped++;
    } else passed++;
  }
  yield JSON.stringify({ passed, failed, skipped, dataSkipped });
}

/** What each check of the gate found, and how the gate prints it. */

export interface CheckResult {
  name: string;
  /** One line: what was checked, and how it went. */
  summary: string;
  /** One line per failure; any failure fails the gate. */
  failures: string[];
  /** What the target could not be brought to do, with why (e.g. a 500 from a deployment). */
  notChecked: string[];
  /** More about what was seen, printed with --verbose. */
  details?: string[];
}

export function formatReport(targetDescription: string, results: CheckResult[], verbose = false): string {
  const lines = [`Contract gate against ${targetDescription}`];
  for (const result of results) {
    lines.push(`  ${result.failures.length === 0 ? 'ok  ' : 'FAIL'} ${result.name}: ${result.summary}`);
    for (const failure of result.failures.slice(0, 25)) lines.push(`         ✗ ${failure}`);
    if (result.failures.length > 25) lines.push(`         … and ${result.failures.length - 25} more`);
    for (const reason of result.notChecked) lines.push(`         - not checked: ${reason}`);
    if (verbose) for (const detail of result.details ?? []) lines.push(`         ${detail}`);
  }
  const failed = results.filter((result) => result.failures.length > 0).map((result) => result.name);
  lines.push(failed.length === 0 ? 'Contract gate passed.' : `Contract gate FAILED: ${failed.join(', ')}.`);
  return lines.join('\n');
}

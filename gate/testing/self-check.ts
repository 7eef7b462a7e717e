/**
 * The gate's self-check, for its tests: the gate run against the app in the test's process
 * (server/testing/gate-target.ts), broken or not.
 */
import { type OwnTargetOptions, startOwnTarget } from '../../server/testing/gate-target.js';
import { type CheckName, runGate } from '../gate.js';
import type { CheckResult } from '../report.js';

/**
 * The gate's `checks`, with `runs` of the fuzz, against the app in process composed as `options` say;
 * Dredd and the fuzz on `operations` only, when given.
 */
export async function gate(
  options: OwnTargetOptions,
  checks: readonly CheckName[],
  runs: number,
  operations?: ReadonlySet<string>,
): Promise<CheckResult[]> {
  const target = await startOwnTarget(options);
  try {
    return await runGate(target, { fuzz: { seed: 20261121, runs }, checks, operations });
  } finally {
    await target.close();
  }
}

/** The failures one check reported. */
export const failuresOf = (results: CheckResult[], name: string) => results.find((result) => result.name === name)?.failures ?? [];

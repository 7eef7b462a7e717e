/**
 * The gate's self-check, for its tests: the gate run against the app in the test's process
 * (server/testing/gate-target.ts), broken or not.
 */
import { type OwnTargetOptions, startOwnTarget } from '../../server/testing/gate-target.js';
import { CONTRACT_OPERATIONS } from '../contract-schemas.js';
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

/** The tallies of the workspace operations that take no input, whose one valid request the fuzz sends once. */
const WITHOUT_INPUT = new Set(
  CONTRACT_OPERATIONS.filter((operation) => !operation.requestSchema).map((operation) => `${operation.operationId} valid:`),
);

/**
 * What is wrong with the fuzz's tallies of statuses (e.g. "getUser valid: 200×65 401×13"):
 * fewer than `runs` requests for an operation, or more or fewer than one valid request for an
 * operation that takes no input.
 */
export function fuzzTallyProblems(tallies: readonly string[], runs: number): string[] {
  return tallies.flatMap((tally) => {
    const sent = [...tally.matchAll(/×(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    if (WITHOUT_INPUT.has(tally.slice(0, tally.indexOf(':') + 1))) return sent === 1 ? [] : [`${sent} requests, not 1: ${tally}`];
    return sent >= runs ? [] : [`only ${sent} requests: ${tally}`];
  });
}

/**
 * The contract gate: every check against one target, in an order where a
 * broken route shows up before the checks that would trip over it.
 */
import { CONTRACT_OPERATIONS, SCIM_CONTRACT_OPERATIONS } from './contract-schemas.js';
import { runDredd } from './dredd.js';
import { type FuzzOptions, runFuzz } from './fuzz.js';
import { runHostileCorpus } from './hostile.js';
import { runMockParity, runProxyCheck } from './prism-checks.js';
import type { CheckResult } from './report.js';
import { runRouteCoverage } from './routes.js';
import type { GateTarget } from './target.js';

export const CHECKS = ['routes', 'dredd', 'fuzz', 'hostile', 'proxy', 'parity'] as const;
export type CheckName = (typeof CHECKS)[number];

const RUNNERS: Record<CheckName, (target: GateTarget, options: GateOptions) => Promise<CheckResult>> = {
  routes: runRouteCoverage,
  dredd: (target, { operations }) => runDredd(target, operations),
  fuzz: (target, { fuzz, operations }) => runFuzz(target, fuzz, operations),
  hostile: runHostileCorpus,
  proxy: runProxyCheck,
  parity: runMockParity,
};

export interface GateOptions {
  fuzz: FuzzOptions;
  checks?: readonly CheckName[];
  /**
   * Dredd and the fuzz check only these operations, named as the report names them (`getUser`,
   * `SCIM patchUser`): the other checks are whole. Unset, every operation.
   */
  operations?: ReadonlySet<string> | undefined;
}

/** Every operation's name as the report gives it: the workspace contract's operationIds, then SCIM's with `SCIM ` before them. */
export const OPERATION_NAMES: readonly string[] = [
  ...CONTRACT_OPERATIONS.map((operation) => operation.operationId),
  ...SCIM_CONTRACT_OPERATIONS.map((operation) => `SCIM ${operation.operationId}`),
];

export async function runGate(target: GateTarget, options: GateOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const name of options.checks ?? CHECKS) {
    let result: CheckResult;
    try {
      result = await RUNNERS[name](target, options);
    } catch (error) {
      result = { name, summary: 'could not run', failures: [(error as Error).stack ?? String(error)], notChecked: [] };
    }
    // The self-check's app in process can be brought to every declared status: there, anything left unchecked is a gap.
    if (target.faults && result.notChecked.length > 0) {
      result = {
        ...result,
        failures: [...result.failures, ...result.notChecked.map((reason) => `left unchecked against the app in process: ${reason}`)],
      };
    }
    results.push(result);
  }
  return results;
}

export const passed = (results: CheckResult[]) => results.every((result) => result.failures.length === 0);

/**
 * `npm run contract`: the contract gate.
 *
 *   npm run contract                        a deployment of its own: the compiled service on a
 *                                           temporary SQLite database (local-deployment.ts)
 *   npm run contract -- --base-url URL      a running deployment; needs WORKSPACE_API_KEY and
 *                                           WORKSPACE_API_KEY_SECRET (a key with every permission),
 *                                           and uses DATABASE_URL, when set, for the admin CLI
 *   npm run contract -- --operations getUser,'SCIM patchUser'
 *                                           Dredd and the fuzz on these operations only
 *
 * Exit code 0 when every check passes, 1 when one fails, 2 on a usage error.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_FUZZ_RUNS, DEFAULT_FUZZ_SEED } from './fuzz.js';
import { CHECKS, type CheckName, OPERATION_NAMES, passed, runGate } from './gate.js';
import { startLocalDeployment } from './local-deployment.js';
import { formatReport } from './report.js';
import { connectDeployment, type GateTarget } from './target.js';

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) throw new InvalidArgumentError('expected a positive whole number');
  return number;
}

function checkList(value: string): CheckName[] {
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !CHECKS.includes(name as CheckName));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown check ${unknown.join(', ')}; the checks are ${CHECKS.join(', ')}`);
  return names as CheckName[];
}

function operationList(value: string): Set<string> {
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !OPERATION_NAMES.includes(name));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown operation ${unknown.join(', ')}; the operations are ${OPERATION_NAMES.join(', ')}`);
  return new Set(names);
}

interface Options {
  baseUrl?: string;
  seed: number;
  runs: number;
  only: CheckName[];
  operations?: Set<string>;
  verbose?: boolean;
}

const program = new Command('contract')
  .description('Check that a workspace user API service and its contract agree: routes, Dredd, fuzzing, Prism proxy, mock parity.')
  .option(
    '--base-url <url>',
    'check this running deployment instead of a service of its own (needs WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET)',
  )
  .addOption(new Option('--seed <n>', 'the fuzz seed').env('FUZZ_SEED').default(DEFAULT_FUZZ_SEED).argParser(positiveInteger))
  .addOption(
    new Option('--runs <n>', 'valid and invalid fuzz requests per operation')
      .env('FUZZ_RUNS')
      .default(DEFAULT_FUZZ_RUNS)
      .argParser(positiveInteger),
  )
  .addOption(
    new Option('--only <checks>', `comma-separated checks to run (${CHECKS.join(', ')})`).default([...CHECKS], 'all').argParser(checkList),
  )
  .addOption(
    new Option(
      '--operations <names>',
      "comma-separated operations for Dredd and the fuzz, as the report names them (getUser, 'SCIM patchUser'); the other checks are whole",
    ).argParser(operationList),
  )
  .option('--verbose', 'also print the statuses the fuzz reached')
  .showHelpAfterError()
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

async function openTarget(options: Options): Promise<GateTarget> {
  if (!options.baseUrl) return startLocalDeployment();
  const { WORKSPACE_API_KEY: api_key, WORKSPACE_API_KEY_SECRET: api_key_secret, DATABASE_URL: databaseUrl } = process.env;
  if (!api_key || !api_key_secret) {
    process.stderr.write('contract: --base-url needs WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET (a key with every permission)\n');
    process.exit(2);
  }
  return connectDeployment({ baseUrl: options.baseUrl, admin: { api_key, api_key_secret }, ...(databaseUrl ? { databaseUrl } : {}) });
}

async function main(): Promise<void> {
  const options = program.parse().opts<Options>();
  const target = await openTarget(options);
  try {
    const results = await runGate(target, {
      fuzz: { seed: options.seed, runs: options.runs },
      checks: options.only,
      operations: options.operations,
    });
    process.stdout.write(`${formatReport(target.description, results, options.verbose)}\n`);
    if (!passed(results)) {
      const logs = target.logs().trim();
      if (logs) process.stdout.write(`\nThe service logged:\n${logs.split('\n').slice(-40).join('\n')}\n`);
      process.exitCode = 1;
    }
  } finally {
    await target.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`contract: ${(error as Error).message}\n`);
  process.exitCode = 1;
});

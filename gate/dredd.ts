/**
 * Dredd against the target: one transaction per declared status of every
 * operation of both contracts (the workspace API's and SCIM's), read from each
 * contract's OpenAPI 3.0 down-conversion, which is what Dredd 14 parses.
 *
 * Dredd alone would prove little here: it sends the contract's one example per
 * operation, and does not check OpenAPI 3 bodies against their schemas. So the
 * hooks build each transaction's request from a recipe (recipes.ts,
 * scim-recipes.ts) that makes the service give that status, drop Dredd's
 * example-based body comparison, and check every answer against the
 * contract's schema with Ajv instead.
 */

import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { OperationId } from '../lib/contract/operations.js';
import type { ScimOperationId } from '../lib/contract/scim-operations.js';
import { projectFile } from '../lib/project-root.js';
import {
  CONTRACT_OPERATIONS,
  type OperationContract,
  operationAt,
  responseViolations,
  SCIM_CONTRACT_OPERATIONS,
} from './contract-schemas.js';
import { Fixtures, NotAvailable } from './fixtures.js';
import { type PreparedRequest, recipeFor } from './recipes.js';
import type { CheckResult } from './report.js';
import { scimRecipeFor } from './scim-recipes.js';
import type { GateTarget } from './target.js';

const require = createRequire(import.meta.url);
const HOOK_BRIDGE = projectFile('gate', 'dredd-hooks.cjs');

/** One contract as Dredd checks it. */
interface DreddSuite<Id extends string> {
  label: string;
  /** The contract's OpenAPI 3.0 down-conversion. */
  contract: string;
  operations: readonly OperationContract<Id>[];
  recipe(operation: OperationContract<Id>, status: number): (fixtures: Fixtures) => Promise<PreparedRequest>;
  /** Remembers what a successful answer created, for the fixtures' cleanup. */
  created(operation: OperationContract<Id>, status: number, body: unknown, fixtures: Fixtures): void;
}

const WORKSPACE_SUITE: DreddSuite<OperationId> = {
  label: 'workspace',
  contract: projectFile('generated', 'workspace', 'openapi-3.0.yaml'),
  operations: CONTRACT_OPERATIONS,
  recipe: (operation, status) => recipeFor(operation.servedBy, status, operation.method !== 'post'),
  created(operation, status, body, fixtures) {
    if (operation.operationId === 'createUser' && status === 200) fixtures.track((body as { user: { user_id: string } }).user.user_id);
  },
};

const SCIM_SUITE: DreddSuite<ScimOperationId> = {
  label: 'SCIM',
  contract: projectFile('generated', 'scim', 'openapi-3.0.yaml'),
  operations: SCIM_CONTRACT_OPERATIONS,
  recipe: (operation, status) => scimRecipeFor(operation.operationId, status),
  created(operation, status, body, fixtures) {
    if (status !== 201) return;
    const { id } = body as { id: string };
    if (operation.operationId === 'createUser') fixtures.track(id);
    if (operation.operationId === 'createGroup') fixtures.trackGroup(id);
  },
};

/**
 * An error's problem-details form (`application/problem+json`, chosen by `Accept`) holds the
 * same body as its JSON form: Dredd would make a second transaction of every error status for
 * it, doubling the suite for nothing the schema check does not see already. The negotiation
 * itself is tested in server/http/error-handler.integration.test.ts.
 */
function withoutProblemForms(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const content = (node as { content?: Record<string, unknown> }).content;
  if (content && 'application/json' in content) delete content['application/problem+json'];
  for (const child of Object.values(node)) withoutProblemForms(child);
}

/**
 * Dredd cannot send HEAD: it always gives its HTTP client a body, which that
 * client refuses for HEAD. So Dredd reads the contract without its HEAD
 * operations, and the routes check covers them (the GET's status and headers,
 * no body). Nor does it read an error's problem-details form (withoutProblemForms).
 */
async function contractWithoutHead(contract: string, directory: string): Promise<string> {
  const document = parse(await readFile(contract, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  for (const item of Object.values(document.paths)) delete item.head;
  withoutProblemForms(document);
  const path = join(directory, 'openapi-3.0-without-head.yaml');
  await writeFile(path, stringify(document));
  return path;
}
const INSTALL_HOOKS = Symbol.for('workspace-user-api.contract-gate.installHooks');

/** The parts of Dredd's transaction object the hooks touch. */
interface Transaction {
  name: string;
  fullPath: string;
  request: { method: string; uri: string; headers: Record<string, string>; body: string };
  expected: { statusCode: string; headers?: Record<string, string>; body?: string };
  real?: { statusCode: number; headers: Record<string, string>; body: string };
  skip?: boolean;
  fail?: string | boolean;
}

interface DreddHooks {
  beforeEach(hook: (transaction: Transaction, done: () => void) => void): void;
  afterEach(hook: (transaction: Transaction, done: () => void) => void): void;
}

interface DreddTest {
  title: string;
  message?: string;
}

interface DreddInstance {
  run(
    callback: (error: Error | null, stats: { tests: number; failures: number; errors: number; passes: number; skipped: number }) => void,
  ): void;
}

type DreddConstructor = new (config: Record<string, unknown>) => DreddInstance;

/** Dredd prints through two winston loggers of its own; the gate reports for itself. */
function silenceDredd(): void {
  for (const module of ['dredd/build/logger.js', 'dredd/build/reporters/reporterOutputLogger.js']) {
    (require(module).default as { transports: { console: { silent: boolean } } }).transports.console.silent = true;
  }
}

interface SuiteResult {
  transactions: number;
  skipped: number;
  failures: string[];
  /** Transactions the target cannot be brought to, by why. */
  notAvailable: Map<string, string[]>;
  /** Transactions of the operations the run was not asked to check. */
  leftOut: number;
}

async function runSuite<Id extends string>(
  target: GateTarget,
  suite: DreddSuite<Id>,
  fixtures: Fixtures,
  operations: ReadonlySet<string> | undefined,
): Promise<SuiteResult> {
  const failures: string[] = [];
  const notAvailable = new Map<string, string[]>();
  const seen = new Set<string>();
  let leftOut = 0;
  const named = (title: string) => (suite.label === 'workspace' ? title : `${suite.label} ${title}`);
  const keyOf = (operationId: string, status: number | string) => `${operationId} ${status}`;
  /** Where the target's paths start: a deployment may sit under a prefix of its own. */
  const prefix = new URL(target.baseUrl).pathname.replace(/\/+$/, '');

  const operationOf = (transaction: Transaction): OperationContract<Id> => {
    const path = transaction.request.uri.split('?')[0]!;
    const operation = operationAt(suite.operations, transaction.request.method, path);
    if (!operation) throw new Error(`Dredd made a transaction for ${transaction.request.method} ${path}, which the contract does not have`);
    return operation;
  };

  const installHooks = (hooks: DreddHooks) => {
    hooks.beforeEach((transaction, done) => {
      void (async () => {
        const operation = operationOf(transaction);
        const status = Number(transaction.expected.statusCode);
        seen.add(keyOf(operation.operationId, status));
        if (operations && !operations.has(named(operation.operationId))) {
          transaction.skip = true;
          leftOut++;
          return;
        }
        // The schema check in afterEach replaces Dredd's: its body check only
        // compares keys with the one example, and it wants the exact Content-Type.
        delete transaction.expected.body;
        transaction.expected.headers = {};
        try {
          const prepared = await suite.recipe(operation, status)(fixtures);
          // The recipe's path (with the ids of its fixtures) and query replace the examples Dredd filled in.
          const path = prepared.path ?? transaction.request.uri.split('?')[0];
          transaction.fullPath = `${prefix}${operation.basePath}${path}${prepared.query ?? ''}`;
          if (operation.requestMediaType) {
            transaction.request.body = prepared.rawBody ?? JSON.stringify(prepared.body);
            transaction.request.headers['Content-Type'] = prepared.contentType ?? operation.requestMediaType;
          }
          // Dredd sends the contract's example of every header parameter; a precondition or a key is the recipe's to set.
          delete transaction.request.headers['If-Match'];
          delete transaction.request.headers['If-None-Match'];
          delete transaction.request.headers['Idempotency-Key'];
          Object.assign(transaction.request.headers, prepared.headers);
        } catch (error) {
          if (error instanceof NotAvailable) {
            transaction.skip = true;
            notAvailable.set(error.message, [...(notAvailable.get(error.message) ?? []), `${operation.operationId} ${status}`]);
          } else {
            transaction.fail = `could not prepare the request: ${(error as Error).message}`;
          }
        }
      })().finally(done);
    });

    hooks.afterEach((transaction, done) => {
      const operation = operationOf(transaction);
      const real = transaction.real;
      if (real) {
        // Dredd leaves the body undefined when none came (a 204).
        let body: unknown = real.body ?? '';
        try {
          body = JSON.parse(real.body);
        } catch {
          // Not JSON: responseViolations says so where JSON is declared.
        }
        suite.created(operation, real.statusCode, body, fixtures);
        const violations = responseViolations(operation, {
          status: real.statusCode,
          contentType: real.headers['content-type'] ?? null,
          body,
        });
        if (violations.length > 0) transaction.fail = violations.join('; ');
      }
      // A request the recipe held open (409 idempotency_key_in_use) finishes now.
      fixtures.settle().then(done, (error: unknown) => {
        transaction.fail = `a held request failed: ${(error as Error).message}`;
        done();
      });
    });
  };

  (globalThis as Record<symbol, unknown>)[INSTALL_HOOKS] = installHooks;
  const emitter = new EventEmitter();
  emitter.on('test fail', (test: DreddTest) => failures.push(`${named(test.title)}: ${test.message?.trim().replace(/\s+/g, ' ')}`));
  emitter.on('test error', (error: Error, test: DreddTest) => failures.push(`${named(test.title)}: ${error.message}`));

  const Dredd = require('dredd') as DreddConstructor;
  const directory = await mkdtemp(join(tmpdir(), 'workspace-dredd-'));
  const dredd = new Dredd({
    endpoint: target.baseUrl,
    path: [await contractWithoutHead(suite.contract, directory)],
    hookfiles: [HOOK_BRIDGE],
    emitter,
    color: false,
    loglevel: 'silent',
  });
  try {
    const stats = await new Promise<{ tests: number; skipped: number; errors: number }>((resolve, reject) =>
      dredd.run((error, result) => (error ? reject(error) : resolve(result))),
    );
    // Every declared status must have been a transaction: Dredd merges
    // responses it considers equal, and a merged one would go unchecked.
    for (const operation of suite.operations.filter((candidate) => candidate.method !== 'head')) {
      for (const { status } of operation.responses) {
        if (!seen.has(keyOf(operation.operationId, status)))
          failures.push(named(`${operation.operationId} ${status}: Dredd made no transaction for this declared status`));
      }
    }
    return { transactions: stats.tests, skipped: stats.skipped, failures, notAvailable, leftOut };
  } finally {
    delete (globalThis as Record<symbol, unknown>)[INSTALL_HOOKS];
    await rm(directory, { recursive: true, force: true });
  }
}

/** Dredd's transactions, of `operations` only when given (named as the report names them). */
export async function runDredd(target: GateTarget, operations?: ReadonlySet<string>): Promise<CheckResult> {
  const fixtures = new Fixtures(target);
  silenceDredd();
  try {
    const workspace = await runSuite(target, WORKSPACE_SUITE, fixtures, operations);
    const scim = await runSuite(target, SCIM_SUITE, fixtures, operations);
    const failures = [...workspace.failures, ...scim.failures];
    const transactions = workspace.transactions + scim.transactions;
    const leftOut = workspace.leftOut + scim.leftOut;
    const skipped = workspace.skipped + scim.skipped - leftOut;
    const notChecked = [
      ...[...workspace.notAvailable].map(([reason, transactions]) => `${transactions.join(', ')}: ${reason}`),
      ...[...scim.notAvailable].map(([reason, transactions]) => `SCIM ${transactions.join(', ')}: ${reason}`),
    ];
    return {
      name: 'dredd',
      summary: `${transactions} transactions (${workspace.transactions} workspace, ${scim.transactions} SCIM), ${transactions - leftOut - skipped - failures.length} passed, ${failures.length} failed, ${skipped} not checked${leftOut > 0 ? `, ${leftOut} of other operations left out` : ''}`,
      failures,
      notChecked,
    };
  } finally {
    await fixtures.cleanup();
  }
}

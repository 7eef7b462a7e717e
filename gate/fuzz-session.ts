/**
 * What every fuzz exchange shares, whichever contract it fuzzes: sending a
 * request, judging the answer against the contract and against what is
 * stored, tallying the statuses reached, and reporting a failing property
 * with how to reproduce it.
 */
import fc from 'fast-check';
import type { OperationContract } from './contract-schemas.js';
import { responseViolations } from './contract-schemas.js';
import { Fixtures } from './fixtures.js';
import { type Answer, type RawRequest, send } from './http.js';
import type { GateTarget } from './target.js';

export interface FuzzOptions {
  seed: number;
  /** Valid requests per operation, and as many invalid ones. */
  runs: number;
}

/** How one contract reads an answer: what a malformed-request refusal looks like, and what an answer created. */
export interface FuzzDialect {
  /** Whether the answer refuses the request as malformed: the server would be stricter than its contract. */
  refusedAsMalformed(answer: Answer): boolean;
  /** Whether the answer says something was changed (the store may differ afterwards). */
  changed(answer: Answer): boolean;
  /** Remembers what the answer created, for the fixtures' cleanup. */
  created(operation: OperationContract, answer: Answer, fixtures: Fixtures): void;
}

export class FuzzSession {
  readonly target: GateTarget;
  readonly options: FuzzOptions;
  readonly fixtures: Fixtures;
  readonly failures: string[] = [];
  readonly notChecked: string[] = [];
  readonly counts = { valid: 0, invalid: 0 };
  operations = 0;
  requests = 0;
  /** Statuses seen, per operation and kind of request: shows what the fuzz reached. */
  readonly #seen = new Map<string, Map<number, number>>();
  #stored = '';

  readonly #operations: ReadonlySet<string> | undefined;

  constructor(target: GateTarget, options: FuzzOptions, operations?: ReadonlySet<string>) {
    this.target = target;
    this.options = options;
    this.#operations = operations;
    this.fixtures = new Fixtures(target);
  }

  /** Whether the run fuzzes the operation of this label (all, unless narrowed). */
  covers(label: string): boolean {
    return !this.#operations || this.#operations.has(label);
  }

  /** Takes what is stored now as what a refused request must leave. */
  async settle(): Promise<void> {
    this.#stored = await this.target.snapshot();
  }

  /** Sends one request and returns what is wrong with the answer. */
  async exchange(
    label: string,
    operation: OperationContract,
    request: RawRequest,
    valid: boolean,
    dialect: FuzzDialect,
  ): Promise<string[]> {
    this.requests++;
    this.counts[valid ? 'valid' : 'invalid']++;
    let answer: Answer;
    try {
      answer = await send(this.target.baseUrl, request);
    } catch (error) {
      return [`no answer: ${(error as Error).message}`];
    }
    const key = `${label} ${valid ? 'valid' : 'invalid'}`;
    const tally = this.#seen.get(key) ?? new Map<number, number>();
    tally.set(answer.status, (tally.get(answer.status) ?? 0) + 1);
    this.#seen.set(key, tally);
    dialect.created(operation, answer, this.fixtures);
    const problems = responseViolations(operation, answer);
    if (answer.status >= 500) problems.unshift(`answered ${answer.status}${this.#serviceError()}`);
    if (valid && dialect.refusedAsMalformed(answer)) problems.push('a request the contract accepts was refused as malformed');
    if (!valid && answer.status !== 400) problems.push(`a request the contract refuses got ${answer.status}, not 400`);
    const now = await this.target.snapshot();
    if (!dialect.changed(answer) && now !== this.#stored) problems.push(`a refused request (${answer.status}) changed what is stored`);
    this.#stored = now;
    return problems.map((problem) => `${problem} [${answer.status} ${answer.text.slice(0, 160)}]`);
  }

  /** Throws the problems of one exchange, with the request as sent, but never the key's secret. */
  fail(problems: string[], request: unknown): void {
    const shown = JSON.stringify(request).replaceAll(this.target.admin.api_key_secret, '****').slice(0, 400);
    if (problems.length > 0) throw new Error(`${problems.join('; ')} — request ${shown}`);
  }

  /** Checks `property` on `runs` generated values: the run's setting unless the property has fewer to give. */
  async check(label: string, kind: string, property: fc.IAsyncProperty<any>, seed: number, runs = this.options.runs): Promise<void> {
    const details = await fc.check(property, { seed, numRuns: runs, endOnFailure: true });
    if (details.failed) {
      const reproduce = `FUZZ_SEED=${this.options.seed} (this check: seed ${seed}, path ${details.counterexamplePath})`;
      this.failures.push(
        `${label}, ${kind}: ${(details.errorInstance as Error | undefined)?.message ?? 'failed'} — reproduce with ${reproduce}`,
      );
    }
  }

  /** Each operation's tally of statuses, e.g. "getUser valid: 200×65 401×13 404×22". */
  details(): string[] {
    return [...this.#seen].map(
      ([label, tally]) =>
        `${label}: ${[...tally]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
    );
  }

  /** What the service logged about its last failure, when the gate runs it: the cause of a 5xx, for the report. */
  #serviceError(): string {
    const line = this.target
      .logs()
      .trim()
      .split('\n')
      .findLast((entry) => entry.includes('"level":50') && entry.includes('"err"'));
    if (!line) return '';
    try {
      const { err, msg } = JSON.parse(line) as { err?: { type?: string; message?: string; stack?: string }; msg?: string };
      return ` (the service logged: ${err ? `${err.type}: ${err.message} ${err.stack?.split('\n')[1]?.trim() ?? ''}` : msg})`;
    } catch {
      return ` (the service logged: ${line.slice(0, 300)})`;
    }
  }
}

/**
 * What every scenario of `npm run bench` measures with: the run's settings,
 * servers started as processes of their own, a load (autocannon), and a
 * comparison of contenders in interleaved rounds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { freePort } from '../../lib/testing/ports.js';
import { YOUNG_GENERATION_FLAG } from '../../server/heap.js';

/** The large directory's users: BENCH_LARGE_USERS (the bench's smoke test takes fewer), 100,000 by default. */
export const LARGE_USERS = Number(process.env.BENCH_LARGE_USERS) || 100_000;

/** `--quick`: 2 s per scenario, comparisons of 5 rounds of 2 s. */
export const quick = process.argv.includes('--quick');
export const DURATION_S = Number(process.env.BENCH_DURATION_S) || (quick ? 2 : 10);
/** Connections of each load under test: BENCH_CONNECTIONS (the bench's smoke test takes fewer), 50 by default. */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS) || 50;
export const MEMORY_DURATION_S = Number(process.env.BENCH_MEMORY_DURATION_S) || (quick ? 4 : 60);
/** Audit events scenario (k) pages through. */
export const AUDIT_EVENTS = Number(process.env.BENCH_AUDIT_EVENTS) || (quick ? 100_000 : 1_000_000);
/**
 * Rounds of a comparison (at least five), and each contender's load per round, in seconds. A
 * quick round is 2 s: the service's 50 connections take about 0.4 s to open under load, and
 * the rate is read once they are (Latencies), so a round of 1 s left some 0.6 s to read it
 * in, and its ratios spread too far for a median of five to tell 0.85× from 0.95×
 * (BENCHMARKS.md, 2026-11-28).
 */
export const ROUNDS = Math.max(5, Number(process.env.BENCH_ROUNDS) || (quick ? 5 : 7));
export const ROUND_S = Number(process.env.BENCH_ROUND_S) || (quick ? 2 : 3);

export interface Measured {
  name: string;
  /** Answers per second: once every connection of the load was open where the load allows it (`steadyRps`), else `overallRps`. */
  rps: number;
  /** Answers per second over the whole load. */
  overallRps: number;
  /** Answers per second once every connection was open (Latencies.steadyRate), where most answers came then. */
  steadyRps?: number | undefined;
  /** Latency of the answers on connections already open: each connection's first answer is left out (`firstAnswers`). */
  p50: number;
  p99: number;
  /**
   * When the slowest connection got its first answer, in ms from the load's start. Node accepts
   * one new connection per turn of a busy event loop, so the last of 50 connections opened at
   * once waits for the turns of those before it: a figure of the turn's length, apart from the
   * operation's own latency.
   */
  firstAnswers: number;
  errors: number;
  /** The server's CPU time (all its threads) per request answered, in µs: a figure that holds across machines better than req/s. */
  cpuUsPerRequest?: number | undefined;
}

export interface Running {
  url: string;
  child: ChildProcess;
  startedAt: number;
  readyAt: number;
  stop(): Promise<void>;
}

/**
 * The service and the sample server run as `npm start` runs them: compiled, by
 * node alone (`npm run bench` builds first). The bench's own servers run under tsx.
 */
export const SERVICE = 'server/dist/server/main.js';
export const SAMPLE = 'server/dist/server/sample/main.js';
/** The service assembled without a part, to show what the part costs (variant-server.ts). */
export const VARIANT_SERVER = 'scripts/bench/variant-server.ts';

/** The servers this run started, by origin: whose CPU time a load against them is charged with. */
const serversByOrigin = new Map<string, ChildProcess>();

/** Clock ticks per second in /proc/<pid>/stat (USER_HZ): 100 on Linux, whatever the kernel's own rate. */
const USER_HZ = 100;

/** CPU time a process has used so far, every thread's, user and system, in ms (proc(5), /proc/<pid>/stat fields 14 and 15). */
function cpuMs(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count from the parenthesis that ends it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/**
 * Runs `work` (a load on `url`) and charges the CPU time its server spent meanwhile to the
 * requests it answered: µs per request, or undefined for a server this run did not start.
 */
async function withCpuTime(
  url: string | undefined,
  work: () => Promise<autocannon.Result>,
): Promise<{ result: autocannon.Result; cpuUs?: number }> {
  const server = url === undefined ? undefined : serversByOrigin.get(new URL(url).origin);
  const before = server ? cpuMs(server) : 0;
  const result = await work();
  if (!server || result.requests.total === 0) return { result };
  return { result, cpuUs: Math.round(((cpuMs(server) - before) * 1000) / result.requests.total) };
}

/** Starts a server script and waits for its first 200 on `probe`. */
export async function startServer(
  script: string,
  env: Record<string, string>,
  probe: (url: string) => Promise<Response>,
): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // The service, and its variants, with the flags `npm start` gives it (server/heap.ts).
  const flags = script === SERVICE || script === VARIANT_SERVER ? [YOUNG_GENERATION_FLAG] : [];
  const child = spawn(process.execPath, [...loader, ...flags, join(PROJECT_ROOT, script)], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await probe(url)).status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - startedAt > 30_000) throw new Error(`${script} did not answer within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  serversByOrigin.set(url, child);
  return {
    url,
    child,
    startedAt,
    readyAt: performance.now(),
    async stop() {
      serversByOrigin.delete(url);
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * Copies a database that no process has open, with its write-ahead log if one is left: servers
 * compared side by side each get a copy of their own, so that none works off the log, the
 * checkpoints or the rows the other left behind.
 */
export async function copyDatabase(from: string, to: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(from + suffix)) await copyFile(from + suffix, to + suffix);
}

/** Ready for traffic: /readyz, since /healthz answers 200 while the database still migrates. */
export const ready = (url: string) => fetch(`${url}/readyz`);

export function rssMegabytes(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/**
 * How often autocannon samples. It stops a load at the first sample after its
 * duration, so at its default of a second a one-second load would take up to two.
 */
export const SAMPLE_MS = 100;

export async function load(name: string, options: autocannon.Options): Promise<Measured> {
  const latencies = new Latencies();
  const { result, cpuUs } = await withCpuTime(options.url, () =>
    recorded({ connections: CONNECTIONS, duration: DURATION_S, sampleInt: SAMPLE_MS, ...options }, latencies),
  );
  return measured(name, result, latencies, cpuUs);
}

/** An autocannon load whose every answer `latencies` records. */
export function recorded(options: autocannon.Options, latencies: Latencies): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    latencies.of(
      autocannon(options, (error, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result))),
    );
  });
}

/**
 * Every answer of a load: its latency, its time and its connection. autocannon opens its
 * connections as a load starts, and a connection's first request waits for the server to
 * accept it: one connection per turn of its event loop (Node), so under load the last of 50
 * connections waits for the turns of the 49 before it, and until then the server answers fewer
 * connections than the load has. That start is kept apart: the p50 and p99 are those of the
 * answers on open connections, and the rate is the one once every connection is open, as a
 * client that keeps its connections sees them.
 */
export class Latencies {
  readonly #steady: number[] = [];
  /** When each answer came, in ms from the load's start, in order. */
  readonly #answeredAt: number[] = [];
  #firstAnswers = 0;
  readonly #answered = new WeakSet<object>();
  #startedAt = 0;

  /** Records the answers of `instance`, an autocannon load starting now. */
  of(instance: autocannon.Instance): void {
    this.#startedAt = performance.now();
    instance.on('response', (client, _status, _bytes, milliseconds) =>
      this.answered(client, milliseconds, performance.now() - this.#startedAt),
    );
  }

  /** An answer on `client`'s connection that took `milliseconds`, `at` ms from the load's start. */
  answered(client: object, milliseconds: number, at: number): void {
    this.#answeredAt.push(at);
    if (this.#answered.has(client)) {
      this.#steady.push(milliseconds);
    } else {
      this.#answered.add(client);
      this.#firstAnswers = Math.max(this.#firstAnswers, at);
    }
  }

  /**
   * Answers per second once every connection was open: those after the last connection's first
   * answer, up to the last answer. Undefined where that leaves less than half of the load's
   * answers (a load too short for its connections to open), whose rate is then its whole.
   */
  get steadyRate(): number | undefined {
    const since = this.#firstAnswers;
    const after = this.#answeredAt.filter((at) => at > since).length;
    const window = (this.#answeredAt.at(-1) ?? 0) - since;
    return after > 0 && window > 0 && after >= this.#answeredAt.length / 2 ? (after * 1000) / window : undefined;
  }

  /** The `fraction` quantile of the answers on open connections, in ms to a tenth; 0 with none. */
  quantile(fraction: number): number {
    if (this.#steady.length === 0) return 0;
    const sorted = this.#steady.toSorted((x, y) => x - y);
    return Number(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!.toFixed(1));
  }

  /** When the last connection got its first answer, in ms from the load's start. */
  get firstAnswers(): number {
    return Math.round(this.#firstAnswers);
  }
}

/**
 * A load's figures; req/s once every connection was open, or else from the requests completed
 * and the time they took (autocannon's average is per sample).
 */
export function measured(name: string, result: autocannon.Result, latencies: Latencies, cpuUsPerRequest?: number): Measured {
  const overallRps = result.requests.total / result.duration;
  const steadyRps = latencies.steadyRate;
  return {
    name,
    rps: Math.round(steadyRps ?? overallRps),
    overallRps,
    steadyRps,
    p50: latencies.quantile(0.5),
    p99: latencies.quantile(0.99),
    firstAnswers: latencies.firstAnswers,
    errors: result.errors + result.timeouts + result.non2xx,
    cpuUsPerRequest,
  };
}

/** A POST whose body is built afresh for every request. */
export function posting(path: string, body: () => unknown): autocannon.Options['requests'] {
  return [
    {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      setupRequest: (request) => ({ ...request, body: JSON.stringify(body()) }),
    },
  ];
}

export const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One side of a comparison: a server, or several side by side sharing the connections, and the load it gets. */
export interface Contender {
  name: string;
  url: string | string[];
  requests: autocannon.Options['requests'];
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/**
 * A load split evenly over `urls` (instances side by side), as one contender's figures: req/s
 * and errors summed, the slowest instance's p50, p99 and first answers, and the CPU time of every instance
 * this run started over all their requests.
 */
async function loadAcross(
  name: string,
  urls: readonly string[],
  options: { duration: number; requests: autocannon.Options['requests'] },
): Promise<Measured> {
  const servers = urls.map((url) => serversByOrigin.get(new URL(url).origin));
  const cpuBefore = servers.map((server) => (server ? cpuMs(server) : 0));
  const latencies = urls.map(() => new Latencies());
  const results = await Promise.all(
    urls.map((url, index) =>
      recorded(
        {
          url,
          connections: Math.ceil(CONNECTIONS / urls.length),
          duration: options.duration,
          sampleInt: SAMPLE_MS,
          requests: options.requests,
        },
        latencies[index]!,
      ),
    ),
  );
  const overallRps = sum(results.map((result) => result.requests.total / result.duration));
  const steadyRates = latencies.map((instance) => instance.steadyRate);
  const steadyRps = steadyRates.every((rate) => rate !== undefined) ? sum(steadyRates) : undefined;
  const answered = sum(results.map((result) => result.requests.total));
  const cpuUs =
    answered > 0 && servers.every((server) => server !== undefined)
      ? Math.round((sum(servers.map((server, index) => cpuMs(server) - cpuBefore[index]!)) * 1000) / answered)
      : undefined;
  const started = servers.filter((server) => server !== undefined);
  if (started.length > 0) await untilQuiet(() => started.map(cpuMs));
  return {
    name,
    rps: Math.round(steadyRps ?? overallRps),
    overallRps,
    steadyRps,
    p50: Math.max(...latencies.map((instance) => instance.quantile(0.5))),
    p99: Math.max(...latencies.map((instance) => instance.quantile(0.99))),
    firstAnswers: Math.max(...latencies.map((instance) => instance.firstAnswers)),
    errors: sum(results.map((result) => result.errors + result.timeouts + result.non2xx)),
    cpuUsPerRequest: cpuUs,
  };
}

/** When a contender's servers are at rest after its load: their CPU time unchanged over three reads 25 ms apart, or 15 s at most. */
const QUIET = { pollMs: 25, quietPolls: 3, withinMs: 15_000 };

/**
 * Resolves once the CPU time `cpuOf` reads (each server's, in ms) has not moved over
 * `quietPolls` reads in a row, `pollMs` apart, or after `withinMs` whatever it does. A load
 * ends with its connections' last requests still in its servers, which go on answering
 * them: on PostgreSQL each write waits for the event sequencer, held by one instance at a time
 * for the cluster (audit-repository.ts), so the next contender's round would begin behind
 * the queue the last one left; a service with a webhook goes on delivering what it deferred.
 * The clock and the pause are parameters for the tests.
 */
export async function untilQuiet(
  cpuOf: () => readonly number[],
  { pollMs, quietPolls, withinMs }: typeof QUIET = QUIET,
  clock: { now: () => number; pause: (ms: number) => Promise<void> } = {
    now: () => performance.now(),
    pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  },
): Promise<void> {
  const deadline = clock.now() + withinMs;
  let last = cpuOf();
  let unchanged = 0;
  while (unchanged < quietPolls && clock.now() < deadline) {
    await clock.pause(pollMs);
    const current = cpuOf();
    unchanged = current.every((ms, index) => ms === last[index]) ? unchanged + 1 : 0;
    last = current;
  }
}

/** A contender's ratio to the first of its comparison (of req/s, or of p99): the median of the per-round ratios, and their range. */
export interface Ratio {
  median: number;
  low: number;
  high: number;
  rounds: number;
}

/**
 * The order of a comparison's loads in round `round`: the first contender, which every ratio is
 * to, in the middle, the others at its sides; the whole order reversed in odd rounds, so that no
 * contender is always the one measured later. With three contenders each of the others then runs
 * right beside the first (1 0 2, then 2 0 1): in the order 0 1 2 the third ran two loads away from
 * the first, and its ratio took in the machine's drift over twice the time (BENCHMARKS.md, 2026-12-07).
 */
export function roundOrder(contenders: number, round: number): number[] {
  const others = Array.from({ length: contenders - 1 }, (_, index) => index + 1);
  const before = others.slice(0, Math.floor(others.length / 2));
  const order = [...before, 0, ...others.slice(before.length)];
  return round % 2 === 1 ? order.reverse() : order;
}

/**
 * The contenders in interleaved rounds (roundOrder), after a warm-up round each that is not
 * counted. Each contender's figures are the medians of its rounds; each ratio is to the first
 * contender, round by round.
 */
export async function compare(contenders: Contender[]): Promise<{ results: Measured[]; ratios: Ratio[]; p99Ratios: Ratio[] }> {
  const run = (contender: Contender, duration: number) =>
    loadAcross(contender.name, typeof contender.url === 'string' ? [contender.url] : contender.url, {
      duration,
      requests: contender.requests,
    });
  for (const contender of contenders) await run(contender, Math.min(1, ROUND_S));
  const rounds: Measured[][] = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of roundOrder(contenders.length, round)) rounds[index]!.push(await run(contenders[index]!, ROUND_S));
  }
  const results = contenders.map((contender, index) => {
    const mine = rounds[index]!;
    return {
      name: contender.name,
      rps: Math.round(median(mine.map((round) => round.rps))),
      overallRps: median(mine.map((round) => round.overallRps)),
      p50: median(mine.map((round) => round.p50)),
      p99: median(mine.map((round) => round.p99)),
      firstAnswers: median(mine.map((round) => round.firstAnswers)),
      errors: mine.reduce((sum, round) => sum + round.errors, 0),
      cpuUsPerRequest: mine.every((round) => round.cpuUsPerRequest !== undefined)
        ? median(mine.map((round) => round.cpuUsPerRequest!))
        : undefined,
    };
  });
  const ratiosOf = (figure: (round: Measured, index: number) => number) =>
    rounds.slice(1).map((mine) => {
      // A round in which the first contender answered nothing (a machine busy with other work, in a
      // short round) has no ratio: it is left out, rather than counted as infinite.
      const perRound = mine.flatMap((round, index) => {
        const base = figure(rounds[0]![index]!, index);
        return base > 0 ? [figure(round, index) / base] : [];
      });
      if (perRound.length === 0) return { median: 0, low: 0, high: 0, rounds: ROUNDS };
      const round3 = (value: number) => Number(value.toFixed(3));
      return { median: round3(median(perRound)), low: round3(Math.min(...perRound)), high: round3(Math.max(...perRound)), rounds: ROUNDS };
    });
  return { results, ratios: ratiosOf(comparableRate(rounds)), p99Ratios: ratiosOf((round) => round.p99) };
}

/**
 * The rate of each contender's round (rounds[contender][round]) to compare with the others' in
 * that round, like with like: once every connection was open where every contender's load allowed
 * it, else over the whole loads (a server slow to accept its connections, the Prism mock, leaves
 * too little of a short round once they are open).
 */
export function comparableRate(rounds: readonly (readonly Measured[])[]): (round: Measured, index: number) => number {
  const steadyIn = (index: number) => rounds.every((mine) => mine[index]?.steadyRps !== undefined);
  return (round, index) => (steadyIn(index) ? round.steadyRps! : round.overallRps);
}

export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Users drawn at random, each with the opposite of the state it was last sent: so that
 * every change really changes something (a no-op PATCH writes nothing and would flatter it).
 */
export function toggling(userIds: string[]): () => { userId: string; disabled: boolean } {
  const disabled = new Map<string, boolean>();
  return () => {
    const userId = pick(userIds);
    const next = !(disabled.get(userId) ?? false);
    disabled.set(userId, next);
    return { userId, disabled: next };
  };
}

export const shown = (ratio: Ratio) =>
  `${ratio.median.toFixed(2)}× (median of ${ratio.rounds} interleaved rounds, ${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)})`;

/** What a scenario adds to the run: its lines of the table, its figures and ratios, and what it says below the table. */
export interface ScenarioOutcome {
  results: Measured[];
  figures: Record<string, number>;
  comparisons: Record<string, Ratio>;
  lines: string[];
}

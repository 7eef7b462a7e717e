/**
 * The two checks that put Prism beside the real service:
 * - proxy: the integration traffic goes through `prism proxy --errors` to the
 *   target, and Prism must report no violation of the contract, either way;
 * - parity: the SDK's happy path against the Prism mock and against the
 *   target; both must answer every call with a 200 the contract accepts.
 */

import { freePort } from '../lib/testing/ports.js';
import { startPrism } from '../lib/prism.js';
import { Fixtures, NotAvailable } from './fixtures.js';
import type { CheckResult } from './report.js';
import { type Exchange, errorPaths, exchangeViolations, happyPath } from './scenario.js';
import type { GateTarget } from './target.js';

/** A group the happy path may join and leave, or why there is none. */
async function groupFor(fixtures: Fixtures, notChecked: string[]): Promise<string | undefined> {
  try {
    return (await fixtures.group()).group_id;
  } catch (error) {
    if (!(error instanceof NotAvailable)) throw error;
    notChecked.push(`joining and leaving a group: ${error.message}`);
    return undefined;
  }
}

function expectStatuses(label: string, exchanges: Exchange[], expected: number[]): string[] {
  const got = exchanges.map((exchange) => exchange.status);
  return got.join() === expected.join() ? [] : [`${label}: statuses ${got.join(' ')}, expected ${expected.join(' ')}`];
}

const HAPPY = Array<number>(14).fill(200);

export async function runProxyCheck(target: GateTarget): Promise<CheckResult> {
  const fixtures = new Fixtures(target);
  const notChecked: string[] = [];
  const proxy = await startPrism('workspace', await freePort(), '127.0.0.1', 'pipe', target.baseUrl);
  try {
    const groupId = await groupFor(fixtures, notChecked);
    let limited: Awaited<ReturnType<Fixtures['limitedKey']>> | undefined;
    try {
      limited = await fixtures.limitedKey();
    } catch (error) {
      if (!(error instanceof NotAvailable)) throw error;
      notChecked.push(`403 through the proxy: ${error.message}`);
    }
    const options = { baseUrl: proxy.url, credentials: target.admin, groupId };
    const happy = await happyPath(options, fixtures.username());
    const errors = await errorPaths(options, fixtures, { limited });
    const failures = [
      ...exchangeViolations([...happy, ...errors]),
      ...expectStatuses('happy path through the proxy', happy, groupId ? HAPPY : happy.map((exchange) => exchange.status)),
      ...expectStatuses('error paths through the proxy', errors, [404, 409, 404, 401, ...(limited ? [403] : [])]),
    ];
    return {
      name: 'prism proxy',
      summary: `${happy.length + errors.length} SDK calls through prism proxy --errors, ${failures.length} violations`,
      failures,
      notChecked,
    };
  } finally {
    await proxy.stop();
    await fixtures.cleanup();
  }
}

export async function runMockParity(target: GateTarget): Promise<CheckResult> {
  const fixtures = new Fixtures(target);
  const notChecked: string[] = [];
  const mock = await startPrism('workspace', await freePort());
  try {
    const groupId = await groupFor(fixtures, notChecked);
    const fromMock = await happyPath({ baseUrl: mock.url, credentials: target.admin }, 'alice@example.com');
    const fromTarget = await happyPath({ baseUrl: target.baseUrl, credentials: target.admin, groupId }, fixtures.username());
    const sequence = (exchanges: Exchange[]) => exchanges.map((exchange) => exchange.operationId).join(' ');
    const failures = [
      ...exchangeViolations(fromMock).map((problem) => `mock: ${problem}`),
      ...exchangeViolations(fromTarget).map((problem) => `service: ${problem}`),
      ...expectStatuses('mock', fromMock, HAPPY),
      ...expectStatuses('service', fromTarget, groupId ? HAPPY : fromTarget.map((exchange) => exchange.status)),
      ...(sequence(fromMock) === sequence(fromTarget)
        ? []
        : [`the calls differ: mock ${sequence(fromMock)}; service ${sequence(fromTarget)}`]),
    ];
    return {
      name: 'mock parity',
      summary: `the SDK's happy path (${fromMock.length} calls) against the Prism mock and the service, ${failures.length} differences`,
      failures,
      notChecked,
    };
  } finally {
    await mock.stop();
    await fixtures.cleanup();
  }
}

/**
 * An acknowledged update is never lost, nor its event or the event's webhook
 * delivery, and a stop never leaves anything half-written: the service is
 * killed with SIGKILL in the middle of a burst of updates, five times, and
 * stopped with SIGTERM under load.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteLibrary from 'better-sqlite3';
import { verifyPassword } from './testing/passwords.js';
import { startServiceProcess } from '../lib/testing/service-process.js';

const WORKERS = 8;
const USERS_PER_WORKER = 4;
const ROUNDS = 5;

type Key = { api_key: string; api_key_secret: string };

async function post(url: string, operation: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/api/public/${operation}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * One request on a connection of its own (no keep-alive), so that "in flight"
 * means exactly "accepted by the server": no request can be sent on a pooled
 * connection the server is just closing.
 */
function postOnFreshConnection(url: string, operation: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}/api/public/${operation}`,
      { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json' } },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

function readDatabase(path: string): { organizations: Map<string, string>; integrity: string; synchronous: number } {
  const database = new SqliteLibrary(path, { readonly: true });
  try {
    const rows = database.prepare('select user_id, organization from users').all() as { user_id: string; organization: string }[];
    return {
      organizations: new Map(rows.map((row) => [row.user_id, row.organization])),
      integrity: database.pragma('integrity_check', { simple: true }) as string,
      synchronous: database.pragma('synchronous', { simple: true }) as number,
    };
  } finally {
    database.close();
  }
}

/** Each user's version as stored. */
function readVersions(path: string): Map<string, number> {
  const database = new SqliteLibrary(path, { readonly: true });
  try {
    const rows = database.prepare('select user_id, version from users').all() as { user_id: string; version: number }[];
    return new Map(rows.map((row) => [row.user_id, row.version]));
  } finally {
    database.close();
  }
}

describe('durability', { timeout: 120_000 }, () => {
  let directory: string;
  let databasePath: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-durability-'));
    databasePath = join(directory, 'workspace.db');
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it(`keeps every acknowledged update, its event and the event's delivery, across ${ROUNDS} SIGKILLs at random moments`, async (t) => {
    // A receiver of every user event, subscribed before the load: each delivery's webhook-id, kept.
    const delivered = new Set<string>();
    const receiver = createServer((request, response) => {
      delivered.add(String(request.headers['webhook-id']));
      request.resume().on('end', () => response.writeHead(204).end());
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const env = { DATABASE_URL: `sqlite:${databasePath}`, WEBHOOK_ALLOW_PRIVATE: 'true' };
    let service = await startServiceProcess(env);
    // Whatever the outcome, nothing is left running to hold the test's process open.
    t.after(async () => {
      receiver.closeAllConnections();
      receiver.close();
      await service.stop('SIGKILL');
    });
    const key: Key = service.printedKey()!;
    const hook = await post(service.url, 'create_webhook', {
      ...key,
      target_webhook: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, event_types: ['user.*'] },
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    // Each worker owns its users, so the order of its writes to each is known.
    const users: string[][] = [];
    for (let worker = 0; worker < WORKERS; worker++) {
      users.push([]);
      for (let i = 0; i < USERS_PER_WORKER; i++) {
        const created = await post(service.url, 'create_user', { ...key, target_user: { username: `w${worker}-u${i}@example.com` } });
        users[worker]!.push(created.body.user.user_id);
      }
    }
    /** Per user: the last value answered 200, and the value in flight (if any) when the process died. */
    const acknowledged = new Map<string, string>();
    /** Per user: how many of its updates were answered 200. */
    const answered = new Map<string, number>();
    const inFlight = new Map<string, string>();

    for (let round = 0; round < ROUNDS; round++) {
      let sequence = 0;
      let stopped = false;
      // The kill comes at a random moment after the round's first acknowledged update, so that a
      // slow first answer (a loaded machine) cannot leave a round with nothing to check.
      let firstAcknowledged!: () => void;
      const acknowledging = new Promise<void>((resolve) => (firstAcknowledged = resolve));
      const workers = users.map(async (owned, worker) => {
        while (!stopped) {
          const user_id = owned[sequence % owned.length]!;
          const value = `r${round}-w${worker}-${sequence++}`;
          inFlight.set(user_id, value);
          try {
            const answer = await post(service.url, 'update_user', { ...key, target_user: { user_id, organization: value } });
            if (answer.status !== 200) throw new Error(`update answered ${answer.status}`);
            acknowledged.set(user_id, value);
            firstAcknowledged();
            answered.set(user_id, (answered.get(user_id) ?? 0) + 1);
            inFlight.delete(user_id);
          } catch {
            return; // The process is gone: this request may or may not have been committed.
          }
        }
      });
      const waited = await Promise.race([
        acknowledging.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 20_000).unref()),
      ]);
      assert.ok(waited, `round ${round}: no update was acknowledged within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.floor(Math.random() * 450)));
      await service.stop('SIGKILL');
      stopped = true;
      await Promise.all(workers);

      const { organizations, integrity, synchronous } = readDatabase(databasePath);
      assert.equal(integrity, 'ok', `round ${round}`);
      assert.ok(synchronous >= 0);
      assert.ok(acknowledged.size > 0, 'some updates were acknowledged');
      for (const [user_id, value] of acknowledged) {
        const stored = organizations.get(user_id)!;
        // Either what was acknowledged, or the write that was in flight when the process died.
        assert.ok(
          stored === value || stored === inFlight.get(user_id),
          `round ${round}: ${user_id} holds "${stored}", acknowledged "${value}"`,
        );
        // Checked, the stored value is what the next round must keep (it may be a committed, unanswered write).
        acknowledged.set(user_id, stored);
      }
      inFlight.clear();
      service = await startServiceProcess(env);
    }

    // Every committed change has its event, once, in the feed: each user's events carry the versions
    // 1 (created) to the one it is at now, none missing and none twice, and no fewer updates than were answered.
    const versions = new Map<string, number[]>();
    const eventIds: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await post(service.url, 'get_events', { ...key, types: ['user.*'], limit: 1000, ...(after ? { after } : {}) });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      for (const event of page.body.events as { event_id: string; data: { resource: { id: string; version: number } } }[]) {
        eventIds.push(event.event_id);
        versions.set(event.data.resource.id, [...(versions.get(event.data.resource.id) ?? []), event.data.resource.version]);
      }
      after = page.body.next_cursor;
      if (page.body.events.length < 1000) break;
    }
    // And every one of them delivered (at least once): those claimed when a kill came are sent again at the next start.
    const undelivered = () => eventIds.filter((eventId) => !delivered.has(eventId));
    for (let waited = 0; undelivered().length > 0 && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(undelivered(), [], `${undelivered().length} of ${eventIds.length} events not delivered`);
    await service.stop('SIGTERM');
    const stored = readVersions(databasePath);
    for (const user_id of users.flat()) {
      const told = versions.get(user_id) ?? [];
      const now = stored.get(user_id)!;
      assert.deepEqual(
        told,
        Array.from({ length: now }, (_, index) => index + 1),
        `${user_id}: the events of versions 1 to ${now}`,
      );
      assert.ok(now - 1 >= (answered.get(user_id) ?? 0), `${user_id}: every answered update is among them`);
    }
  });

  it('on SIGTERM under load: answers what it started, refuses the rest cleanly, exits 0, half-writes nothing', async () => {
    const path = join(directory, 'sigterm.db');
    const service = await startServiceProcess({ DATABASE_URL: `sqlite:${path}` });
    const key: Key = service.printedKey()!;
    const users: string[] = [];
    for (let i = 0; i < 24; i++) {
      const created = await post(service.url, 'create_user', {
        ...key,
        target_user: { username: `busy${i}@example.com`, password: 'Old-Password-1' },
      });
      users.push(created.body.user.user_id);
    }

    // Password changes take tens of milliseconds each (argon2id), so many are in flight when SIGTERM lands.
    let signalledAt = Infinity;
    const changes = users.map(async (user_id, i) => {
      const password = `New-Password-${i}!`;
      try {
        const answer = await postOnFreshConnection(service.url, 'update_user', { ...key, target_user: { user_id, password } });
        return { user_id, password, status: answer.status, at: performance.now() };
      } catch (error) {
        return { user_id, password, status: 0, error: (error as NodeJS.ErrnoException).code, at: performance.now() };
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    signalledAt = performance.now();
    const exit = service.stop('SIGTERM');
    const results = await Promise.all(changes);

    assert.equal(await exit, 0);
    await assert.rejects(fetch(`${service.url}/healthz`), 'no new connection after shutdown');
    assert.match(service.stdout(), /"msg":"stopped"/);
    assert.ok(
      results.some((result) => result.status === 200 && result.at > signalledAt),
      'requests in flight at SIGTERM were answered',
    );

    // A connection the server had accepted but not yet read when it closed is refused, as with any server
    // (drain the load balancer first); what matters is that it changed nothing.
    const database = new SqliteLibrary(path, { readonly: true });
    try {
      assert.equal(database.pragma('integrity_check', { simple: true }), 'ok');
      const hashOf = database.prepare('select password_hash from users where user_id = ?');
      for (const result of results) {
        const hash = (hashOf.get(result.user_id) as { password_hash: string }).password_hash;
        if (result.status === 200) {
          assert.ok(await verifyPassword(hash, result.password), 'an answered change is stored');
        } else {
          assert.ok(['ECONNRESET', 'ECONNREFUSED'].includes(result.error ?? ''), `unexpected ${result.status} ${result.error}`);
          assert.ok(await verifyPassword(hash, 'Old-Password-1'), 'a refused change left the user as it was');
        }
      }
    } finally {
      database.close();
    }
  });
});

/**
 * Fills a SQLite database with users for the benchmark: the real migrations
 * through openStore, then one bulk transaction (going through the API would
 * spend the whole run on fsyncs).
 */
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import SqliteLibrary from 'better-sqlite3';
import pg from 'pg';
import { PERMISSIONS } from '../../lib/contract/operations.js';
import { createDirectory } from '../../server/directory/index.js';
import { issueApiKey } from '../../server/keys/api-keys.js';
import { openStore } from '../../server/store/open-store.js';
import type { ChangeAuthor } from '../../server/store/records.js';

/** The bench's keys and users are its own setup: audited under this name. */
const BENCH_SEED: ChangeAuthor = { actor: 'bench-seed', requestId: null, protocol: null };

export interface SeededDatabase {
  userIds: string[];
  /** The users' usernames, in the order of their ids. */
  usernames: string[];
  credentials: { api_key: string; api_key_secret: string };
}

export async function seedUsers(path: string, count: number): Promise<SeededDatabase> {
  const store = await openStore(`sqlite:${path}`);
  const key = issueApiKey('benchmark', PERMISSIONS, null);
  await store.apiKeys.insert(key.record, BENCH_SEED);
  const allUsers = (await store.groups.list())[0]!.group_id;
  await store.close();

  const database = new SqliteLibrary(path);
  const userIds: string[] = [];
  const usernames: string[] = [];
  const insertUser = database.prepare(
    `insert into users (user_id, username, first_name, last_name, phone, organization, locked, disabled, realm, password_hash, created)
     values (?, ?, ?, ?, '', '', 0, 0, 'local', null, ?)`,
  );
  const insertMembership = database.prepare('insert into user_groups (user_id, group_id) values (?, ?)');
  database.transaction(() => {
    for (let i = 0; i < count; i++) {
      const userId = randomBytes(16).toString('hex');
      userIds.push(userId);
      usernames.push(`user${i}@example.com`);
      insertUser.run(userId, usernames[i], `First${i % 1000}`, `Last${i % 997}`, new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString());
      insertMembership.run(userId, allUsers);
    }
  })();
  database.close();
  return { userIds, usernames, credentials: { api_key: key.record.api_key, api_key_secret: key.secret } };
}

/**
 * The same directory as seedUsers on a PostgreSQL database: the migrations and the key
 * through openStore, then the users and their memberships in two statements.
 */
export async function seedPostgresUsers(url: string, count: number): Promise<SeededDatabase> {
  const store = await openStore(url);
  const key = issueApiKey('benchmark', PERMISSIONS, null);
  await store.apiKeys.insert(key.record, BENCH_SEED);
  const allUsers = (await store.groups.list())[0]!.group_id;
  await store.close();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ user_id: string; username: string }>(
      `insert into users (user_id, username, first_name, last_name, phone, organization, locked, disabled, realm, password_hash, created)
       select md5(random()::text || i), 'user' || i || '@example.com', 'First' || (i % 1000), 'Last' || (i % 997), '', '', false, false, 'local', null,
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       from generate_series(0, $1::int - 1) as i
       returning user_id, username`,
      [count],
    );
    await client.query(`insert into user_groups (user_id, group_id) select user_id, $1 from users where user_id = any($2::text[])`, [
      allUsers,
      rows.map((row) => row.user_id),
    ]);
    return {
      userIds: rows.map((row) => row.user_id),
      usernames: rows.map((row) => row.username),
      credentials: { api_key: key.record.api_key, api_key_secret: key.secret },
    };
  } finally {
    await client.end();
  }
}

export interface SeededEvents {
  /** The events' ids, oldest first. */
  eventIds: string[];
  /** Their places in the change log (get_events' cursors name them), in the same order. */
  positions: number[];
  /** The users the events are about (none of them has a row). */
  userIds: string[];
  credentials: SeededDatabase['credentials'];
}

/** How many users the seeded events are about. */
const SEEDED_EVENT_USERS = 10_000;

/**
 * Fills a SQLite database with `user.updated` events (and a key to read them):
 * the real migrations, then one bulk transaction. The events are the last
 * `count` × 10 ms, within the feed's retention. With `webhookUrl`, a webhook
 * made first (through the directory) is owed every one of them: a backlog to drain.
 */
export async function seedAuditEvents(path: string, count: number, { webhookUrl }: { webhookUrl?: string } = {}): Promise<SeededEvents> {
  const store = await openStore(`sqlite:${path}`);
  const key = issueApiKey('benchmark', PERMISSIONS, null);
  await store.apiKeys.insert(key.record, BENCH_SEED);
  if (webhookUrl) await createDirectory(store, { webhooks: { allowPrivate: true } }).webhooks.create({ url: webhookUrl }, BENCH_SEED);
  const head = await store.audit.head();
  await store.close();

  const database = new SqliteLibrary(path);
  const insert = database.prepare(
    `insert into audit_events (event_id, position, time, operation, actor, request_id, target_user_id, target_group_id, target_api_key, changed_fields, resource_version, previous_user_position)
     values (?, ?, ?, 'updateUser', ?, ?, ?, null, null, 'first_name,phone', 2, ?)`,
  );
  // About SEEDED_EVENT_USERS users in turn, each event linked to the user's one before, as the
  // service's writer links them (server/store/user-event-chains.ts).
  const users = Array.from({ length: Math.min(count, SEEDED_EVENT_USERS) }, () => randomBytes(16).toString('hex'));
  const eventIds: string[] = [];
  const positions: number[] = [];
  const start = Date.now() - count * 10;
  database.transaction(() => {
    for (let i = 0; i < count; i++) {
      const eventId = uuidv7({ msecs: start + i * 10 });
      eventIds.push(eventId);
      positions.push(head + 1 + i);
      insert.run(
        eventId,
        head + 1 + i,
        new Date(start + i * 10).toISOString(),
        key.record.api_key,
        randomBytes(8).toString('hex'),
        users[i % users.length],
        i >= users.length ? head + 1 + i - users.length : null,
      );
    }
  })();
  database.close();
  return { eventIds, positions, userIds: users, credentials: { api_key: key.record.api_key, api_key_secret: key.secret } };
}

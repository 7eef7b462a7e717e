/**
 * Fills a SQLite database with users for the benchmark: the real migrations
 * through openStore, then one bulk transaction (going through the API would
 * spend the whole run on fsyncs).
 */
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import SqliteLibrary from 'better-sqlite3';
import { PERMISSIONS } from '../../lib/contract/operations.js';
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
 * Fills a SQLite database with audit events (and a key to read them): the real
 * migrations, then one bulk transaction. Returns the events' ids, oldest first.
 */
export async function seedAuditEvents(
  path: string,
  count: number,
): Promise<{ eventIds: string[]; credentials: SeededDatabase['credentials'] }> {
  const store = await openStore(`sqlite:${path}`);
  const key = issueApiKey('benchmark', PERMISSIONS, null);
  await store.apiKeys.insert(key.record, BENCH_SEED);
  await store.close();

  const database = new SqliteLibrary(path);
  const insert = database.prepare(
    `insert into audit_events (event_id, time, operation, actor, request_id, target_user_id, target_group_id, target_api_key, changed_fields)
     values (?, ?, 'updateUser', ?, ?, ?, null, null, 'first_name,phone')`,
  );
  const eventIds: string[] = [];
  const start = Date.UTC(2026, 0, 1);
  database.transaction(() => {
    for (let i = 0; i < count; i++) {
      const eventId = uuidv7({ msecs: start + i * 10 });
      eventIds.push(eventId);
      insert.run(
        eventId,
        new Date(start + i * 10).toISOString(),
        key.record.api_key,
        randomBytes(8).toString('hex'),
        randomBytes(16).toString('hex'),
      );
    }
  })();
  database.close();
  return { eventIds, credentials: { api_key: key.record.api_key, api_key_secret: key.secret } };
}

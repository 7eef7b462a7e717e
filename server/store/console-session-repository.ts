/** The web console's sessions on Kysely, for SQLite and PostgreSQL alike (server/console/sessions.ts says what they are). */
import type { Kysely, Selectable } from 'kysely';
import type { StoredSession } from './records.js';
import type { ConsoleSessionRepository } from './repositories.js';
import type { ConsoleSessionsTable, Database } from './schema.js';

const fromRow = (row: Selectable<ConsoleSessionsTable>): StoredSession => ({
  tokenDigest: row.token_digest,
  apiKey: row.api_key,
  created: row.created,
  lastSeen: row.last_seen,
  expires: row.expires,
});

export class KyselyConsoleSessionRepository implements ConsoleSessionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(session: StoredSession): Promise<void> {
    await this.db
      .insertInto('console_sessions')
      .values({
        token_digest: session.tokenDigest,
        api_key: session.apiKey,
        created: session.created,
        last_seen: session.lastSeen,
        expires: session.expires,
      })
      .execute();
  }

  async find(tokenDigest: string): Promise<StoredSession | undefined> {
    const row = await this.db.selectFrom('console_sessions').selectAll().where('token_digest', '=', tokenDigest).executeTakeFirst();
    return row && fromRow(row);
  }

  async touch(tokenDigest: string, when: string, since: string): Promise<void> {
    await this.db
      .updateTable('console_sessions')
      .set({ last_seen: when })
      .where('token_digest', '=', tokenDigest)
      .where('last_seen', '<', since)
      .execute();
  }

  async delete(tokenDigest: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('token_digest', '=', tokenDigest).execute();
  }

  async prune(now: string, idleSince: string): Promise<number> {
    const result = await this.db
      .deleteFrom('console_sessions')
      .where((row) => row.or([row('expires', '<=', now), row('last_seen', '<', idleSince)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

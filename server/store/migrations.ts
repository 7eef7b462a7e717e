/**
 * Numbered migrations, applied in order on every start; Kysely records the
 * applied ones in `kysely_migration`, so running them again changes nothing.
 * Never edit a migration that has shipped: add the next number.
 */
import { randomBytes } from 'node:crypto';
import { type Kysely, type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';
import { groupNameKey } from '../username/group-name.js';
import { enforceUsername } from '../username/profile.js';
import { present } from '../../lib/present.js';

/**
 * A migration sees the database as it was when the migration was written, not
 * as schema.ts describes it today, so it is typed loosely (Kysely's advice).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the schema a migration meets is not today's.
type AnyDatabase = Kysely<any>;

/** The system group every user belongs to (docs/architecture.md, User). */
export const ALL_USERS_GROUP = 'All Users';
/** A group's priority when none is given: the lowest precedence (the contract's GroupPriority). */
export const DEFAULT_GROUP_PRIORITY = 4096;

export const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': {
    async up(db: AnyDatabase) {
      await db.schema
        .createTable('users')
        .addColumn('user_id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('organization', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('locked', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('disabled', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('realm', 'text', (c) => c.notNull().defaultTo('local'))
        .addColumn('password_hash', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('password_set_date', 'text')
        .addColumn('last_session', 'text')
        .execute();
      // Pages are sorted by one of these, then by user_id so that equal values page stably.
      for (const column of ['created', 'first_name', 'last_name']) {
        await db.schema.createIndex(`users_${column}_idx`).on('users').columns([column, 'user_id']).execute();
      }

      await db.schema
        .createTable('groups')
        .addColumn('group_id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('is_system', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('user_groups')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.user_id').onDelete('cascade'))
        .addColumn('group_id', 'text', (c) => c.notNull().references('groups.group_id').onDelete('cascade'))
        .addPrimaryKeyConstraint('user_groups_pk', ['user_id', 'group_id'])
        .execute();
      await db.schema.createIndex('user_groups_group_idx').on('user_groups').column('group_id').execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('api_key', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_digest', 'text', (c) => c.notNull())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('expires', 'text')
        .addColumn('revoked', 'text')
        .execute();

      await db
        .insertInto('groups')
        .values({
          group_id: randomBytes(16).toString('hex'),
          name: ALL_USERS_GROUP,
          is_system: sql`true`, // a literal: SQLite cannot bind a JS boolean
          created: new Date().toISOString(),
        })
        .execute();
    },
  },
  '0002_username_sort_index': {
    // Listing by username (the default) pages through this index without reading the rows it skips.
    async up(db: AnyDatabase) {
      await db.schema.createIndex('users_username_user_id_idx').on('users').columns(['username', 'user_id']).execute();
    },
  },
  '0003_username_profile': {
    // Brings stored usernames under the username profile (server/username/profile.ts) without
    // losing a user: a name the profile maps to another form (full-width, upper case, not NFC) is
    // rewritten when that form is free; a name it refuses, or whose form another user holds, is
    // kept as it is and listed in username_reports, which `npm run admin -- username-report` shows.
    async up(db: AnyDatabase) {
      await db.schema
        .createTable('username_reports')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.user_id').onDelete('cascade'))
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('reported', 'text', (c) => c.notNull())
        .execute();
      const reported = new Date().toISOString();
      let after = '';
      for (;;) {
        const batch: { user_id: string; username: string }[] = await db
          .selectFrom('users')
          .select(['user_id', 'username'])
          .where('user_id', '>', after)
          .orderBy('user_id')
          .limit(500)
          .execute();
        if (batch.length === 0) break;
        after = present(batch.at(-1), 'the last of a batch').user_id;
        for (const { user_id, username } of batch) {
          const verdict = enforceUsername(username);
          if (verdict.ok && verdict.username === username) continue;
          let reason = verdict.ok ? undefined : verdict.reason;
          if (verdict.ok) {
            const holder = await db.selectFrom('users').select('user_id').where('username', '=', verdict.username).executeTakeFirst();
            if (holder) reason = `its normalised form ${JSON.stringify(verdict.username)} belongs to user ${holder.user_id}`;
            else await db.updateTable('users').set({ username: verdict.username }).where('user_id', '=', user_id).execute();
          }
          if (reason) await db.insertInto('username_reports').values({ user_id, username, reason, reported }).execute();
        }
      }
    },
  },
  '0004_audit_events': {
    // One row per change, written in the change's own transaction (audit-repository.ts). No
    // foreign keys: an event outlives the user, group or key it names. Pages go newest first by
    // event_id (time-ordered), alone or within one target user or one actor.
    async up(db: AnyDatabase) {
      await db.schema
        .createTable('audit_events')
        .addColumn('event_id', 'text', (c) => c.primaryKey())
        .addColumn('time', 'text', (c) => c.notNull())
        .addColumn('operation', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text')
        .addColumn('target_user_id', 'text')
        .addColumn('target_group_id', 'text')
        .addColumn('target_api_key', 'text')
        .addColumn('changed_fields', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_events_target_user_idx').on('audit_events').columns(['target_user_id', 'event_id']).execute();
      await db.schema.createIndex('audit_events_actor_idx').on('audit_events').columns(['actor', 'event_id']).execute();
      await db.schema.createIndex('audit_events_time_idx').on('audit_events').columns(['time']).execute();
    },
  },
  '0005_kasm_user_operations': {
    // What Kasm's clients call beyond the user lifecycle: a user's attributes (one row per user,
    // made on first write; a user without one has the defaults), the instant from which a
    // user's sessions are valid (logout_user), and a group's description and priority.
    async up(db: AnyDatabase) {
      await db.schema
        .createTable('user_attributes')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.user_id').onDelete('cascade'))
        .addColumn('default_image', 'text')
        .addColumn('show_tips', 'boolean', (c) => c.notNull())
        .addColumn('auto_login_kasm', 'boolean')
        .addColumn('toggle_control_panel', 'boolean', (c) => c.notNull())
        .addColumn('theme', 'text', (c) => c.notNull())
        .addColumn('chat_sfx', 'boolean', (c) => c.notNull())
        .addColumn('ssh_public_key', 'text', (c) => c.notNull())
        .addColumn('preferred_language', 'text', (c) => c.notNull())
        .addColumn('preferred_timezone', 'text', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('users').addColumn('sessions_valid_from', 'text').execute();
      await db.schema
        .alterTable('groups')
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('groups')
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(DEFAULT_GROUP_PRIORITY))
        .execute();
    },
  },
  '0006_versions': {
    // Every user and group carries a version, moved by every change to what its representation
    // shows, and the time of that change: the entity tag of `If-Match` and SCIM's `meta`. A
    // group's representation lists its members and a user's names its groups, so a membership
    // change moves both, and renaming or deleting a group moves each member.
    async up(db: AnyDatabase) {
      for (const table of ['users', 'groups']) {
        await db.schema
          .alterTable(table)
          .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
        await db.schema.alterTable(table).addColumn('modified', 'text').execute();
        await db
          .updateTable(table)
          .set({ modified: sql.ref('created') })
          .execute();
      }
    },
  },
  '0007_directory_fields': {
    // What SCIM provisioning keeps of a user beyond this API's record: the identity provider's
    // own id for it (`externalId`, looked up by providers that match on it) and its e-mail
    // addresses, as SCIM's multi-valued `emails` (JSON text, `[]` for none).
    async up(db: AnyDatabase) {
      await db.schema.alterTable('users').addColumn('external_id', 'text').execute();
      await db.schema
        .alterTable('users')
        .addColumn('emails', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await db.schema.createIndex('users_external_id_idx').on('users').column('external_id').execute();
    },
  },
  '0008_scim_groups_and_protocols': {
    // The identity provider's own id for a group (SCIM's `externalId`), as for users in 0007;
    // and which protocol each audited change came through (null for events before SCIM,
    // all of which came through the workspace API or the admin command).
    async up(db: AnyDatabase) {
      await db.schema.alterTable('groups').addColumn('external_id', 'text').execute();
      await db.schema.alterTable('audit_events').addColumn('protocol', 'text').execute();
    },
  },
  '0009_change_feed': {
    // The audit trail becomes the change feed (docs/events.md): each event gets its place in
    // the order of commit (`position`, audit-repository.ts says how it is assigned) and the
    // version its resource is at after the change. Events already written are numbered in the
    // order of their ids, which is the order they were written in.
    async up(db: AnyDatabase) {
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      await db.schema.alterTable('audit_events').addColumn('resource_version', 'integer').execute();
      await db.schema
        .alterTable('audit_events')
        .addColumn('position', postgres ? 'bigint' : 'integer')
        .execute();
      await sql`update audit_events set position = numbered.n
        from (select event_id, row_number() over (order by event_id) as n from audit_events) as numbered
        where numbered.event_id = audit_events.event_id`.execute(db);
      if (postgres) {
        await sql`create sequence audit_events_position_seq owned by audit_events.position`.execute(db);
        await sql`select setval('audit_events_position_seq', coalesce((select max(position) from audit_events), 0) + 1, false)`.execute(db);
        await sql`alter table audit_events alter column position set default nextval('audit_events_position_seq')`.execute(db);
        await sql`alter table audit_events alter column position set not null`.execute(db);
      }
      await db.schema.createIndex('audit_events_position_idx').unique().on('audit_events').column('position').execute();
      // The feed's filters: one resource's events (a user's, or a group's with its memberships), in order.
      await db.schema.createIndex('audit_events_group_idx').on('audit_events').columns(['target_group_id', 'position']).execute();
    },
  },
  '0010_webhooks': {
    // Webhooks (docs/events.md) and their deliveries. Each delivery is one event for one
    // webhook, made by the dispatcher as it follows the change feed (webhook_dispatch holds
    // how far it has read); its attempts are kept in webhook_attempts. The signing secrets are
    // kept as they are: signing needs them (the database is as sensitive as the service).
    async up(db: AnyDatabase) {
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      const big = postgres ? 'bigint' : 'integer';
      await db.schema.alterTable('audit_events').addColumn('target_webhook_id', 'text').execute();
      await db.schema
        .createTable('webhooks')
        .addColumn('webhook_id', 'text', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('event_types', 'text')
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('enabled', 'boolean', (c) => c.notNull())
        .addColumn('exclude_own_changes', 'boolean', (c) => c.notNull())
        .addColumn('owner_api_key', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('failing_since', 'text')
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('delivery_id', 'text', (c) => c.primaryKey())
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.webhook_id').onDelete('cascade'))
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        // The event's place in the log, which its body is built from; null for a ping, whose body is kept here.
        .addColumn('event_position', big)
        .addColumn('payload', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('claimed_until', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['state', 'next_attempt_at']).execute();
      await db.schema.createIndex('webhook_deliveries_webhook_idx').on('webhook_deliveries').column('webhook_id').execute();
      await db.schema
        .createTable('webhook_attempts')
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.delivery_id').onDelete('cascade'))
        .addColumn('webhook_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('error', 'text')
        .addColumn('response_excerpt', 'text')
        .addColumn('next_attempt_at', 'text')
        .execute();
      await db.schema.createIndex('webhook_attempts_webhook_idx').on('webhook_attempts').columns(['webhook_id', 'attempted_at']).execute();
      await db.schema
        .createTable('webhook_dispatch')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('position', big, (c) => c.notNull())
        .execute();
      // Deliveries start with what is committed from now on: a webhook hears of changes after it is made.
      await sql`insert into webhook_dispatch (id, position) select 1, coalesce(max(position), 0) from audit_events`.execute(db);
    },
  },
  '0011_webhook_claims_by_webhook': {
    // The delivery engine claims each webhook's due deliveries apart (its share of the room): one range of this index each.
    async up(db) {
      await db.schema
        .createIndex('webhook_deliveries_webhook_due_idx')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'state', 'next_attempt_at'])
        .execute();
      await db.schema.dropIndex('webhook_deliveries_webhook_idx').execute();
    },
  },
  '0012_group_name_keys': {
    // Group names compared as the group-name profile compares them (server/username/group-name.ts):
    // each group's comparison form, unique. A name whose form an older group already holds keeps
    // it null, as it was: `npm run admin -- status` reports it, for a person to rename.
    async up(db: AnyDatabase) {
      await db.schema.alterTable('groups').addColumn('name_key', 'text').execute();
      const groups: { group_id: string; name: string }[] = await db
        .selectFrom('groups')
        .select(['group_id', 'name'])
        .orderBy('created')
        .orderBy('group_id')
        .execute();
      const taken = new Set<string>();
      for (const { group_id, name } of groups) {
        const key = groupNameKey(name);
        if (taken.has(key)) continue;
        taken.add(key);
        await db.updateTable('groups').set({ name_key: key }).where('group_id', '=', group_id).execute();
      }
      await db.schema.createIndex('groups_name_key_idx').unique().on('groups').column('name_key').execute();
    },
  },
  '0013_external_id_keys': {
    // An identity provider's id names one user and one group (RFC 7643, 3.1: externalId), since
    // Entra ID and Okta find resources by it: each table keeps it again in a unique column. Where
    // two already shared one, the older keeps it there and the other null, as it was;
    // `npm run admin -- status` reports it.
    async up(db: AnyDatabase) {
      for (const [table, id] of [
        ['users', 'user_id'],
        ['groups', 'group_id'],
      ] as const) {
        await db.schema.alterTable(table).addColumn('external_id_key', 'text').execute();
        // The oldest holder of each external id takes it.
        await sql`update ${sql.table(table)} set external_id_key = external_id
          where external_id is not null and ${sql.ref(id)} = (
            select holder.${sql.ref(id)} from ${sql.table(table)} as holder
            where holder.external_id = ${sql.table(table)}.external_id
            order by holder.created, holder.${sql.ref(id)} limit 1)`.execute(db);
        await db.schema.createIndex(`${table}_external_id_key_idx`).unique().on(table).column('external_id_key').execute();
      }
    },
  },
  '0014_password_history': {
    // The hashes of each user's latest passwords, so that a change cannot set one of them again
    // (PASSWORD_HISTORY). Every password set from now on is kept; those set before, but the
    // current one, were never stored and are not known.
    async up(db: AnyDatabase) {
      await db.schema
        .createTable('password_history')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.user_id').onDelete('cascade'))
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('set_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('password_history_user_idx').on('password_history').columns(['user_id', 'set_at']).execute();
      await sql`insert into password_history (user_id, password_hash, set_at)
        select user_id, password_hash, coalesce(password_set_date, created) from users where password_hash is not null`.execute(db);
    },
  },
  '0015_idempotency_keys': {
    // The requests a client sent with an Idempotency-Key, per API key, kept to answer their
    // retries: the row is written in the transaction of the change the request made, and the
    // answer (status, headers, body) is added to it once the answer is known (server/http/idempotency.ts).
    async up(db: AnyDatabase) {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('api_key', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('expires', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('answer', 'text')
        .addPrimaryKeyConstraint('idempotency_keys_pkey', ['api_key', 'idempotency_key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires').execute();
    },
  },
  '0016_api_key_last_use': {
    // When each key last authenticated a request, written at most once a minute per key
    // (server/keys/last-use.ts): unknown for the keys' uses before it.
    async up(db: AnyDatabase) {
      await db.schema.alterTable('api_keys').addColumn('last_used', 'text').execute();
    },
  },
  '0017_console_sessions': {
    // The web console's sessions (server/console/sessions.ts): the digest of each session's
    // token, never the token, and the key it acts as. Stored, so that a session survives a
    // restart and reaches every instance; a revoked key's sessions end by the key's check.
    async up(db: AnyDatabase) {
      await db.schema
        .createTable('console_sessions')
        .addColumn('token_digest', 'text', (c) => c.primaryKey())
        .addColumn('api_key', 'text', (c) => c.notNull())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .addColumn('expires', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('console_sessions_last_seen_idx').on('console_sessions').column('last_seen').execute();
    },
  },
  '0018_user_event_chains': {
    // A user's events are found by following a chain (user-event-chains.ts) instead of the
    // index by user, which cost every write a page of its own (BENCHMARKS.md). Each event about
    // a user names the position of the user's event before it; the newest one's position (the
    // chain's head) is kept on the user's row on SQLite and in user_event_heads on PostgreSQL,
    // and for a user without a row (deleted) in user_event_heads on both. Triggers link each
    // event as it is inserted, whichever version of the service inserts it. The events already
    // written are chained here in the order of their positions.
    async up(db: AnyDatabase) {
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      const big = postgres ? 'bigint' : 'integer';
      await db.schema.alterTable('audit_events').addColumn('previous_user_position', big).execute();
      await sql`update audit_events set previous_user_position = chained.previous
        from (select position, lag(position) over (partition by target_user_id order by position) as previous
              from audit_events where target_user_id is not null) as chained
        where chained.position = audit_events.position and chained.previous is not null`.execute(db);
      await db.schema
        .createTable('user_event_heads')
        .addColumn('user_id', 'text', (c) => c.primaryKey())
        .addColumn('position', big, (c) => c.notNull())
        .execute();
      const heads = db
        .selectFrom('audit_events')
        .select(['target_user_id', (eb) => eb.fn.max('position').as('position')])
        .where('target_user_id', 'is not', null)
        .groupBy('target_user_id');
      if (postgres) {
        await db.insertInto('user_event_heads').columns(['user_id', 'position']).expression(heads).execute();
        // Before the row is written: the event takes the head as its previous and becomes the head.
        await sql`create function audit_events_link_user() returns trigger language plpgsql as $$
          begin
            if new.target_user_id is not null then
              select position into new.previous_user_position from user_event_heads where user_id = new.target_user_id;
              insert into user_event_heads (user_id, position) values (new.target_user_id, new.position)
                on conflict (user_id) do update set position = excluded.position;
            end if;
            return new;
          end $$`.execute(db);
        await sql`create trigger audit_events_link_user before insert on audit_events
          for each row execute function audit_events_link_user()`.execute(db);
      } else {
        await db.schema.alterTable('users').addColumn('last_event_position', 'integer').execute();
        await sql`update users set last_event_position = heads.position from (${heads}) as heads
          where heads.target_user_id = users.user_id`.execute(db);
        await db
          .insertInto('user_event_heads')
          .columns(['user_id', 'position'])
          .expression(heads.where('target_user_id', 'not in', db.selectFrom('users').select('user_id')))
          .execute();
        // SQLite's triggers cannot change the row being inserted: the event is linked just after.
        await sql`create trigger audit_events_link_user after insert on audit_events when new.target_user_id is not null
          begin
            update audit_events set previous_user_position = coalesce(
                (select last_event_position from users where user_id = new.target_user_id),
                (select position from user_event_heads where user_id = new.target_user_id))
              where rowid = new.rowid;
            update users set last_event_position = new.position where user_id = new.target_user_id;
            -- changes(): the rows the update above changed, none where the user has no row.
            insert into user_event_heads (user_id, position) select new.target_user_id, new.position where changes() = 0
              on conflict (user_id) do update set position = excluded.position;
          end`.execute(db);
        // A user's row goes, its chain's head stays: a deleted user's history is still found.
        await sql`create trigger users_keep_event_head after delete on users when old.last_event_position is not null
          begin
            insert into user_event_heads (user_id, position) values (old.user_id, old.last_event_position)
              on conflict (user_id) do update set position = excluded.position;
          end`.execute(db);
      }
      await db.schema.dropIndex('audit_events_target_user_idx').execute();
    },
  },
  '0019_audit_positions': {
    // The largest position of an event the retention deleted: on SQLite a new event's position
    // is the next after every event there is and every event there was (audit-repository.ts),
    // so that emptying the trail does not number new events from 1 again under the feed's
    // cursors, the webhook dispatcher's place and the users' chains. PostgreSQL's sequence
    // never goes back; the table is on both so that the schema is. It starts at the largest
    // position anything still names: a trail emptied before this migration has left its last
    // position in the dispatcher's place and the chains' heads. `restored_at`: when `admin
    // restore` last put a backup in place (store/maintenance.ts), before which no cursor holds.
    async up(db: AnyDatabase) {
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      await db.schema
        .createTable('audit_positions')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('last_pruned', postgres ? 'bigint' : 'integer', (c) => c.notNull())
        .addColumn('restored_at', 'text')
        .execute();
      const named = [
        sql`select max(position) as position from audit_events`,
        sql`select position from webhook_dispatch`,
        sql`select max(position) from user_event_heads`,
        ...(postgres ? [] : [sql`select max(last_event_position) from users`]),
      ];
      await sql`insert into audit_positions (id, last_pruned)
        select 1, coalesce(max(position), 0) from (${sql.join(named, sql` union all `)}) as named`.execute(db);
    },
  },
  '0020_audit_events_by_position': {
    // Fewer pages for each commit to write (BENCHMARKS.md, issue 43). Every commit writes the last
    // page of each of the trail's B-trees; on SQLite the trail is now kept in the order of its
    // positions (`position` is the table's rowid, as a feed reads it), which takes away the index
    // by position, and the index by group holds only the events about a group, not a null for
    // every other. The table is rebuilt for it (https://www.sqlite.org/lang_altertable.html#otheralter),
    // in one transaction: SQLite's migrations run without one of their own. Its triggers are
    // read from the table and made again on the new one.
    async up(db: AnyDatabase) {
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      const groupIndex = () =>
        sql`create index audit_events_group_idx on audit_events (target_group_id, position) where target_group_id is not null`;
      if (postgres) {
        await sql`drop index audit_events_group_idx`.execute(db);
        await groupIndex().execute(db);
        return;
      }
      await db.transaction().execute(async (trx) => {
        const { rows: triggers } = await sql<{ definition: string }>`select sql as definition from sqlite_master
          where type = 'trigger' and tbl_name = 'audit_events'`.execute(trx);
        const columns = sql.raw(
          'event_id, time, operation, actor, request_id, target_user_id, target_group_id, target_api_key, ' +
            'changed_fields, protocol, resource_version, target_webhook_id, previous_user_position',
        );
        await sql`create table audit_events_by_position (
          position integer primary key,
          event_id text not null, time text not null, operation text not null, actor text not null,
          request_id text, target_user_id text, target_group_id text, target_api_key text,
          changed_fields text not null, protocol text, resource_version integer, target_webhook_id text,
          previous_user_position integer)`.execute(trx);
        await sql`insert into audit_events_by_position (position, ${columns})
          select position, ${columns} from audit_events order by position`.execute(trx);
        await sql`drop table audit_events`.execute(trx);
        await sql`alter table audit_events_by_position rename to audit_events`.execute(trx);
        await sql`create unique index audit_events_event_id_idx on audit_events (event_id)`.execute(trx);
        await sql`create index audit_events_actor_idx on audit_events (actor, event_id)`.execute(trx);
        await sql`create index audit_events_time_idx on audit_events (time)`.execute(trx);
        await groupIndex().execute(trx);
        for (const { definition } of triggers) await sql.raw(definition).execute(trx);
      });
    },
  },
  '0021_events_linked_as_inserted': {
    // Less for each event's insert to do on SQLite (BENCHMARKS.md, issue 43). The trigger of 0018
    // linked every event after its insert with an update of the row just written, a statement
    // that took about a sixth of what the trail cost update_user. The trail's writer now names
    // the user's event before each event as it inserts it (audit-repository.ts), and the trigger
    // only moves the chain's head. PostgreSQL's trigger links the row before it is written, at no
    // such cost: unchanged.
    async up(db: AnyDatabase) {
      if (db.getExecutor().adapter instanceof PostgresAdapter) return;
      // Run again over a database that has its trigger already (a schema taken back to 0019 by
      // hand keeps today's triggers), it leaves it as it is.
      await db.transaction().execute(async (trx) => {
        await sql`drop trigger if exists audit_events_link_user`.execute(trx);
        await sql`create trigger if not exists audit_events_move_user_head after insert on audit_events when new.target_user_id is not null
          begin
            update users set last_event_position = new.position where user_id = new.target_user_id;
            -- changes(): the rows the update above changed, none where the user has no row.
            insert into user_event_heads (user_id, position) select new.target_user_id, new.position where changes() = 0
              on conflict (user_id) do update set position = excluded.position;
          end`.execute(trx);
      });
    },
  },
  '0022_audit_events_without_time_index': {
    // One index fewer for each event's insert to write (BENCHMARKS.md, issue 43): an event's time
    // is now the millisecond its id carries (event-ids.ts), so the index of ids finds events by
    // time (event-times.ts). Run again over a schema taken back by hand past it, it finds none to drop.
    async up(db: AnyDatabase) {
      await db.schema.dropIndex('audit_events_time_idx').ifExists().execute();
    },
  },
};

/** Every migration, in the order they apply. */
export const MIGRATION_NAMES = Object.keys(MIGRATIONS);

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Applies the migrations the database lacks; resolves with how many it applied. */
export async function migrateToLatest(db: AnyDatabase): Promise<number> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    throw new Error(failed ? `database migration ${failed} failed` : 'cannot prepare the database for migrations', { cause: error });
  }
  return results?.filter((result) => result.status === 'Success').length ?? 0;
}

/** Users' preferences (Kasm's user attributes) on Kysely, for SQLite and PostgreSQL alike. */
import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { AuditTrail } from './audit-repository.js';
import type { DatabaseTraits, Db } from './database-traits.js';
import type { AttributeChanges, ChangeAuthor, UserAttributes } from './records.js';
import type { AttributesRepository } from './repositories.js';
import type { Database, UserAttributesTable } from './schema.js';

/** What a user whose attributes were never set has (the contract's UserAttributes). */
export const DEFAULT_ATTRIBUTES: Readonly<Omit<UserAttributes, 'user_id' | 'user_attributes_id'>> = {
  default_image: null,
  show_tips: false,
  auto_login_kasm: null,
  toggle_control_panel: false,
  theme: 'Light',
  chat_sfx: true,
  ssh_public_key: '',
  preferred_language: '',
  preferred_timezone: '',
};

/**
 * Kasm gives the attributes an id of their own; here it is derived from the user's, so it
 * is the same for the user's whole life without a row to hold it before the first write.
 */
export const attributesIdOf = (userId: string) => createHash('sha256').update(`user_attributes:${userId}`).digest('hex').slice(0, 32);

const fromRow = (row: Selectable<UserAttributesTable>): UserAttributes => ({
  user_attributes_id: attributesIdOf(row.user_id),
  user_id: row.user_id,
  default_image: row.default_image,
  show_tips: Boolean(row.show_tips),
  auto_login_kasm: row.auto_login_kasm === null ? null : Boolean(row.auto_login_kasm),
  toggle_control_panel: Boolean(row.toggle_control_panel),
  theme: row.theme as UserAttributes['theme'],
  chat_sfx: Boolean(row.chat_sfx),
  ssh_public_key: row.ssh_public_key,
  preferred_language: row.preferred_language,
  preferred_timezone: row.preferred_timezone,
});

export class KyselyAttributesRepository implements AttributesRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly traits: DatabaseTraits,
    private readonly audit: AuditTrail,
  ) {}

  async find(userId: string): Promise<UserAttributes | undefined> {
    return this.#find(this.db, userId);
  }

  async update(userId: string, changes: AttributeChanges, by: ChangeAuthor): Promise<UserAttributes | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const current = await this.#find(trx, userId);
      if (!current) return undefined;
      const next = { ...current, ...changes };
      const bool = (value: boolean) => this.traits.bool(value);
      const row = {
        default_image: next.default_image,
        show_tips: bool(next.show_tips),
        auto_login_kasm: next.auto_login_kasm === null ? null : bool(next.auto_login_kasm),
        toggle_control_panel: bool(next.toggle_control_panel),
        theme: next.theme,
        chat_sfx: bool(next.chat_sfx),
        ssh_public_key: next.ssh_public_key,
        preferred_language: next.preferred_language,
        preferred_timezone: next.preferred_timezone,
      };
      await trx
        .insertInto('user_attributes')
        .values({ user_id: userId, ...row })
        .onConflict((oc) => oc.column('user_id').doUpdateSet(row))
        .execute();
      await this.audit.record(trx, by, {
        operation: 'updateUserAttributes',
        targetUserId: userId,
        changedFields: Object.keys(changes).sort(),
      });
      return next;
    });
  }

  async #find(db: Db, userId: string): Promise<UserAttributes | undefined> {
    const found = await db
      .selectFrom('users')
      .leftJoin('user_attributes', 'user_attributes.user_id', 'users.user_id')
      .select(['users.user_id as owner'])
      .selectAll('user_attributes')
      .where('users.user_id', '=', userId)
      .executeTakeFirst();
    if (!found) return undefined;
    if (found.user_id === null) return { user_attributes_id: attributesIdOf(userId), user_id: userId, ...DEFAULT_ATTRIBUTES };
    return fromRow(found as Selectable<UserAttributesTable>);
  }
}

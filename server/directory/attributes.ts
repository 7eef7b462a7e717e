/** A user's preferences (Kasm's user attributes): the values a person may set, each in its stored form. */
import { languageTag, sshPublicKey, timeZone, type Verdict } from '../attributes/rules.js';
import type { AttributeChanges, ChangeAuthor, UserAttributes } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { refuse } from './errors.js';
import { canonicalId } from './ids.js';

/** The attributes whose text the directory checks beyond what a schema says. */
export type AttributeField = 'ssh_public_key' | 'preferred_language' | 'preferred_timezone';

const RULES: Record<AttributeField, (text: string) => Verdict> = {
  ssh_public_key: sshPublicKey,
  preferred_language: languageTag,
  preferred_timezone: timeZone,
};

/** The changes in their stored forms, or every refused attribute at once. */
function accepted(sent: AttributeChanges): AttributeChanges {
  const changes: AttributeChanges = { ...sent };
  if (typeof sent.default_image === 'string') changes.default_image = sent.default_image === '' ? null : canonicalId(sent.default_image);
  const refused: { field: AttributeField; reason: string }[] = [];
  let privateKey = false;
  for (const field of Object.keys(RULES) as AttributeField[]) {
    const value = sent[field];
    if (value === undefined) continue;
    const verdict = RULES[field](value);
    if (verdict.ok) {
      changes[field] = verdict.value;
    } else {
      refused.push({ field, reason: verdict.reason });
      privateKey ||= verdict.privateKey === true;
    }
  }
  if (refused.length > 0) refuse({ kind: 'invalid_attributes', refused, privateKey });
  return changes;
}

export function attributeDirectory(store: Store) {
  return {
    /** The user's attributes, the defaults where never set. */
    async find(userId: string): Promise<UserAttributes> {
      return (await store.attributes.find(canonicalId(userId))) ?? refuse({ kind: 'not_found', entity: 'user' });
    },
    /** Sets what `changes` names (an empty default_image clears it) and gives every attribute. */
    async update(userId: string, changes: AttributeChanges, by: ChangeAuthor): Promise<UserAttributes> {
      return (await store.attributes.update(canonicalId(userId), accepted(changes), by)) ?? refuse({ kind: 'not_found', entity: 'user' });
    },
  };
}

export type AttributeDirectory = ReturnType<typeof attributeDirectory>;

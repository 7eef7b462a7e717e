/** A user's preferences, Kasm's user attributes: getAttributes, updateUserAttributes. */
import { languageTag, sshPublicKey, timeZone, type Verdict } from '../attributes/rules.js';
import { ServiceError, type ErrorDetail, userNotFound } from '../service-errors.js';
import type { AttributeChanges } from '../store/records.js';
import { canonicalId } from './ids.js';
import type { Handlers, RequestBody, Services } from './types.js';

const AT = '/body/target_user_attributes';

/** The attributes a request changes, in their stored forms; 400 naming every one refused. */
function changesOf(sent: RequestBody<'updateUserAttributes'>['target_user_attributes']): AttributeChanges {
  const { user_id: _user, default_image, ssh_public_key, preferred_language, preferred_timezone, ...flags } = sent;
  const changes: AttributeChanges = { ...flags };
  if (default_image !== undefined) changes.default_image = default_image === '' ? null : canonicalId(default_image);
  const refused: ErrorDetail[] = [];
  /** Checks one field; true when what was sent is a private key. */
  const check = (
    field: 'ssh_public_key' | 'preferred_language' | 'preferred_timezone',
    value: string | undefined,
    rule: (text: string) => Verdict,
  ): boolean => {
    if (value === undefined) return false;
    const verdict = rule(value);
    if (verdict.ok) {
      changes[field] = verdict.value;
      return false;
    }
    refused.push({ path: `${AT}/${field}`, message: verdict.reason });
    return verdict.privateKey === true;
  };
  const privateKey = [
    check('ssh_public_key', ssh_public_key, sshPublicKey),
    check('preferred_language', preferred_language, languageTag),
    check('preferred_timezone', preferred_timezone, timeZone),
  ].includes(true);
  if (privateKey) {
    // Its own code, so that a client can tell its user plainly; the key itself is in no answer and no log.
    throw new ServiceError(
      400,
      'ssh_private_key',
      'The SSH key is a private key: send its public half (the .pub file); nothing was stored',
      refused,
    );
  }
  if (refused.length > 0) {
    throw new ServiceError(
      400,
      'invalid_attribute',
      `Invalid attribute: ${refused.map(({ path, message }) => `${path}: ${message}`).join('; ')}`,
      refused,
    );
  }
  return changes;
}

export function attributeHandlers({ store }: Services): Pick<Handlers, 'getAttributes' | 'updateUserAttributes'> {
  return {
    async getAttributes({ target_user }) {
      const attributes = await store.attributes.find(canonicalId(target_user.user_id));
      if (!attributes) throw userNotFound();
      return { user_attributes: attributes };
    },
    async updateUserAttributes({ target_user_attributes }, { author }) {
      const changes = changesOf(target_user_attributes);
      const attributes = await store.attributes.update(canonicalId(target_user_attributes.user_id), changes, author);
      if (!attributes) throw userNotFound();
      return { user_attributes: attributes };
    },
  };
}

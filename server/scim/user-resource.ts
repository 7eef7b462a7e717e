/**
 * One directory, two protocols: a stored user as SCIM's User resource (RFC
 * 7643, 4.1, with the enterprise extension's `organization`), and a SCIM
 * User as the fields the store changes. The mapping is the service's own;
 * docs/scim.md lists it for administrators.
 */
import { SCIM_LIMITS } from '../../lib/contract/scim-operations.js';
import { entityTag } from '../http/entity-tags.js';
import {
  userAsSeen,
  type DirectoryFields,
  type Email,
  type Sight,
  type StoredUser,
  type StoredUserFields,
  type UserProfile,
} from '../directory/index.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name: { givenName: string; familyName: string; formatted: string };
  displayName: string;
  active: boolean;
  emails: Email[];
  phoneNumbers: { value: string; type: 'work'; primary: true }[];
  /**
   * `display`, the group's name, only for a key that may view groups (directory/sight.ts). Left
   * out for a user read without its groups: the resource a PATCH is applied to (users.ts).
   */
  groups?: { value: string; display?: string; $ref: string }[];
  [ENTERPRISE_USER_SCHEMA]: { organization: string };
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string };
}

/**
 * A stored user as SCIM shows it to a key of this sight; `base` is the SCIM service's address,
 * e.g. `https://host/scim/v2`. The resource shares nothing with the stored user: a PATCH is
 * applied to it in place (patch.ts), and the stored user is what the directory compares the
 * result with.
 */
export function scimUser({ record, version, modified, directory }: StoredUser | StoredUserFields, base: string, sight: Sight): ScimUser {
  const formatted = `${record.first_name} ${record.last_name}`.trim();
  return {
    schemas: [USER_SCHEMA, ENTERPRISE_USER_SCHEMA],
    id: record.user_id,
    ...(directory.external_id === null ? {} : { externalId: directory.external_id }),
    userName: record.username,
    name: { givenName: record.first_name, familyName: record.last_name, formatted },
    displayName: formatted || record.username,
    active: !record.disabled,
    emails: directory.emails.map((email) => ({ ...email })),
    phoneNumbers: record.phone ? [{ value: record.phone, type: 'work', primary: true }] : [],
    ...('groups' in record
      ? {
          groups: userAsSeen(record, sight).groups.map((group) => ({
            value: group.group_id,
            ...(group.name === undefined ? {} : { display: group.name }),
            $ref: `${base}/Groups/${group.group_id}`,
          })),
        }
      : {}),
    [ENTERPRISE_USER_SCHEMA]: { organization: record.organization },
    meta: {
      resourceType: 'User',
      created: record.created,
      lastModified: modified,
      location: `${base}/Users/${record.user_id}`,
      version: entityTag(version),
    },
  };
}

/** A SCIM User as a client sends it: any of its attributes may be missing, and more may come. */
export interface ScimUserInput {
  userName?: unknown;
  externalId?: unknown;
  name?: { givenName?: unknown; familyName?: unknown } | null;
  active?: unknown;
  password?: unknown;
  emails?: unknown;
  phoneNumbers?: unknown;
  [ENTERPRISE_USER_SCHEMA]?: { organization?: unknown } | null;
  [attribute: string]: unknown;
}

/** What a SCIM User sets: the profile's fields, SCIM's own, and a new password. */
export interface UserFields {
  profile: Partial<Pick<UserProfile, 'username' | 'first_name' | 'last_name' | 'phone' | 'organization' | 'disabled'>>;
  directory: Partial<DirectoryFields>;
  password?: string;
}

/** A SCIM value that is not what its attribute takes (SCIM's `invalidValue`). */
export class InvalidValueError extends Error {
  constructor(
    readonly attribute: string,
    expected: string,
  ) {
    super(`${attribute} must be ${expected}`);
    this.name = 'InvalidValueError';
  }
}

/**
 * A boolean as provisioning clients send it: Entra ID sends `"False"` and `"True"`
 * as strings in PATCH values (docs/scim.md, Entra ID).
 */
function booleanOf(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new InvalidValueError(attribute, 'true or false');
}

function textOf(value: unknown, attribute: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') throw new InvalidValueError(attribute, 'a string');
  return value;
}

/** A complex attribute (`name`, the enterprise extension): an object, or nothing. */
function complexOf<T extends object>(value: T | null | undefined, attribute: string): T | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidValueError(attribute, 'an object');
  return value;
}

/** The primary entry of a multi-valued attribute, else its first. */
function primaryOf(values: unknown, attribute: string): Record<string, unknown> | undefined {
  if (values === null || values === undefined) return undefined;
  if (!Array.isArray(values) || values.some((entry) => entry === null || typeof entry !== 'object')) {
    throw new InvalidValueError(attribute, 'a list of objects');
  }
  const entries = values as Record<string, unknown>[];
  return entries.find((entry) => entry.primary === true) ?? entries[0];
}

function emailsOf(values: unknown): Email[] {
  if (values === null || values === undefined) return [];
  if (!Array.isArray(values)) throw new InvalidValueError('emails', 'a list of objects');
  // A PATCH may add emails one operation at a time: the same bound as a replacement's, checked on the result.
  if (values.length > SCIM_LIMITS.emails) throw new InvalidValueError('emails', `a list of at most ${SCIM_LIMITS.emails} addresses`);
  return values.map((entry: unknown, index) => {
    if (entry === null || typeof entry !== 'object') throw new InvalidValueError(`emails[${index}]`, 'an object');
    const { value, type, primary, display } = entry as Record<string, unknown>;
    if (typeof value !== 'string' || value === '') throw new InvalidValueError(`emails[${index}].value`, 'an address');
    return {
      value,
      ...(typeof type === 'string' ? { type } : {}),
      ...(typeof primary === 'boolean' ? { primary } : {}),
      ...(typeof display === 'string' ? { display } : {}),
    };
  });
}

/**
 * The fields a whole SCIM User sets (POST, PUT, and the result of a PATCH): an attribute
 * left out is cleared, as a replacement does (RFC 7644, 3.5.1), except `active`, which
 * stays as it is, and the password, which is never shown and so is changed only when sent.
 */
export function userFieldsFrom(resource: ScimUserInput): UserFields {
  const phone = primaryOf(resource.phoneNumbers, 'phoneNumbers');
  const enterprise = complexOf(resource[ENTERPRISE_USER_SCHEMA], ENTERPRISE_USER_SCHEMA);
  const name = complexOf(resource.name, 'name');
  const fields: UserFields = {
    profile: {
      username: textOf(resource.userName, 'userName'),
      first_name: textOf(name?.givenName, 'name.givenName'),
      last_name: textOf(name?.familyName, 'name.familyName'),
      phone: textOf(phone?.value, 'phoneNumbers.value'),
      organization: textOf(enterprise?.organization, 'organization'),
    },
    directory: {
      external_id: resource.externalId === undefined || resource.externalId === null ? null : textOf(resource.externalId, 'externalId'),
      emails: emailsOf(resource.emails),
    },
  };
  if (resource.active !== undefined && resource.active !== null) fields.profile.disabled = !booleanOf(resource.active, 'active');
  if (resource.password !== undefined && resource.password !== null) fields.password = textOf(resource.password, 'password');
  return fields;
}

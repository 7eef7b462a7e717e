/**
 * A SCIM filter (RFC 7644, 3.4.2.2), as scim2-parse-filter parses it, turned
 * into a `WHERE` on the users table, so that the database does the matching
 * and `userName eq "…"` is one lookup in the username index.
 *
 * Attribute names are case-insensitive, as SCIM's are. Text is compared
 * ignoring case, except `id` and `externalId` (SCIM's `caseExact`); usernames
 * are stored in the form the username profile gives them, so `userName eq`
 * compares that form. `co`, `sw` and `ew` ignore case everywhere. Dates compare
 * as instants; `active` takes `eq`, `ne` and `pr` only.
 */
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { prepareUsername } from '../username/profile.js';
import type { UserFilter } from './records.js';
import type { Database } from './schema.js';

type Where = ExpressionBuilder<Database, 'users'>;

/** A filter the service cannot run: an unknown attribute, or an operator or value the attribute does not take. */
export class InvalidFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidFilterError';
  }
}

type Column = 'user_id' | 'username' | 'external_id' | 'first_name' | 'last_name' | 'phone' | 'organization' | 'created' | 'modified';

interface TextAttribute {
  kind: 'text';
  column: Column;
  /** SCIM's caseExact: compared as stored. */
  caseExact: boolean;
  /** The stored form of a value compared with `eq` or `ne`. */
  stored?: (value: string) => string;
}
interface DateAttribute {
  kind: 'date';
  column: 'created' | 'modified';
}
interface ActiveAttribute {
  kind: 'active';
}
type Attribute = TextAttribute | DateAttribute | ActiveAttribute;

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:user:';
const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:';

/** Each filterable attribute, by its lower-case path. */
const ATTRIBUTES: Record<string, Attribute> = {
  id: { kind: 'text', column: 'user_id', caseExact: true, stored: (value) => value.replaceAll('-', '').toLowerCase() },
  username: { kind: 'text', column: 'username', caseExact: true, stored: prepareUsername },
  externalid: { kind: 'text', column: 'external_id', caseExact: true },
  'name.givenname': { kind: 'text', column: 'first_name', caseExact: false },
  'name.familyname': { kind: 'text', column: 'last_name', caseExact: false },
  phonenumbers: { kind: 'text', column: 'phone', caseExact: false },
  'phonenumbers.value': { kind: 'text', column: 'phone', caseExact: false },
  organization: { kind: 'text', column: 'organization', caseExact: false },
  active: { kind: 'active' },
  'meta.created': { kind: 'date', column: 'created' },
  'meta.lastmodified': { kind: 'date', column: 'modified' },
};

function attributeOf(path: string): Attribute {
  let name = path.toLowerCase();
  for (const prefix of [USER_SCHEMA, ENTERPRISE_SCHEMA]) if (name.startsWith(prefix)) name = name.slice(prefix.length);
  const attribute = ATTRIBUTES[name];
  if (!attribute) {
    throw new InvalidFilterError(
      `cannot filter on ${JSON.stringify(path)}: the filterable attributes are id, userName, externalId, name.givenName, ` +
        'name.familyName, phoneNumbers.value, organization, active, meta.created and meta.lastModified',
    );
  }
  return attribute;
}

/** `%`, `_` and the escape character itself, taken literally in a LIKE pattern. */
const literally = (value: string) => value.replace(/[\\%_]/g, (character) => `\\${character}`);

const COMPARISONS = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' } as const;

function textComparison(eb: Where, attribute: TextAttribute, op: string, value: unknown, path: string): Expression<SqlBool> {
  if (typeof value !== 'string') throw new InvalidFilterError(`${path} ${op} needs a string, not ${JSON.stringify(value)}`);
  const column = eb.ref(attribute.column);
  if (op === 'co' || op === 'sw' || op === 'ew') {
    const pattern = `${op === 'sw' ? '' : '%'}${literally(value.toLowerCase())}${op === 'ew' ? '' : '%'}`;
    return sql<SqlBool>`lower(${column}) like ${pattern} escape '\\'`;
  }
  const operator = COMPARISONS[op as keyof typeof COMPARISONS];
  if (attribute.caseExact) {
    const stored = op === 'eq' || op === 'ne' ? (attribute.stored?.(value) ?? value) : value;
    const compared = eb(column, operator, stored);
    // A user without the attribute (no externalId) is "not equal" to any value.
    return op === 'ne' ? eb.or([compared, eb(column, 'is', null)]) : compared;
  }
  return eb(eb.fn('lower', [column]), operator, value.toLowerCase());
}

function dateComparison(eb: Where, attribute: DateAttribute, op: string, value: unknown, path: string): Expression<SqlBool> {
  const instant = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(instant) || !(op in COMPARISONS)) {
    throw new InvalidFilterError(`${path} ${op} needs a date and time, e.g. "2026-11-01T00:00:00Z", and eq, ne, gt, ge, lt or le`);
  }
  // Stored as RFC 3339 in UTC, which sorts as time does.
  return eb(attribute.column, COMPARISONS[op as keyof typeof COMPARISONS], new Date(instant).toISOString());
}

export function userFilterExpression(eb: Where, filter: UserFilter): Expression<SqlBool> {
  switch (filter.op) {
    case 'and':
      return eb.and(filter.filters.map((inner) => userFilterExpression(eb, inner)));
    case 'or':
      return eb.or(filter.filters.map((inner) => userFilterExpression(eb, inner)));
    case 'not':
      return eb.not(userFilterExpression(eb, filter.filter));
    case '[]':
      throw new InvalidFilterError(`cannot filter within ${JSON.stringify(filter.attrPath)}: value filters are not supported in a search`);
    case 'pr': {
      const attribute = attributeOf(filter.attrPath);
      if (attribute.kind === 'active') return sql<SqlBool>`true`;
      return eb.and([eb(attribute.column, 'is not', null), eb(attribute.column, '<>', '')]);
    }
    default: {
      const attribute = attributeOf(filter.attrPath);
      if (attribute.kind === 'text') return textComparison(eb, attribute, filter.op, filter.compValue, filter.attrPath);
      if (attribute.kind === 'date') return dateComparison(eb, attribute, filter.op, filter.compValue, filter.attrPath);
      if ((filter.op !== 'eq' && filter.op !== 'ne') || typeof filter.compValue !== 'boolean') {
        throw new InvalidFilterError(`active takes eq, ne or pr with true or false, not ${filter.op} ${JSON.stringify(filter.compValue)}`);
      }
      const active = filter.op === 'eq' ? filter.compValue : !filter.compValue;
      return eb('disabled', '=', active ? sql<boolean>`false` : sql<boolean>`true`);
    }
  }
}

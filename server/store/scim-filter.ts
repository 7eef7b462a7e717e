/**
 * A SCIM filter (RFC 7644, 3.4.2.2), as scim2-parse-filter parses it, turned
 * into a `WHERE` on the users or the groups table, so that the database does
 * the matching and `userName eq "…"` is one lookup in the username index.
 *
 * Attribute names are case-insensitive, as SCIM's are. Text is compared
 * ignoring case, except `id`, `externalId` and `userName` (SCIM's
 * `caseExact`; usernames are stored in the form the username profile gives
 * them, so `userName eq` compares that form). `co`, `sw` and `ew` ignore case
 * everywhere. Dates compare as instants; `active` takes `eq`, `ne` and `pr`
 * only; a group's `members` are matched by the user ids they hold.
 */
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { prepareUsername } from '../username/profile.js';
import type { UserFilter } from './records.js';
import type { Database } from './schema.js';

/** A filter on either table: the columns are named as text, checked by the attribute tables below. */
type Where = ExpressionBuilder<Database, 'users' | 'groups'>;
type ColumnRef = Parameters<Where['ref']>[0];

/** A filter the service cannot run: an unknown attribute, or an operator or value the attribute does not take. */
export class InvalidFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidFilterError';
  }
}

type Column = string;

interface TextAttribute {
  kind: 'text';
  column: Column;
  /** SCIM's caseExact: compared as stored. */
  caseExact: boolean;
  /** The stored form of a value compared with `eq` or `ne`. */
  stored?: (value: string) => string;
  /** Whether no two rows share a value: `eq` on it is a lookup by key (uniqueKeyOf). */
  unique?: boolean;
}
interface DateAttribute {
  kind: 'date';
  column: 'created' | 'modified';
}
interface ActiveAttribute {
  kind: 'active';
}
/** A group's members, by the user ids they hold. */
interface MembersAttribute {
  kind: 'members';
}
type Attribute = TextAttribute | DateAttribute | ActiveAttribute | MembersAttribute;

/** What a resource type may be filtered on: its attributes by lower-case path, and the schema URNs they may carry. */
export interface FilterSchema {
  attributes: Record<string, Attribute>;
  prefixes: string[];
}

/** Each filterable attribute of a user, by its lower-case path. */
export const USER_FILTER: FilterSchema = {
  prefixes: ['urn:ietf:params:scim:schemas:core:2.0:user:', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:'],
  attributes: {
    id: { kind: 'text', column: 'user_id', caseExact: true, unique: true, stored: (value) => value.replaceAll('-', '').toLowerCase() },
    username: { kind: 'text', column: 'username', caseExact: true, unique: true, stored: prepareUsername },
    externalid: { kind: 'text', column: 'external_id', caseExact: true },
    'name.givenname': { kind: 'text', column: 'first_name', caseExact: false },
    'name.familyname': { kind: 'text', column: 'last_name', caseExact: false },
    phonenumbers: { kind: 'text', column: 'phone', caseExact: false },
    'phonenumbers.value': { kind: 'text', column: 'phone', caseExact: false },
    organization: { kind: 'text', column: 'organization', caseExact: false },
    active: { kind: 'active' },
    'meta.created': { kind: 'date', column: 'created' },
    'meta.lastmodified': { kind: 'date', column: 'modified' },
  },
};

/** Each filterable attribute of a group, by its lower-case path. */
export const GROUP_FILTER: FilterSchema = {
  prefixes: ['urn:ietf:params:scim:schemas:core:2.0:group:'],
  attributes: {
    id: { kind: 'text', column: 'group_id', caseExact: true, unique: true, stored: (value) => value.replaceAll('-', '').toLowerCase() },
    displayname: { kind: 'text', column: 'name', caseExact: false },
    externalid: { kind: 'text', column: 'external_id', caseExact: true },
    members: { kind: 'members' },
    'members.value': { kind: 'members' },
    'meta.created': { kind: 'date', column: 'created' },
    'meta.lastmodified': { kind: 'date', column: 'modified' },
  },
};

/** The attribute of that name, if the schema has one: its own, never one of every object's (`__proto__`). */
const attributeNamed = (schema: FilterSchema, name: string): Attribute | undefined =>
  Object.hasOwn(schema.attributes, name) ? schema.attributes[name] : undefined;

/** The attribute a path names (its schema's URN prefix optional), if the schema has one. */
function attributeAt(schema: FilterSchema, path: string): Attribute | undefined {
  let name = path.toLowerCase();
  for (const prefix of schema.prefixes) if (name.startsWith(prefix)) name = name.slice(prefix.length);
  return attributeNamed(schema, name);
}

/** The attribute a filter names, or InvalidFilterError listing those it could name. */
function attributeOf(schema: FilterSchema, path: string): Attribute {
  const attribute = attributeAt(schema, path);
  if (!attribute) {
    throw new InvalidFilterError(
      `cannot filter on ${JSON.stringify(path)}: the filterable attributes are ${Object.keys(schema.attributes).join(', ')}`,
    );
  }
  return attribute;
}

/** `%`, `_` and the escape character itself, taken literally in a LIKE pattern. */
const literally = (value: string) => value.replace(/[\\%_]/g, (character) => `\\${character}`);

const COMPARISONS = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' } as const;

function textComparison(eb: Where, attribute: TextAttribute, op: string, value: unknown, path: string): Expression<SqlBool> {
  if (typeof value !== 'string') throw new InvalidFilterError(`${path} ${op} needs a string, not ${JSON.stringify(value)}`);
  const column = eb.ref(attribute.column as ColumnRef);
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
  return eb(eb.ref(attribute.column as ColumnRef), COMPARISONS[op as keyof typeof COMPARISONS], new Date(instant).toISOString());
}

/** A group whose members include (eq) or do not include (ne) the user with this id. */
function membersComparison(eb: Where, op: string, value: unknown, path: string): Expression<SqlBool> {
  if ((op !== 'eq' && op !== 'ne') || typeof value !== 'string') throw new InvalidFilterError(`${path} takes eq or ne with a user id`);
  const holds = eb.exists(
    eb
      .selectFrom('user_groups')
      .select('user_groups.user_id')
      .whereRef('user_groups.group_id', '=', eb.ref('groups.group_id' as ColumnRef) as never)
      .where('user_groups.user_id', '=', value.replaceAll('-', '').toLowerCase()),
  );
  return op === 'eq' ? holds : eb.not(holds);
}

/**
 * The column and stored value when a filter names at most one row by a unique attribute:
 * `userName eq "…"`, which Entra ID and Okta send before every create, and `id eq "…"`.
 * Such a search is a lookup by key, run as the repositories' prepared lookups are, where
 * building and compiling the general query would cost several times the lookup itself.
 */
export function uniqueKeyOf(filter: UserFilter | undefined, schema: FilterSchema): { column: Column; value: string } | undefined {
  if (filter?.op !== 'eq' || !('compValue' in filter) || typeof filter.compValue !== 'string') return undefined;
  const attribute = attributeAt(schema, filter.attrPath);
  if (attribute?.kind !== 'text' || !attribute.unique) return undefined;
  return { column: attribute.column, value: attribute.stored?.(filter.compValue) ?? filter.compValue };
}

/** The filter as a WHERE on the table `schema` describes. */
export function filterExpression(eb: Where, filter: UserFilter, schema: FilterSchema): Expression<SqlBool> {
  switch (filter.op) {
    case 'and':
      return eb.and(filter.filters.map((inner) => filterExpression(eb, inner, schema)));
    case 'or':
      return eb.or(filter.filters.map((inner) => filterExpression(eb, inner, schema)));
    case 'not':
      return eb.not(filterExpression(eb, filter.filter, schema));
    case '[]': {
      // Only `members[value eq "…"]`: the one value filter providers send in a search.
      const attribute = attributeNamed(schema, filter.attrPath.toLowerCase());
      const inner = filter.valFilter;
      if (attribute?.kind !== 'members' || !('attrPath' in inner) || inner.attrPath.toLowerCase() !== 'value' || !('compValue' in inner)) {
        throw new InvalidFilterError(
          `cannot filter within ${JSON.stringify(filter.attrPath)}: value filters are not supported in a search, but for members[value eq "…"] on groups`,
        );
      }
      return membersComparison(eb, inner.op, inner.compValue, filter.attrPath);
    }
    case 'pr': {
      const attribute = attributeOf(schema, filter.attrPath);
      if (attribute.kind === 'active') return sql<SqlBool>`true`;
      if (attribute.kind === 'members') {
        return eb.exists(
          eb
            .selectFrom('user_groups')
            .select('user_groups.user_id')
            .whereRef('user_groups.group_id', '=', eb.ref('groups.group_id' as ColumnRef) as never),
        );
      }
      const column = eb.ref(attribute.column as ColumnRef);
      return eb.and([eb(column, 'is not', null), eb(column, '<>', '')]);
    }
    default: {
      const attribute = attributeOf(schema, filter.attrPath);
      if (attribute.kind === 'text') return textComparison(eb, attribute, filter.op, filter.compValue, filter.attrPath);
      if (attribute.kind === 'date') return dateComparison(eb, attribute, filter.op, filter.compValue, filter.attrPath);
      if (attribute.kind === 'members') return membersComparison(eb, filter.op, filter.compValue, filter.attrPath);
      if ((filter.op !== 'eq' && filter.op !== 'ne') || typeof filter.compValue !== 'boolean') {
        throw new InvalidFilterError(`active takes eq, ne or pr with true or false, not ${filter.op} ${JSON.stringify(filter.compValue)}`);
      }
      const active = filter.op === 'eq' ? filter.compValue : !filter.compValue;
      return eb(eb.ref('disabled' as ColumnRef), '=', active ? sql<boolean>`false` : sql<boolean>`true`);
    }
  }
}

/**
 * The number of matches of a search whose page is `rows`. A page read from the first
 * match on that is not full holds every match: its length is the total, and `count` (the
 * count query) is left out (Entra ID's `userName eq "…"` before every create finds one
 * user or none).
 */
export async function totalMatches(
  { offset, limit }: { offset: number; limit: number },
  rows: readonly unknown[],
  count: () => Promise<{ total: number | string }>,
): Promise<number> {
  return offset === 0 && rows.length < limit ? rows.length : Number((await count()).total);
}

/**
 * Attribute names as RFC 7643 (2.1) reads them: case-insensitive, schema URNs
 * included. A request's attribute names are put in the case the schemas
 * (discovery.ts, what `/Schemas` shows) give them before anything else reads
 * the request: the contract's checks, the PATCH library and the resource
 * mappings then see `userName`, `emails[].primary` and
 * `urn:…:enterprise:2.0:User` however a provider spelled them. Names the
 * schemas do not know are left as sent (attributes the directory does not
 * keep are ignored further on), and so are values.
 *
 * Filters (store/scim-filter.ts) and `attributes`/`excludedAttributes`
 * (projection.ts) compare names without case where they read them.
 */
import type { RequestHandler } from 'express';
import { shortened } from '../service-errors.js';
import { type Attribute, ENTERPRISE_ATTRIBUTES, GROUP_ATTRIBUTES, USER_ATTRIBUTES } from './discovery.js';
import { SCIM_BASE_PATH } from '../../lib/contract/scim-operations.js';
import { invalidValue } from './errors.js';
import { GROUP_SCHEMA } from './group-resource.js';
import { ENTERPRISE_USER_SCHEMA, USER_SCHEMA } from './user-resource.js';

/** Names by their lower case: the name as the schema spells it, and its sub-attributes' names. */
type Names = ReadonlyMap<string, { name: string; sub?: Names }>;

type Named = Pick<Attribute, 'name'> & { subAttributes?: Named[] };

const namesOf = (attributes: readonly Named[]): Names =>
  new Map(
    attributes.map(({ name, subAttributes }) => [name.toLowerCase(), { name, ...(subAttributes ? { sub: namesOf(subAttributes) } : {}) }]),
  );

/** What every resource has besides its schema's attributes (RFC 7643, 3.1). */
const COMMON: Named[] = [
  { name: 'schemas' },
  { name: 'id' },
  { name: 'meta', subAttributes: ['resourceType', 'created', 'lastModified', 'location', 'version'].map((name) => ({ name })) },
];

const RESOURCE_NAMES = {
  User: namesOf([...COMMON, ...USER_ATTRIBUTES, { name: ENTERPRISE_USER_SCHEMA, subAttributes: ENTERPRISE_ATTRIBUTES }]),
  Group: namesOf([...COMMON, ...GROUP_ATTRIBUTES]),
} as const;

/** The schemas whose URN may lead a path, and the names after it. */
const SCHEMA_PREFIXES = {
  User: [
    [USER_SCHEMA, RESOURCE_NAMES.User],
    [ENTERPRISE_USER_SCHEMA, namesOf(ENTERPRISE_ATTRIBUTES)],
  ],
  Group: [[GROUP_SCHEMA, RESOURCE_NAMES.Group]],
} as const satisfies Record<keyof typeof RESOURCE_NAMES, readonly (readonly [string, Names])[]>;

const PATCH_NAMES = namesOf([
  { name: 'schemas' },
  { name: 'Operations', subAttributes: [{ name: 'op' }, { name: 'path' }, { name: 'value' }] },
]);

export type ResourceKind = keyof typeof RESOURCE_NAMES;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each level's names keyed by the schemas' own spelling, made once per level: what alreadyCanonical looks up. */
const bySpelling = new WeakMap<Names, Names>();

function spelledAs(names: Names): Names {
  let spelled = bySpelling.get(names);
  if (!spelled) bySpelling.set(names, (spelled = new Map([...names.values()].map((entry) => [entry.name, entry]))));
  return spelled;
}

/**
 * Whether every name in `value`, at every depth canonicalNames would rename, is already spelled
 * as `names` spell it. Identity providers send names so (Okta's and Entra ID's PATCH bodies do),
 * and such a value is taken as it is, without its copy: the copy's maps and objects cost a SCIM
 * write about 2 µs (BENCHMARKS.md, issue 43). Names spelled so are one each, so none is sent twice.
 */
function alreadyCanonical(value: unknown, names: Names): boolean {
  if (Array.isArray(value)) return value.every((entry) => alreadyCanonical(entry, names));
  if (!isObject(value)) return true;
  const spelled = spelledAs(names);
  for (const key of Object.keys(value)) {
    const known = spelled.get(key);
    if (known === undefined || (known.sub && !alreadyCanonical(value[key], known.sub))) return false;
  }
  return true;
}

/**
 * `value` with its attribute names, and its sub-attributes', as `names` spell them; a list is
 * a multi-valued attribute's, each of its entries named so. Two names for one attribute are
 * refused: which of them would count is not a question to answer silently. A value whose names
 * are all spelled so already is given back as it is.
 */
export function canonicalNames(value: unknown, names: Names): unknown {
  return alreadyCanonical(value, names) ? value : renamed(value, names);
}

function renamed(value: unknown, names: Names): unknown {
  if (Array.isArray(value)) return value.map((entry) => canonicalNames(entry, names));
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = {};
  const sentAs = new Map<string, string>();
  for (const [key, inner] of Object.entries(value)) {
    const known = names.get(key.toLowerCase());
    const name = known?.name ?? key;
    const other = sentAs.get(name.toLowerCase());
    if (other !== undefined) throw invalidValue(`"${shortened(other)}" and "${shortened(key)}" name one attribute: send it once`);
    sentAs.set(name.toLowerCase(), key);
    const named = known?.sub ? canonicalNames(inner, known.sub) : inner;
    // Defined, not assigned, where it matters: a `__proto__` key stays a key, for the checks further
    // on to refuse. Every other name is assigned, which keeps the object in V8's fast shapes.
    if (name === '__proto__') Object.defineProperty(result, name, { value: named, enumerable: true, writable: true, configurable: true });
    else result[name] = named;
  }
  return result;
}

/** Every name a path may hold after its URN, at any depth: filters name sub-attributes. */
const everyName = (names: Names): Map<string, string> =>
  new Map([...names].flatMap(([lower, { name, sub }]) => [[lower, name] as const, ...(sub ? everyName(sub) : [])]));

const PATH_NAMES = { User: everyName(RESOURCE_NAMES.User), Group: everyName(RESOURCE_NAMES.Group) };

/** Each kind's schema URNs in lower case, beside the URN: made once rather than for every path. */
const LOWER_PREFIXES = {
  User: SCHEMA_PREFIXES.User.map(([urn]) => [urn, urn.toLowerCase()] as const),
  Group: SCHEMA_PREFIXES.Group.map(([urn]) => [urn, urn.toLowerCase()] as const),
};

/**
 * A PATCH path with its URN and attribute names as the schemas spell them
 * (`Emails[Type eq "work"].Value` → `emails[type eq "work"].value`); quoted values are left as
 * they are, and so are the filter's operators, which no attribute is named after. A path that is
 * one name the schemas know (`active`, `userName`) is looked up without the tokens' pattern.
 */
export function canonicalPath(path: string, kind: ResourceKind): string {
  const trimmed = path.trim();
  const lower = trimmed.toLowerCase();
  const single = PATH_NAMES[kind].get(lower);
  if (single !== undefined) return single;
  for (const [urn, prefix] of LOWER_PREFIXES[kind]) {
    if (lower === prefix) return urn;
    if (lower.startsWith(`${prefix}:`)) return `${urn}:${canonicalPath(trimmed.slice(urn.length + 1), kind)}`;
  }
  return trimmed.replace(/"(?:[^"\\]|\\.)*"|[A-Za-z$][\w$]*/g, (token) =>
    token.startsWith('"') ? token : (PATH_NAMES[kind].get(token.toLowerCase()) ?? token),
  );
}

/** The names a PATCH operation's value holds: those of the resource without a path, else those under the attribute it names. */
function valueNames(path: string | undefined, kind: ResourceKind): Names | undefined {
  if (path === undefined) return RESOURCE_NAMES[kind];
  for (const [urn, names] of SCHEMA_PREFIXES[kind]) {
    if (path === urn) return urn === ENTERPRISE_USER_SCHEMA ? names : undefined;
    if (path.startsWith(`${urn}:`)) return valueNames(path.slice(urn.length + 1), kind);
  }
  // `name`, `emails`, `members[value eq "…"]`: the value is the attribute's, or one of its entries; `name.givenName` holds none.
  const attribute = /^([^.[]+)(\[[^\]]*\])?$/.exec(path)?.[1];
  return attribute === undefined ? undefined : RESOURCE_NAMES[kind].get(attribute.toLowerCase())?.sub;
}

/** A PATCH request (RFC 7644, 3.5.2) with its names, its paths' and its values' as the schemas spell them. */
export function canonicalPatch(body: unknown, kind: ResourceKind): unknown {
  const patch = canonicalNames(body, PATCH_NAMES);
  if (!isObject(patch) || !Array.isArray(patch.Operations)) return patch;
  return {
    ...patch,
    Operations: patch.Operations.map((operation: unknown) => {
      if (!isObject(operation)) return operation;
      const path = typeof operation.path === 'string' ? canonicalPath(operation.path, kind) : undefined;
      const names = valueNames(path, kind);
      return {
        ...operation,
        ...(path === undefined ? {} : { path }),
        ...('value' in operation && names ? { value: canonicalNames(operation.value, names) } : {}),
      };
    }),
  };
}

/** A resource's path, or its collection's, under SCIM's base. */
const RESOURCE_PATH = new RegExp(`^${SCIM_BASE_PATH}/(Users|Groups)(?:/[^/]+)?$`);

/** Puts a SCIM write's attribute names in the schemas' case, before the contract's checks read them. */
export const canonicalAttributeNames: RequestHandler = (req, _res, next) => {
  const collection = RESOURCE_PATH.exec(req.path)?.[1];
  if (!collection || !['POST', 'PUT', 'PATCH'].includes(req.method) || req.body === undefined) return void next();
  const kind: ResourceKind = collection === 'Users' ? 'User' : 'Group';
  try {
    req.body = req.method === 'PATCH' ? canonicalPatch(req.body, kind) : canonicalNames(req.body, RESOURCE_NAMES[kind]);
    next();
  } catch (error) {
    next(error);
  }
};

/**
 * PATCH (RFC 7644, 3.5.2) through scim-patch, on the resource as SCIM shows
 * it: the library reads the paths and value filters and applies the
 * operations in order; the result is read back as a whole resource
 * (user-resource.ts, group-resource.ts), so that what a PATCH can set is
 * exactly what a replacement can. Its refusals become SCIM's.
 */
import {
  InvalidScimPatch,
  InvalidScimPatchRequest,
  InvalidScimRemoveValue,
  type ScimPatchOperation,
  type ScimResource,
  ScimError as ScimPatchError,
  scimPatch,
} from 'scim-patch';
import { shortened } from '../service-errors.js';
import { SCIM_LIMITS } from '../../lib/contract/scim-operations.js';
import { invalidFilter, invalidPath, invalidValue, mutability, noTarget } from './errors.js';
import { memberNamedBy } from './group-amendment.js';

/**
 * Attributes the service sets, on every resource, and a User's `groups` (RFC 7643, 4.1.2:
 * read-only; memberships change through the Group): a PATCH naming them, whatever its op,
 * is refused (RFC 7644, 3.5.2: mutability).
 */
const READ_ONLY_ATTRIBUTES = { User: ['id', 'meta', 'groups'], Group: ['id', 'meta'] } as const;

/** Singular complex attributes: a value put in their place is an object of their sub-attributes. */
const COMPLEX_ATTRIBUTES = {
  User: ['name', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user'],
  Group: [],
} as const satisfies Record<keyof typeof READ_ONLY_ATTRIBUTES, readonly string[]>;

const isAttributes = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a path names a read-only attribute of the resource, or what is inside one. */
function namesReadOnly(path: string, resource: keyof typeof READ_ONLY_ATTRIBUTES): string | undefined {
  const attribute = /^(?:urn:ietf:params:scim:schemas:core:2\.0:(?:User|Group):)?([^.[\s]+)/i.exec(path.trim())?.[1]?.toLowerCase();
  return READ_ONLY_ATTRIBUTES[resource].find((name) => name === attribute);
}

/**
 * Names that lead out of a resource into JavaScript's objects. The library
 * walks a path by its names, so `__proto__.x` would set `x` on every object
 * of the process (the gate's hostile corpus tries it). No SCIM attribute has
 * one of them.
 */
const OBJECT_INTERNALS = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether a path names an object internal outside its quoted filter values. */
function reachesObjectInternals(path: string): boolean {
  const names = path.replace(/"(?:[^"\\]|\\.)*"/g, '""').split(/[^\w$]+/);
  return names.some((name) => OBJECT_INTERNALS.has(name));
}

/** Whether a value holds a key `__proto__` (JSON.parse makes it an own key; copying it would replace a prototype). */
function holdsPrototypeKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, inner]) => key === '__proto__' || holdsPrototypeKey(inner));
}

/** One operation of a PATCH, its `op` in lower case (RFC 7644 names them so; Entra ID capitalises). */
export interface PatchOperation {
  op: string;
  path?: string;
  value?: unknown;
}

/**
 * A `remove` with a path to a list and a `value` naming entries by their `value` (Entra ID
 * takes members out so: `{"op": "Remove", "path": "members", "value": [{"value": "…"}]}`)
 * removes those entries, whatever else they hold: as one value filter per entry.
 */
function removalsByValue(operation: PatchOperation): PatchOperation[] {
  const entries = operation.value;
  if (operation.op !== 'remove' || operation.path === undefined || operation.path.includes('[') || !Array.isArray(entries))
    return [operation];
  if (!entries.every((entry) => typeof (entry as { value?: unknown } | null)?.value === 'string')) return [operation];
  return entries.map((entry) => ({
    op: 'remove',
    path: `${operation.path}[value eq ${JSON.stringify((entry as { value: string }).value)}]`,
  }));
}

/**
 * A PATCH body's operations as they are applied: `op` in lower case, removals by value as
 * value filters. Refused, before anything is applied, where a path or value would reach
 * JavaScript's objects, where a path names what the service sets, and where an operation
 * without a path has no attributes to set.
 */
export function patchOperations(body: unknown, resource: keyof typeof READ_ONLY_ATTRIBUTES): PatchOperation[] {
  const operations = (body as { Operations: PatchOperation[] }).Operations.flatMap((operation) =>
    removalsByValue({ ...operation, op: operation.op.toLowerCase() }),
  );
  if (resource === 'Group') boundMembers(operations);
  for (const { op, path, value } of operations) {
    if (path !== undefined && reachesObjectInternals(path)) throw invalidPath(`"${shortened(path)}" names no attribute`);
    if (holdsPrototypeKey(value)) throw invalidValue('a value may not hold a "__proto__" key');
    const readOnly = path === undefined ? undefined : namesReadOnly(path, resource);
    if (readOnly === 'groups') throw mutability(`a User's groups are read-only: change the Group's members instead`);
    if (readOnly) throw mutability(`"${shortened(path ?? readOnly)}" is set by the service`);
    const complex = path
      ?.trim()
      .replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '')
      .toLowerCase();
    if (op !== 'remove' && (COMPLEX_ATTRIBUTES[resource] as readonly string[]).includes(complex ?? '') && !isAttributes(value))
      throw invalidValue(`"${shortened(path ?? '')}" takes an object of its sub-attributes`);
    // Without a path the target is the resource itself (RFC 7644, 3.5.2.1 and 3.5.2.3): only
    // attributes to set will do. The library would put anything else in the resource's place.
    if (path === undefined && op !== 'remove' && !isAttributes(value))
      throw invalidValue(`"${op}" without a path needs an object of attributes as its value`);
  }
  return operations;
}

/** The members a Group's operation names: those of a list, or the one its filter names. */
function membersNamed({ path, value }: PatchOperation): number {
  const attributes = path === undefined ? (value as Record<string, unknown> | undefined) : undefined;
  const listed = attributes ? Object.entries(attributes).find(([key]) => key.toLowerCase() === 'members')?.[1] : value;
  if (path !== undefined && path.includes('[')) return 1;
  if (path !== undefined && !/^(urn:ietf:params:scim:schemas:core:2\.0:group:)?members$/i.test(path.trim())) return 0;
  return Array.isArray(listed) ? listed.length : 0;
}

/**
 * A Group's PATCH names its members, and not too many: a filter on `members` other than
 * `value eq` would be matched against every member of the group, whatever its size.
 */
function boundMembers(operations: readonly PatchOperation[]): void {
  let named = 0;
  for (const operation of operations) {
    const { path } = operation;
    if (path !== undefined && /^(urn:ietf:params:scim:schemas:core:2\.0:group:)?members\s*\[/i.test(path.trim()) && !memberNamedBy(path))
      throw invalidFilter(`"${shortened(path)}": members are named by value, as members[value eq "<user id>"]`);
    named += membersNamed(operation);
  }
  if (named > SCIM_LIMITS.members)
    throw invalidValue(`a PATCH names at most ${SCIM_LIMITS.members} members (this one names ${named}): send them in several`);
}

/**
 * The resource with the operations (patchOperations) applied, in place: the caller hands over
 * a resource made for it and sharing nothing it keeps (scimUser, scimGroup), which spares the
 * library's own copy of it, a JSON round trip of the whole resource on every PATCH.
 */
export function patched(resource: object, operations: readonly PatchOperation[]): Record<string, unknown> {
  try {
    return scimPatch(resource as unknown as ScimResource, operations as ScimPatchOperation[], {
      mutateDocument: true,
      treatMissingAsAdd: true,
    }) as unknown as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof ScimPatchError)) throw error;
    const detail = shortened(error.message);
    // The library names RFC 7644's noTarget where it applies. What else it refuses, the contract
    // has accepted, so never `invalidSyntax` (a body the contract refuses): an operation it cannot
    // apply (a `replace` without a value, a `remove` with one) is a value refused, and the rest of
    // its patch errors are paths it cannot follow.
    if (error.scimCode === 'noTarget') throw noTarget(detail);
    if (error instanceof InvalidScimPatchRequest || error instanceof InvalidScimRemoveValue) throw invalidValue(detail);
    throw error instanceof InvalidScimPatch ? invalidPath(detail) : invalidValue(detail);
  }
}

/**
 * The PATCHes providers send to a group, as a change the store writes without
 * reading the group's members (a group may hold every user): Entra ID's `Add`
 * and `Remove` of `members` in batches, Okta's `add` to `members` and `remove`
 * of `members[value eq "…"]`, and renames, with a path (`displayName`,
 * `externalId`) or without one (Okta's `replace` with `{id, displayName}`).
 *
 * Any other operation, or a value of another form, makes the whole PATCH one
 * for patch.ts, which applies it to the group as read, members and all: the
 * answer is the same, only slower for a large group. So this module only ever
 * recognises; it never refuses.
 */
import { parse } from 'scim2-parse-filter';
import { canonicalId, type GroupAmendment } from '../directory/index.js';
import { GROUP_SCHEMA } from './group-resource.js';
import type { PatchOperation } from './patch.js';

/** An attribute's name in lower case, without the Group schema's URN before it. */
function attributeName(path: string): string {
  const name = path.toLowerCase();
  const prefix = `${GROUP_SCHEMA.toLowerCase()}:`;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The user id in `members[value eq "…"]`, if that is the path. */
export function memberNamedBy(path: string): string | undefined {
  if (!path.includes('[')) return undefined;
  try {
    const filter = parse(path);
    if (filter.op !== '[]' || attributeName(filter.attrPath) !== 'members') return undefined;
    const inner = filter.valFilter;
    if (inner.op !== 'eq' || !('compValue' in inner) || inner.attrPath.toLowerCase() !== 'value') return undefined;
    return typeof inner.compValue === 'string' && inner.compValue !== '' ? canonicalId(inner.compValue) : undefined;
  } catch {
    // Not a value filter the parser reads (`members[value eq "…"].display`): applied as a whole.
    return undefined;
  }
}

/** The user ids of a list of members (`[{"value": "…"}]`), if every entry has one. */
function memberIds(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ids = value.map((entry) => (entry as { value?: unknown } | null)?.value);
  return ids.every((id): id is string => typeof id === 'string' && id !== '') ? ids.map(canonicalId) : undefined;
}

/** A name as a replacement would set it: a PATCH's result goes through the same reading (group-resource.ts). */
const groupName = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** An externalId to set: a string, or null to clear it. */
const externalId = (value: unknown) => (typeof value === 'string' || value === null ? { value } : undefined);

/** The amendment the operations come to, applied in order; undefined when one of them is not of the forms above. */
export function groupAmendment(operations: readonly PatchOperation[]): GroupAmendment | undefined {
  // The last operation on a member decides it: true joins, false leaves.
  const members = new Map<string, boolean>();
  const amendment: Omit<GroupAmendment, 'addMembers' | 'removeMembers'> = {};
  const setName = (value: unknown) => {
    const name = groupName(value);
    if (name === undefined) return false;
    amendment.name = name;
    return true;
  };
  const setExternalId = (value: unknown) => {
    const id = externalId(value);
    if (id === undefined) return false;
    amendment.external_id = id.value;
    return true;
  };
  for (const { op, path, value } of operations) {
    if (op !== 'add' && op !== 'replace' && op !== 'remove') return undefined;
    if (path === undefined) {
      // Okta renames so: {"op": "replace", "value": {"id": "…", "displayName": "…"}}. The id is the service's, and stays.
      if (op === 'remove') return undefined;
      for (const [key, attribute] of Object.entries(value as Record<string, unknown>)) {
        const name = key.toLowerCase();
        if (name === 'id' || name === 'schemas') continue;
        if (name === 'displayname' ? !setName(attribute) : name === 'externalid' ? !setExternalId(attribute) : true) return undefined;
      }
      continue;
    }
    const name = attributeName(path);
    if (name === 'members' && op === 'add') {
      const ids = memberIds(value);
      if (!ids) return undefined;
      for (const id of ids) members.set(id, true);
    } else if (name === 'displayname' && op !== 'remove') {
      if (!setName(value)) return undefined;
    } else if (name === 'externalid') {
      // A `remove` clears it, and takes no value.
      if (op === 'remove' ? value !== undefined || !setExternalId(null) : !setExternalId(value)) return undefined;
    } else {
      const member = op === 'remove' && value === undefined ? memberNamedBy(path) : undefined;
      if (member === undefined) return undefined;
      members.set(member, false);
    }
  }
  const named = [...members];
  return {
    ...amendment,
    addMembers: named.filter(([, joins]) => joins).map(([id]) => id),
    removeMembers: named.filter(([, joins]) => !joins).map(([id]) => id),
  };
}

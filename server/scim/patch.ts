/**
 * PATCH (RFC 7644, 3.5.2) through scim-patch, on the resource as SCIM shows
 * it: the library reads the paths and value filters and applies the
 * operations in order; the result is read back as a whole resource
 * (user-resource.ts, group-resource.ts), so that what a PATCH can set is
 * exactly what a replacement can. Its refusals become SCIM's.
 */
import { InvalidScimPatch, type ScimPatchOperation, type ScimResource, ScimError as ScimPatchError, scimPatch } from 'scim-patch';
import { shortened } from '../service-errors.js';
import { invalidPath, invalidSyntax, invalidValue, mutability, noTarget } from './errors.js';

/** Attributes the service sets: a PATCH naming them is refused (RFC 7644, 3.5.2: mutability). */
const READ_ONLY = /^(id|meta)([.[]|$)/i;

interface PatchBody {
  Operations: { op: string; path?: string; value?: unknown }[];
}

type Operation = PatchBody['Operations'][number];

/**
 * A `remove` with a path to a list and a `value` naming entries by their `value` (Entra ID
 * takes members out so: `{"op": "Remove", "path": "members", "value": [{"value": "…"}]}`)
 * removes those entries, whatever else they hold: as one value filter per entry.
 */
function removalsByValue(operation: Operation): Operation[] {
  const entries = operation.value;
  if (operation.op !== 'remove' || operation.path === undefined || operation.path.includes('[') || !Array.isArray(entries))
    return [operation];
  if (!entries.every((entry) => typeof (entry as { value?: unknown } | null)?.value === 'string')) return [operation];
  return entries.map((entry) => ({
    op: 'remove',
    path: `${operation.path}[value eq ${JSON.stringify((entry as { value: string }).value)}]`,
  }));
}

/** The resource with the body's operations applied; the resource given is left as it is. */
export function patched(resource: object, body: unknown): Record<string, unknown> {
  const operations = (body as PatchBody).Operations.flatMap((operation) =>
    removalsByValue({ ...operation, op: operation.op.toLowerCase() }),
  );
  for (const { path } of operations) {
    if (path !== undefined && READ_ONLY.test(path)) throw mutability(`"${shortened(path)}" is set by the service`);
  }
  try {
    return scimPatch(structuredClone(resource) as unknown as ScimResource, operations as ScimPatchOperation[], {
      mutateDocument: true,
      treatMissingAsAdd: true,
    }) as unknown as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof ScimPatchError)) throw error;
    const detail = shortened(error.message);
    // The library names RFC 7644's scimType for some of its refusals (noTarget, invalidSyntax).
    if (error.scimCode === 'noTarget') throw noTarget(detail);
    if (error.scimCode === 'invalidSyntax') throw invalidSyntax(detail);
    throw error instanceof InvalidScimPatch ? invalidPath(detail) : invalidValue(detail);
  }
}

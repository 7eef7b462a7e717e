/**
 * Versions as HTTP entity tags (RFC 9110, 8.8.3): what `ETag` sends and what
 * `If-Match` names. The tags are weak (`W/"7"`) because the same version is
 * shown in more than one form (this API's JSON and SCIM's), and `If-Match`
 * compares them without the weak prefix, as SCIM clients expect (RFC 7644,
 * 3.14, sends weak tags in `If-Match`).
 */
import type { ExpectedVersions } from '../store/records.js';

export const entityTag = (version: number): string => `W/"${version}"`;

/**
 * The versions an `If-Match` header names, or undefined when it names any (`*`) or is absent.
 * A tag that is not one of ours (`"abc"`) names no version; the contract has refused a header
 * that is not a list of tags already.
 */
/**
 * The versions a write may apply to, from `If-Match` and `If-None-Match`: `If-None-Match: *`
 * asks that the resource not exist (RFC 9110, 13.1.2), so a write to one that does applies at
 * no version (412), and one that does not is not found (404) as ever.
 */
export function writeConditions(ifMatch: string | undefined, ifNoneMatch: string | undefined): ExpectedVersions | undefined {
  return ifNoneMatch?.trim() === '*' ? [] : expectedVersions(ifMatch);
}

export function expectedVersions(ifMatch: string | undefined): ExpectedVersions | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const [, opaque] of ifMatch.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    if (opaque !== undefined && /^[0-9]{1,15}$/.test(opaque)) versions.push(Number(opaque));
  }
  return versions;
}

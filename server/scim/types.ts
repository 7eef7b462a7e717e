/** What a SCIM handler is given and what it answers; routes.ts turns both into HTTP. */
import type { ApiKeyRecord, ChangeAuthor, ExpectedVersions } from '../directory/index.js';
import type { ScimOperationId } from './contract.js';

export interface ScimRequest {
  /** The path's `{id}`, for operations on one resource. */
  id: string;
  /** The query's parameters, as sent (the contract has checked their form). */
  query: Record<string, string | undefined>;
  /** The body, as the contract has checked it; undefined for GET and DELETE. */
  body: unknown;
  key: ApiKeyRecord;
  /** Who makes a change, for its audit event. */
  author: ChangeAuthor;
  /** The SCIM service's absolute address (`https://host/scim/v2`), for `meta.location` and `$ref`. */
  base: string;
  /** The versions `If-Match` names; undefined without one, or for `*`. */
  expectedVersions: ExpectedVersions | undefined;
}

export interface ScimAnswer {
  status: 200 | 201 | 204;
  body?: unknown;
  /** The version of the resource answered, sent as its `ETag`. */
  version?: number;
  /** The created resource's address, sent as `Location`. */
  location?: string;
}

export type ScimHandler = (request: ScimRequest) => Promise<ScimAnswer>;

/** One handler per operation of the SCIM contract: the compiler refuses a missing one. */
export type ScimHandlers = Record<ScimOperationId, ScimHandler>;

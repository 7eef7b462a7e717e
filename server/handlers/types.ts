/**
 * Handler types, all derived from the generated contract types: a handler
 * takes the validated request body and returns the 200 body, or throws an
 * ServiceError for any other status.
 */
import type { RequestHandler } from 'express';
import type { operations } from '../../generated/workspace/types.js';
import type { OperationId } from '../../lib/contract/operations.js';
import type { StreamedJson } from '../http/streamed-json.js';
import type { Readiness } from '../readiness.js';
import type { ApiKeyRecord, ChangeAuthor, Directory, ExpectedVersions, Sight } from '../directory/index.js';

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** A body as handlers see it: `null` fields are gone (lib/contract/declared-fields.ts), as if left out. */
type WithoutNull<T> = T extends (infer Item)[]
  ? WithoutNull<Item>[]
  : T extends object
    ? { [K in keyof T]: WithoutNull<Exclude<T[K], null>> }
    : T;

export type RequestBody<Op extends OperationId> = operations[Op] extends { requestBody: infer Body }
  ? WithoutNull<JsonContent<NonNullable<Body>>>
  : undefined;

export type SuccessBody<Op extends OperationId> = JsonContent<operations[Op]['responses'][200]>;

/** Operations that answer JSON: handled by an OperationHandler. */
export type JsonOperationId = {
  [Op in OperationId]: operations[Op]['responses'][200] extends { content: { 'application/json': unknown } } ? Op : never;
}[OperationId];

/**
 * HEAD operations: `head<Name>` answers what the GET at the same path does, without the
 * body, so it is served by that GET's handler and has none of its own.
 */
export type HeadOperationId = Extract<OperationId, `head${string}`>;

/** Operations that answer a page or an asset instead (the API reference). */
export type PageOperationId = Exclude<OperationId, JsonOperationId | HeadOperationId>;

/** A console session as the session operations answer it. */
export type ConsoleSessionAnswer = SuccessBody<'getSession'>;

/** The console session of a request (http/session-control.ts): the session operations' only way to it. */
export interface ConsoleSessionControl {
  /** Begins a session as the request's key (authenticated by its secret), setting its cookie. */
  begin(): Promise<ConsoleSessionAnswer>;
  /** The session the request came under. */
  current(): ConsoleSessionAnswer;
  /** Ends the session the request came under, and clears its cookie. */
  end(): Promise<void>;
}

export interface HandlerContext {
  /** The caller's key; undefined only for operations whose x-permission is `none`. */
  key: ApiKeyRecord | undefined;
  /** Who makes a change, for its audit event: the key's id and the request's id. */
  author: ChangeAuthor;
  /** What the key may read besides what it asked for (directory/sight.ts): a user's groups by name, a group's members by username. */
  sight: Sight;
  /** The versions `If-Match` names (http/entity-tags.ts); undefined without one, or for `*`. */
  expectedVersions: ExpectedVersions | undefined;
  /** Sends the version of the record the answer shows, as its `ETag`. */
  answersVersion: (version: number) => void;
  /** The web console's session of this request. */
  consoleSession: ConsoleSessionControl;
}

/** Operations whose answer can grow with the directory, and so may be streamed (streamed-json.ts). */
type StreamingOperationId = 'getUsers';

/** A handler returns the 200 body (for a streaming operation, possibly as a stream), or throws an ServiceError. */
export type OperationHandler<Op extends OperationId> = (
  body: RequestBody<Op>,
  context: HandlerContext,
) => Promise<SuccessBody<Op> | (Op extends StreamingOperationId ? StreamedJson : never)>;

/** One handler per JSON operation: the compiler refuses a missing or an extra one. */
export type Handlers = { [Op in JsonOperationId]: OperationHandler<Op> };

/** One express handler per page operation. */
export type PageHandlers = { [Op in PageOperationId]: RequestHandler };

export interface Services {
  /** Every user, group, attribute and key the handlers read or change (server/directory/). */
  directory: Directory;
  /** Why the database cannot take traffic now, or undefined (Store.unreadyBecause), for GET /readyz. */
  databaseUnreadyBecause: (withinMs: number) => Promise<string | undefined>;
  /** Whether the service takes traffic (GET /readyz); ready when absent. */
  readiness?: Readiness;
  /** The most users get_users lists in one answer when no page is asked for (GET_USERS_MAX). */
  getUsersMax?: number;
}

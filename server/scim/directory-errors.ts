/**
 * The directory's refusals as SCIM answers them (RFC 7644, 3.12): the status
 * and scimType of each; the words are the directory's, and a version is shown
 * as SCIM shows it (an ETag).
 */
import { DirectoryError, type Refusal } from '../directory/index.js';
import { entityTag } from '../http/entity-tags.js';
import { ScimFailure, type ScimType } from './errors.js';

function answerTo(refusal: Refusal): { status: number; scimType: ScimType; detail?: string } {
  switch (refusal.kind) {
    case 'not_found':
      return { status: 404, scimType: 'notFound' };
    case 'name_taken':
    case 'external_id_taken':
    case 'already_member':
      return { status: 409, scimType: 'uniqueness' };
    case 'not_member':
      return { status: 409, scimType: 'noTarget' };
    case 'system_group':
      return { status: 409, scimType: 'mutability' };
    case 'stale_version':
      return {
        status: 412,
        scimType: 'versionMismatch',
        detail: `The ${refusal.entity} is not at the version If-Match names; it is now at ${entityTag(refusal.current)}`,
      };
    case 'invalid_filter':
      return { status: 400, scimType: 'invalidFilter' };
    case 'grant_exceeds_key':
      return { status: 403, scimType: 'permissionDenied' };
    // The change feed, webhooks and keys are not SCIM's: none reaches a SCIM client.
    case 'invalid_cursor':
    case 'cursor_expired':
    case 'invalid_webhook_url':
    case 'invalid_api_key':
      return { status: 400, scimType: 'invalidValue' };
    case 'invalid_username':
    case 'invalid_group_name':
    case 'weak_password':
    case 'password_reused':
    case 'unknown_members':
    case 'too_many_member_changes':
    case 'invalid_attributes':
      return { status: 400, scimType: 'invalidValue' };
  }
}

export function scimFailureOfRefusal(error: DirectoryError): ScimFailure {
  const { status, scimType, detail } = answerTo(error.refusal);
  return new ScimFailure(status, scimType, detail ?? error.message);
}

/** A handler whose directory refusals are answered as SCIM's. */
export function answeringRefusals<Args extends unknown[], Result>(handler: (...args: Args) => Promise<Result>) {
  return async (...args: Args): Promise<Result> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof DirectoryError) throw scimFailureOfRefusal(error);
      throw error;
    }
  };
}

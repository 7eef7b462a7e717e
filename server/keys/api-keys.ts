/**
 * API keys: a public id and a random secret shown once.
 * Only the secret's SHA-256 digest is stored. A secret carries 256 random bits,
 * so a fast digest is enough: there is nothing to brute-force, unlike a password.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Permission } from '../../lib/contract/operations.js';
import type { ApiKeyRecord } from '../store/records.js';

/** A new key, with the secret the caller must be shown exactly once. */
export interface IssuedApiKey {
  record: ApiKeyRecord;
  secret: string;
}

export function digestSecret(secret: string): string {
  // One call, without a Hash object: checked on every request (BENCHMARKS.md, issue 43).
  return hash('sha256', secret, 'hex');
}

/**
 * 16 base64url characters, never starting with `-`: operators pass key ids to
 * `npm run admin -- revoke-key`, where a leading dash would read as an option.
 */
function newKeyId(): string {
  for (;;) {
    const id = randomBytes(12).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export function issueApiKey(name: string, permissions: readonly Permission[], expires: Date | null, now = new Date()): IssuedApiKey {
  const secret = randomBytes(32).toString('base64url');
  return {
    secret,
    record: {
      api_key: newKeyId(),
      name,
      secret_digest: digestSecret(secret),
      permissions: [...permissions],
      created: now.toISOString(),
      expires: expires ? expires.toISOString() : null,
      revoked: null,
      last_used: null,
    },
  };
}

/** A digest that matches no secret, compared against when the key is unknown so that both paths cost the same. */
const NO_SUCH_KEY_DIGEST = digestSecret(randomBytes(32).toString('base64url'));

/**
 * Whether `secret` is this key's secret and the key is usable now. An unknown,
 * expired or revoked key and a wrong secret are indistinguishable to the caller.
 */
export function isValidKey(record: ApiKeyRecord | undefined, secret: string, now = new Date()): record is ApiKeyRecord {
  const expected = Buffer.from(record?.secret_digest ?? NO_SUCH_KEY_DIGEST, 'hex');
  const secretMatches = timingSafeEqual(Buffer.from(digestSecret(secret), 'hex'), expected);
  return record !== undefined && secretMatches && isActiveKey(record, now);
}

/** Whether the key works now: not revoked, not expired. */
export function isActiveKey(record: ApiKeyRecord, now = new Date()): boolean {
  return record.revoked === null && (record.expires === null || new Date(record.expires) > now);
}

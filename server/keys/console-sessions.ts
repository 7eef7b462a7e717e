/**
 * The web console's sessions: an API key and its secret, typed once at sign-in,
 * exchanged for a random token the browser keeps in an HttpOnly cookie
 * (http/session-cookie.ts), so that no script ever holds the secret. A session
 * acts as its key with the key's permissions, and ends after `idleMs` without a
 * request, `absoluteMs` after sign-in (or at the key's expiry if sooner), at
 * sign-out, or as soon as its key is revoked or expires: the key is read on every
 * request, as for any credentials.
 *
 * Only the SHA-256 digest of a token is stored (the token carries 256 random
 * bits: nothing to brute-force). Sessions are rows of the database, so they
 * survive a restart and reach every instance. Each request writes the session's
 * last use at most once a minute, so the idle timeout is kept to the minute.
 *
 * The CSRF token of a session is derived from its token: the server needs no
 * row for it, and a page learns it only from the answers of sign-in and
 * get_session, which another site's page cannot read.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { isActiveKey } from './api-keys.js';

export interface SessionTimeouts {
  /** How long a session lasts without a request (CONSOLE_SESSION_IDLE_MINUTES). */
  idleMs: number;
  /** How long it lasts at most after sign-in (CONSOLE_SESSION_HOURS). */
  absoluteMs: number;
}

export const DEFAULT_SESSION_TIMEOUTS: SessionTimeouts = { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 };

/** How fresh a session's last use is kept: a request within this of the noted one writes nothing. */
const SEEN_PRECISION_MS = 60_000;

/** A session as the request under it and the answers about it see it. */
export interface LiveSession {
  token: string;
  key: ApiKeyRecord;
  csrfToken: string;
  /** When it ends at the latest. */
  expires: string;
}

const digestOf = (token: string) => hash('sha256', token, 'hex');

/** The session's CSRF token: a digest of its token under a label of its own, so that neither gives the other. */
const csrfTokenOf = (token: string) => hash('sha256', `workspace console csrf\0${token}`, 'base64url').slice(0, 32);

export class ConsoleSessions {
  constructor(
    private readonly store: Pick<Store, 'consoleSessions' | 'apiKeys'>,
    readonly timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session for `key` (just authenticated by its secret); the sessions that have ended go. */
  async begin(key: ApiKeyRecord): Promise<LiveSession> {
    const now = this.now();
    await this.store.consoleSessions.prune(new Date(now).toISOString(), new Date(now - this.timeouts.idleMs).toISOString());
    const token = randomBytes(32).toString('base64url');
    const latest = now + this.timeouts.absoluteMs;
    const expires = new Date(key.expires === null ? latest : Math.min(latest, Date.parse(key.expires))).toISOString();
    const created = new Date(now).toISOString();
    await this.store.consoleSessions.create({ tokenDigest: digestOf(token), apiKey: key.api_key, created, lastSeen: created, expires });
    return { token, key, csrfToken: csrfTokenOf(token), expires };
  }

  /** The session `token` names, if it has not ended; notes the request under it. */
  async resume(token: string): Promise<LiveSession | undefined> {
    const now = this.now();
    const tokenDigest = digestOf(token);
    const stored = await this.store.consoleSessions.find(tokenDigest);
    if (!stored || Date.parse(stored.expires) <= now || Date.parse(stored.lastSeen) + this.timeouts.idleMs <= now) return undefined;
    const key = await this.store.apiKeys.find(stored.apiKey);
    if (!key || !isActiveKey(key, new Date(now))) return undefined;
    if (Date.parse(stored.lastSeen) <= now - SEEN_PRECISION_MS) {
      await this.store.consoleSessions.touch(tokenDigest, new Date(now).toISOString(), new Date(now - SEEN_PRECISION_MS).toISOString());
    }
    return { token, key, csrfToken: csrfTokenOf(token), expires: stored.expires };
  }

  /** Whether `sent` is the session's CSRF token, compared in constant time. */
  csrfMatches(session: LiveSession, sent: string | undefined): boolean {
    const expected = Buffer.from(session.csrfToken);
    const given = Buffer.from(sent ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async end(session: LiveSession): Promise<void> {
    await this.store.consoleSessions.delete(digestOf(session.token));
  }
}

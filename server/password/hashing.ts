/**
 * argon2id with OWASP's minimum parameters (m = 19 MiB, t = 2, p = 1).
 * @node-rs/argon2 runs each hash on libuv's thread pool, off the event loop;
 * and at most half the cores hash at once, so that a burst of password changes
 * leaves the event loop a core for every other request (BENCHMARKS.md, (d)).
 */
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import pLimit from 'p-limit';

/** The package declares Algorithm as a const enum, which isolated modules cannot read; 2 is Algorithm.Argon2id. */
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MAX_CONCURRENT_HASHES = Math.max(1, Math.floor(availableParallelism() / 2));
const hashing = pLimit(MAX_CONCURRENT_HASHES);

/** Hashes running now, and waiting for a turn: for metrics. */
export function hashingLoad(): { active: number; pending: number } {
  return { active: hashing.activeCount, pending: hashing.pendingCount };
}

export function hashPassword(password: string): Promise<string> {
  return hashing(() => hash(password, OPTIONS));
}

/** Whether `password` is the one `passwordHash` was made from; on the same thread pool, under the same limit, as hashing. */
export function isPasswordOf(passwordHash: string, password: string): Promise<boolean> {
  return hashing(() => verify(passwordHash, password));
}

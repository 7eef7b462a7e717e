/**
 * argon2id with OWASP's minimum parameters (m = 19 MiB, t = 2, p = 1).
 * @node-rs/argon2 runs each hash on libuv's thread pool, so a burst of password
 * changes does not stall the event loop for other requests.
 */
import { hash, verify } from '@node-rs/argon2';

/** The package declares Algorithm as a const enum, which isolated modules cannot read; 2 is Algorithm.Argon2id. */
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password);
}

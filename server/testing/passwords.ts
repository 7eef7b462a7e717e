/** Whether a stored hash is of a password: the service only ever hashes, so only tests verify. */
import { verify } from '@node-rs/argon2';

export const verifyPassword = (passwordHash: string, password: string): Promise<boolean> => verify(passwordHash, password);

/** The directory's identifiers: how a new one is made, and the one form every id is kept and answered in. */
import { randomBytes } from 'node:crypto';

/** A new user's or group's id: 128 random bits as 32 lower-case hexadecimal digits. */
export const newId = (): string => randomBytes(16).toString('hex');

/**
 * An id as a request may send it (the contracts' UserIdAccepted and GroupIdAccepted: 32
 * hexadecimal digits or the dashed UUID form, either case), in the one form the store keeps
 * and answers give.
 */
export const canonicalId = (id: string): string => id.replaceAll('-', '').toLowerCase();

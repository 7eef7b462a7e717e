/** A write that may meet a taken unique name (a username, a group name), answered with the operation's own 409. */
import type { ServiceError } from '../service-errors.js';
import { NameTakenError } from '../store/records.js';

export async function answeringTakenName<T>(write: () => Promise<T>, taken: () => ServiceError): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof NameTakenError) throw taken();
    throw error;
  }
}

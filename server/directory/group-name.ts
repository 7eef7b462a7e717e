/**
 * A group's name, as every door takes it: the group-name profile
 * (server/username/group-name.ts) prepares it and says what is wrong with it.
 * The store keeps its comparison form beside it, unique: a look-alike of an
 * existing group's name is taken.
 */
import { enforceGroupName } from '../username/group-name.js';
import { refuse } from './errors.js';

export { GROUP_NAME_MAX_LENGTH } from '../username/group-name.js';

/** The stored form of a group's name, or a refusal saying what is wrong with it. */
export function acceptedGroupName(input: string): string {
  const verdict = enforceGroupName(input);
  return verdict.ok ? verdict.name : refuse({ kind: 'invalid_group_name', reason: verdict.reason });
}

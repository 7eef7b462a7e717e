/**
 * A group's name, as every door takes it: surrounding whitespace removed, then
 * 1 to 255 characters (as a person counts them, by code point), not blank, no
 * U+0000 (the workspace contract's GroupName says the same to its clients).
 */
import { refuse } from './errors.js';

export const GROUP_NAME_MAX_LENGTH = 255;

/** The stored form of a group's name, or a refusal saying what is wrong with it. */
export function acceptedGroupName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') return refuse({ kind: 'invalid_group_name', reason: 'must not be blank' });
  if (trimmed.includes('\u0000')) return refuse({ kind: 'invalid_group_name', reason: 'must not contain U+0000 (NUL)' });
  if ([...trimmed].length > GROUP_NAME_MAX_LENGTH) {
    return refuse({ kind: 'invalid_group_name', reason: `must be at most ${GROUP_NAME_MAX_LENGTH} characters` });
  }
  return trimmed;
}

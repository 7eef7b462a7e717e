/**
 * The group-name profile: the username profile's rules where they apply to a name
 * people write with spaces ("All Users"), and its comparison for telling names apart.
 *
 * Preparation: surrounding whitespace removed; every space separator (the no-break
 * spaces U+00A0, U+2007, U+202F, the ideographic space, the en and em spaces …) folded
 * to an ordinary space, since a name copied from a document often carries one; then
 * Unicode Normalization Form C.
 *
 * Enforcement then refuses, each with a message that says why: control characters (tabs
 * and line breaks included), invisible formatting characters (zero-width spaces and
 * joiners, bidirectional overrides and isolates, soft hyphens), every other
 * Default_Ignorable_Code_Point, line and paragraph separators, private-use, unassigned
 * and surrogate code points; more than 255 characters; a blank name.
 *
 * Two names are the same group's when their comparison forms are equal: the username
 * profile's preparation (width, case, NFC; server/username/profile.ts) of the prepared
 * name. So `All Users`, `all users`, `ＡＬＬ ＵＳＥＲＳ` and `All\u00a0Users` are one name.
 */
import { prepareUsername } from './profile.js';

export const GROUP_NAME_MAX_LENGTH = 255;

export type GroupNameVerdict = { ok: true; name: string } | { ok: false; reason: string };

const SPACE_SEPARATORS = /\p{Zs}/gu;

/** `U+202E`: how a refused character is named, never printed itself (it may be a control or an override). */
const codePoint = (char: string) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** The prepared form of a name: trimmed, its spaces ordinary ones, in NFC. */
export const prepareGroupName = (input: string): string => input.trim().replace(SPACE_SEPARATORS, ' ').normalize('NFC');

/** The form two names are compared in: equal forms are one name (a look-alike of an existing group is refused). */
export const groupNameKey = (name: string): string => prepareUsername(prepareGroupName(name));

function characterProblem(char: string): string | undefined {
  if (/^\p{Cc}$/u.test(char)) return `must not contain control characters such as tabs or line breaks (${codePoint(char)})`;
  if (/^\p{Cf}$/u.test(char)) {
    return `must not contain invisible formatting characters such as zero-width spaces or direction overrides (${codePoint(char)})`;
  }
  if (/^\p{Default_Ignorable_Code_Point}$/u.test(char)) return `must not contain invisible characters (${codePoint(char)})`;
  if (/^[\p{Zl}\p{Zp}]$/u.test(char)) return `must not contain line or paragraph separators (${codePoint(char)})`;
  if (/^[\p{Co}\p{Cn}\p{Cs}]$/u.test(char)) return `must not contain private-use, unassigned or surrogate code points (${codePoint(char)})`;
  return undefined;
}

/** Prepares a group name and checks it against the profile: the stored form, or why it is refused. */
export function enforceGroupName(input: string): GroupNameVerdict {
  const name = prepareGroupName(input);
  const chars = [...name];
  if (chars.length === 0) return { ok: false, reason: 'must not be blank' };
  if (chars.length > GROUP_NAME_MAX_LENGTH) return { ok: false, reason: `must be at most ${GROUP_NAME_MAX_LENGTH} characters` };
  for (const char of chars) {
    const problem = characterProblem(char);
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true, name };
}

/**
 * Commonly used and breached passwords, offline: the common-passwords
 * dictionary of zxcvbn-ts (`@zxcvbn-ts/language-common`, MIT; 49,233
 * passwords, most common first), the list its strength estimate is built on
 * (docs/decisions.md, 37). NIST SP 800-63B-4 (3.1.1.2) asks that a new
 * password be compared against such a list; a list of tens of thousands is
 * what it counts as enough, since a longer one mostly adds passwords that no
 * attacker tries first.
 *
 * A password is compared whole, after NFKC and case folding, then with the
 * digits and symbols around it taken off (`Password1!` is "password"), then
 * with the common substitutions read back (`P@ssw0rd123` is "password").
 */
import { dictionary } from '@zxcvbn-ts/language-common';
import { normalized } from '../../lib/password-rules.js';

const COMMON = new Set(dictionary['passwords-common']);

/** The usual stand-ins for letters, read back. */
const SUBSTITUTIONS: Record<string, string> = { '@': 'a', '4': 'a', '0': 'o', '1': 'i', '!': 'i', '3': 'e', $: 's', '5': 's', '7': 't' };
const readBack = (text: string) => text.replace(/[@40!135$7]/g, (character) => SUBSTITUTIONS[character] ?? character);

/** Leading and trailing characters that are not letters: the digits and symbols a policy makes people add. */
const trimmed = (text: string) => text.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');

export function isCommonPassword(password: string): boolean {
  const whole = normalized(password);
  const core = trimmed(whole);
  return [whole, core, readBack(core), readBack(whole)].some((candidate) => COMMON.has(candidate));
}

/**
 * The password policy: the composition rules of docs/spec §8, with the
 * 128-character ceiling of docs/architecture.md, and the screening NIST SP
 * 800-63B-4 (3.1.1.2) asks of a verifier: no commonly used or breached
 * password (common-passwords.ts), and no word of the user's or the service's
 * context. The contract states the composition rules as minLength, maxLength
 * and one pattern (for Prism and SDK users); policy.test.ts proves both agree.
 * This module exists for what a pattern cannot do: name every rule broken,
 * count the minimum in characters as a person sees them (grapheme clusters:
 * `aA1!` with four combining accents is four, not eight), and screen.
 */
import { COMPOSITION, contextRules, type PasswordContext, type Rule } from '../../lib/password-rules.js';
import { isCommonPassword } from './common-passwords.js';

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, type PasswordContext } from '../../lib/password-rules.js';

/** The screening, given the user's context: the list of commonly used passwords, then the context's words. */
const screening = (context: PasswordContext): readonly Rule[] => [
  { kind: 'other', wording: 'not be a commonly used password', isMetBy: (p) => !isCommonPassword(p) },
  ...contextRules(context),
];

function joinWithAnd(parts: string[]): string {
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** What breaks the composition rules alone, as passwordPolicyViolation words it: the contract's pattern states these. */
export function compositionViolation(password: string): string | undefined {
  return violationOf(password, COMPOSITION);
}

/**
 * What the password must still do, as one phrase that names every broken rule
 * ("contain at least one digit and not be a commonly used password"), or
 * undefined when the password meets the policy. The context, when known (the
 * user's username, stored or new, and names), is screened against.
 */
export function passwordPolicyViolation(password: string, context: PasswordContext = {}): string | undefined {
  return violationOf(password, [...COMPOSITION, ...screening(context)]);
}

function violationOf(password: string, rules: readonly Rule[]): string | undefined {
  const broken = rules.filter((rule) => !rule.isMetBy(password));
  if (broken.length === 0) return undefined;
  const wordings = (kind: Rule['kind']) => broken.filter((rule) => rule.kind === kind).map((rule) => rule.wording);
  const contains = wordings('contains');
  const phrases = [...wordings('length'), ...(contains.length > 0 ? [`contain ${joinWithAnd(contains)}`] : []), ...wordings('other')];
  return `must ${joinWithAnd(phrases)}`;
}

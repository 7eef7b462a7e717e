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
import { isCommonPassword, lettersOf, normalized } from './common-passwords.js';

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 128;

/** What the password is screened against besides the list: the user's own words, where known. */
export interface PasswordContext {
  /** The username the user has, or will have with this change. */
  username?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
}

interface Rule {
  /** How the rule reads after "Password must": a length rule, a kind of character to contain, or another rule. */
  kind: 'length' | 'contains' | 'other';
  wording: string;
  isMetBy(password: string): boolean;
}

/** The service's name (the contract's title), a context word for every user. */
const SERVICE_WORDS = ['workspace'];
/** Shorter words are refused only as the whole password: "Ada" is in "Canada". */
const CONTAINED_FROM = 4;

/** The ceiling counts code points, as JSON Schema does (it bounds what is stored). */
const length = (password: string) => [...password].length;

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** The minimum counts what a person sees: a letter with its combining accents is one character. */
const visibleLength = (password: string) => {
  let count = 0;
  for (const _ of GRAPHEMES.segment(password)) count++;
  return count;
};

/** The rules the contract's pattern states too. */
const COMPOSITION: readonly Rule[] = [
  {
    kind: 'length',
    wording: `be at least ${MIN_PASSWORD_LENGTH} characters long`,
    isMetBy: (p) => visibleLength(p) >= MIN_PASSWORD_LENGTH,
  },
  { kind: 'length', wording: `be at most ${MAX_PASSWORD_LENGTH} characters long`, isMetBy: (p) => length(p) <= MAX_PASSWORD_LENGTH },
  { kind: 'contains', wording: 'at least one uppercase letter', isMetBy: (p) => /[A-Z]/.test(p) },
  { kind: 'contains', wording: 'at least one lowercase letter', isMetBy: (p) => /[a-z]/.test(p) },
  { kind: 'contains', wording: 'at least one digit', isMetBy: (p) => /[0-9]/.test(p) },
  { kind: 'contains', wording: 'at least one special character (such as ! @ # $)', isMetBy: (p) => /[^A-Za-z0-9]/.test(p) },
];

/**
 * Whether the password, as its letters alone (case, width and everything but letters aside),
 * is a context word or holds one: `Lovelace1815!` holds "lovelace".
 */
function holdsWord(password: string, word: string | undefined): boolean {
  if (word === undefined) return false;
  const letters = lettersOf(password);
  const wordLetters = lettersOf(word);
  if (wordLetters.length === 0) return false;
  return letters === wordLetters || (wordLetters.length >= CONTAINED_FROM && letters.includes(wordLetters));
}

/** The username's words: the whole, its local part (before "@"), and the local part's words (`ada.lovelace`: "ada", "lovelace"). */
function usernameWords(username: string | undefined): string[] {
  if (username === undefined) return [];
  const local = username.includes('@') ? username.slice(0, username.lastIndexOf('@')) : username;
  return [username, local, ...normalized(local).split(/\P{L}+/u)];
}

/** The screening, given the user's context. */
const screening = ({ username, firstName, lastName }: PasswordContext): readonly Rule[] => [
  { kind: 'other', wording: 'not be a commonly used password', isMetBy: (p) => !isCommonPassword(p) },
  {
    kind: 'other',
    wording: 'not contain the username',
    isMetBy: (p) => !usernameWords(username).some((word) => holdsWord(p, word)) && !(username && normalized(p) === normalized(username)),
  },
  { kind: 'other', wording: 'not contain the first name', isMetBy: (p) => !holdsWord(p, firstName) },
  { kind: 'other', wording: 'not contain the last name', isMetBy: (p) => !holdsWord(p, lastName) },
  { kind: 'other', wording: "not contain the service's name", isMetBy: (p) => !SERVICE_WORDS.some((word) => holdsWord(p, word)) },
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

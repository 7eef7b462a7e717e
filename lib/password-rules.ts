/**
 * The password policy's rules that need no list, in the words every answer
 * uses: the composition rules of docs/spec §8 with the 128-character ceiling,
 * and no word of the user's or the service's context (NIST SP 800-63B-4,
 * 3.1.1.2). One home for the service (server/password/policy.ts, which adds
 * the list of commonly used passwords) and the web console, which shows each
 * rule met or not as a person types: the same rules, not a copy.
 */

/** Case and width aside: NFKC, then case folded (lower case, which the list of common passwords uses). */
export const normalized = (text: string) => text.normalize('NFKC').toLowerCase();

/** The letters of a text alone, normalized: what is left of a password less its digits and symbols. */
export const lettersOf = (text: string) => normalized(text).replace(/\P{L}/gu, '');

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 128;

/** What the password is screened against besides the list: the user's own words, where known. */
export interface PasswordContext {
  /** The username the user has, or will have with this change. */
  username?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
}

export interface Rule {
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
export const COMPOSITION: readonly Rule[] = [
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

/** The rules of the user's context: no word of the username, the names or the service's name. */
export const contextRules = ({ username, firstName, lastName }: PasswordContext): readonly Rule[] => [
  {
    kind: 'other',
    wording: 'not contain the username',
    isMetBy: (p) => !usernameWords(username).some((word) => holdsWord(p, word)) && !(username && normalized(p) === normalized(username)),
  },
  { kind: 'other', wording: 'not contain the first name', isMetBy: (p) => !holdsWord(p, firstName) },
  { kind: 'other', wording: 'not contain the last name', isMetBy: (p) => !holdsWord(p, lastName) },
  { kind: 'other', wording: "not contain the service's name", isMetBy: (p) => !SERVICE_WORDS.some((word) => holdsWord(p, word)) },
];

/** Each rule as a person reads it ("Password must …"), and whether the password meets it: what the console shows as one types. */
export const ruleStates = (password: string, rules: readonly Rule[]) =>
  rules.map((rule) => ({ wording: rule.wording, met: rule.isMetBy(password) }));

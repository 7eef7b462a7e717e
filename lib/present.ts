/**
 * A value the code has reason to hold (the last of a page it just read, a
 * capture group its pattern always makes), checked: if it is missing after
 * all, the error says which, instead of an undefined travelling on.
 */
export function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`internal: ${what} is missing`);
  return value;
}

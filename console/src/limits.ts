/**
 * The lengths the contract allows each field the console edits, put in the bundle by
 * console/build.mjs from the bundled contract: the forms check them as a person types.
 */
interface Lengths {
  minLength: number;
  maxLength: number;
}

declare const CONTRACT_LIMITS: Record<
  | 'apiKey'
  | 'apiKeySecret'
  | 'apiKeyName'
  | 'username'
  | 'profileText'
  | 'phone'
  | 'password'
  | 'groupName'
  | 'search'
  | 'webhookUrl'
  | 'webhookDescription',
  Lengths
>;

export const LIMITS = CONTRACT_LIMITS;

/** The attributes of an input that hold it to the contract's lengths. */
export const lengthsOf = ({ minLength, maxLength }: Lengths) => ({ ...(minLength > 0 ? { minLength } : {}), maxLength });

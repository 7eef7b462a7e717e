/**
 * Identifiers as requests may send them (the contract's UserIdAccepted and
 * GroupIdAccepted: 32 hexadecimal digits or the dashed UUID form, either
 * case), in the one form the store keeps and answers give.
 */
export const canonicalId = (id: string): string => id.replaceAll('-', '').toLowerCase();

import type { ChangeAuthor } from '../store/records.js';

/** Changes a test makes to set the scene, past the API: audited under this name. */
export const TEST_SETUP: ChangeAuthor = { actor: 'test-setup', requestId: null, protocol: null };

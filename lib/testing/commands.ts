/**
 * The compiled entry points, as `npm start`, `npm run admin` and `npm run cli`
 * run them (each package's build, `npm run build`). scripts/run-tests.ts builds
 * before the integration and system tiers, and `npm run contract` before the
 * gate, so these are the sources as they are.
 */
export const SERVICE_COMMAND = 'server/dist/server/main.js';
export const SAMPLE_COMMAND = 'server/dist/server/sample/main.js';
export const ADMIN_COMMAND = 'server/dist/server/admin/main.js';
export const CLI_COMMAND = 'cli/dist/cli/main.js';

/**
 * The service as `npm start` builds it, run under tsx, in one of three
 * variants (BENCH_VARIANT): `as-served`, `no-validation` (requests not
 * validated against the contract) or `no-audit` (no audit events written).
 * The benchmark runs update_user against each to show what validation and the
 * audit trail cost, all three alike under tsx so that only the variant differs.
 * Never a way to serve.
 */
import { createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { serve } from '../../server/http/lifecycle.js';
import { createLogger } from '../../server/logger.js';
import { openStore } from '../../server/store/open-store.js';

const variant = process.env.BENCH_VARIANT ?? 'as-served';
if (!['as-served', 'no-validation', 'no-audit'].includes(variant)) throw new Error(`unknown BENCH_VARIANT ${variant}`);
const config = loadConfig();
const logger = createLogger(config.logLevel);
const store = await openStore(config.databaseUrl, { auditTrail: variant !== 'no-audit' });
const app = createApp({
  store,
  logger,
  validateResponses: false,
  validateRequests: variant !== 'no-validation',
  authThrottle: config.authThrottle,
});
serve(app, {
  name: `workspace service, ${variant} (benchmark only)`,
  host: config.host,
  port: config.port,
  logger,
  onClose: () => store.close(),
});

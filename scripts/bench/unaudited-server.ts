/**
 * The service exactly as `npm start` builds it, but writing no audit events:
 * the benchmark runs update_user against both to show what the audit trail
 * costs. Never a way to serve.
 */
import { createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { serve } from '../../server/http/lifecycle.js';
import { createLogger } from '../../server/logger.js';
import { openStore } from '../../server/store/open-store.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const store = await openStore(config.databaseUrl, { auditTrail: false });
const app = createApp({ store, logger, validateResponses: false, authThrottle: config.authThrottle });
serve(app, {
  name: 'workspace service without its audit trail (benchmark only)',
  host: config.host,
  port: config.port,
  logger,
  onClose: () => store.close(),
});

/**
 * The service exactly as `npm start` builds it, but without request
 * validation: the benchmark runs update_user against both to show what
 * validating every request against the contract costs. Never a way to serve.
 */
import { createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { serve } from '../../server/http/lifecycle.js';
import { createLogger } from '../../server/logger.js';
import { openStore } from '../../server/store/open-store.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const store = await openStore(config.databaseUrl);
const app = createApp({ store, logger, validateResponses: false, validateRequests: false, authThrottle: config.authThrottle });
serve(app, {
  name: 'unvalidated workspace service (benchmark only)',
  host: config.host,
  port: config.port,
  logger,
  onClose: () => store.close(),
});

/** Starts the sample data server: `npm run sample` (127.0.0.1:5001 unless HOST or PORT say otherwise). */
import { ConfigError, loadSampleConfig } from '../config.js';
import { serve } from '../http/lifecycle.js';
import { createLogger } from '../logger.js';
import { createSampleApp } from './app.js';
import { leaveUnlessSupportedNode } from '../../lib/supported-node.js';

// First, before anything can fail on a Node this does not run on.
leaveUnlessSupportedNode((code) => process.exit(code));

try {
  const config = loadSampleConfig();
  const logger = createLogger(config.logLevel);
  serve(createSampleApp({ logger, validateResponses: config.validateResponses }), {
    name: 'sample data server',
    host: config.host,
    port: config.port,
    connections: config.connections,
    logger,
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`sample data server: cannot start: ${error.message}\n`);
  process.exit(1);
}
